"""The websocket endpoint on the bridge: authentication, the envelope, one reply per message.

One event loop owns every world. A request is validated, ruled on (pure code in `engine/world.py`),
written to the store, and only then committed and acknowledged; a request that fails at any step
changes nothing. Every message gets exactly one reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
import json
import logging
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

import orjson
from aiohttp import WSCloseCode, WSMsgType, web
from pydantic import BaseModel, ValidationError

from vtt_bridge import __version__
from vtt_bridge.document.models import WorldState, settled
from vtt_bridge.engine.history import JsonOps, packed_ops, stored_ops
from vtt_bridge.engine.preview import preview
from vtt_bridge.engine.protocol import (
    CLIENT_TYPES,
    LOG_SHOWN,
    ROLLS_SHOWN,
    ErrorCode,
    ErrorDetail,
    Hello,
    error_details,
)
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.errors import AnsweredLongAgo
from vtt_bridge.server import heap
from vtt_bridge.server.bridge import BRIDGE, Bridge, Client, RulingRecord
from vtt_bridge.server.framecap import DeflateResponse, raise_frame_cap
from vtt_bridge.server.hello import version_mismatch
from vtt_bridge.server.limits import Limits, too_deep
from vtt_bridge.server.outbox import Outbox, Part
from vtt_bridge.store.log import keeps_reply, pack, snapshot_of

P = TypeVar("P")
A = TypeVar("A")
R = TypeVar("R")

log = logging.getLogger("vtt_bridge")

CLOSE_UNAUTHORIZED = 4401
"""Close code after a failed `hello` (PROTOCOL.md)."""

CLOSE_TOO_SLOW = 4429
"""Close code of a client whose outgoing queue is full: it does not read what it is sent."""


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


def envelope(type_: str, payload_json: str, msg_id: str, re: str | None) -> str:
    """A message as JSON text, its payload already serialized."""
    head = f'{{"v":1,"id":{dumps(msg_id)},'
    if re is not None:
        head += f'"re":{dumps(re)},'
    return f'{head}"type":"{type_}","payload":{payload_json}}}'


def envelope_parts(type_: str, payload_data: bytes | list[Part], msg_id: str, re: str | None) -> list[Part]:
    """`envelope(...)`'s UTF-8 in parts (joined, the very bytes), its payload already serialized as
    UTF-8, or as the parts it is made of: a long ruling's megabytes are neither copied into a str
    nor encoded on the loop, nor joined into one message (the outbox writes the parts as they are)."""
    parts = payload_data if isinstance(payload_data, list) else [payload_data]
    return [envelope(type_, "", msg_id, re)[:-1].encode(), *parts, b"}"]


def _json_default(value: Any) -> Any:
    """JSON for what a rule put in a step's data beyond plain JSON (a model, a set)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> str:
    """Compact JSON text (orjson, `_json_default` for the values JSON lacks)."""
    return orjson.dumps(value, default=_json_default).decode()


def _is_contests(op: Any) -> bool:
    """Whether a patch op writes `/contests` (the stage-three wins, DET-8), which a client has in
    its copy of a patch only when it asked for them (`Hello.contests`)."""
    path = op.get("path") if type(op) is dict else None
    return type(path) is str and path.startswith("/contests") and (len(path) == 9 or path[9] == "/")


def summary(log: list[Any], rolls: list[Any]) -> dict[str, Any]:
    """A cut log's `summary` (`engine.protocol.Summary`): how many steps and rolls, the steps per key."""
    keys = Counter(step.get("key") if isinstance(step, dict) else None for step in log)
    return {
        "steps": len(log),
        "rolls": len(rolls),
        "keys": {key: count for key, count in keys.items() if isinstance(key, str)},
    }


def wire_payload(result: dict[str, Any], contests: bool) -> dict[str, Any]:
    """The copy of a `result` (or `patch`) payload a client is sent: its log and rolls cut to the
    first `LOG_SHOWN` steps and `ROLLS_SHOWN` rolls with a `summary` when longer, and its patch
    without `/contests` ops unless the client asked for them; the payload itself when nothing is
    left out. The store keeps the whole (`query {kind: "ruling"}` reads it)."""
    log, rolls, patch = result.get("log"), result.get("rolls"), result.get("patch")
    long_log = isinstance(log, list) and len(log) > LOG_SHOWN
    long_rolls = isinstance(rolls, list) and len(rolls) > ROLLS_SHOWN
    drop = not contests and isinstance(patch, list) and any(_is_contests(op) for op in patch)
    if not (long_log or long_rolls or drop):
        return result
    wire = dict(result)
    if drop:
        assert isinstance(patch, list)
        wire["patch"] = [op for op in patch if not _is_contests(op)]
    if long_log or long_rolls:
        all_log = log if isinstance(log, list) else []
        all_rolls = rolls if isinstance(rolls, list) else []
        wire["log"], wire["rolls"] = all_log[:LOG_SHOWN], all_rolls[:ROLLS_SHOWN]
        wire["summary"] = summary(all_log, all_rolls)
    return wire


