"""Dispatch of a welcomed client's `query`, `sync`, `upsert` and `action`: a query answered, a ruling
made (in a worker thread when it is long) and handed to the commit pipeline (`commit.py`), a
retried action id answered with its stored reply.
"""

from __future__ import annotations

import asyncio
from typing import Any

from vtt_bridge.engine.preview import preview
from vtt_bridge.engine.protocol import ErrorCode
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.world import World
from vtt_bridge.errors import AnsweredLongAgo, StoreDamaged
from vtt_bridge.server.bridge import Bridge, Client
from vtt_bridge.server.commit import STORE_THREAD_BYTES, Commit, commit_ruling
from vtt_bridge.server.replies import Dumped, dumps, envelope, envelope_parts, replayed_copy
from vtt_bridge.server.sync import check_counts
from vtt_bridge.server.workers import query_dumped, release_later, ruled_in_worker

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


def _long_query(payload: dict[str, Any], world: World) -> bool:
    """Whether a query is expected to take long enough to hold other worlds up: a big world's whole
    state (a 1,000-token world's after a round is tens of MB of JSON)."""
    return payload.get("kind") == "state" and len(world.state.tokens) > OFFLOAD_TOKENS


async def _ruling_page(
    bridge: Bridge, client: Client, world: World, msg_id: str, payload: dict[str, Any]
) -> None:
    """`query {kind: "ruling"}`: a page of a ruling's whole log and rolls, read from the store (in
    its thread), so it outlives a restart; `not_found` for an action id the world never answered,
    `storage` when what it reads is damaged on disk."""
    query = world.ruling_query(payload)
    try:
        page = await bridge.in_store(
            bridge.store.ruling_page, world.id, query.action, query.offset, query.limit, off_loop=True
        )
    except StoreDamaged as exc:  # a part or row changed on disk: the client is told, nothing changes
        bridge.storage_log.warn(str(exc))
        raise RequestError(
            ErrorCode.STORAGE,
            f"the stored log of action {query.action[:60]!r} cannot be read back (damaged on disk; the "
            "sidecar's log names it); nothing was changed",
        ) from None
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


async def answer_query(
    bridge: Bridge, client: Client, world: World, msg_id: str, payload: dict[str, Any]
) -> None:
    """A welcomed client's `query`: a preview (an action ruled and thrown away), a page of a stored
    ruling, a big world's state dumped in a worker, or any other query answered on the loop."""
    if payload.get("kind") == "preview":  # an action ruled and thrown away (engine/preview.py)
        async with bridge.lock(world.id):
            action = payload.get("action")
            if isinstance(action, dict) and _long("action", action, world):
                result = await asyncio.to_thread(preview, world, payload, bridge.roller)
            else:
                result = preview(world, payload, bridge.roller)
        client.send(envelope("result", dumps(result), bridge.next_id(), msg_id))
        return
    if payload.get("kind") == "ruling":
        await _ruling_page(bridge, client, world, msg_id, payload)
        return
    if _long_query(payload, world):
        async with bridge.lock(world.id):  # its state stays the world's while it is dumped
            data = await asyncio.to_thread(query_dumped, world, payload)
        client.send(envelope_parts("result", data, bridge.next_id(), msg_id))
        return
    result = world.query(payload)
    client.send(envelope("result", dumps(result), bridge.next_id(), msg_id))


async def rule(
    bridge: Bridge, client: Client, world: World, msg_id: str, type_: str, payload: dict[str, Any]
) -> None:
    """Rule on a `sync`, `upsert` or `action` (in a worker thread when it is long), then commit it."""
    offload = _long(type_, payload, world)
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
