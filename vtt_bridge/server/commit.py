"""A ruling's way through the server: made, stored, acknowledged, committed, pushed; and its reply's
encoding.

`rule` takes a welcomed client's `sync`, `upsert` or `action` (a long one ruled in a worker thread,
`ruled_in_worker`; a retried action id answered with its stored reply) and hands the ruling (a
`Pending` from `engine/world.py`) to the commit pipeline, `commit_ruling`: written to the store as
one row, then acknowledged to the client that asked, committed into its world and pushed to the
world's other clients, in that order. A ruling the store cannot take is refused and changes
nothing; a stored one is always committed (the world never falls behind its store).

The reply encoding: a ruling's result as the JSON that is stored, the copy each client is sent (its
log and rolls cut, `/contests` ops only for a client that asked for them), the envelope around it,
and the `patch` a world's other clients are pushed. The same bytes however they are made: at once on
the event loop, or in turns in a worker thread.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar

import orjson
from pydantic import BaseModel

from vtt_bridge.document.models import WorldState, settled
from vtt_bridge.engine.history import JsonOps, packed_ops, stored_ops
from vtt_bridge.engine.protocol import LOG_SHOWN, ROLLS_SHOWN, ErrorCode
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.errors import AnsweredLongAgo
from vtt_bridge.server.bridge import Bridge, Client, RulingRecord
from vtt_bridge.server.heap import release_later
from vtt_bridge.server.outbox import Part
from vtt_bridge.server.sync import check_counts
from vtt_bridge.server.workers import COLLECTOR
from vtt_bridge.store.pages import PAGED_FROM, packed_parts, parts_of
from vtt_bridge.store.pages import Part as LogPart
from vtt_bridge.store.rows import keeps_reply, pack, snapshot_of

A = TypeVar("A")
R = TypeVar("R")
P = TypeVar("P")

log = logging.getLogger("vtt_bridge")


class StorageError(RequestError):
    """The store could not take a ruling (disk full, read-only, I/O error): nothing changed."""

    def __init__(self, reason: str) -> None:
        super().__init__(ErrorCode.STORAGE, reason)


class Commit(NamedTuple):
    """One ruling on its way through the pipeline: the bridge, the client that asked and the id of
    its message (what the acknowledgement answers), the world, the ruling made and not yet committed,
    and its kind (an action's kind, `sync` or `upsert`: what the status page and the pushed patch
    name). A named tuple, as `Pending` is: one is made for every ruling."""

    bridge: Bridge
    client: Client
    world: World
    pending: Pending
    msg_id: str
    kind: str


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
"""A ruling whose reply (with its log's parts, `Dumped.stored_bytes`) is larger than this (or that
carries a snapshot) is written to the store in the store's writer thread (`Bridge.in_store`): its
commit of megabytes would hold every other world up. A smaller one is written on the event loop:
its commit costs less than the two thread switches a hand-off takes (docs/benchmarks.md)."""


Made = tuple[tuple[JsonOps, JsonOps] | None, bytes | None]
"""What a ruling's row needs besides its reply (`_made`): its ops and inverse as JSON in parts, and
its inverse as the store writes it (its JSON's UTF-8, packed when large: `store.pack`)."""


def _made(pending: Pending, dumped: Dumped | None = None) -> Made:
    """A ruling's ops and inverse as JSON in parts (`stored_ops`: what undo keeps of it,
    `World.commit`; None: it has no inverse) and its inverse as the store writes it (`store.pack`).
    Made before the store is taken (for a long ruling in a worker: a round's inverse is tens of MB),
    so that the store's lock is held for the write alone and another world's ruling waits for no
    more. `dumped`: its reply's JSON, whose ops (`Dumped.ops`) are its forward ops' JSON when its
    patch is the ruling's (`_forward_json`), then not dumped again."""
    entry = pending.entry
    if entry is None:
        return None, None
    kept = stored_ops(entry, None if dumped is None else _forward_json(pending, dumped))
    return kept, None if kept is None else pack(kept[1].data())


def _forward_json(pending: Pending, dumped: Dumped) -> bytes | None:
    """`Dumped.ops` when it is the JSON of the undo entry's forward ops: its patch is the ruling's
    (`patches.ruling_patch`: the rev's test, the entry's very ops, the rev's replace), which the
    ends and the count tell without a look at every op; else None (dumped apart)."""
    ops, entry = dumped.ops, pending.entry
    if ops is None or entry is None:
        return None
    forward, patch = entry.forward, pending.result.get("patch")
    if type(forward) is not tuple or type(patch) is not list or len(patch) != len(forward) + 2:
        return None
    if forward and (patch[1] is not forward[0] or patch[-2] is not forward[-1]):
        return None
    return ops


def _in_worker(work: Callable[[A], R], value: A | None) -> Awaitable[R | None]:
    """`work(value)` in a worker thread, or None at once for no value."""
    if value is None:
        return asyncio.sleep(0)
    return asyncio.to_thread(work, value)


Row = tuple[Any, ...]
"""A ruling's row as `Store.append` takes its arguments (`_row`)."""


def _row(commit: Commit, reply: bytes | None, dumped: bytes | None, inverse: bytes | None, parts: Any) -> Row:
    """`Store.append`'s arguments for a ruling: its reply, snapshot, inverse and log's parts as the
    store best takes them (`store.pack`, `store.snapshot_of`, `pages.packed_parts`)."""
    pending, entry = commit.pending, commit.pending.entry
    return (
        commit.world.id,
        pending.result["rev"],
        pending.action_id,
        b"" if reply is None else reply,
        dumped,
        pending.digest,
        None if entry is None else entry.kind,
        pending.message_id if entry is None or entry.action_id is None else entry.target,
        inverse,
        parts or (),
    )


def _on_loop(commit: Commit, result: Dumped) -> tuple[tuple[JsonOps, JsonOps] | None, Row]:
    """A ruling written on the event loop (no snapshot: `commit_ruling`): its ops and inverse as JSON
    in parts (`_made`) and its row, the reply kept, or `StorageError` while the disk is faulty."""
    bridge, pending = commit.bridge, commit.pending
    if bridge.storage_fault is not None:
        raise _storage_refusal(bridge, None)
    parts = result.parts if pending.action_id is not None else None
    kept, inverse = _made(pending, result)
    return kept, _row(
        commit, pack(result.data), None, inverse, None if parts is None else packed_parts(parts)
    )


def _append(bridge: Bridge, row: Row) -> None:
    """Write a ruling's row now, on the event loop (the store is idle: `Bridge.store_idle`), or raise
    `StorageError` (nothing written)."""
    try:
        bridge.store.append(*row)
    except (sqlite3.Error, OSError) as exc:
        raise _storage_refusal(bridge, exc) from None


async def _store(
    commit: Commit, result: Dumped, snapshot: WorldState | None, off_loop: bool
) -> tuple[JsonOps, JsonOps] | None:
    """Write one ruling to the store as one row (`Store.append`, through `Bridge.in_store`), with
    its log in parts when it is paged (`store.pages`), or raise `StorageError` (nothing written);
    returns its ops and inverse as JSON in parts (`_made`). `off_loop`: its row made in workers (the
    reply packed in one while the inverse is made and packed in another, the snapshot dumped and
    packed in a third and its log's parts packed in a fourth: `store.pack`, `store.snapshot_of`,
    `pages.packed_parts`; a reply the store does not keep is not packed, `store.keeps_reply`), then
    written in the store's writer thread. On the loop a ruling carries no snapshot (`commit_ruling`),
    so the store keeps its reply (`_on_loop`)."""
    bridge, pending = commit.bridge, commit.pending
    if off_loop:
        if bridge.storage_fault is not None:
            raise _storage_refusal(bridge, None)
        parts = result.parts if pending.action_id is not None else None
        written = result.data if keeps_reply(pending.action_id, snapshot is not None) else None
        made, reply, dumped, packed = await asyncio.gather(
            asyncio.to_thread(_made, pending),
            _in_worker(pack, written),
            _in_worker(snapshot_of, snapshot),
            _in_worker(packed_parts, parts),
        )
        kept, inverse = made
        row = _row(commit, reply, dumped, inverse, packed)
    else:
        kept, row = _on_loop(commit, result)
    try:
        await bridge.in_store(bridge.store.append, *row, off_loop=off_loop)
    except (sqlite3.Error, OSError) as exc:
        raise _storage_refusal(bridge, exc) from None
    return kept


async def commit_ruling(commit: Commit, dumped: Dumped | None = None) -> None:
    """Store the ruling, then acknowledge it, commit it, and push it to the world's other clients
    (into their queues: a ruling never waits on a socket). `dumped`: the result's JSON when the
    worker that ruled has written it already (a long ruling's megabytes are not dumped on the loop).

    A large ruling (`STORE_THREAD_BYTES`) or one with a snapshot is written in the store's thread,
    and committed to the world once stored whatever happens to the caller meanwhile (shielded): the
    world never falls behind its store. The acknowledgement goes out before the world's bookkeeping;
    no other message is handled in between (nothing is awaited), and the client reads it meanwhile."""
    pending = commit.pending
    if dumped is None:
        dumped = dumped_result(pending.result)
    wanted = pending.snapshot or commit.bridge.store.wants_snapshot(commit.world.id)
    snapshot = settled(pending.state) if wanted else None
    if snapshot is None and dumped.stored_bytes() <= STORE_THREAD_BYTES:
        if commit.bridge.store_idle():  # written, acknowledged and committed in this very turn
            kept, row = _on_loop(commit, dumped)
            _append(commit.bridge, row)
        else:
            kept = await _store(commit, dumped, None, off_loop=False)
        _committed(commit, dumped, kept)
        return
    await asyncio.shield(_stored_then_committed(commit, dumped, snapshot))


async def _stored_then_committed(commit: Commit, dumped: Dumped, snapshot: WorldState | None) -> None:
    kept = await _store(commit, dumped, snapshot, off_loop=True)
    _committed(commit, dumped, kept)
    if kept is not None:
        _pack_later(commit.bridge, commit.world, commit.pending.result["rev"], kept)


def _pack_later(bridge: Bridge, world: World, rev: int, kept: tuple[JsonOps, JsonOps]) -> None:
    """After a large ruling is acknowledged: its ops and inverse packed in a worker thread
    (`packed_ops`: Zstandard, which releases the interpreter a part at a time; off the acknowledgement's
    path), then kept so for undo (`History.repack`, on the loop, unless a later ruling dropped the
    entry meanwhile), and the memory the plain JSON held given back (`release_later`)."""

    def packed(done: asyncio.Future[tuple[JsonOps, JsonOps]]) -> None:
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:  # a bug: undo keeps the plain JSON, which is as good
            log.error("could not pack the ops of rev %d of world %r: %r", rev, world.id, error)
        elif world.history.repack(rev, kept, done.result()):
            release_later(bridge)

    try:
        running = asyncio.get_running_loop().run_in_executor(None, packed_ops, kept)
    except RuntimeError:  # the loop's executor is shut down (the sidecar stops): undo keeps them plain
        return
    running.add_done_callback(packed)


def _committed(commit: Commit, dumped: Dumped, kept: tuple[JsonOps, JsonOps] | None = None) -> None:
    """A stored ruling acknowledged, made the world's state, recorded and pushed (`dumped`: its JSON
    and each client's copy of it, `dumped_result`; `kept`: its ops and inverse as JSON, `_stored`).
    Pushed after the acknowledgement is written when it is long (`Outbox.answers_first`: in
    fragments, compressed in a worker thread, or as it is): the client that asked gets its answer
    first, not at the pace of every socket of the world at once, and the others no later than they
    would (`Outbox.put`'s `after`)."""
    bridge, client, world, pending, kind = (
        commit.bridge,
        commit.client,
        commit.world,
        commit.pending,
        commit.kind,
    )
    new_rev = pending.result["rev"]
    bridge.dirty = True
    others = [c for c in bridge.clients.get(world.id, ()) if c is not client]
    answer = envelope_parts("result", dumped.sent(client.contests), bridge.next_id(), commit.msg_id)
    first = bool(others) and client.outbox is not None and client.outbox.answers_first(answer)
    answered = asyncio.get_running_loop().create_future() if first else None
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
            parts = pushed[other.contests] = pushed_parts(pending, kind, copy, other.contests)
        other.send(envelope_parts("patch", parts, bridge.next_id(), None), after=answered)


# ---- a ruling made ----------------------------------------------------------------------------

OFFLOAD_TOKENS = 100
"""A `sync` or `round` in a world of more tokens than this is ruled in a worker thread, so other
worlds are served meanwhile (the GIL hands the event loop a turn every few milliseconds)."""


def long_ruling(type_: str, payload: dict[str, Any], world: World) -> bool:
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
"""A `batch` of more damage instances than this is ruled in a worker thread, so other worlds are
served meanwhile (the measurements behind the bound: docs/benchmarks.md)."""


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


def ruled_in_worker(prepare: Callable[..., P], *args: Any) -> tuple[P, Dumped | None]:
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


async def rule(
    bridge: Bridge, client: Client, world: World, msg_id: str, type_: str, payload: dict[str, Any]
) -> None:
    """Rule on a `sync`, `upsert` or `action` (in a worker thread when it is long), then commit it."""
    offload = long_ruling(type_, payload, world)
    if type_ == "action":
        dumped: Dumped | None = None
        try:
            if offload:
                prepared, dumped = await asyncio.to_thread(
                    ruled_in_worker, world.prepare_action, msg_id, payload, bridge.roller
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
        await commit_ruling(Commit(bridge, client, world, prepared, msg_id, str(payload.get("kind"))), dumped)
        if offload:
            release_later(bridge)
        return
    if type_ == "sync":
        if offload:
            pending, dumped = await asyncio.to_thread(ruled_in_worker, world.prepare_sync, payload, msg_id)
            await commit_ruling(Commit(bridge, client, world, pending, msg_id, type_), dumped)
            release_later(bridge)
            return
        pending = world.prepare_sync(payload, msg_id)
    else:
        pending = world.prepare_upsert(payload, msg_id)
        check_counts(bridge.config.limits, pending.state)
    await commit_ruling(Commit(bridge, client, world, pending, msg_id, type_))


# ---- the reply encoding ------------------------------------------------------------------------


def _envelope_head(type_: str, msg_id: str, re: str | None) -> bytes:
    """A message's JSON up to its payload's value, as UTF-8 (the envelope's fields in their wire
    order; the ids are strings, written as `dumps` writes them)."""
    if re is None:
        return b'{"v":1,"id":%b,"type":"%b","payload":' % (orjson.dumps(msg_id), type_.encode())
    return b'{"v":1,"id":%b,"re":%b,"type":"%b","payload":' % (
        orjson.dumps(msg_id),
        orjson.dumps(re),
        type_.encode(),
    )


def envelope(type_: str, payload_json: str, msg_id: str, re: str | None) -> str:
    """A message as JSON text, its payload already serialized."""
    return f"{_envelope_head(type_, msg_id, re).decode()}{payload_json}}}"


def envelope_parts(type_: str, payload_data: bytes | list[Part], msg_id: str, re: str | None) -> list[Part]:
    """`envelope(...)`'s UTF-8 in parts (joined, the very bytes), its payload already serialized as
    UTF-8, or as the parts it is made of: a long ruling's megabytes are neither copied into a str
    nor encoded on the loop, nor joined into one message (the outbox writes the parts as they are)."""
    head = _envelope_head(type_, msg_id, re)
    if isinstance(payload_data, list):
        return [head, *payload_data, b"}"]
    return [head, payload_data, b"}"]


def json_default(value: Any) -> Any:
    """JSON for what a rule put in a step's data beyond plain JSON (a model, a set)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> str:
    """Compact JSON text (orjson, `json_default` for the values JSON lacks)."""
    return orjson.dumps(value, default=json_default).decode()


def _is_contests(op: Any) -> bool:
    """Whether a patch op writes `/contests` (the stage-three wins, DET-8), which a client has in
    its copy of a patch only when it asked for them (`Hello.contests`)."""
    path = op.get("path") if type(op) is dict else None
    return type(path) is str and path.startswith("/contests") and (len(path) == 9 or path[9] == "/")


_PATH = itemgetter("path")


def _has_contests(patch: list[Any]) -> bool:
    """Whether a patch holds a `/contests` op (`_is_contests`). Its paths are first joined and
    searched in C: a move's hundreds of ops are not looked at one by one in Python unless one path
    names `/contests` at all (or an op is not an object with a string path)."""
    try:
        paths = "\n".join(map(_PATH, patch))
    except (KeyError, TypeError):
        return any(_is_contests(op) for op in patch)
    return "/contests" in paths and any(_is_contests(op) for op in patch)


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
    left out. The store keeps the whole log and rolls (`store.pages`; `query {kind: "ruling"}` reads them)."""
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
    megabytes of text beyond ASCII would take twice the memory as a str), which is the copy a
    client that asked for `/contests` is sent, and `wire`, the copy (`wire_payload`) in parts for a
    client that did not (None: `data` itself, nothing left out). `parts`: its log and rolls in runs
    for the store when it is paged (`store.pages`; its log and rolls in `data` are then cut as in
    every client's copy). `ops`: the JSON array of its patch's ops but the first and the last (a
    ruling's rev test and rev replace: what undo keeps as its forward ops, `_made`), when `data`
    was made from it (None: not made apart). A plain class with slots: one is made for every
    ruling, a `damage`'s included."""

    __slots__ = ("data", "ops", "parts", "wire")

    def __init__(
        self,
        data: bytes,
        wire: list[Part] | None = None,
        parts: list[LogPart] | None = None,
        ops: bytes | None = None,
    ) -> None:
        self.data = data
        self.wire = wire
        self.parts = parts
        self.ops = ops

    def stored_bytes(self) -> int:
        """The bytes the store writes of it: its JSON and its parts (before they are packed)."""
        return len(self.data) + (0 if self.parts is None else sum(len(part.data) for part in self.parts))

    def sent(self, contests: bool) -> bytes | list[Part]:
        """The JSON a client is sent (`contests`: it asked for them), whole or in parts."""
        return self.data if contests or self.wire is None else self.wire


def dumped_result(result: dict[str, Any], in_turns: bool = False) -> Dumped:
    """A result's JSON (`dumps`'s bytes) and its clients' copies (`wire_payload`'s JSON, the same
    bytes `dumps` gives them), each item dumped once: the copies share the full JSON's pieces (a
    round's `/contests` rows, tens of MB at 1,000 tokens, and its log are not dumped again).
    `in_turns`: dumped as `_dumped_in_turns` does, for a worker thread."""
    log, rolls, patch = result.get("log"), result.get("rolls"), result.get("patch")
    long_log = type(log) is list and len(log) > LOG_SHOWN
    long_rolls = type(rolls) is list and len(rolls) > ROLLS_SHOWN
    has_contests = type(patch) is list and _has_contests(patch)
    dump = _dumped_in_turns if in_turns else _dumped_at_once
    if not (long_log or long_rolls or has_contests):
        ops = None
        if in_turns:
            data = _dumped_in_turns(result)
        elif type(patch) is list and len(patch) > OPS_APART + 2:
            data, ops = _dumped_with_ops(result, patch)
        else:
            data = orjson.dumps(result, default=json_default)
        # a large reply is paged even when its log is short: a page of it then reads no patch
        return Dumped(data, parts=None if len(data) <= PAGED_FROM else parts_of(result, dump), ops=ops)
    full: list[Part] = []  # the stored JSON: a copy for a client that asked for `/contests`
    wire: list[Part] = []
    opening = b"{"
    for key, value in result.items():
        head = opening + orjson.dumps(key) + b":"
        opening = b","
        if key == "patch" and has_contests:
            assert isinstance(value, list)
            everything, plain = _patch_pieces(value, dump)
            full += [head, *everything]
            wire += [head, *plain]
        elif key in ("log", "rolls") and (long_log or long_rolls):
            assert isinstance(value, list)
            shown = orjson.dumps(value[: LOG_SHOWN if key == "log" else ROLLS_SHOWN], default=json_default)
            full += [head, shown]  # the whole of them goes to the store in parts
            wire += [head, shown]
        else:
            piece = dump(value)
            full += [head, piece]
            wire += [head, piece]
    if long_log or long_rolls:
        assert isinstance(log, list) and isinstance(rolls, list)
        tail = b',"summary":' + orjson.dumps(summary(log, rolls))
        full.append(tail)
        wire.append(tail)
    full.append(b"}")
    wire.append(b"}")
    data = b"".join(full)
    paged = long_log or long_rolls or len(data) > PAGED_FROM
    return Dumped(data, wire, parts_of(result, dump) if paged else None)


OPS_APART = 16
"""Ops of a patch beyond which `dumped_result` dumps them apart from the rest of the reply
(`_dumped_with_ops`), for undo to keep that JSON (`Dumped.ops`): a `damage`'s one or two ops cost
less to dump again than the reply costs to make in pieces."""


def _dumped_with_ops(result: dict[str, Any], patch: list[Any]) -> tuple[bytes, bytes | None]:
    """`dumps(result)`'s UTF-8, the same bytes, and the JSON array of its patch's ops but the first
    and the last (`Dumped.ops`), which the reply's patch is made of: the ops are dumped once. A
    result of other keys than a ruling's (`_RESULT_KEYS`, in order) is dumped whole (None)."""
    if tuple(result) != _RESULT_TUPLE or type(result["rev"]) is not int:
        return orjson.dumps(result, default=json_default), None
    ops = orjson.dumps(patch[1:-1], default=json_default)
    data = b"".join(
        (
            b'{"rev":%d,"patch":[' % result["rev"],
            orjson.dumps(patch[0], default=json_default),
            b",",
            memoryview(ops)[1:-1],
            b",",
            orjson.dumps(patch[-1], default=json_default),
            b'],"log":',
            orjson.dumps(result["log"], default=json_default),
            b',"rolls":',
            orjson.dumps(result["rolls"], default=json_default),
            b"}",
        )
    )
    return data, ops


def replayed_copy(reply: bytes, contests: bool) -> bytes:
    """A client's copy (`wire_payload`) of a stored reply to a retried action id (as the store keeps
    it: the copy for a client that asked for `/contests`, or a layout-9 row's whole ruling): the
    reply itself when nothing is left out."""
    value = orjson.loads(reply)
    if not isinstance(value, dict):
        return reply
    wire = wire_payload(value, contests)
    return reply if wire is value else orjson.dumps(wire)


def _dumped_at_once(value: Any) -> bytes:
    return orjson.dumps(value, default=json_default)


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
            chunk = orjson.dumps(value[at : at + DUMP_CHUNK], default=json_default)[1:-1]
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
        pieces.append(orjson.dumps(value, default=json_default))


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


_RESULT_KEYS = ["rev", "patch", "log", "rolls"]
"""A ruling's `result` payload, in order: all `pushed_patch` takes, before its own keys."""

_RESULT_TUPLE = tuple(_RESULT_KEYS)
"""`_RESULT_KEYS` as a tuple, which a result's keys are compared with at once (`_dumped_with_ops`)."""


def pushed_parts(pending: Pending, kind: str, sent: bytes | list[Part], contests: bool = False) -> list[Part]:
    """`pushed_patch`'s JSON for a client (`contests`: whether it asked for them) in parts (joined,
    the very bytes `dumps` gives it), made from its copy of the result's JSON (`sent`: `Dumped.sent`,
    sent already) when the result holds just `_RESULT_KEYS`: a view of it but its closing brace,
    then its own keys, not a round's megabytes dumped (or copied) again on the event loop."""
    parts = [sent] if isinstance(sent, bytes) else sent
    if list(pending.result) != _RESULT_KEYS or not parts or bytes(parts[-1][-1:]) != b"}":
        return [orjson.dumps(pushed_patch(pending, kind, contests), default=json_default)]
    tail = b',"kind":' + orjson.dumps(kind)
    if pending.action_id is not None:
        tail += b',"action":' + orjson.dumps(pending.action_id)
    last = parts[-1]
    return [*parts[:-1], memoryview(last)[:-1], tail + b"}"]
