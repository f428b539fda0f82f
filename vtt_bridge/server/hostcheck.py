"""The Host check: every HTTP route and the websocket upgrade answer only to a name the sidecar is
known by (a DNS-rebinding page names its own host, which is refused).

Served: a loopback name (127.0.0.1, localhost, [::1]) and the hosts named with `--allow-host`; any
other `Host` gets 403. Off loopback the status page also asks for the token (`?token=` or
`Authorization: Bearer`).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

log = logging.getLogger("vtt_bridge")

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def host_name(header: str) -> str:
    """The name in a `Host` header, without its port, brackets or trailing dot, lowercased."""
    value = header.strip().lower()
    if value.startswith("["):
        name = value[1 : value.find("]")] if "]" in value else value[1:]
    else:
        name = value.rsplit(":", 1)[0] if value.count(":") == 1 else value
    return name.rstrip(".")


def host_allowed(header: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a request naming this `Host` is served: a loopback name or one of `allowed`."""
    if not header:
        return False
    name = host_name(header)
    return name in LOOPBACK_NAMES or name in {host_name(a) for a in allowed}


def is_loopback(address: str) -> bool:
    """Whether the address the sidecar binds is a loopback one (only this computer can connect)."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def token_given(request: web.Request, token: str) -> bool:
    """Whether a request carries the token (`?token=` or `Authorization: Bearer <token>`)."""
    given = request.query.get("token", "")
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        given = auth[7:].strip()
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())


RequestHandler = Callable[[web.Request], Awaitable[web.StreamResponse]]
"""An aiohttp request handler (what a middleware wraps); `actions.Handler` is a ruling's."""


def middleware(allowed: tuple[str, ...]) -> Middleware:
    """An aiohttp middleware refusing (403) any request whose `Host` is not served."""

    @web.middleware
    async def check_host(request: web.Request, handler: RequestHandler) -> web.StreamResponse:
        header = request.headers.get("Host")
        if not host_allowed(header, allowed):
            log.warning("refused a request for host %r from %s", header, request.remote)
            raise web.HTTPForbidden(
                text=f"host {header!r} is not served; start the sidecar with --allow-host to name it\n"
            )
        return await handler(request)

    return check_host