class Dumped:
    """A result's JSON as the UTF-8 it is stored and kept for retries as (never decoded: a round's
    megabytes of text beyond ASCII would take twice the memory as a str), and the copies clients are
    sent (`wire_payload`) in parts: `wire` for a client that did not ask for `/contests`,
    `wire_contests` for one that did; None: the copy is `data` itself (nothing left out). A plain
    class with slots: one is made for every ruling, a `damage`'s included."""

    __slots__ = ("data", "wire", "wire_contests")

    def __init__(
        self, data: bytes, wire: list[Part] | None = None, wire_contests: list[Part] | None = None
    ) -> None:
        self.data = data
        self.wire = wire
        self.wire_contests = wire_contests

    def sent(self, contests: bool) -> bytes | list[Part]:
        """The JSON a client is sent (`contests`: it asked for them), whole or in parts."""
        chosen = self.wire_contests if contests else self.wire
        return self.data if chosen is None else chosen


def dumped_result(result: dict[str, Any], in_turns: bool = False) -> Dumped:
    """A result's JSON (`dumps`'s bytes) and its clients' copies (`wire_payload`'s JSON, the same
    bytes `dumps` gives them), each item dumped once: the copies share the full JSON's pieces (a
    round's `/contests` rows, tens of MB at 1,000 tokens, and its log are not dumped again).
    `in_turns`: dumped as `_dumped_in_turns` does, for a worker thread."""
    log, rolls, patch = result.get("log"), result.get("rolls"), result.get("patch")
    long_log = type(log) is list and len(log) > LOG_SHOWN
    long_rolls = type(rolls) is list and len(rolls) > ROLLS_SHOWN
    has_contests = False
    if type(patch) is list:
        for op in patch:  # inline, not any() over `_is_contests`: a `damage` is on the hot path
            path = op.get("path") if type(op) is dict else None
            if type(path) is str and path.startswith("/contests") and (len(path) == 9 or path[9] == "/"):
                has_contests = True
                break
    if not (long_log or long_rolls or has_contests):
        if in_turns:
            return Dumped(_dumped_in_turns(result))
        return Dumped(orjson.dumps(result, default=_json_default))
    dump = _dumped_in_turns if in_turns else _dumped_at_once
    full: list[Part] = []
    wire: list[Part] = []
    wire_contests: list[Part] = []
    opening = b"{"
    for key, value in result.items():
        head = opening + orjson.dumps(key) + b":"
        opening = b","
        if key == "patch" and has_contests:
            assert isinstance(value, list)
            everything, plain = _patch_pieces(value, dump)
            full += [head, *everything]
            wire += [head, *plain]
            wire_contests += [head, *everything]
        elif key in ("log", "rolls") and (long_log or long_rolls):
            assert isinstance(value, list)
            whole = memoryview(dump(value))
            shown = orjson.dumps(value[: LOG_SHOWN if key == "log" else ROLLS_SHOWN], default=_json_default)
            full += [head, whole]
            wire += [head, shown]
            wire_contests += [head, shown]
        else:
            piece = dump(value)
            full += [head, piece]
            wire += [head, piece]
            wire_contests += [head, piece]
    if long_log or long_rolls:
        assert isinstance(log, list) and isinstance(rolls, list)
        tail = b',"summary":' + orjson.dumps(summary(log, rolls))
        wire.append(tail)
        wire_contests.append(tail)
    for pieces in (full, wire, wire_contests):
        pieces.append(b"}")
    data = b"".join(full)
    # without `/contests` ops and with the whole log a client's copy is the JSON itself
    return Dumped(data, wire, wire_contests if long_log or long_rolls else None)


def replayed_copy(reply: bytes, contests: bool) -> bytes:
    """A client's copy (`wire_payload`) of a stored reply to a retried action id (the whole ruling,
    as the store keeps it): the reply itself when nothing is left out."""
    value = orjson.loads(reply)
    if not isinstance(value, dict):
        return reply
    wire = wire_payload(value, contests)
    return reply if wire is value else orjson.dumps(wire)


def _dumped_at_once(value: Any) -> bytes:
    return orjson.dumps(value, default=_json_default)


