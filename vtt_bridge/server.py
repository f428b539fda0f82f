"""The aiohttp server: the websocket endpoint, authentication, the envelope, and the store.

One event loop owns every world. A request is validated, ruled on (pure code in `world.py`),
written to the store, and only then committed and acknowledged; a request that fails at any step
changes nothing. Every message gets exactly one reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
import sqlite3
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiohttp import WSCloseCode, WSMsgType, web
from pydantic import BaseModel, ValidationError

from vtt_bridge import __version__
from vtt_bridge.models import settled
from vtt_bridge.module_files import version_mismatch
from vtt_bridge.protocol import CLIENT_TYPES, ErrorCode, ErrorDetail, Hello, error_details
from vtt_bridge.rules.dice import SeededRoller
from vtt_bridge.store import Store
from vtt_bridge.world import RECENT_REPLIES, AnsweredLongAgo, Pending, RequestError, World

log = logging.getLogger("vtt_bridge")

CLOSE_UNAUTHORIZED = 4401
"""Close code after a failed `hello` (PROTOCOL.md)."""

DEFAULT_ORIGINS = ("http://localhost:*", "http://127.0.0.1:*", "https://localhost:*")
"""Browser origins allowed by default (PROTOCOL.md Transport); `--allow-origin` adds more."""


@dataclass(frozen=True)
class Config:
    """What `vtt-bridge serve` runs with."""

    data_dir: Path
    token: str
    host: str = "127.0.0.1"
    port: int = 30500
    allow_origins: tuple[str, ...] = ()
    max_frame: int = 1 << 20
    """The largest text frame a client may send (bytes); larger ones get `too_large`."""
    heartbeat: float = 20.0
    """Seconds of silence before a ping; another such interval without a frame closes the connection."""
    rate_limit: float = 10_000.0
    """Messages per second a connection may send on average."""
    rate_burst: float = 10_000.0
    """Messages a connection may send at once before the rate applies."""
    seed: int | None = None
    """Seed of the engine's own dice (DICE-6); None: seeded from the OS."""
    sync_interval: float = 1.0
    """Seconds between WAL checkpoints (what a power loss can cost at most)."""
    recent_replies: int = RECENT_REPLIES
    """Replies each world keeps in memory for retried action ids (older ones: read from the store)."""
    module_dir: Path | None = None
    """The Foundry module folder `/module.zip` is built from (None: `pages.default_module_dir()`)."""

    @property
    def origins(self) -> tuple[str, ...]:
        """Every allowed browser origin pattern."""
        return DEFAULT_ORIGINS + self.allow_origins


def origin_allowed(origin: str, patterns: tuple[str, ...]) -> bool:
    """Whether a browser `Origin` matches one pattern; `scheme://host:*` allows any port (or none)."""
    origin = origin.rstrip("/").lower()
    for pattern in patterns:
        pattern = pattern.rstrip("/").lower()
        if pattern == "*" or origin == pattern:
            return True
        if pattern.endswith(":*"):
            base = pattern[:-2]
            if origin == base:
                return True
            if origin.startswith(base + ":") and origin[len(base) + 1 :].isdigit():
                return True
    return False


@dataclass(eq=False)
class Client:
    """One websocket connection, and the world it joined once welcomed."""

    ws: web.WebSocketResponse
    remote: str
    world: World | None = None
    name: str = ""
    tokens: float = 0.0
    stamp: float = field(default_factory=time.monotonic)
    sync_parts: dict[str, Any] | None = None
    """The parts of a `sync` sent in several frames (`more: true`), merged so far."""
    sync_bytes: int = 0
    seen: float = field(default_factory=time.monotonic)
    """When the last frame (a pong included) came in: `_watch` pings and drops a silent peer."""


@dataclass
class RulingRecord:
    """A recent ruling, for the status page."""

    world: str
    rev: int
    kind: str
    log: list[dict[str, Any]]
    at: float


