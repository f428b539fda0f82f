"""The websocket endpoint on the bridge: who may reach the sidecar, the frames it takes, one reply per
message.

Who may reach it: every HTTP route and the websocket upgrade answer only to a name the sidecar is
known by (the Host check, `middleware`: a DNS-rebinding page names its own host, which is refused);
a browser page only from an allowed origin (`origin_allowed`); off loopback the status page asks
for the token (`token_given`). A frame is bounded in size and depth (`too_deep`) and parsed as a
protocol v1 envelope before anything reads it; until `welcome` only a good `hello` is taken.

One event loop owns every world. A request is validated, ruled on (pure code in `engine/world.py`),
written to the store, and only then committed and acknowledged; a request that fails at any step
changes nothing. Every message gets exactly one reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeGuard

import orjson
from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.typedefs import Middleware
from pydantic import ValidationError

from vtt_bridge import __version__
from vtt_bridge.engine.protocol import (
    CLIENT_TYPES,
    ErrorCode,
    ErrorDetail,
    Hello,
    error_details,
)
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.server.bridge import BRIDGE, Bridge, Client
from vtt_bridge.server.commit import dumps, envelope, rule
from vtt_bridge.server.framecap import DeflateResponse, raise_frame_cap
from vtt_bridge.server.hello import version_mismatch
from vtt_bridge.server.outbox import Outbox
from vtt_bridge.server.queries import answer_query
from vtt_bridge.server.sync import drop_sync_parts, merge_sync_part

log = logging.getLogger("vtt_bridge")


CLOSE_UNAUTHORIZED = 4401
"""Close code after a failed `hello` (PROTOCOL.md)."""


CLOSE_TOO_SLOW = 4429
"""Close code of a client whose outgoing queue is full: it does not read what it is sent."""


# ---- who may reach the sidecar ----------------------------------------------------------------

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


def origin_allowed(origin: str, patterns: tuple[str, ...]) -> bool:
    """Whether a browser `Origin` matches one pattern; `scheme://host:*` allows any port (or none).
    A pattern is an origin (`cli/startup.py`, `browser_origin`): `*` matches nothing, never every origin."""
    origin = origin.rstrip("/").lower()
    for pattern in patterns:
        pattern = pattern.rstrip("/").lower()
        if origin == pattern:
            return True
        if pattern.endswith(":*"):
            base = pattern[:-2]
            if origin == base:
                return True
            port = origin[len(base) + 1 :]
            if origin.startswith(base + ":") and port.isascii() and port.isdigit():
                return True
    return False


def same_origin(origin: str, request: web.Request) -> bool:
    """Whether a browser `Origin` is this server's own (the status page's, whose Undo button talks to
    `/ws`): the scheme and `Host` the request came with. The Host check has already refused any
    name the sidecar is not known by, so a rebound host name never gets here."""
    host = request.headers.get("Host", "")
    return bool(host) and origin.rstrip("/").lower() == f"{request.scheme}://{host}".lower()


async def _send(client: Client, text: str) -> None:
    client.send(text)


async def _error(bridge: Bridge, client: Client, error: RequestError, re: str | None) -> None:
    client.send(envelope("error", dumps(error.payload()), bridge.next_id(), re))


async def close_client(client: Client, code: int, message: bytes) -> None:
    """Close a connection once what is queued to it is written (at most a second), or at once when
    its peer does not read: a frozen socket (its queue overflowed, or bytes still unread after the
    close) is aborted, never waited on."""
    client.closing.set()
    if client.outbox is not None and not client.outbox.overflowed:
        await client.outbox.flush(1.0)
    if client.outbox is not None:
        client.outbox.close()
    with contextlib.suppress(TimeoutError, ConnectionResetError, RuntimeError):
        await asyncio.wait_for(client.ws.close(code=code, message=message), 1.0)
    frozen = client.outbox is not None and client.outbox.overflowed
    transport = client.transport
    # a peer that stopped reading leaves bytes in the transport, which closing would wait to flush
    if transport is not None and (frozen or not client.ws.closed or transport.get_write_buffer_size()):
        transport.abort()


def _rate_ok(bridge: Bridge, client: Client) -> bool:
    """A token bucket per connection: `rate_burst` at once, `rate_limit` per second on average."""
    now = time.monotonic()
    cfg = bridge.config
    client.tokens = min(cfg.rate_burst, client.tokens + (now - client.stamp) * cfg.rate_limit)
    client.stamp = now
    if client.tokens < 1.0:
        return False
    client.tokens -= 1.0
    return True


# ---- the frames it takes ----------------------------------------------------------------------

_ESCAPED = (b"\\\\", b'\\"')
"""The escapes that could hide a quote, removed in this order (a pair of backslashes first, so that
the backslash of an escaped backslash never escapes the quote after it)."""

_KEPT = bytes(sorted(set(range(256)) - set(b'"{}[]')))
"""Every byte but quotes and brackets (deleted: what is left is the text's structure)."""

_STRING = re.compile(rb'"[^"]*"')
_BRACKETS = bytes.maketrans(b"[]", b"{}")


def too_deep(text: str, limit: int) -> bool:
    """Whether JSON text nests objects and arrays more than `limit` deep (without walking a parsed
    value: a deeply nested one would exhaust the recursion of the code that walks it). Exact for
    valid JSON (the server parses a frame first); a frame with no more brackets than `limit` is
    answered at once (a ruling's request has a handful).

    Each step runs over the whole text in one call (bytes' replace and translate), so a sync part of
    a megabyte costs a few milliseconds on the event loop: escapes that could hide a quote are
    dropped, then every byte but quotes and brackets; adjacent quotes are dropped in pairs (an empty
    string, or the end of one string and the start of the next with no bracket between: the quotes
    left still alternate opening and closing), then the strings left (those that hold a bracket);
    the brackets, all of one kind, then lose their innermost level once per step."""
    if text.count("{") + text.count("[") <= limit:
        return False
    data = text.encode()
    for escape in _ESCAPED:
        data = data.replace(escape, b"")
    structure = _STRING.sub(b"", data.translate(None, _KEPT).replace(b'""', b""))
    brackets = structure.translate(_BRACKETS)
    for _ in range(limit):
        inner = brackets.replace(b"{}", b"")
        if len(inner) == len(brackets):
            return False
        brackets = inner
    return bool(brackets)


def _no_constants(name: str) -> Any:
    """JSON has no NaN or Infinity (Python's parser would accept them)."""
    raise ValueError(f"{name} is not JSON")


ENVELOPE_FIELDS = frozenset(("v", "id", "type", "payload", "re"))


_DECODER = json.JSONDecoder(parse_constant=_no_constants)
"""One decoder for every frame (`json.loads` with a hook would build a new one each time)."""

_DIGITS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
"""A translation of UTF-8 making each digit `0` and every other byte a space (`_decoded`)."""

_LONG_RUN = b"0" * 19
"""A run of digits orjson may read otherwise than Python's parser: an integer past 64 bits (orjson
makes it a float), or a number with that many digits."""


def _decoded(text: str) -> Any:
    """A frame's JSON value, as Python's parser (`_DECODER`) reads it: orjson's (several times
    faster) when the text holds no run of `_LONG_RUN` digits and orjson reads it at all; else
    `_DECODER`'s, which also decides every text orjson refuses (a lone surrogate, its escape, a
    number past a float's range, NaN, nesting past orjson's bound): the same value or the same
    refusal either way."""
    try:
        data = text.encode()
    except UnicodeEncodeError:  # a lone surrogate
        return _DECODER.decode(text)
    if _LONG_RUN not in data.translate(_DIGITS):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return _DECODER.decode(text)


def _scalars(text: str) -> bool:
    """Whether a string is Unicode scalar values only (no lone surrogate, which JSON's `\\ud800`
    escape can carry and no reply could echo: UTF-8 has no encoding of it)."""
    if text.isascii():
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _good_id(msg_id: Any) -> TypeGuard[str]:
    """An envelope id the server can echo: 1 to 200 Unicode scalar values."""
    return type(msg_id) is str and 0 < len(msg_id) <= 200 and _scalars(msg_id)


def _parse(text: str) -> tuple[str, str, dict[str, Any]]:
    """The envelope's id, type and payload, or `RequestError(bad_request)` (id kept when there is one
    it can be echoed as)."""
    try:
        message = _decoded(text)
    except (ValueError, RecursionError):
        raise RequestError(ErrorCode.BAD_REQUEST, "the frame is not JSON") from None
    if not isinstance(message, dict):
        raise RequestError(ErrorCode.BAD_REQUEST, "a message is a JSON object")
    msg_id = message.get("id")
    type_ = message.get("type")
    payload = message.get("payload", {})
    if (
        _good_id(msg_id)
        and type(type_) is str
        and type_ in CLIENT_TYPES
        and type(payload) is dict
        and message.get("v") == 1
        and type(message["v"]) is int
        and message.keys() <= ENVELOPE_FIELDS
    ):  # the well-formed message, checked in one go
        return msg_id, type_, payload
    re = msg_id if _good_id(msg_id) else None
    problems: list[tuple[list[str | int], str]] = []
    if message.get("v") != 1 or type(message.get("v")) is not int:
        problems.append((["v"], "the protocol version must be 1"))
    if re is None:
        problems.append((["id"], "a string of 1 to 200 Unicode characters (no lone surrogate)"))
    if not isinstance(type_, str):
        problems.append((["type"], "a string"))
    if not isinstance(payload, dict):
        problems.append((["payload"], "an object"))
    unknown = message.keys() - ENVELOPE_FIELDS
    if unknown:
        problems.append(([sorted(unknown)[0]], "not an envelope field (v, id, type, payload, re)"))
    if problems:
        details = [ErrorDetail(path=list(path), message=why) for path, why in problems]
        raise RequestError(ErrorCode.BAD_REQUEST, "not a protocol v1 envelope", details, re=re)
    assert isinstance(type_, str) and re is not None
    if type_ not in CLIENT_TYPES:
        known = ", ".join(sorted(CLIENT_TYPES))
        raise RequestError(ErrorCode.BAD_REQUEST, f"unknown message type {type_!r}; known: {known}", re=re)
    return re, type_, payload


async def _hello(bridge: Bridge, client: Client, msg_id: str, payload: dict[str, Any]) -> bool:
    """Check the token; welcome the client into its world. False: refused (and closed).

    The token is compared at once: a right one is welcomed without waiting, whoever else guesses
    from the same address. Wrong tokens back off per address (`limits.Backoff`): a wrong one waits
    its turn before it is refused (and may be closed meanwhile to free its slot: `_evictable`)."""
    try:
        hello = Hello.model_validate(payload)
    except ValidationError as exc:
        refusal = RequestError(
            ErrorCode.UNAUTHORIZED, "hello needs {token, world, client}", error_details(exc)
        )
        await _error(bridge, client, refusal, msg_id)
        await close_client(client, CLOSE_UNAUTHORIZED, b"unauthorized")
        return False
    if not hmac.compare_digest(hello.token.encode(), bridge.config.token.encode()):
        client.refused = True
        while (wait := bridge.backoff.wait(client.remote)) > 0 and not client.closing.is_set():
            with contextlib.suppress(TimeoutError):  # woken early when the socket is closed
                await asyncio.wait_for(client.closing.wait(), wait)
        if client.ws.closed or client.evicted or client.closing.is_set():
            return False
        bridge.backoff.failed(client.remote)
        await _error(bridge, client, RequestError(ErrorCode.UNAUTHORIZED, "wrong token"), msg_id)
        await close_client(client, CLOSE_UNAUTHORIZED, b"unauthorized")
        log.warning("refused a client from %s: wrong token", client.remote)
        return False
    welcomed = sum(len(clients) for clients in bridge.clients.values())
    if welcomed >= bridge.config.limits.max_clients:
        busy = RequestError(
            ErrorCode.TOO_LARGE,
            f"the sidecar has {welcomed} connections, as many as it takes; close one and connect again",
        )
        await _error(bridge, client, busy, msg_id)
        await close_client(client, WSCloseCode.TRY_AGAIN_LATER, b"too many connections")
        bridge.unauth_log.warn(f"refused a client from {client.remote}: {welcomed} connections already")
        return False
    world = bridge.worlds.get(hello.world)
    if world is None:  # recovered from the store (read on the loop, between the store's other work)
        world = await bridge.in_store(bridge.world, hello.world)
    client.world = world
    client.name = hello.client.name
    client.contests = hello.contests
    _authenticated(bridge, client)
    bridge.clients.setdefault(world.id, set()).add(client)
    bridge.changes += 1
    welcome = {
        "protocol": 1,
        "server": {"name": "vtt-bridge", "version": __version__},
        "world": world.id,
        "rev": world.rev,
        "maxFrame": bridge.config.max_frame,
    }
    await _send(client, envelope("welcome", dumps(welcome), bridge.next_id(), msg_id))
    log.info("client %r joined world %r from %s", client.name, world.id, client.remote)
    mismatch = version_mismatch(hello.client.name, hello.client.version, __version__)
    if mismatch is not None:
        log.warning("%s (client %r, world %r)", mismatch, client.name, world.id)
    return True


def _leave_waiting(bridge: Bridge, client: Client) -> None:
    """The socket no longer waits for its `welcome` (welcomed, evicted or closed): it leaves the
    unauthenticated count, and its deadline is cancelled."""
    if client.unauthenticated:
        client.unauthenticated = False
        bridge.unauthenticated -= 1
        bridge.waiting.pop(client, None)
    if client.hello_timer is not None:
        client.hello_timer.cancel()
        client.hello_timer = None


def _evictable(bridge: Bridge) -> Client | None:
    """The socket a new one takes the place of when `Limits.max_unauthenticated` wait for `welcome`:
    the oldest whose token was wrong (waiting out its back-off), else the oldest that sent nothing
    yet; None when every one is being welcomed (its right token is loading its world). So no number
    of silent or guessing sockets keeps the GM out: its socket is the newest, and its right token is
    welcomed at once."""
    silent = None
    for waiting in bridge.waiting:
        if waiting.refused:
            return waiting
        if silent is None and not waiting.spoke:
            silent = waiting
    return silent


def _evict(bridge: Bridge, client: Client, remote: str) -> None:
    """Close a socket waiting for `welcome` to free its slot for a new one (from `remote`)."""
    _leave_waiting(bridge, client)
    client.evicted = True
    bridge.unauth_log.warn(
        f"{bridge.config.limits.max_unauthenticated} sockets are waiting for hello: closing the oldest "
        f"(from {client.remote}) for a new one (from {remote})"
    )
    asyncio.get_running_loop().create_task(  # not 4401: the module stops reconnecting after that
        close_client(client, WSCloseCode.TRY_AGAIN_LATER, b"too many sockets waiting for hello")
    )


def _authenticated(bridge: Bridge, client: Client) -> None:
    """The socket is welcomed: it leaves the unauthenticated count and may send full-size frames."""
    _leave_waiting(bridge, client)
    if client.request is not None:
        raise_frame_cap(client.request, client.ws, 4 * bridge.config.max_frame)


class FrameTooLarge(RequestError):
    """A frame past the cap: refused, and the connection closed."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.TOO_LARGE, message)


async def _handle(bridge: Bridge, client: Client, text: str) -> bool:
    """One text frame: exactly one reply. False: the connection is to be closed.

    Before `welcome` the first frame that is not a good `hello` closes the connection."""
    re: str | None = None
    try:
        if len(text) > bridge.config.max_frame:
            raise FrameTooLarge(f"a frame is at most {bridge.config.max_frame} bytes")
        msg_id, type_, payload = _parse(text)
        re = msg_id
        depth = bridge.config.limits.max_depth
        if too_deep(text, depth):
            raise RequestError(ErrorCode.INVALID, f"the frame nests objects and arrays deeper than {depth}")
        if not _rate_ok(bridge, client):
            raise RequestError(ErrorCode.RATE_LIMITED, "too many messages; slow down")
        world = client.world
        if world is None:
            if type_ != "hello":
                await _error(bridge, client, RequestError(ErrorCode.UNAUTHORIZED, "send hello first"), re)
                await close_client(client, CLOSE_UNAUTHORIZED, b"unauthorized")
                return False
            return await _hello(bridge, client, msg_id, payload)
        if type_ == "hello":
            raise RequestError(ErrorCode.BAD_REQUEST, "already welcomed")
        if type_ == "query":
            await answer_query(bridge, client, world, msg_id, payload)
            return True
        if type_ == "sync":
            payload = merge_sync_part(bridge, client, payload, len(text))
            if payload.get("more") is True:
                result = {"rev": world.rev, "patch": [], "log": [], "rolls": [], "data": {"buffered": True}}
                client.send(envelope("result", dumps(result), bridge.next_id(), msg_id))
                return True
        lock = bridge.lock(world.id)
        await lock.acquire()  # as `async with` does, without its two coroutines a message
        try:
            await rule(bridge, client, world, msg_id, type_, payload)
        finally:
            lock.release()
        return True
    except RequestError as error:
        await _error(bridge, client, error, re if re is not None else error.re)
        if isinstance(error, FrameTooLarge):
            await close_client(client, WSCloseCode.MESSAGE_TOO_BIG, b"too large")
            return False
        if client.world is None:
            await close_client(client, CLOSE_UNAUTHORIZED, b"unauthorized")
            return False
        return True
    except Exception:
        log.exception("internal error on a %d-byte message", len(text))
        await _error(
            bridge, client, RequestError(ErrorCode.INTERNAL, "internal error; nothing was changed"), re
        )
        return True


async def websocket(request: web.Request) -> web.StreamResponse:
    """`GET /ws`: the protocol endpoint."""
    bridge = request.app[BRIDGE]
    limits = bridge.config.limits
    origin = request.headers.get("Origin")
    foreign = origin is not None and not origin_allowed(origin, bridge.config.origins)
    if origin is not None and foreign and not same_origin(origin, request):
        log.warning("refused a browser page from origin %s", origin)
        raise web.HTTPForbidden(text=f"origin {origin} is not allowed; start the sidecar with --allow-origin")
    if bridge.unauthenticated >= limits.max_unauthenticated:
        victim = _evictable(bridge)
        if victim is None:
            bridge.unauth_log.warn(
                f"refused a socket from {request.remote}: {limits.max_unauthenticated} are being welcomed"
            )
            raise web.HTTPServiceUnavailable(text="too many connections waiting for hello; try again\n")
        _evict(bridge, victim, request.remote or "?")
    # Pings are ours (`_watch`): aiohttp's heartbeat re-arms a timer on every frame received, one
    # more turn of the event loop per request; ours looks once per interval. Until `welcome` a
    # frame is at most `hello_max_frame` bytes (`_authenticated` raises the cap).
    # permessage-deflate for a client that asks (browsers do): a long message goes compressed, a
    # short one as it is (`outbox.DEFLATE_FROM`); each client message inflates on its own.
    ws = DeflateResponse(autoping=False, compress=True, max_msg_size=limits.hello_max_frame)
    stream = await ws.prepare(request)
    client = Client(ws=ws, remote=request.remote or "?", tokens=bridge.config.rate_burst)
    client.request, client.transport = request, request.transport
    client.outbox = Outbox(
        ws,
        limits.outbox_messages,
        limits.outbox_bytes,
        _overflow(bridge, client),
        transport=request.transport,
        stream=stream,
        fragment_bytes=limits.fragment_bytes,
    )
    client.unauthenticated = True
    bridge.unauthenticated += 1
    bridge.waiting[client] = None
    client.hello_timer = asyncio.get_running_loop().call_later(
        limits.hello_timeout, _hello_late, bridge, client
    )
    bridge.sockets.add(client)
    watch = asyncio.create_task(_watch(client, bridge.config.heartbeat)) if bridge.config.heartbeat else None
    try:
        async for msg in ws:
            client.seen = time.monotonic()
            if client.evicted:
                break
            if msg.type == WSMsgType.TEXT:
                client.spoke = True  # before `welcome`: its hello (a ping does not count)
                if not await _handle(bridge, client, msg.data):
                    break
            elif msg.type == WSMsgType.PING:
                await ws.pong(msg.data)
            elif msg.type == WSMsgType.BINARY:
                await _error(bridge, client, RequestError(ErrorCode.BAD_REQUEST, "text frames only"), None)
                if client.world is None:
                    await close_client(client, CLOSE_UNAUTHORIZED, b"unauthorized")
                    break
            elif msg.type == WSMsgType.ERROR:
                log.info("connection from %s ended: %s", client.remote, ws.exception())
                break
    finally:
        if watch is not None:
            watch.cancel()
        _leave_waiting(bridge, client)
        drop_sync_parts(bridge, client)
        client.outbox.close()
        if client.world is not None:
            bridge.clients.get(client.world.id, set()).discard(client)
            bridge.changes += 1
    return ws


def _hello_late(bridge: Bridge, client: Client) -> None:
    """A socket that sent no good `hello` within `Limits.hello_timeout` is closed."""
    client.hello_timer = None
    if client.world is None and not client.ws.closed:
        timeout = bridge.config.limits.hello_timeout
        log.info("closing the connection from %s: no hello within %.0f s", client.remote, timeout)
        asyncio.get_running_loop().create_task(close_client(client, CLOSE_UNAUTHORIZED, b"no hello in time"))


def _overflow(bridge: Bridge, client: Client) -> Callable[[Outbox], Coroutine[Any, Any, None]]:
    async def closing(outbox: Outbox) -> None:
        world = client.world.id if client.world is not None else "-"
        log.warning(
            "closing the connection of %r in world %r from %s: unable to keep up "
            "(%d messages, %d characters waiting)",
            client.name,
            world,
            client.remote,
            len(outbox),
            outbox.queued_bytes,
        )
        await close_client(client, CLOSE_TOO_SLOW, b"unable to keep up")

    return closing


async def _watch(client: Client, interval: float) -> None:
    """Ping a connection that has been silent for `interval` seconds; close it when no frame (its
    pong included) comes in within the next interval: the peer is gone without closing."""
    pinged: float | None = None
    while not client.ws.closed:
        await asyncio.sleep(interval)
        if pinged is not None and client.seen < pinged:
            log.info("closing the connection from %s: no answer to a ping in %.0f s", client.remote, interval)
            await close_client(client, WSCloseCode.GOING_AWAY, b"no answer to ping")
            return
        pinged = None
        now = time.monotonic()
        if now - client.seen >= interval:
            pinged = now
            with contextlib.suppress(ConnectionResetError, RuntimeError, TimeoutError):
                await asyncio.wait_for(client.ws.ping(), interval)