def _patch_pieces(patch: list[Any], dump: Callable[[Any], bytes]) -> tuple[list[Part], list[Part]]:
    """A patch's JSON in pieces, whole and without its `/contests` ops, each run of ops dumped once
    (`dump`) and shared by both."""
    runs: list[tuple[bool, list[Any]]] = []
    for op in patch:
        contests = _is_contests(op)
        if runs and runs[-1][0] == contests:
            runs[-1][1].append(op)
        else:
            runs.append((contests, [op]))
    everything: list[Part] = [b"["]
    plain: list[Part] = [b"["]
    for contests, ops in runs:
        items = memoryview(dump(ops))[1:-1]
        everything += [b"," if len(everything) > 1 else b"", items]
        if not contests:
            plain += [b"," if len(plain) > 1 else b"", items]
    everything.append(b"]")
    plain.append(b"]")
    return everything, plain


DUMP_CHUNK = 128
"""Items of a long list that `_dumped_in_turns` dumps in one call: of a round's largest items (patch
ops that replace a row of contests) a call writes a few MB (docs/benchmarks.md)."""


def _dumped_in_turns(value: Any) -> bytes:
    """`dumps(value)`'s UTF-8, the same bytes, in calls of at most `DUMP_CHUNK` items of each long
    list (of an object's values or of a list itself): for a worker thread, which then hands the
    interpreter to the event loop between calls (orjson holds it for a whole call). The pieces are
    joined once (`bytes.join` lets go of the interpreter while it copies; `+` holds it for each
    copy of the megabytes)."""
    pieces: list[bytes] = []
    _dump_into(value, pieces)
    return b"".join(pieces)


def _dump_into(value: Any, pieces: list[bytes]) -> None:
    """Append `dumps(value)`'s UTF-8 to `pieces`, a piece at a time (`_dumped_in_turns`)."""
    if isinstance(value, list) and len(value) > DUMP_CHUNK:
        pieces.append(b"[")
        for at in range(0, len(value), DUMP_CHUNK):
            chunk = orjson.dumps(value[at : at + DUMP_CHUNK], default=_json_default)[1:-1]
            pieces.append(b"," + chunk if at else chunk)
        pieces.append(b"]")
    elif isinstance(value, dict) and value and all(type(key) is str for key in value):
        opening = b"{"
        for key, item in value.items():
            pieces.append(opening + orjson.dumps(key) + b":")
            opening = b","
            _dump_into(item, pieces)
        pieces.append(b"}")
    else:
        pieces.append(orjson.dumps(value, default=_json_default))


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


def _no_constants(name: str) -> Any:
    """JSON has no NaN or Infinity (Python's parser would accept them)."""
    raise ValueError(f"{name} is not JSON")


ENVELOPE_FIELDS = frozenset(("v", "id", "type", "payload", "re"))

_DECODER = json.JSONDecoder(parse_constant=_no_constants)
"""One decoder for every frame (`json.loads` with a hook would build a new one each time)."""


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


def _good_id(msg_id: Any) -> bool:
    """An envelope id the server can echo: 1 to 200 Unicode scalar values."""
    return type(msg_id) is str and 0 < len(msg_id) <= 200 and _scalars(msg_id)


def _parse(text: str) -> tuple[str, str, dict[str, Any]]:
    """The envelope's id, type and payload, or `RequestError(bad_request)` (id kept when there is one
    it can be echoed as)."""
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
        _good_id(msg_id)
        and type(type_) is str
        and type_ in CLIENT_TYPES
        and type(payload) is dict
        and message.get("v") == 1
        and type(message["v"]) is int
        and message.keys() <= ENVELOPE_FIELDS
    ):
        return str(msg_id), type_, payload  # the well-formed message, checked in one go
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


class StorageError(RequestError):
    """The store could not take a ruling (disk full, read-only, I/O error): nothing changed."""

    def __init__(self, reason: str) -> None:
        super().__init__(ErrorCode.STORAGE, reason)


def _storage_refusal(bridge: Bridge, exc: sqlite3.Error | OSError | None) -> StorageError:
    """The refusal of a ruling the store cannot take, logged once per reason and minute."""
    if exc is None:
        reason = (
            f"the disk did not confirm the last save ({bridge.storage_fault}); no ruling is taken "
            "until it does (see the status page)"
        )
    else:
        reason = f"the ruling could not be saved: {exc}; nothing was changed"
    bridge.storage_log.warn(reason if exc is not None else f"checkpoint failed: {bridge.storage_fault}")
    return StorageError(reason)


STORE_THREAD_BYTES = 64 << 10
"""A ruling whose reply is larger than this (or that carries a snapshot) is written to the store in
the store's writer thread (`Bridge.in_store`): its commit of megabytes would hold every other world
up. A smaller one is written on the event loop: its commit costs less than the two thread switches
a hand-off takes (docs/benchmarks.md)."""


Made = tuple[tuple[JsonOps, JsonOps] | None, bytes | None]
"""What a ruling's row needs besides its reply (`_made`): its ops and inverse as JSON in parts, and
its inverse as the store writes it (its JSON's UTF-8, packed when large: `store.pack`)."""