class Bridge:
    """The server's state: the store, the worlds, who is connected to which."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store = Store(config.data_dir / "vtt-bridge.sqlite3")
        if self.store.moved:
            log.info("moved the %d rulings of an earlier version's log into this version's", self.store.moved)
        self.worlds: dict[str, World] = {}
        self.clients: dict[str, set[Client]] = {}
        self.sockets: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()
        self.roller = SeededRoller(config.seed)
        self.recent: deque[RulingRecord] = deque(maxlen=50)
        self._ids = itertools.count(1)
        self.dirty = False
        for world_id in self.store.worlds():
            self.world(world_id)

    def next_id(self) -> str:
        """A fresh id for a server-sent message."""
        return f"s{next(self._ids)}"

    def world(self, world_id: str) -> World:
        """The world with this id, recovered from the store the first time it is asked for."""
        world = self.worlds.get(world_id)
        if world is None:
            recovered = self.store.recover(world_id, self.config.recent_replies)
            world = World(
                world_id, recovered.state, recovered.replies, recovered.answered, self.config.recent_replies
            )
            self.worlds[world_id] = world
        return world

    def close(self) -> None:
        """Flush and close the store."""
        try:
            self.store.close()
        except sqlite3.Error as exc:
            log.warning("could not checkpoint the store on shutdown (%s); its WAL keeps every ruling", exc)


BRIDGE = web.AppKey("bridge", Bridge)


def envelope(type_: str, payload_json: str, msg_id: str, re: str | None) -> str:
    """A message as JSON text, its payload already serialized."""
    head = f'{{"v":1,"id":{dumps(msg_id)},'
    if re is not None:
        head += f'"re":{dumps(re)},'
    return f'{head}"type":"{type_}","payload":{payload_json}}}'


def _json_default(value: Any) -> Any:
    """JSON for what a rule put in a step's data beyond plain JSON (a model, a set)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> str:
    """Compact JSON text (orjson: a tenth of the stdlib's time on a ruling's reply)."""
    return orjson.dumps(value, default=_json_default).decode()


async def _send(client: Client, text: str) -> None:
    with contextlib.suppress(ConnectionResetError, RuntimeError):
        await client.ws.send_str(text)


async def _error(bridge: Bridge, client: Client, error: RequestError, re: str | None) -> None:
    await _send(client, envelope("error", dumps(error.payload()), bridge.next_id(), re))


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


def _no_constants(name: str) -> Any:
    """JSON has no NaN or Infinity (Python's parser would accept them)."""
    raise ValueError(f"{name} is not JSON")


ENVELOPE_FIELDS = frozenset(("v", "id", "type", "payload", "re"))

_DECODER = json.JSONDecoder(parse_constant=_no_constants)
"""One decoder for every frame (`json.loads` with a hook would build a new one each time)."""


def _parse(text: str) -> tuple[str, str, dict[str, Any]]:
    """The envelope's id, type and payload, or `RequestError(bad_request)` (id kept when there is one)."""
    try:
        message = _DECODER.decode(text)
    except (ValueError, RecursionError):
        raise RequestError(ErrorCode.BAD_REQUEST, "the frame is not JSON") from None
    if not isinstance(message, dict):
        raise RequestError(ErrorCode.BAD_REQUEST, "a message is a JSON object")
    msg_id = message.get("id")
    type_ = message.get("type")
    payload = message.get("payload", {})
    if (
        type(msg_id) is str
        and 0 < len(msg_id) <= 200
        and type(type_) is str
        and type_ in CLIENT_TYPES
        and type(payload) is dict
        and message.get("v") == 1
        and type(message["v"]) is int
        and message.keys() <= ENVELOPE_FIELDS
    ):
        return msg_id, type_, payload  # the well-formed message, checked in one go
    re = msg_id if isinstance(msg_id, str) and 0 < len(msg_id) <= 200 else None
    problems: list[tuple[list[str | int], str]] = []
    if message.get("v") != 1 or type(message.get("v")) is not int:
        problems.append((["v"], "the protocol version must be 1"))
    if re is None:
        problems.append((["id"], "a string of 1 to 200 characters"))
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
    """Check the token; welcome the client into its world. False: refused (and closed)."""
    try:
        hello = Hello.model_validate(payload)
    except ValidationError as exc:
        refusal = RequestError(
            ErrorCode.UNAUTHORIZED, "hello needs {token, world, client}", error_details(exc)
        )
        await _error(bridge, client, refusal, msg_id)
        await client.ws.close(code=CLOSE_UNAUTHORIZED, message=b"unauthorized")
        return False
    if not hmac.compare_digest(hello.token.encode(), bridge.config.token.encode()):
        await _error(bridge, client, RequestError(ErrorCode.UNAUTHORIZED, "wrong token"), msg_id)
        await client.ws.close(code=CLOSE_UNAUTHORIZED, message=b"unauthorized")
        log.warning("refused a client from %s: wrong token", client.remote)
        return False
    world = bridge.world(hello.world)
    client.world = world
    client.name = hello.client.name
    bridge.clients.setdefault(world.id, set()).add(client)
    welcome = {
        "protocol": 1,
        "server": {"name": "vtt-bridge", "version": __version__},
        "world": world.id,
        "rev": world.rev,
    }
    await _send(client, envelope("welcome", dumps(welcome), bridge.next_id(), msg_id))
    log.info("client %r joined world %r from %s", client.name, world.id, client.remote)
    mismatch = version_mismatch(hello.client.name, hello.client.version, __version__)
    if mismatch is not None:
        log.warning("%s (client %r, world %r)", mismatch, client.name, world.id)
    return True


