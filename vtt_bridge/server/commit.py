"""The commit pipeline of one ruling: the ruling (a `Pending` from `engine/world.py`) written to the
store as one row, then acknowledged to the client that asked, committed into its world and pushed
to the world's other clients, in that order. A ruling the store cannot take is refused and changes
nothing; a stored one is always committed (the world never falls behind its store).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from vtt_bridge.document.models import WorldState, settled
from vtt_bridge.engine.history import JsonOps, packed_ops, stored_ops
from vtt_bridge.engine.protocol import ErrorCode
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.server.bridge import Bridge, Client, RulingRecord
from vtt_bridge.server.outbox import Part
from vtt_bridge.server.replies import Dumped, dumped_result, envelope_parts, pushed_parts
from vtt_bridge.server.workers import release_later
from vtt_bridge.store.pages import Part as LogPart
from vtt_bridge.store.pages import packed_parts
from vtt_bridge.store.rows import keeps_reply, pack, snapshot_of

A = TypeVar("A")
R = TypeVar("R")

log = logging.getLogger("vtt_bridge")


class StorageError(RequestError):
    """The store could not take a ruling (disk full, read-only, I/O error): nothing changed."""

    def __init__(self, reason: str) -> None:
        super().__init__(ErrorCode.STORAGE, reason)


@dataclass(frozen=True, slots=True)
class Commit:
    """One ruling on its way through the pipeline: the bridge, the client that asked and the id of
    its message (what the acknowledgement answers), the world, the ruling made and not yet committed,
    and its kind (an action's kind, `sync` or `upsert`: what the status page and the pushed patch
    name)."""

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
    commit: Commit, reply: bytes | None, snapshot: bytes | None, made: Made, parts: list[LogPart] | None
) -> tuple[JsonOps, JsonOps] | None:
    """Write one ruling to the store (in whichever thread runs the store's work), its reply, snapshot
    and log in parts as the store takes them (`store.pack`, `store.snapshot_of`,
    `pages.packed_parts`; a reply the store does not keep may be None: `store.keeps_reply`);
    returns its ops and inverse as JSON in parts (`_made`)."""
    pending = commit.pending
    entry = pending.entry
    kept, inverse = made
    commit.bridge.store.append(
        commit.world.id,
        pending.result["rev"],
        pending.action_id,
        b"" if reply is None else reply,
        snapshot,
        pending.digest,
        kind=None if entry is None else entry.kind,
        target=pending.message_id if entry is None or entry.action_id is None else entry.target,
        inverse=inverse,
        parts=parts or (),
    )
    return kept


def _in_worker(work: Callable[[A], R], value: A | None) -> Awaitable[R | None]:
    """`work(value)` in a worker thread, or None at once for no value."""
    if value is None:
        return asyncio.sleep(0)
    return asyncio.to_thread(work, value)


async def _store(
    commit: Commit, result: Dumped, snapshot: WorldState | None, off_loop: bool
) -> tuple[JsonOps, JsonOps] | None:
    """Write one ruling to the store (`off_loop`: its row made in workers, the reply packed in one
    while the inverse is made and packed in another, the snapshot dumped and packed in a third and
    its log's parts packed in a fourth, then written in the store's writer thread), or raise
    `StorageError` (nothing written); returns what `_stored` does."""
    bridge, pending = commit.bridge, commit.pending
    if bridge.storage_fault is not None:
        raise _storage_refusal(bridge, None)
    written = result.data if keeps_reply(pending.action_id, snapshot is not None) else None
    parts = result.parts if pending.action_id is not None else None
    if off_loop:
        made, reply, dumped, packed = await asyncio.gather(
            asyncio.to_thread(_made, pending),
            _in_worker(pack, written),
            _in_worker(snapshot_of, snapshot),
            _in_worker(packed_parts, parts),
        )
    else:
        made = _made(pending)
        reply = None if written is None else pack(written)
        dumped = None if snapshot is None else snapshot_of(snapshot)
        packed = None if parts is None else packed_parts(parts)
    try:
        return await bridge.in_store(_stored, commit, reply, dumped, made, packed, off_loop=off_loop)
    except (sqlite3.Error, OSError) as exc:
        raise _storage_refusal(bridge, exc) from None


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
    first = client.outbox is not None and client.outbox.answers_first(answer)
    answered = asyncio.get_running_loop().create_future() if others and first else None
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