def _made(pending: Pending) -> Made:
    """A ruling's ops and inverse as JSON in parts (`stored_ops`: what undo keeps of it,
    `World.commit`; None: it has no inverse) and its inverse as the store writes it (`store.pack`).
    Made before the store is taken (for a long ruling in a worker: a round's inverse is tens of MB),
    so that the store's lock is held for the write alone and another world's ruling waits for no
    more."""
    entry = pending.entry
    kept = None if entry is None else stored_ops(entry)
    return kept, None if kept is None else pack(kept[1].data())


def _stored(
    bridge: Bridge,
    world_id: str,
    pending: Pending,
    reply: bytes | None,
    snapshot: bytes | None,
    made: Made,
) -> tuple[JsonOps, JsonOps] | None:
    """Write one ruling to the store (in whichever thread runs the store's work), its reply and
    snapshot as the store takes them (`store.pack`, `store.snapshot_of`; a reply the store does not
    keep may be None: `store.keeps_reply`); returns its ops and inverse as JSON in parts (`_made`)."""
    entry = pending.entry
    kept, inverse = made
    bridge.store.append(
        world_id,
        pending.result["rev"],
        pending.action_id,
        b"" if reply is None else reply,
        snapshot,
        pending.digest,
        kind=None if entry is None else entry.kind,
        target=pending.message_id if entry is None or entry.action_id is None else entry.target,
        inverse=inverse,
    )
    return kept


def _in_worker(work: Callable[[A], R], value: A | None) -> Awaitable[R | None]:
    """`work(value)` in a worker thread, or None at once for no value."""
    if value is None:
        return asyncio.sleep(0)
    return asyncio.to_thread(work, value)


async def _store(
    bridge: Bridge,
    world: World,
    pending: Pending,
    result_json: bytes,
    snapshot: WorldState | None,
    off_loop: bool,
) -> tuple[JsonOps, JsonOps] | None:
    """Write one ruling to the store (`off_loop`: its row made in workers, the reply packed in one
    while the inverse is made and packed in another and the snapshot dumped and packed in a third,
    then written in the store's writer thread), or raise `StorageError` (nothing written); returns
    what `_stored` does."""
    if bridge.storage_fault is not None:
        raise _storage_refusal(bridge, None)
    written = result_json if keeps_reply(pending.action_id, snapshot is not None) else None
    if off_loop:
        made, reply, dumped = await asyncio.gather(
            asyncio.to_thread(_made, pending), _in_worker(pack, written), _in_worker(snapshot_of, snapshot)
        )
    else:
        made = _made(pending)
        reply = None if written is None else pack(written)
        dumped = None if snapshot is None else snapshot_of(snapshot)
    try:
        return await bridge.in_store(
            _stored, bridge, world.id, pending, reply, dumped, made, off_loop=off_loop
        )
    except (sqlite3.Error, OSError) as exc:
        raise _storage_refusal(bridge, exc) from None


def pushed_patch(pending: Pending, kind: str, contests: bool = False) -> dict[str, Any]:
    """The `patch` payload a ruling is pushed to one of the world's other clients with (`contests`:
    whether it asked for them; `wire_payload`): its rev, patch, log and rolls (and `summary`), its
    `kind`, and for an action its `action` id (what an undo of it names)."""
    result = wire_payload(pending.result, contests)
    payload = {
        "rev": result["rev"],
        "patch": result["patch"],
        "log": result["log"],
        "rolls": result["rolls"],
    }
    if "summary" in result:
        payload["summary"] = result["summary"]
    payload["kind"] = kind
    if pending.action_id is not None:
        payload["action"] = pending.action_id
    return payload


async def _commit(
    bridge: Bridge,
    client: Client,
    world: World,
    pending: Pending,
    msg_id: str,
    kind: str,
    dumped: Dumped | None = None,
) -> None:
    """Store the ruling, then acknowledge it, commit it, and push it to the world's other clients
    (into their queues: a ruling never waits on a socket). `dumped`: the result's JSON when the
    worker that ruled has written it already (a long ruling's megabytes are not dumped on the loop).

    A large ruling (`STORE_THREAD_BYTES`) or one with a snapshot is written in the store's thread,
    and committed to the world once stored whatever happens to the caller meanwhile (shielded): the
    world never falls behind its store. The acknowledgement goes out before the world's bookkeeping;
    no other message is handled in between (nothing is awaited), and the client reads it meanwhile."""
    if dumped is None:
        dumped = dumped_result(pending.result)
    snapshot = settled(pending.state) if pending.snapshot or bridge.store.wants_snapshot(world.id) else None
    if snapshot is None and len(dumped.data) <= STORE_THREAD_BYTES:
        kept = await _store(bridge, world, pending, dumped.data, None, off_loop=False)
        _committed(bridge, client, world, pending, msg_id, kind, dumped, kept)
        return
    await asyncio.shield(
        _stored_then_committed(bridge, client, world, pending, msg_id, kind, dumped, snapshot)
    )


