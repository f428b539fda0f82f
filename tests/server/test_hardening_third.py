"""Issue 34's findings (the third hardening round), each reproduced over loopback or through the CLI,
bounded in count and time, and shown to hold: 1 silent sockets, 2 parallel guessers, 3 the zip cache,
4 the status page's size, 5 a bad part of a sync, 6 a snapshot's checksum, 7 the store deleted, 8 a
refused second start, 9 the data folder's mode, 10 a lone surrogate, 11 undo by cause, 12 costs."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import TOKEN, Peer, welcomed, world_state
from vtt_bridge.errors import StoreBusy, StoreDamaged
from vtt_bridge.server.bridge import BRIDGE
from vtt_bridge.store.log import Store
from vtt_bridge.store.schema import LAYOUT
from vtt_bridge.web import pages


def damage(target: str = "actor0", amount: int = 1, grade: str = "L") -> dict[str, Any]:
    return {"kind": "damage", "target": target, "instances": [{"amount": amount, "grade": grade}]}


def _serve(data_dir: Path, *, umask: int | None = None) -> subprocess.Popen[str]:
    """`python -m vtt_bridge serve` on a free port, as a user starts it."""
    env = {**os.environ, "VTT_BRIDGE_TOKEN": TOKEN, "VTT_BRIDGE_LOG_LEVEL": "WARNING"}
    return subprocess.Popen(
        [sys.executable, "-m", "vtt_bridge", "serve", "--port", "0", "--data-dir", str(data_dir)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )


def _listening(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "listening on" in line, (line, process.poll())
    return line


# --- 1. silent sockets before `welcome` ------------------------------------------------------


async def _squat(server: Any, stop: asyncio.Event, opened: list[int], ping: bool) -> None:
    """One task of a local squatter: a socket that never sends a hello (only a ping, if `ping`),
    opened again as soon as it is closed (or refused)."""
    while not stop.is_set():
        try:
            ws = await server.ws_connect("/ws", autoping=False)
        except aiohttp.WSServerHandshakeError:
            await asyncio.sleep(0)
            continue
        opened.append(1)
        if ping:
            await ws.ping()
        while (await ws.receive()).type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            pass  # its pong; then until the server closes it
        await ws.close()


async def _gm_connects(server: Any) -> bool:
    """One GM connect as the module makes it (its hello sent at once): welcomed, or closed (a
    squatter's socket took its place before its hello came in) or refused."""
    try:
        ws = await server.ws_connect("/ws")
    except aiohttp.WSServerHandshakeError:
        return False
    await ws.send_json(
        {
            "v": 1,
            "id": "h",
            "type": "hello",
            "payload": {"token": TOKEN, "world": "w1", "client": {"name": "gm"}},
        }
    )
    msg = await ws.receive(timeout=10)
    welcomed = bool(msg.type == aiohttp.WSMsgType.TEXT and json.loads(msg.data)["type"] == "welcome")
    await ws.close()
    return welcomed


async def test_1_sockets_kept_silent_before_welcome_never_keep_the_gm_out(start: Any) -> None:
    """Twice as many squatter tasks as there are pre-`welcome` slots keep them filled, reopening each
    socket as soon as it closes (half of them ping, which is no hello). The GM, connecting again when
    its socket is closed as the module does, is welcomed five times within 50 connects (before:
    every connect answered HTTP 503 while the slots were taken; now a connect fails only when the
    squatters open as many sockets as there are slots between its upgrade and its hello)."""
    server = await start(limits={"max_unauthenticated": 8})
    bridge = server.app[BRIDGE]
    stop = asyncio.Event()
    opened: list[int] = []
    squatters = [asyncio.create_task(_squat(server, stop, opened, ping=i % 2 == 0)) for i in range(16)]
    try:
        for _ in range(3000):  # (30 s: a bound against a hang only)
            if bridge.unauthenticated >= 8:
                break
            await asyncio.sleep(0.01)
        assert bridge.unauthenticated == 8
        welcomes = attempts = 0
        while welcomes < 5 and attempts < 50:
            attempts += 1
            welcomes += await _gm_connects(server)
        assert welcomes == 5, f"{welcomes} welcomes in {attempts} connects"
        assert bridge.unauthenticated <= 8
    finally:
        stop.set()
        for task in squatters:
            task.cancel()
        await asyncio.gather(*squatters, return_exceptions=True)
    assert len(opened) > 16  # the squatters did reopen what was closed


# --- 2. parallel token guessers ----------------------------------------------------------------


async def test_2_a_right_token_is_welcomed_at_once_while_guessers_wait_out_their_back_off(
    start: Any,
) -> None:
    """Eight guessers from the same address, each wrong token waiting a back-off longer than the
    hello deadline; the GM's right `hello` is welcomed while they all still wait (before, it queued
    behind them and the deadline closed it). The guessers are refused afterwards, one per back-off."""
    server = await start(limits={"auth_backoff": 30.0, "auth_backoff_max": 30.0, "hello_timeout": 60.0})
    bridge = server.app[BRIDGE]
    bridge.backoff.failed("127.0.0.1")  # an earlier wrong token: every hello now waits 30 s
    guessers = []
    for i in range(8):
        peer = Peer(await server.ws_connect("/ws"))
        await peer.send("hello", {"token": f"wrong-token-{i:08d}", "world": "w1", "client": {"name": "g"}})
        guessers.append(peer)
    for _ in range(3000):  # (30 s: a bound against a hang only)
        if sum(1 for c in bridge.waiting if c.refused) == 8:
            break
        await asyncio.sleep(0.01)
    assert sum(1 for c in bridge.waiting if c.refused) == 8
    gm = Peer(await server.ws_connect("/ws"))
    sent = await gm.send("hello", {"token": TOKEN, "world": "w1", "client": {"name": "gm"}})
    reply = await gm.receive()
    assert reply["type"] == "welcome" and reply["re"] == sent, reply
    assert sum(1 for c in bridge.waiting if c.refused) == 8  # the guessers still wait
    assert bridge.backoff.wait("127.0.0.1") > 0
    _end_back_off(bridge)


def _end_back_off(bridge: Any) -> None:
    """The guessers' refusals sent now (the test ends; else each waits out its 30 s)."""
    for waiting in list(bridge.waiting):
        waiting.closing.set()


async def test_2_guessers_waiting_out_their_back_off_make_room_for_the_gm(start: Any) -> None:
    """The pre-`welcome` slots all held by wrong tokens waiting their turn: the GM's socket takes the
    place of the oldest, which is closed unanswered."""
    server = await start(limits={"auth_backoff": 30.0, "auth_backoff_max": 30.0, "max_unauthenticated": 3})
    bridge = server.app[BRIDGE]
    bridge.backoff.failed("127.0.0.1")
    guessers = []
    for i in range(3):
        peer = Peer(await server.ws_connect("/ws"))
        await peer.send("hello", {"token": f"wrong-token-{i:08d}", "world": "w1", "client": {"name": "g"}})
        guessers.append(peer)
    for _ in range(3000):  # (30 s: a bound against a hang only)
        if sum(1 for c in bridge.waiting if c.refused) == 3:
            break
        await asyncio.sleep(0.01)
    gm = await welcomed(server)
    closed = await guessers[0].ws.receive(timeout=10)
    assert closed.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert (await gm.state())["rev"] == 0
    _end_back_off(bridge)


# --- 3. the module zip's cache ----------------------------------------------------------------


async def test_3_the_module_zip_is_cached_for_a_few_host_names_only(start: Any) -> None:
    """Sixty spellings of the loopback Host (any case, any port, as a local process may send): each
    is served, and the zips kept stay a handful; the case of a name makes no new zip."""
    server = await start()
    source = server.app[pages.MODULE]
    first = await server.get("/module.zip", headers={"Host": "localhost:30500"})
    assert first.status == 200
    body = await first.read()
    builds = source.builds
    same = await server.get("/module.zip", headers={"Host": "LoCaLhOsT:30500"})
    assert await same.read() == body and source.builds == builds
    for port in range(1, 61):
        response = await server.get("/module.zip", headers={"Host": f"localhost:{port}"})
        assert response.status == 200
        await response.read()
    assert len(source._cache) <= 4


# --- 4. the status page's size ------------------------------------------------------------------


async def test_4_the_status_page_of_huge_health_tracks_stays_small(start: Any) -> None:
    """Sixty actors of 10,000 Health and 300 more actors: a Health track past a few dozen boxes is
    drawn as counts, a world's actors past `PAGE_ACTORS` are counted; every language's page stays
    some kilobytes (before: a span per box, 22 MB a page, three languages kept)."""
    server = await start()
    peer = await welcomed(server)
    state = world_state(actors=360, max_health=7)
    for i in range(60):
        state["actors"][f"actor{i}"]["health"] = {"max": 10_000}
    assert (await peer.request("sync", {"state": state}))["type"] == "result"
    hit = {"kind": "damage", "target": "actor1", "instances": [{"amount": 600, "grade": "L"}]}
    assert (await peer.action(hit))["type"] == "result"
    for lang in ("en", "de", "zh-CN"):
        response = await server.get("/", headers={"Accept-Language": lang})
        page = await response.text()
        assert len(page.encode()) < 400_000, (lang, len(page))
        assert page.count('class="box ') < 300 * 30
        assert "&times;9,400" in page and "&times;600" in page  # actor1's track as counts
        assert "and 160 more actors" in page  # 200 listed


# --- 11. undo by cause ---------------------------------------------------------------------------


async def test_11_an_undo_never_takes_back_a_later_ruling_that_set_the_same_values(start: Any) -> None:
    """d1 (0 -> 1 lethal), a heal back to 0, d3 (0 -> 1 lethal): the boxes are what d1 set, but d3
    set them. Undoing d1 is refused `conflict` naming the heal and d3 (before: accepted, and it took
    d3's damage back while d3 still showed as standing); once both are undone, d1 is undone."""
    server = await start()
    peer = await welcomed(server)
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    heal = {"kind": "heal", "target": "actor0", "amount": 1, "source": "overseer"}
    for msg_id, payload in (("d1", damage()), ("h2", heal), ("d3", damage())):
        assert (await peer.action(payload, msg_id))["type"] == "result", msg_id
    before = await peer.state()
    refused = await peer.action({"kind": "undo", "action": "d1"}, "u-d1")
    assert refused["type"] == "error" and refused["payload"]["code"] == "conflict", refused
    message = refused["payload"]["message"]
    assert "'d3' (rev 4)" in message and "'h2' (rev 3)" in message, message
    named = {ref["action"] for detail in refused["payload"]["details"] for ref in detail.get("rulings", [])}
    assert named == {"h2", "d3"}
    assert await peer.state() == before
    # a later ruling that was undone stands no more: the undo of d1 goes through once both are
    for msg_id in ("d3", "h2"):
        assert (await peer.action({"kind": "undo", "action": msg_id}, f"u-{msg_id}"))["type"] == "result"
    undone = await peer.action({"kind": "undo", "action": "d1"}, "u-d1-again")
    assert undone["type"] == "result", undone
    assert (await peer.state())["actors"]["actor0"]["health"]["lethal"] == 0


async def test_11_an_undo_of_a_ruling_whose_paths_no_later_ruling_wrote_goes_through(start: Any) -> None:
    """Later rulings on another actor keep nothing from being undone."""
    server = await start()
    peer = await welcomed(server)
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    assert (await peer.action(damage("actor0"), "a"))["type"] == "result"
    assert (await peer.action(damage("actor1"), "b"))["type"] == "result"
    assert (await peer.action({"kind": "undo", "action": "a"}))["type"] == "result"
    state = await peer.state()
    assert state["actors"]["actor0"]["health"]["lethal"] == 0
    assert state["actors"]["actor1"]["health"]["lethal"] == 1


# --- 12. a big world's page is not rebuilt after every ruling ------------------------------------


async def test_12_a_slow_page_is_rebuilt_at_most_a_share_of_the_time(
    start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page that was slow to build (here: any page, the threshold set to 0) is shown again after a
    ruling until its cost share has passed, whatever Host it is asked by (only its head names the
    URL); a fast one is rebuilt after every change."""
    server = await start()
    peer = await welcomed(server)
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    built = []
    real = pages.status_body

    def counted(*args: Any) -> str:
        built.append(1)
        return real(*args)

    monkeypatch.setattr(pages, "status_body", counted)
    await (await server.get("/")).text()
    assert (await peer.action(damage()))["type"] == "result"
    await (await server.get("/")).text()
    assert len(built) == 2  # fast: rebuilt after the ruling
    monkeypatch.setattr(pages, "PAGE_SLOW", 0.0)
    monkeypatch.setattr(pages, "PAGE_COST_SHARE", 10**9)
    await (await server.get("/")).text()  # built again? nothing changed: no
    assert (await peer.action(damage()))["type"] == "result"
    page = await (await server.get("/")).text()
    assert len(built) == 2 and "rev 3" not in page  # slow: shown as it was
    other = await (await server.get("/", headers={"Host": "localhost:4242"})).text()
    assert len(built) == 2 and "http://localhost:4242/module.json" in other  # another Host: no rebuild
    monkeypatch.setattr(pages, "PAGE_COST_SHARE", 0)
    page = await (await server.get("/")).text()
    assert len(built) == 3 and "rev 3" in page


# --- 5. a bad part of a sync in parts ---------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        {"state": "not an object", "more": True},
        {"state": {"actors": {"z9": {"name": "Z", "health": {"max": 5}}}}, "more": "yes"},
        {"state": {"actors": {}}, "more": True, "colour": "red"},
        {"state": {"actors": {f"x{i}": {"name": "X", "health": {"max": 5}} for i in range(6)}}, "more": True},
    ],
    ids=["state-not-an-object", "more-not-a-flag", "unknown-field", "past-the-actor-limit"],
)
async def test_5_a_refused_middle_part_refuses_the_whole_sync_at_its_last_part(
    start: Any, bad: dict[str, Any]
) -> None:
    """Parts 1 and 2 buffered, part 3 refused (an error, never `buffered`), then the last part: refused
    too, naming the earlier refusal; the world keeps what it had (no part ruled alone)."""
    server = await start(limits={"max_actors": 5})
    peer = await welcomed(server)
    first = {"scene": {"id": "s1", "round": 1}, "actors": {"a0": {"name": "A", "health": {"max": 5}}}}
    assert (await peer.request("sync", {"state": first}))["type"] == "result"
    for i in (1, 2):
        part = {"actors": {f"p{i}": {"name": "P", "health": {"max": 5}}}, "tokens": {}}
        reply = await peer.request("sync", {"state": part, "more": True})
        assert reply["payload"]["data"] == {"buffered": True}, reply
    refused = await peer.request("sync", bad)
    assert refused["type"] == "error", refused
    last = await peer.request("sync", {"state": {"actors": {"z0": {"name": "Z", "health": {"max": 5}}}}})
    assert last["type"] == "error" and last["payload"]["code"] == "invalid", last
    assert "earlier part" in last["payload"]["message"]
    state = await peer.state()
    assert state["rev"] == 1 and sorted(state["actors"]) == ["a0"]
    # the sync after it stands on its own again
    again = await peer.request("sync", {"state": {"actors": {"b0": {"name": "B", "health": {"max": 5}}}}})
    assert again["type"] == "result", again
    assert sorted((await peer.state())["actors"]) == ["b0"]


# --- 6. a world's snapshot has a checksum ---------------------------------------------------------


def _synced_store(path: Path) -> None:
    """A store holding one world's snapshot (a sync) and a ruling after it, closed."""
    from vtt_bridge.engine.world import World

    store = Store(path)
    world = World("w")
    state = {"actors": {"bag7": {"name": "Bag", "health": {"max": 7}, "willpower": {"max": 4, "current": 4}}}}
    pending = world.prepare_sync({"state": state}, "sync-1")
    store.append("w", 1, None, b"", pending.state, None, kind="sync", target="sync-1")
    store.close()


@pytest.mark.parametrize("how", ["sql", "bytes"])
def test_6_a_snapshot_changed_on_disk_fails_its_checksum(tmp_path: Path, how: str) -> None:
    """A valid edit inside a world's snapshot (SQL's json_set, or the same bytes changed in the file)
    stops the start naming the world, as a changed ruling does (before: served as it was edited)."""
    path = tmp_path / "vtt-bridge.sqlite3"
    _synced_store(path)
    if how == "sql":
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("UPDATE worlds SET snapshot = json_set(snapshot, '$.actors.bag7.health.aggravated', 9)")
        db.close()
    else:
        data = path.read_bytes()
        assert data.count(b'"current":4') == 1
        path.write_bytes(data.replace(b'"current":4', b'"current":1'))
    with pytest.raises(StoreDamaged, match=r"the snapshot of world 'w' .*fails its checksum"):
        Store(path).recover("w", 10)


def test_6_an_earlier_layouts_snapshots_get_their_checksum_once(tmp_path: Path) -> None:
    """A layout-8 file (no checksum column) is migrated: each snapshot gets its checksum, the world
    reads back as it was, and a second opening changes nothing."""
    path = tmp_path / "vtt-bridge.sqlite3"
    _synced_store(path)
    store = Store(path)
    before = store.recover("w", 10).state
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(
        "CREATE TABLE old (world TEXT PRIMARY KEY, snapshot_rev INTEGER NOT NULL, snapshot TEXT NOT NULL);"
        "INSERT INTO old SELECT world, snapshot_rev, snapshot FROM worlds; DROP TABLE worlds;"
        "ALTER TABLE old RENAME TO worlds; PRAGMA user_version = 8;"
    )
    db.close()
    for _ in range(2):
        store = Store(path)
        try:
            assert store.recover("w", 10).state == before
            assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
            (stored,) = store._db.execute("SELECT checksum FROM worlds").fetchone()
            assert stored is not None
        finally:
            store.close()


# --- 7. the store's file deleted under a running sidecar --------------------------------------------


async def test_7_the_store_deleted_while_running_stops_acknowledging_with_storage_and_a_loud_line(
    start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Within a checkpoint interval of the deletion the sidecar notices (a ruling acknowledged into
    an unlinked file is lost at the next start), says so once at CRITICAL, and refuses with `storage`."""
    caplog.set_level(logging.WARNING, "vtt_bridge")
    server = await start(sync_interval=0.05)
    bridge = server.app[BRIDGE]
    peer = await welcomed(server)
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    assert (await peer.action(damage()))["type"] == "result"
    bridge.store.path.unlink()
    for _ in range(1500):  # the idle sidecar looks each interval, whether or not it wrote
        if bridge.storage_fault is not None:
            break
        await asyncio.sleep(0.02)
    assert bridge.storage_fault is not None and "deleted" in bridge.storage_fault
    refused = await peer.action(damage())
    assert refused["type"] == "error" and refused["payload"]["code"] == "storage", refused
    assert "deleted" in refused["payload"]["message"]
    loud = [r for r in caplog.records if r.levelno >= logging.CRITICAL and "deleted" in r.getMessage()]
    assert len(loud) == 1, [r.getMessage() for r in caplog.records]
    assert "Storage fault" in await (await server.get("/")).text()


# --- 8. a refused second start ----------------------------------------------------------------


def test_8_a_refused_second_start_touches_nothing_of_the_first(tmp_path: Path) -> None:
    """The first store holds its lock and an unclean-looking WAL; a second opening is refused busy
    before it copies (or reads) anything: no WAL copy is left, the folder's files are unchanged."""
    path = tmp_path / "vtt-bridge.sqlite3"
    first = Store(path)
    try:
        for rev in range(1, 40):
            first.append("w", rev, f"a{rev}", json.dumps({"rev": rev, "patch": [], "log": []}), None)
        wal = path.with_name(path.name + "-wal")
        assert wal.stat().st_size > 0
        before = sorted(p.name for p in tmp_path.iterdir())
        for _ in range(3):
            with pytest.raises(StoreBusy):
                Store(path)
        assert sorted(p.name for p in tmp_path.iterdir()) == before
        assert not list(tmp_path.glob("*.copy"))
    finally:
        first.close()


def test_8_a_second_sidecar_exits_2_leaving_no_copy(tmp_path: Path) -> None:
    data = tmp_path / "data"
    running = _serve(data)
    try:
        _listening(running)
        second = subprocess.run(
            [sys.executable, "-m", "vtt_bridge", "serve", "--port", "0", "--data-dir", str(data)],
            env={**os.environ, "VTT_BRIDGE_TOKEN": TOKEN},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2, second
        assert "in use by another vtt-bridge" in second.stderr
        assert not list(data.glob("*.copy"))
    finally:
        running.terminate()
        running.communicate(timeout=30)


# --- 9. the data folder made by `serve` --------------------------------------------------------


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_9_the_data_folder_serve_makes_is_0700_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    data = tmp_path / "made" / "by" / "serve"
    process = _serve(data, umask=umask)
    try:
        _listening(process)
        for folder in (data, data.parent, data.parent.parent):
            assert folder.stat().st_mode & 0o777 == 0o700, (folder, oct(folder.stat().st_mode))
        assert (data / "vtt-bridge.sqlite3").stat().st_mode & 0o777 == 0o600
    finally:
        process.terminate()
        process.communicate(timeout=30)


# --- 10. a lone surrogate in a message id ----------------------------------------------------------


async def test_10_a_message_id_with_a_lone_surrogate_is_a_bad_request_and_the_connection_stays(
    start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, "vtt_bridge")
    server = await start()
    peer = await welcomed(server)
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    for frame in (
        '{"v":1,"id":"\\ud800","type":"query","payload":{"kind":"state"}}',
        '{"v":1,"id":"a\\udfffb","type":"action","payload":{"kind":"damage"}}',
    ):
        await peer.ws.send_str(frame)
        reply = await peer.receive()
        assert reply["type"] == "error" and reply["payload"]["code"] == "bad_request", reply
        assert "re" not in reply
        assert reply["payload"]["details"][0]["path"] == ["id"]
    assert (await peer.state())["rev"] == 1  # still connected, nothing changed
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    # an id beyond ASCII that UTF-8 encodes is echoed as it came
    reply = await peer.request("query", {"kind": "state"}, msg_id="ünï-😀")
    assert reply["type"] == "result"


async def test_10_before_welcome_a_lone_surrogate_id_is_refused_with_a_reply(start: Any) -> None:
    server = await start()
    ws = await server.ws_connect("/ws")
    await ws.send_str('{"v":1,"id":"\\ud800","type":"hello","payload":{}}')
    reply = Peer(ws)
    first = await reply.receive()
    assert first["type"] == "error" and first["payload"]["code"] == "bad_request", first
    closing = await ws.receive(timeout=5)
    assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert ws.close_code == 4401


async def test_12_a_long_batch_is_ruled_off_the_loop_and_another_world_is_answered_meanwhile(
    start: Any,
) -> None:
    """A batch of 6,400 damage instances (its most) in world A; world B's query sent right after it
    is answered before A's result (before, the batch held the event loop for its whole ruling)."""
    server = await start()
    a = await welcomed(server, "big", max_msg_size=0)
    b = await welcomed(server, "small")
    assert (await a.request("sync", {"state": world_state(actors=64)}))["type"] == "result"
    assert (await b.request("sync", {"state": world_state()}))["type"] == "result"
    batch = {
        "kind": "batch",
        "actions": [
            {"kind": "damage", "target": f"actor{i}", "instances": [{"amount": 10**6, "grade": "L"}] * 100}
            for i in range(64)
        ],
    }
    world = server.app[BRIDGE].worlds["big"]
    real = world.prepare_action
    ruling = {"started": False, "ended": False}

    def prepare(*args: Any) -> Any:
        ruling["started"] = True
        try:
            return real(*args)
        finally:
            ruling["ended"] = True

    world.prepare_action = prepare
    await a.send("action", batch, "big-batch")
    for _ in range(15000):  # (30 s: a bound against a hang only)
        if ruling["started"]:
            break
        await asyncio.sleep(0.002)
    await b.send("query", {"kind": "state"})
    other = await b.receive()
    assert other["type"] == "result"
    assert not ruling["ended"], "the other world was answered only after the batch was ruled"
    assert (await a.receive())["type"] == "result"


async def test_12_DICE_1_MAX_POOL_bounds_the_pool_after_its_modifiers(start: Any) -> None:
    """DICE-1: 1,000 dice given and a perfect +5: 1,005 dice to roll, past `MAX_POOL` (before: rolled;
    50 modifiers of +1,000 made a pool of 51,000)."""
    server = await start()
    peer = await welcomed(server)
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    roll = {"kind": "roll", "actor": "actor0", "pool": 1000}
    big = {**roll, "modifiers": [{"type": "equipment", "value": 5, "perfect": True}]}
    refused = await peer.action(big)
    assert refused["type"] == "error" and refused["payload"]["code"] == "invalid", refused
    assert "1005" in refused["payload"]["message"] and "1000" in refused["payload"]["message"]
    assert (await peer.action(roll))["type"] == "result"  # 1,000 is still a pool


async def test_12_welcomed_connections_are_bounded(start: Any) -> None:
    server = await start(limits={"max_clients": 2})
    await welcomed(server, "w1")
    await welcomed(server, "w2")
    third = Peer(await server.ws_connect("/ws"))
    reply = await third.request("hello", {"token": TOKEN, "world": "w1", "client": {"name": "third"}})
    assert reply["type"] == "error" and reply["payload"]["code"] == "too_large", reply
    closing = await third.ws.receive(timeout=5)
    assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert third.ws.close_code == 1013


async def test_12_unfinished_sync_parts_are_bounded_over_all_connections(start: Any) -> None:
    """Each connection under its own budget, but together past the sidecar's: the part that passes it
    is refused, naming the total; once the first connection is gone its bytes are free again."""
    server = await start(limits={"sync_budget": 20_000, "sync_budget_total": 23_000})
    bridge = server.app[BRIDGE]
    one, two = await welcomed(server), await welcomed(server)
    part = {"state": world_state(actors=60), "more": True}  # about 6.5 KB a frame
    for _ in range(2):
        assert (await one.request("sync", part))["type"] == "result"
    assert (await two.request("sync", part))["type"] == "result"
    refused = await two.request("sync", part)
    assert refused["type"] == "error" and refused["payload"]["code"] == "too_large", refused
    assert "all connections together" in refused["payload"]["message"]
    await one.ws.close()
    for _ in range(3000):  # (30 s: a bound against a hang only)
        if bridge.sync_bytes == 0:
            break
        await asyncio.sleep(0.01)
    assert bridge.sync_bytes == 0
    assert (await two.request("sync", {"state": world_state()}))["type"] == "error"  # the refused sync's last
    assert (await two.request("sync", part))["type"] == "result"


async def test_12_memory_freed_by_a_burst_is_given_back_once_the_sidecar_is_idle(
    start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vtt_bridge.cli import app as app_module
    from vtt_bridge.server import heap

    released: list[int] = []

    def release() -> bool:
        released.append(1)
        return True

    monkeypatch.setattr(app_module, "IDLE_RELEASE", 0.2)
    monkeypatch.setattr(heap, "release_freed_memory", release)
    server = await start(sync_interval=0.05)
    peer = await welcomed(server)
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    for _ in range(20):
        assert (await peer.action(damage(grade="B")))["type"] == "result"
    for _ in range(1500):  # (30 s: a bound against a hang only)
        if released:
            break
        await asyncio.sleep(0.02)
    assert len(released) == 1
    await asyncio.sleep(0.5)
    assert len(released) == 1  # once a quiet spell, not every interval
