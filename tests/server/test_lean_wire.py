"""What a client is sent of a ruling (issue 33): its log and rolls cut to what a card shows, with
their counts; the whole of them read in pages (`query {kind: "ruling"}`) from the store, across a
restart; `/contests` ops only to a client that asked for them."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import jsonpatch

from tests.conftest import Peer, welcomed
from tests.detection_scenes import guard_among_hiders
from tests.store.test_pages import as_layout_9
from vtt_bridge.actions.registry import RULING_PAGE_MAX
from vtt_bridge.engine.protocol import LOG_SHOWN, ROLLS_SHOWN
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.server.commit import dumps

HIDERS = guard_among_hiders([f"h{i}" for i in range(200)], 100, 10)
ROUND = {"kind": "round", "round": 2}


def _whole_round(seed: int) -> dict[str, Any]:
    """The reference: the same round ruled in process with the same dice (the sync rolls none)."""
    world = World("w1")
    sync = world.prepare_sync({"state": HIDERS})
    world.commit(sync, dumps(sync.result))
    pending = world.prepare_action("round-2", ROUND, SeededRoller(seed))
    assert isinstance(pending, Pending)
    return pending.result


def _contest_ops(patch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [op for op in patch if op["path"] == "/contests" or op["path"].startswith("/contests/")]


async def _pages(peer: Peer, action: str, limit: int) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """Every step and roll of a ruling, page after page (both paged by the same offset)."""
    log: list[Any] = []
    rolls: list[Any] = []
    offset = 0
    while True:
        query = {"kind": "ruling", "action": action, "offset": offset, "limit": limit}
        reply = await peer.request("query", query)
        assert reply["type"] == "result", reply
        data: dict[str, Any] = reply["payload"]["data"]
        assert len(reply["payload"]["log"]) == max(0, min(limit, data["steps"] - offset))
        assert len(reply["payload"]["rolls"]) == max(0, min(limit, data["rolls"] - offset))
        log += reply["payload"]["log"]
        rolls += reply["payload"]["rolls"]
        offset += limit
        if offset >= max(data["steps"], data["rolls"]):
            return log, rolls, data


async def test_a_reply_and_its_pushed_patch_carry_the_steps_and_rolls_a_card_shows_and_their_counts(
    start: Any,
) -> None:
    server = await start(seed=7)
    gm, mate = await welcomed(server), await welcomed(server)
    await gm.request("sync", {"state": HIDERS}, "sync-1")
    await mate.receive()
    whole = _whole_round(7)
    assert len(whole["log"]) > LOG_SHOWN and len(whole["rolls"]) > ROLLS_SHOWN
    reply = await gm.action(ROUND, "round-2")
    pushed = await mate.receive()
    assert pushed["type"] == "patch"
    for payload in (reply["payload"], pushed["payload"]):
        assert payload["log"] == whole["log"][:LOG_SHOWN]
        assert payload["rolls"] == whole["rolls"][:ROLLS_SHOWN]
        assert payload["summary"]["steps"] == len(whole["log"])
        assert payload["summary"]["rolls"] == len(whole["rolls"])
        contests = sum(s["key"] == "DET-8.contest" for s in whole["log"])
        assert payload["summary"]["keys"]["DET-8.contest"] == contests
        assert _contest_ops(whole["patch"]) and not _contest_ops(payload["patch"])
    # a damage's log is short: carried whole, no summary
    hit = await gm.action({"kind": "damage", "target": "guard", "instances": [{"amount": 1, "grade": "B"}]})
    assert "summary" not in hit["payload"] and hit["payload"]["log"]


async def _round_kept(start: Any, config: Any) -> Path:
    """The data folder of a sidecar (dice seed 7) that synced `HIDERS`, ruled `ROUND` as `round-2`
    and stopped."""
    folder: Path = config.data_dir / "kept"
    first = await start(seed=7, data_dir=folder)
    gm = await welcomed(first)
    await gm.request("sync", {"state": HIDERS}, "sync-1")
    await gm.action(ROUND, "round-2")
    await first.close()
    return folder


async def test_the_ruling_query_pages_every_step_and_roll_in_order_across_a_restart(
    start: Any, config: Any
) -> None:
    folder = await _round_kept(start, config)
    whole = _whole_round(7)
    again = await welcomed(await start(data_dir=folder))
    for limit in (7, RULING_PAGE_MAX):
        log, rolls, data = await _pages(again, "round-2", limit)
        assert log == whole["log"] and rolls == whole["rolls"]
        assert data["kind"] == "round" and data["rev"] == 2 and data["action"] == "round-2"
    beyond = await again.request("query", {"kind": "ruling", "action": "round-2", "offset": 10**6})
    assert beyond["payload"]["log"] == [] and beyond["payload"]["data"]["steps"] == len(whole["log"])
    unknown = await again.request("query", {"kind": "ruling", "action": "never"})
    assert unknown["payload"]["code"] == "not_found"
    too_many = await again.request(
        "query", {"kind": "ruling", "action": "round-2", "limit": RULING_PAGE_MAX + 1}
    )
    assert too_many["payload"]["code"] == "invalid"


async def test_the_ruling_query_pages_every_step_and_roll_of_a_migrated_layout_9_file(
    start: Any, config: Any
) -> None:
    """The same session written by vtt-bridge 0.6.0 (layout 9: the round's whole reply in its row,
    `as_layout_9`): the sidecar opens it, gives its round its parts, and pages it as it pages its own."""
    folder = await _round_kept(start, config)
    assert as_layout_9(folder / "vtt-bridge.sqlite3") == 1
    whole = _whole_round(7)
    again = await welcomed(await start(data_dir=folder))
    for limit in (7, RULING_PAGE_MAX):
        log, rolls, data = await _pages(again, "round-2", limit)
        assert log == whole["log"] and rolls == whole["rolls"]
        assert data["kind"] == "round" and data["rev"] == 2


async def test_a_damaged_part_answers_storage_and_the_sidecar_serves_on(start: Any, config: Any) -> None:
    folder = await _round_kept(start, config)
    db = sqlite3.connect(folder / "vtt-bridge.sqlite3", isolation_level=None)
    db.execute("UPDATE pages SET checksum = checksum + 1 WHERE list = 0 AND first = 0")
    db.close()
    again = await welcomed(await start(data_dir=folder))
    damaged = await again.request("query", {"kind": "ruling", "action": "round-2"})
    assert damaged["type"] == "error" and damaged["payload"]["code"] == "storage"
    assert "round-2" in damaged["payload"]["message"] and "sqlite3" not in damaged["payload"]["message"]
    hit = {"kind": "damage", "target": "guard", "instances": [{"amount": 1, "grade": "B"}]}
    assert (await again.action(hit))["type"] == "result"


async def test_a_client_that_asks_for_contests_gets_them_in_its_reply_and_pushed_patches(start: Any) -> None:
    server = await start(seed=7)
    gm = await welcomed(server, contests=True)
    mirror = await welcomed(server, contests=True)
    plain = await welcomed(server)
    synced = await gm.request("sync", {"state": HIDERS}, "sync-1")
    assert _contest_ops(synced["payload"]["patch"])
    # a sync's patch builds the document from empty: its replaces are adds there
    built = [{**op, "op": "add"} for op in synced["payload"]["patch"] if op["op"] != "test"]
    document = jsonpatch.apply_patch({}, built)
    assert _contest_ops((await mirror.receive())["payload"]["patch"])
    assert not _contest_ops((await plain.receive())["payload"]["patch"])
    whole = _whole_round(7)
    reply = await gm.action(ROUND, "round-2")
    # (the whole patch is the sidecar's: its areas are drawn by its own dice, the wins are the rules')
    assert _contest_ops(reply["payload"]["patch"]) == _contest_ops(whole["patch"])
    pushed = (await mirror.receive())["payload"]
    assert pushed["patch"] == reply["payload"]["patch"] and pushed["log"] == whole["log"][:LOG_SHOWN]
    assert not _contest_ops((await plain.receive())["payload"]["patch"])
    jsonpatch.apply_patch(document, reply["payload"]["patch"], in_place=True)
    assert document["contests"] == (await gm.state())["contests"]
    # a retry of the round answers each client with its own copy, marked replayed
    retried = await gm.action(ROUND, "round-2")
    assert retried["payload"]["replayed"] is True and retried["payload"]["patch"] == reply["payload"]["patch"]
    plain_retry = await plain.action(ROUND, "round-2")
    assert plain_retry["payload"]["replayed"] is True
    assert not _contest_ops(plain_retry["payload"]["patch"])
    assert plain_retry["payload"]["summary"]["steps"] == len(whole["log"])