async def _stored_then_committed(
    bridge: Bridge,
    client: Client,
    world: World,
    pending: Pending,
    msg_id: str,
    kind: str,
    dumped: Dumped,
    snapshot: WorldState | None,
) -> None:
    kept = await _store(bridge, world, pending, dumped.data, snapshot, off_loop=True)
    _committed(bridge, client, world, pending, msg_id, kind, dumped, kept)
    if kept is not None:
        _pack_later(bridge, world, pending.result["rev"], kept)


def _pack_later(bridge: Bridge, world: World, rev: int, kept: tuple[JsonOps, JsonOps]) -> None:
    """After a large ruling is acknowledged: its ops and inverse packed in a worker thread
    (`packed_ops`: Zstandard, which releases the interpreter a part at a time; off the acknowledgement's
    path), then kept so for undo (`History.repack`, on the loop, unless a later ruling dropped the
    entry meanwhile), and the memory the plain JSON held given back (`_release_later`)."""

    def packed(done: asyncio.Future[tuple[JsonOps, JsonOps]]) -> None:
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:  # a bug: undo keeps the plain JSON, which is as good
            log.error("could not pack the ops of rev %d of world %r: %r", rev, world.id, error)
        elif world.history.repack(rev, kept, done.result()):
            _release_later(bridge)

    try:
        running = asyncio.get_running_loop().run_in_executor(None, packed_ops, kept)
    except RuntimeError:  # the loop's executor is shut down (the sidecar stops): undo keeps them plain
        return
    running.add_done_callback(packed)


def _committed(
    bridge: Bridge,
    client: Client,
    world: World,
    pending: Pending,
    msg_id: str,
    kind: str,
    dumped: Dumped,
    kept: tuple[JsonOps, JsonOps] | None = None,
) -> None:
    """A stored ruling acknowledged, made the world's state, recorded and pushed (`dumped`: its JSON
    and each client's copy of it, `dumped_result`; `kept`: its ops and inverse as JSON, `_stored`).
    Pushed after the acknowledgement is written when it is long (a message in fragments): the client
    that asked gets its answer first, not at the pace of every socket of the world at once, and the
    others no later than they would (`Outbox.put`'s `after`)."""
    new_rev = pending.result["rev"]
    bridge.dirty = True
    others = [c for c in bridge.clients.get(world.id, ()) if c is not client]
    answer = envelope_parts("result", dumped.sent(client.contests), bridge.next_id(), msg_id)
    fragmented = client.outbox is not None and client.outbox.fragmented(answer)
    answered = asyncio.get_running_loop().create_future() if others and fragmented else None
    client.send(answer, written=answered)
    world.commit(pending, dumped.data, kept)
    bridge.changes += 1
    bridge.recent.append(
        RulingRecord(world.id, new_rev, kind, pending.result["log"], time.time(), action_id=pending.action_id)
    )
    pushed: dict[bool, list[Part]] = {}
    for other in others:
        parts = pushed.get(other.contests)
        if parts is None:
            copy = dumped.sent(other.contests)
            parts = pushed[other.contests] = _pushed_parts(pending, kind, copy, other.contests)
        other.send(envelope_parts("patch", parts, bridge.next_id(), None), after=answered)


_RESULT_KEYS = ["rev", "patch", "log", "rolls"]
"""A ruling's `result` payload, in order: all `pushed_patch` takes, before its own keys."""


def _pushed_parts(
    pending: Pending, kind: str, sent: bytes | list[Part], contests: bool = False
) -> list[Part]:
    """`pushed_patch`'s JSON for a client (`contests`: whether it asked for them) in parts (joined,
    the very bytes `dumps` gives it), made from its copy of the result's JSON (`sent`: `Dumped.sent`,
    sent already) when the result holds just `_RESULT_KEYS`: a view of it but its closing brace,
    then its own keys, not a round's megabytes dumped (or copied) again on the event loop."""
    parts = [sent] if isinstance(sent, bytes) else sent
    if list(pending.result) != _RESULT_KEYS or not parts or bytes(parts[-1][-1:]) != b"}":
        return [orjson.dumps(pushed_patch(pending, kind, contests), default=_json_default)]
    tail = b',"kind":' + orjson.dumps(kind)
    if pending.action_id is not None:
        tail += b',"action":' + orjson.dumps(pending.action_id)
    last = parts[-1]
    return [*parts[:-1], memoryview(last)[:-1], tail + b"}"]


