"""A welcomed client's `query` answered: a preview (an action ruled and thrown away), a page of a
stored ruling (read from the store), a big world's state (dumped in a worker), any other on the loop.
A `sync`, `upsert` or `action` is a ruling: `commit.py`.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import orjson

from vtt_bridge.engine.preview import preview
from vtt_bridge.engine.protocol import ErrorCode
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.world import World
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.server.bridge import Bridge, Client
from vtt_bridge.server.commit import (
    OFFLOAD_TOKENS,
    dumps,
    envelope,
    envelope_parts,
    json_default,
    long_ruling,
)
from vtt_bridge.server.workers import COLLECTOR


def query_dumped(world: World, payload: dict[str, Any]) -> bytes:
    """In a worker: a query answered (`World.query`) and its result's JSON (one `orjson` call: the
    state is dumped in parts already, `dumped_in_parts`), the cycle collector paused as for a long
    ruling (`ruled_in_worker`)."""
    gc.freeze()
    with COLLECTOR.paused():
        return orjson.dumps(world.query(payload), default=json_default)


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
            if isinstance(action, dict) and long_ruling("action", action, world):
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
