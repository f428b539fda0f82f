"""Instructions the real sidecar executes per `damage` and per `move` (500-token scene), counted by
Valgrind's callgrind: a measure a loaded machine does not disturb (wall-clock ratios swing with
the load; an instruction count repeats within a fraction of a percent). Not in `make bench`: under
callgrind the sidecar runs some 50 times slower (about two minutes for the defaults).

    python -m benchmarks.bench_instructions [--damages 600] [--moves 150] [--out DIR]

The sidecar runs as `bench_roundtrip` and `bench_scene` run it (its own process, a fresh data
folder, PYTHONHASHSEED=0), under `valgrind --tool=callgrind` with counting off; this process is the
client. After a warm-up it turns counting on (`callgrind_control -i on`), sends the requests one at
a time, each answered before the next, and dumps the count (`callgrind_control -d`), so the count
covers exactly the sidecar's work for those requests: reading the frames, ruling, the store's
write, the reply. `callgrind_annotate DIR/<kind>.out.1` shows where the instructions went (by C
function: the interpreter, SQLite, pydantic-core, orjson, the kernel's share is not counted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp

from benchmarks.bench_roundtrip import _damage, _setup_world
from benchmarks.bench_scene import _sync_frames, _sync_state
from benchmarks.common import TOKEN, child_env, free_port

WARM_UP = {"damage": 300, "move": 60}


@contextmanager
def _counted_sidecar(out: Path) -> Iterator[tuple[int, int]]:
    """The sidecar under callgrind, counting off; yields its port and its pid."""
    port = free_port()
    data = tempfile.mkdtemp()
    child = subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-m",
            "vtt_bridge",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            data,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=child_env(),
    )
    assert child.stdout is not None
    try:
        while "listening on" not in (line := child.stdout.readline()):
            if not line:
                raise RuntimeError("the sidecar did not start under valgrind")
        yield port, child.pid
    finally:
        child.terminate()
        child.wait(timeout=300)
        shutil.rmtree(data, ignore_errors=True)


def _total(dump: Path) -> int:
    """The instructions counted in a callgrind dump (its `summary:` or `totals:` line)."""
    for line in dump.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no total in {dump}")


async def _measure(kind: str, count: int, out: Path) -> int:
    """Instructions per request of `count` requests of `kind` (`damage` or `move`)."""
    for old in out.parent.glob(out.name + "*"):
        old.unlink()
    with _counted_sidecar(out) as (port, pid):
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(f"ws://127.0.0.1:{port}/ws", max_msg_size=0)
            message: Callable[[int], str]
            if kind == "damage":
                await _setup_world(ws, requests=4 * (WARM_UP[kind] + count))
                message = _damage
            else:
                hello = {"token": TOKEN, "world": "scene", "client": {"name": "bench"}}
                await ws.send_json({"v": 1, "id": "h", "type": "hello", "payload": hello})
                assert json.loads((await ws.receive()).data)["type"] == "welcome"
                state = _sync_state(500)
                for frame in _sync_frames(state, limit=900_000):
                    await ws.send_str(frame)
                    assert json.loads((await ws.receive()).data)["type"] == "result"
                ids = list(state["tokens"])

                def message(i: int) -> str:  # as bench_scene moves them: far, each to a new place
                    payload = {
                        "kind": "move",
                        "token": ids[i % len(ids)],
                        "x": (i * 37) % 4000,
                        "y": (i * 53) % 4000,
                    }
                    return json.dumps({"v": 1, "id": f"m{i}", "type": "action", "payload": payload})

            async def one(i: int) -> None:
                await ws.send_str(message(i))
                reply = json.loads((await ws.receive()).data)
                assert reply["type"] == "result", reply

            for i in range(WARM_UP[kind]):
                await one(i)
            subprocess.run(["callgrind_control", "-i", "on", str(pid)], check=True, capture_output=True)
            for i in range(WARM_UP[kind], WARM_UP[kind] + count):
                await one(i)
            subprocess.run(["callgrind_control", "-d", str(pid)], check=True, capture_output=True)
            await ws.close()
    return _total(Path(f"{out}.1")) // count


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--damages", type=int, default=600)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--out", type=Path, default=None, help="where the callgrind dumps are kept")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("needs Valgrind (valgrind, callgrind_control)")
    folder = args.out or Path(tempfile.mkdtemp(prefix="vtt-bridge-callgrind-"))
    folder.mkdir(parents=True, exist_ok=True)
    print("instructions the sidecar executes per request (callgrind)")
    for kind, count in (("damage", args.damages), ("move", args.moves)):
        if count > 0:
            per = asyncio.run(_measure(kind, count, folder / f"{kind}.out"))
            print(f"  {kind:7} {per:12,} per request ({count} requests; dump: {folder / kind}.out.1)")


if __name__ == "__main__":
    main()
