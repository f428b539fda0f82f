"""Durability: the sidecar killed with SIGKILL mid-stream restarts with every acknowledged ruling, once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp

from tests.conftest import TOKEN, world_state


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def sidecar(data_dir: Path, port: int) -> Iterator[subprocess.Popen[str]]:
    """`python -m vtt_bridge serve` in a process of its own, ready when it prints its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "vtt_bridge", "serve", "--port", str(port), "--data-dir", str(data_dir)],
        env={**os.environ, "VTT_BRIDGE_TOKEN": TOKEN, "VTT_BRIDGE_LOG_LEVEL": "WARNING"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    # a start after a kill may warn (a torn WAL's recovery) before its banner; any other output,
    # or the process ending before the URL, fails the test
    seen: list[str] = []
    while len(seen) < 20:
        line = process.stdout.readline()
        seen.append(line)
        if not line or f"ws://127.0.0.1:{port}/ws" in line:
            break
        assert "WARNING" in line or line.startswith((" ", "\t")), seen
    assert f"ws://127.0.0.1:{port}/ws" in seen[-1], seen
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


async def _hello(ws: aiohttp.ClientWebSocketResponse, world: str) -> dict[str, Any]:
    await ws.send_json(
        {
            "v": 1,
            "id": "h",
            "type": "hello",
            "payload": {"token": TOKEN, "world": world, "client": {"name": "crash"}},
        }
    )
    reply: dict[str, Any] = json.loads((await ws.receive(timeout=10)).data)
    assert reply["type"] == "welcome", reply
    return reply


def _damage(i: int) -> str:
    return json.dumps(
        {
            "v": 1,
            "id": f"hit-{i}",
            "type": "action",
            "payload": {"kind": "damage", "target": "actor0", "instances": [{"amount": 1, "grade": "B"}]},
        }
    )


async def _acks_until_closed(
    ws: aiohttp.ClientWebSocketResponse,
    process: subprocess.Popen[str],
    acked: dict[str, int],
    kill_after: int,
) -> None:
    """Each result's rev into `acked` by the id it answers, until the socket closes; the server is
    SIGKILLed at the `kill_after`-th acknowledgement."""
    while True:
        msg = await ws.receive(timeout=10)
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        reply = json.loads(msg.data)
        assert reply["type"] == "result", reply
        acked[reply["re"]] = reply["payload"]["rev"]
        if len(acked) == kill_after:
            os.kill(process.pid, signal.SIGKILL)


async def _stream_until_killed(
    port: int, process: subprocess.Popen[str], total: int, kill_after: int
) -> dict[str, int]:
    """Pipeline `total` damage actions; SIGKILL the server after `kill_after` acks. Returns id: acked rev."""
    acked: dict[str, int] = {}
    async with aiohttp.ClientSession() as session, session.ws_connect(f"ws://127.0.0.1:{port}/ws") as ws:
        await _hello(ws, "crash")
        await ws.send_str(
            json.dumps({"v": 1, "id": "sync", "type": "sync", "payload": {"state": world_state(1, 10_000)}})
        )
        assert json.loads((await ws.receive(timeout=10)).data)["type"] == "result"

        async def writer() -> None:
            for i in range(total):
                await ws.send_str(_damage(i))
                if i % 20 == 0:
                    await asyncio.sleep(0)

        sending = asyncio.create_task(writer())
        try:
            await _acks_until_closed(ws, process, acked, kill_after)
        finally:
            sending.cancel()
    return acked


async def test_sigkill_mid_stream_loses_no_acknowledged_ruling_and_applies_none_twice(tmp_path: Path) -> None:
    port = free_port()
    total, kill_after = 600, 250
    with sidecar(tmp_path, port) as process:
        acked = await _stream_until_killed(port, process, total, kill_after)
        process.wait(timeout=10)
        assert process.returncode == -signal.SIGKILL
    assert len(acked) >= kill_after
    last_acked = max(acked.values())

    with sidecar(tmp_path, port):
        async with aiohttp.ClientSession() as session, session.ws_connect(f"ws://127.0.0.1:{port}/ws") as ws:
            welcome = await _hello(ws, "crash")
            rev = welcome["payload"]["rev"]
            assert rev >= last_acked, "an acknowledged ruling was lost"
            # every ruling applied exactly once: one bashing box per ruling since the sync (rev 1)
            await ws.send_json({"v": 1, "id": "q", "type": "query", "payload": {"kind": "state"}})
            state = json.loads((await ws.receive(timeout=10)).data)["payload"]["state"]
            assert state["actors"]["actor0"]["health"]["bashing"] == rev - 1
            # retrying every action: the acknowledged ones answer as before and change nothing
            for i in range(total):
                await ws.send_str(_damage(i))
                reply = json.loads((await ws.receive(timeout=10)).data)
                if reply["re"] in acked:
                    assert reply["payload"]["rev"] == acked[reply["re"]]
            await ws.send_json({"v": 1, "id": "q2", "type": "query", "payload": {"kind": "state"}})
            final = json.loads((await ws.receive(timeout=10)).data)["payload"]["state"]
            assert final["rev"] == 1 + total
            assert final["actors"]["actor0"]["health"]["bashing"] == total


async def test_sigkill_amid_rulings_written_in_the_store_thread_loses_none_acknowledged(
    tmp_path: Path,
) -> None:
    """Syncs (written in the store's writer thread, with their snapshot) and damages (written on the
    event loop) pipelined in turn; SIGKILL after some acknowledgements: every acknowledged ruling is
    there after the restart, and each retried action answers with the rev it was acknowledged with."""
    port = free_port()
    frames = []
    for i in range(60):
        if i % 3 == 0:
            sync = {"state": world_state(30, 10_000)}
            frames.append(json.dumps({"v": 1, "id": f"sync-{i}", "type": "sync", "payload": sync}))
        else:
            frames.append(_damage(i))
    acked: dict[str, int] = {}
    with sidecar(tmp_path, port) as process:
        async with aiohttp.ClientSession() as session, session.ws_connect(f"ws://127.0.0.1:{port}/ws") as ws:
            await _hello(ws, "crash")
            for frame in frames:
                await ws.send_str(frame)
            await _acks_until_closed(ws, process, acked, 25)
        process.wait(timeout=10)
    assert len(acked) >= 25 and any(key.startswith("sync") for key in acked)
    with sidecar(tmp_path, port):
        async with aiohttp.ClientSession() as session, session.ws_connect(f"ws://127.0.0.1:{port}/ws") as ws:
            welcome = await _hello(ws, "crash")
            assert welcome["payload"]["rev"] >= max(acked.values()), "an acknowledged ruling was lost"
            for i in range(60):
                if i % 3 and f"hit-{i}" in acked:
                    await ws.send_str(_damage(i))
                    reply = json.loads((await ws.receive(timeout=10)).data)
                    assert reply["payload"]["rev"] == acked[f"hit-{i}"] and reply["payload"]["replayed"]


def test_a_second_sidecar_on_the_same_data_folder_is_refused_and_the_first_keeps_serving(
    tmp_path: Path,
) -> None:
    port = free_port()
    with sidecar(tmp_path, port) as first:
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "vtt_bridge",
                "serve",
                "--port",
                str(free_port()),
                "--data-dir",
                str(tmp_path),
            ],
            env={**os.environ, "VTT_BRIDGE_TOKEN": TOKEN, "VTT_BRIDGE_LOG_LEVEL": "WARNING"},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert second.returncode == 2, second  # a start-up mistake (cli/main.py)
        assert "in use by another vtt-bridge" in second.stderr, second.stderr
        assert first.poll() is None

        async def still_serves() -> None:
            async with (
                aiohttp.ClientSession() as session,
                session.ws_connect(f"ws://127.0.0.1:{port}/ws") as ws,
            ):
                await _hello(ws, "w1")

        asyncio.run(still_serves())