class FrameTooLarge(RequestError):
    """A frame past the cap: refused, and the connection closed."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.TOO_LARGE, message)


def _drop_sync_parts(bridge: Bridge, client: Client, why: str | None = None) -> None:
    """Drop the connection's buffered sync parts (and a refused sync's memory of its refusal)."""
    bridge.sync_bytes -= client.sync_bytes
    if client.sync_timer is not None:
        client.sync_timer.cancel()
        client.sync_timer = None
    if why is not None and (client.sync_parts is not None or client.sync_refused is not None):
        log.warning("dropped the unfinished sync of %s (%d bytes): %s", client.remote, client.sync_bytes, why)
    client.sync_parts, client.sync_bytes, client.sync_refused = None, 0, None


SYNC_FIELDS = frozenset(("state", "more"))


def _part_problem(payload: dict[str, Any]) -> str | None:
    """Why one part of a sync in parts is refused as it comes (its state's content is validated with
    the whole, at the last part)."""
    unknown = payload.keys() - SYNC_FIELDS
    if unknown:
        return f"{sorted(unknown)[0]!r} is not a field of a sync (state, more)"
    if type(payload.get("more", False)) is not bool:
        return "more is true or false"
    if not isinstance(payload.get("state"), dict):
        return "state is an object"
    return None


def _refuse_part(bridge: Bridge, client: Client, error: RequestError, last: bool) -> RequestError:
    """A part of a sync in parts refused: the parts before it are dropped, and unless it was the last
    the connection remembers the refusal, so that the sync's last part is refused too (a sync is
    ruled whole or not at all: its later parts never stand alone)."""
    _drop_sync_parts(bridge, client)
    if not last:
        client.sync_refused = error.message
        limits = bridge.config.limits
        client.sync_timer = asyncio.get_running_loop().call_later(
            limits.sync_timeout, _drop_sync_parts, bridge, client, f"no part for {limits.sync_timeout:.0f} s"
        )
    return error


def _merge_sync_part(bridge: Bridge, client: Client, payload: dict[str, Any], size: int) -> dict[str, Any]:
    """Merge a `sync` part (`size` bytes of frame) into what the connection sent before; the merged
    payload when it is the last. The parts count against `Limits.sync_budget` and the world's
    token and actor limits as they come, and are dropped when the next is `Limits.sync_timeout` late.
    A refused part refuses the whole sync: every later part of it up to its last is refused too."""
    limits = bridge.config.limits
    more = payload.get("more")
    last = more is None or more is False
    if client.sync_refused is not None:
        earlier = client.sync_refused
        if last:
            _drop_sync_parts(bridge, client)
        else:  # remembered while its parts keep coming, as the parts of a sync are
            _refuse_part(bridge, client, RequestError(ErrorCode.INVALID, earlier), last)
        raise RequestError(
            ErrorCode.INVALID,
            f"an earlier part of this sync was refused ({earlier}): the whole sync is refused and "
            "nothing was changed; send it again from its first part",
            [ErrorDetail(path=["more"], message="a part of a refused sync")],
        )
    in_parts = client.sync_parts is not None or not last
    if not in_parts:
        state = payload.get("state")
        if isinstance(state, dict):
            check_counts(limits, state)
        return payload  # one whole sync: validation reports what is wrong with it
    problem = _part_problem(payload)
    if problem is not None:
        error = RequestError(ErrorCode.INVALID, f"a part of a sync in parts is refused: {problem}")
        raise _refuse_part(bridge, client, error, last)
    state = payload["state"]
    merged = client.sync_parts if client.sync_parts is not None else {"actors": {}, "tokens": {}}
    client.sync_bytes += size
    bridge.sync_bytes += size
    if client.sync_bytes > limits.sync_budget:
        error = RequestError(
            ErrorCode.TOO_LARGE, f"a sync is at most {limits.sync_budget} bytes in all its parts (budget)"
        )
        raise _refuse_part(bridge, client, error, last)
    if bridge.sync_bytes > limits.sync_budget_total:
        error = RequestError(
            ErrorCode.TOO_LARGE,
            f"the sidecar holds at most {limits.sync_budget_total} bytes of unfinished syncs, all "
            "connections together; send it again once the others are done",
        )
        raise _refuse_part(bridge, client, error, last)
    for key, value in state.items():
        if key in ("actors", "tokens") and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key].update(value)
        else:
            merged[key] = value
    try:
        check_counts(limits, merged)
    except RequestError as error:
        raise _refuse_part(bridge, client, error, last) from None
    if not last:
        client.sync_parts = merged
        if client.sync_timer is not None:
            client.sync_timer.cancel()
        client.sync_timer = asyncio.get_running_loop().call_later(
            limits.sync_timeout, _drop_sync_parts, bridge, client, f"no part for {limits.sync_timeout:.0f} s"
        )
        return payload
    _drop_sync_parts(bridge, client)
    return {**payload, "state": merged}


def check_counts(limits: Limits, state: Any) -> None:
    """`too_large` naming the limit when a state (a document, or a sync's state) holds more tokens
    or actors than a world may."""
    for name, limit in (("tokens", limits.max_tokens), ("actors", limits.max_actors)):
        members = state.get(name) if isinstance(state, dict) else getattr(state, name, None)
        if isinstance(members, dict) and len(members) > limit:
            raise RequestError(
                ErrorCode.TOO_LARGE,
                f"a world holds at most {limit} {name} (--max-{name}); this one would hold {len(members)}",
            )


OFFLOAD_TOKENS = 100
"""A `sync` or `round` in a world of more tokens than this is ruled in a worker thread, so other
worlds are served meanwhile (the GIL hands the event loop a turn every few milliseconds)."""


def _long(type_: str, payload: dict[str, Any], world: World) -> bool:
    """Whether a ruling is expected to take long enough to hold other worlds up."""
    if type_ == "sync":
        tokens = payload.get("state", {}).get("tokens") if isinstance(payload.get("state"), dict) else None
        return isinstance(tokens, dict) and len(tokens) > OFFLOAD_TOKENS
    if type_ == "action" and payload.get("kind") == "batch":
        return _batch_damages(payload) > OFFLOAD_DAMAGES
    # an undo or redo may restore a whole round's results
    return (
        type_ == "action"
        and payload.get("kind") in ("round", "undo", "redo")
        and len(world.state.tokens) > OFFLOAD_TOKENS
    )


OFFLOAD_DAMAGES = 500
"""A `batch` of more damage instances than this is ruled in a worker thread (6,400, its most, took
0.42 s on the loop; other worlds then waited up to 459 ms: docs/benchmarks.md)."""


def _batch_damages(payload: dict[str, Any]) -> int:
    """How many damage instances a batch's payload names (its validation comes later)."""
    actions = payload.get("actions")
    if not isinstance(actions, list):
        return 0
    return sum(
        len(item["instances"])
        for item in actions
        if isinstance(item, dict) and isinstance(item.get("instances"), list)
    )


def _long_query(payload: dict[str, Any], world: World) -> bool:
    """Whether a query is expected to take long enough to hold other worlds up: a big world's whole
    state (a 1,000-token world's after a round is tens of MB of JSON)."""
    return payload.get("kind") == "state" and len(world.state.tokens) > OFFLOAD_TOKENS


def _query_dumped(world: World, payload: dict[str, Any]) -> bytes:
    """In a worker: a query answered (`World.query`) and its result's JSON (one `orjson` call: the
    state is dumped in parts already, `dumped_in_parts`), the cycle collector paused as for a long
    ruling (`_dumped`)."""
    gc.freeze()
    with COLLECTOR.paused():
        return orjson.dumps(world.query(payload), default=_json_default)


async def _ruling_page(
    bridge: Bridge, client: Client, world: World, msg_id: str, payload: dict[str, Any]
) -> None:
    """`query {kind: "ruling"}`: a page of a ruling's whole log and rolls, read from the store (in
    its thread: a round's reply is megabytes), so it outlives a restart; `not_found` for an action
    id the world never answered."""
    query = world.ruling_query(payload)
    page = await bridge.in_store(
        bridge.store.ruling_page, world.id, query.action, query.offset, query.limit, off_loop=True
    )
    if page is None:
        raise RequestError(
            ErrorCode.NOT_FOUND, f"world {world.id!r} answered no action {query.action[:60]!r}"
        )
    result = {
        "rev": world.rev,
        "patch": [],
        "log": page.log,
        "rolls": page.dice,
        "data": {
            "action": query.action,
            "kind": page.kind,
            "rev": page.rev,
            "offset": query.offset,
            "steps": page.steps,
            "rolls": page.rolls,
        },
    }
    client.send(envelope("result", dumps(result), bridge.next_id(), msg_id))


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
            if payload.get("kind") == "preview":  # an action ruled and thrown away (engine/preview.py)
                async with bridge.lock(world.id):
                    action = payload.get("action")
                    if isinstance(action, dict) and _long("action", action, world):
                        result = await asyncio.to_thread(preview, world, payload, bridge.roller)
                    else:
                        result = preview(world, payload, bridge.roller)
                client.send(envelope("result", dumps(result), bridge.next_id(), re))
                return True
            if payload.get("kind") == "ruling":
                await _ruling_page(bridge, client, world, msg_id, payload)
                return True
            if _long_query(payload, world):
                async with bridge.lock(world.id):  # its state stays the world's while it is dumped
                    data = await asyncio.to_thread(_query_dumped, world, payload)
                client.send(envelope_parts("result", data, bridge.next_id(), re))
                return True
            result = world.query(payload)
            client.send(envelope("result", dumps(result), bridge.next_id(), re))
            return True
        if type_ == "sync":
            payload = _merge_sync_part(bridge, client, payload, len(text))
            if payload.get("more") is True:
                result = {"rev": world.rev, "patch": [], "log": [], "rolls": [], "data": {"buffered": True}}
                client.send(envelope("result", dumps(result), bridge.next_id(), msg_id))
                return True
        async with bridge.lock(world.id):
            await _rule(bridge, client, world, msg_id, type_, payload)
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


async def _rule(
    bridge: Bridge, client: Client, world: World, msg_id: str, type_: str, payload: dict[str, Any]
) -> None:
    """Rule on a `sync`, `upsert` or `action` (in a worker thread when it is long), then commit it."""
    offload = _long(type_, payload, world)
    if type_ == "action":
        dumped: Dumped | None = None
        try:
            if offload:
                prepared, dumped = await asyncio.to_thread(
                    _dumped, world.prepare_action, msg_id, payload, bridge.roller
                )
            else:
                prepared = world.prepare_action(msg_id, payload, bridge.roller)
        except AnsweredLongAgo as old:
            # in the store's thread: a round's reply is megabytes, read back and checksummed
            stored = await bridge.in_store(bridge.store.reply, world.id, msg_id, off_loop=True)
            if stored is None:
                raise
            prepared = world.replay(msg_id, old.digest, *stored)
        if isinstance(prepared, bytes):
            if len(prepared) > STORE_THREAD_BYTES:
                sent = await asyncio.to_thread(replayed_copy, prepared, client.contests)
            else:
                sent = replayed_copy(prepared, client.contests)
            client.send(envelope_parts("result", sent, bridge.next_id(), msg_id))
            return
        await _commit(bridge, client, world, prepared, msg_id, str(payload.get("kind")), dumped)
        if offload:
            _release_later(bridge)
        return
    if type_ == "sync":
        if offload:
            pending, dumped = await asyncio.to_thread(_dumped, world.prepare_sync, payload, msg_id)
            await _commit(bridge, client, world, pending, msg_id, type_, dumped)
            _release_later(bridge)
            return
        pending = world.prepare_sync(payload, msg_id)
    else:
        pending = world.prepare_upsert(payload, msg_id)
        check_counts(bridge.config.limits, pending.state)
    await _commit(bridge, client, world, pending, msg_id, type_)


RELEASE_AFTER = 2.0
"""Seconds after a long ruling's commit that the memory it freed is given back to the system (its
reply sent meanwhile, and its objects gone with the frames that held them)."""


def _release_later(bridge: Bridge) -> None:
    """After a long ruling: its freed memory given back (`heap.release_freed_memory`) in
    `RELEASE_AFTER` seconds, once for any number of long rulings meanwhile (a few ms on the loop)."""
    if bridge.release is not None:
        return

    def release() -> None:
        bridge.release = None
        heap.release_freed_memory()

    bridge.release = asyncio.get_running_loop().call_later(RELEASE_AFTER, release)


class CollectorPause:
    """The cycle collector paused while any long ruling runs (`_dumped`, one per world at most, in
    worker threads): off from the first one's start to the last one's end, then on again, with the
    objects made meanwhile frozen (`gc.freeze`) as the ones before were. Counted under a lock, so
    overlapping rulings of two worlds turn it back on only when both have ended; it was on before
    the first one or it stays off."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._was_enabled = False

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0 and self._was_enabled:
                    # what the rulings left alive (the new documents) out of reach too: else the
                    # next collection walks all of it at once, on whichever thread allocates next
                    gc.freeze()
                    gc.enable()


COLLECTOR = CollectorPause()


def _dumped(prepare: Callable[..., P], *args: Any) -> tuple[P, Dumped | None]:
    """In a worker: a long ruling prepared, and its result's JSON (None for a stored reply's text).

    The objects alive when it starts (the worlds' documents: millions in a big scene) are moved out
    of the cycle collector's reach first (`gc.freeze`), and the collector is paused while it runs
    (`COLLECTOR`): a round allocates enough to trigger full collections, each walked every object it
    made so far holding the interpreter lock, and none freed anything: a ruling's objects are
    trees that reference counting frees. Only cyclic garbage made meanwhile waits for the next
    collection."""
    gc.freeze()
    with COLLECTOR.paused():
        prepared = prepare(*args)
        if isinstance(prepared, Pending):
            return prepared, dumped_result(prepared.result, in_turns=True)
        return prepared, None


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
        _drop_sync_parts(bridge, client)
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