async def _commit(
    bridge: Bridge, client: Client, world: World, pending: Pending, msg_id: str, kind: str
) -> None:
    """Store the ruling, then commit it, acknowledge it, and push it to the world's other clients."""
    result_json = dumps(pending.result)
    new_rev = pending.result["rev"]
    snapshot = settled(pending.state) if pending.snapshot or bridge.store.wants_snapshot(world.id) else None
    bridge.store.append(world.id, new_rev, pending.action_id, result_json, snapshot)
    bridge.dirty = True
    world.commit(pending, result_json)
    await _send(client, envelope("result", result_json, bridge.next_id(), msg_id))
    bridge.recent.append(RulingRecord(world.id, new_rev, kind, pending.result["log"], time.time()))
    others = [c for c in bridge.clients.get(world.id, ()) if c is not client]
    if others:
        pushed = dumps({"rev": new_rev, "patch": pending.result["patch"], "log": pending.result["log"]})
        for other in others:
            await _send(other, envelope("patch", pushed, bridge.next_id(), None))


MAX_SYNC_BYTES = 64 << 20
"""The largest state a `sync` may send in parts (64 MiB of JSON)."""


def _merge_sync_part(client: Client, payload: dict[str, Any], size: int) -> dict[str, Any]:
    """Merge a `sync` part (`size` bytes of frame) into what the connection sent before; the merged
    payload when it is the last."""
    state = payload.get("state")
    if not isinstance(state, dict):
        client.sync_parts = None
        return payload  # validation reports it
    if client.sync_parts is None and payload.get("more") is not True:
        return payload
    merged = client.sync_parts if client.sync_parts is not None else {"actors": {}, "tokens": {}}
    client.sync_bytes += size
    if client.sync_bytes > MAX_SYNC_BYTES:
        client.sync_parts, client.sync_bytes = None, 0
        raise RequestError(ErrorCode.TOO_LARGE, f"a sync is at most {MAX_SYNC_BYTES} bytes in all its parts")
    for key, value in state.items():
        if key in ("actors", "tokens") and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key].update(value)
        else:
            merged[key] = value
    if payload.get("more") is True:
        client.sync_parts = merged
        return payload
    client.sync_parts, client.sync_bytes = None, 0
    return {**payload, "state": merged}


