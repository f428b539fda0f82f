"""The Host check: every HTTP route and the websocket upgrade answer only to a name the sidecar is
known by (a DNS-rebinding page names its own host, which is refused).

Served: a loopback name (127.0.0.1, localhost, [::1]), the hosts named with `--allow-host`, and the
address literal the connection came in on (`--host 0.0.0.0`: a LAN player's browser names this
computer's own address; a literal cannot rebind, only a name can); any other `Host` gets 403.
Off loopback the status page also asks for the token (`?token=` or `Authorization: Bearer`).
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


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An IP address literal (an IPv4-mapped IPv6 one as its IPv4; a zone id dropped), else None."""
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def host_allowed(header: str | None, allowed: tuple[str, ...], local: str | None = None) -> bool:
    """Whether a request naming this `Host` is served: a loopback name, one of `allowed`, or the
    literal of `local`, the address of this computer the connection came in on."""
    if not header:
        return False
    name = host_name(header)
    if name in LOOPBACK_NAMES or name in {host_name(a) for a in allowed}:
        return True
    literal = _address(name)
    return literal is not None and local is not None and literal == _address(local)


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
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        local = str(sockname[0]) if isinstance(sockname, tuple) and sockname else None
        if not host_allowed(header, allowed, local):
            log.warning("refused a request for host %r from %s", header, request.remote)
            raise web.HTTPForbidden(
                text=f"host {header!r} is not served; start the sidecar with --allow-host to name it "
                "(this computer's own address is served as it is)\n"
            )
        return await handler(request)

    return check_host
