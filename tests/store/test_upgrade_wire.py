"""Store layout 11 over the wire: the real sidecar (`vtt-bridge serve`, a process of its own) started
on a file vtt-bridge 0.7.0 wrote serves its worlds with the areas keyed by target, refuses the undo
of an earlier ruling that changed areas naming the versions, answers a retry of one with its stored
reply, undoes an earlier `damage`, and keeps it all across a SIGKILL."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import aiohttp

from tests.server.test_crash import _hello, free_port, sidecar
from tests.server.test_undo_wire import request
from tests.store.test_upgrade import M2, layout_10_file, old_documents, transposed_by_hand


async def test_a_sidecar_started_on_a_0_7_0_file_serves_the_areas_by_target(tmp_path: Path) -> None:
    layout_10_file(tmp_path / "vtt-bridge.sqlite3")
    old = old_documents()
    port = free_port()
    with sidecar(tmp_path, port) as process:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "w")
            state = (await request(ws, "q1", "query", {"kind": "state"}))["payload"]["state"]
            assert state["rev"] == 15 and state["areas"] == transposed_by_hand(old["w"]["areas"])
            refused = await request(ws, "undo-m1", "action", {"kind": "undo", "action": "m1"})
            assert refused["type"] == "error" and refused["payload"]["code"] == "not_undoable", refused
            assert "vtt-bridge 0.7.0 or earlier" in refused["payload"]["message"]
            retried = await request(ws, "m2", "action", M2)
            assert retried["type"] == "result" and retried["payload"]["replayed"] is True
            assert retried["payload"]["rev"] == 3
            undone = await request(ws, "undo-hit", "action", {"kind": "undo", "action": "hit"})
            assert undone["type"] == "result" and undone["payload"]["rev"] == 16, undone
            after = (await request(ws, "q2", "query", {"kind": "state"}))["payload"]["state"]
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    with sidecar(tmp_path, port):
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "w")
            assert (await request(ws, "q3", "query", {"kind": "state"}))["payload"]["state"] == after
            refused = await request(ws, "undo-m1-again", "action", {"kind": "undo", "action": "m1"})
            assert refused["payload"]["code"] == "not_undoable", refused
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "v")
            state = (await request(ws, "q4", "query", {"kind": "state"}))["payload"]["state"]
            assert state["areas"] == transposed_by_hand(old["v"]["areas"])