async def _handle(bridge: Bridge, client: Client, text: str) -> bool:
    """One text frame: exactly one reply. False: the connection is to be closed."""
    re: str | None = None
    try:
        if len(text) > bridge.config.max_frame:
            raise RequestError(ErrorCode.TOO_LARGE, f"a frame is at most {bridge.config.max_frame} bytes")
        msg_id, type_, payload = _parse(text)
        re = msg_id
        if not _rate_ok(bridge, client):
            raise RequestError(ErrorCode.RATE_LIMITED, "too many messages; slow down")
        world = client.world
        if world is None:
            if type_ != "hello":
                await _error(bridge, client, RequestError(ErrorCode.UNAUTHORIZED, "send hello first"), re)
                await client.ws.close(code=CLOSE_UNAUTHORIZED, message=b"unauthorized")
                return False
            return await _hello(bridge, client, msg_id, payload)
        if type_ == "hello":
            raise RequestError(ErrorCode.BAD_REQUEST, "already welcomed")
        if type_ == "query":
            result = world.query(payload)
            await _send(client, envelope("result", dumps(result), bridge.next_id(), re))
            return True
        if type_ == "action":
            try:
                prepared = world.prepare_action(msg_id, payload, bridge.roller)
            except AnsweredLongAgo:
                stored = bridge.store.reply(world.id, msg_id)
                if stored is None:
                    raise
                prepared = stored
            if isinstance(prepared, str):
                await _send(client, envelope("result", prepared, bridge.next_id(), re))
                return True
            await _commit(bridge, client, world, prepared, msg_id, str(payload.get("kind")))
            return True
        if type_ == "sync":
            payload = _merge_sync_part(client, payload, len(text))
            if payload.get("more") is True:
                result = {"rev": world.rev, "patch": [], "log": [], "rolls": [], "data": {"buffered": True}}
                await _send(client, envelope("result", dumps(result), bridge.next_id(), msg_id))
                return True
        pending = world.prepare_sync(payload) if type_ == "sync" else world.prepare_upsert(payload)
        await _commit(bridge, client, world, pending, msg_id, type_)
        return True
    except RequestError as error:
        await _error(bridge, client, error, re if re is not None else error.re)
        if error.code is ErrorCode.TOO_LARGE:
            await client.ws.close(code=WSCloseCode.MESSAGE_TOO_BIG, message=b"too large")
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
    origin = request.headers.get("Origin")
    if origin is not None and not origin_allowed(origin, bridge.config.origins):
        log.warning("refused a browser page from origin %s", origin)
        raise web.HTTPForbidden(text=f"origin {origin} is not allowed; start the sidecar with --allow-origin")
    # Pings are ours (`_watch`): aiohttp's heartbeat re-arms a timer on every frame received, one
    # more turn of the event loop per request; ours looks once per interval.
    ws = web.WebSocketResponse(autoping=False, compress=False, max_msg_size=4 * bridge.config.max_frame)
    await ws.prepare(request)
    client = Client(ws=ws, remote=request.remote or "?", tokens=bridge.config.rate_burst)
    bridge.sockets.add(ws)
    watch = asyncio.create_task(_watch(client, bridge.config.heartbeat)) if bridge.config.heartbeat else None
    try:
        async for msg in ws:
            client.seen = time.monotonic()
            if msg.type == WSMsgType.TEXT:
                if not await _handle(bridge, client, msg.data):
                    break
            elif msg.type == WSMsgType.PING:
                await ws.pong(msg.data)
            elif msg.type == WSMsgType.BINARY:
                await _error(bridge, client, RequestError(ErrorCode.BAD_REQUEST, "text frames only"), None)
            elif msg.type == WSMsgType.ERROR:
                log.info("connection from %s ended: %s", client.remote, ws.exception())
                break
    finally:
        if watch is not None:
            watch.cancel()
        if client.world is not None:
            bridge.clients.get(client.world.id, set()).discard(client)
    return ws


async def _watch(client: Client, interval: float) -> None:
    """Ping a connection that has been silent for `interval` seconds; close it when no frame (its
    pong included) comes in within the next interval: the peer is gone without closing."""
    pinged: float | None = None
    while not client.ws.closed:
        await asyncio.sleep(interval)
        if pinged is not None and client.seen < pinged:
            log.info("closing the connection from %s: no answer to a ping in %.0f s", client.remote, interval)
            await client.ws.close(code=WSCloseCode.GOING_AWAY, message=b"no answer to ping")
            return
        pinged = None
        now = time.monotonic()
        if now - client.seen >= interval:
            pinged = now
            with contextlib.suppress(ConnectionResetError, RuntimeError):
                await client.ws.ping()


async def _checkpoints(app: web.Application) -> AsyncIterator[None]:
    """Fsync the WAL every `sync_interval` seconds when something was written (bounds power-loss cost)."""
    bridge = app[BRIDGE]

    async def loop() -> None:
        while True:
            await asyncio.sleep(bridge.config.sync_interval)
            if bridge.dirty:
                try:
                    bridge.store.flush()
                except sqlite3.Error as exc:  # a full or failing disk: try again next time
                    log.warning(
                        "could not checkpoint the store (%s); trying again in %.1f s",
                        exc,
                        bridge.config.sync_interval,
                    )
                else:
                    bridge.dirty = False

    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    bridge.close()


async def _close_sockets(app: web.Application) -> None:
    for ws in set(app[BRIDGE].sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


def create_app(config: Config) -> web.Application:
    """The aiohttp application: `/ws`, and the pages of `pages.py`."""
    app = web.Application()
    app[BRIDGE] = Bridge(config)
    app.router.add_get("/ws", websocket)
    from vtt_bridge import pages  # here, not at the top: pages imports this module

    pages.setup(app, config.module_dir)
    app.cleanup_ctx.append(_checkpoints)
    app.on_shutdown.append(_close_sockets)
    return app
