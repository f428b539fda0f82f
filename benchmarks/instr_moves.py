"""A `move`'s cost in one process, counted in instructions or profiled: the real server on loopback
(`cli/app.py` `create_app`, a real SQLite file in a temporary folder, the engine's dice seeded, the
cycle collector set as `serve` sets it) and real websocket clients in this process. The acting client
syncs the generated scene (seed 7), makes a warm-up of far moves and then `--moves` far moves (each
token to a new place across a 4,000-pixel square, as `bench_scene` and `bench_instructions` move
them); `--watchers` more clients of the world take the pushed patches (every second one asks for
`/contests`); `--rounds` combat rounds before the moves leave their stage-three results standing.

    PYTHONHASHSEED=0 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=moves.out \
        python -m benchmarks.instr_moves --moves 150 --callgrind

With `--callgrind` (under callgrind, its collection off at the start) the count covers the measured
moves alone (`callgrind_control -i on` before them, `-d` after; the client's part included: it reads
every reply). `--profile FILE` writes a cProfile of the moves alone (`python -m pstats FILE`);
`--hashes` prints one sha256 of every reply and pushed frame of the moves (a pushed frame without its
message id): a change that is meant to change no byte keeps it.

`--in-process` rules the same moves on a `World` of this process, no server, socket or store: the
calls a ruling's pipeline makes on it (`World.prepare_action`, `dumped_result`, `World.commit`);
`--areas off` leaves the area step out (as `instr_areas --areas off` does), so the rest of a move
is counted alone.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from benchmarks.bench_scene import _sync_frames, _sync_state
from benchmarks.common import TOKEN, served
from vtt_bridge.engine import world as world_module
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.server.commit import dumped_result
from vtt_bridge.server.heap import collect_young_less_often

WARM_UP = 60


def _payload(ids: list[str], i: int) -> dict[str, Any]:
    """The i-th far move's payload, as `bench_instructions` makes it."""
    return {"kind": "move", "token": ids[i % len(ids)], "x": (i * 37) % 4000, "y": (i * 53) % 4000}


def _move(ids: list[str], i: int) -> str:
    """The i-th far move's frame."""
    return json.dumps({"v": 1, "id": f"m{i}", "type": "action", "payload": _payload(ids, i)})


def _callgrind(*command: str) -> None:
    """Tell callgrind, which runs this process, to count (`-i on`) or to dump its count (`-d`)."""
    subprocess.run(["callgrind_control", *command, str(os.getpid())], check=True, capture_output=True)


@contextmanager
def _measured(profile: Path | None, counted: bool) -> Iterator[list[float]]:
    """Around the measured moves: callgrind counting them (`counted`: on before, dumped after) and
    cProfile writing `profile`; the list it gives gets their CPU and wall seconds at the end."""
    spent: list[float] = []
    profiler = cProfile.Profile() if profile is not None else None
    start, cpu = time.perf_counter(), time.process_time()
    if counted:
        _callgrind("-i", "on")
    if profiler is not None:
        profiler.enable()
    yield spent
    if counted:
        _callgrind("-d")
    if profiler is not None and profile is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    spent.extend((time.process_time() - cpu, time.perf_counter() - start))


def _unnumbered(pushed: str) -> str:
    """A pushed frame without its message id (each client's push is numbered in turn)."""
    head = '{"v":1,"id":'
    assert pushed.startswith(head), pushed[:80]
    return pushed[pushed.index(",", len(head)) + 1 :]


async def run(
    tokens: int, moves: int, watchers: int, rounds: int, profile: Path | None, hashes: bool, counted: bool
) -> None:
    """Sync, warm up, then the measured moves (profiled when `profile` is given)."""
    collect_young_less_often()
    state = _sync_state(tokens)
    ids = list(state["tokens"])
    digest = hashlib.sha256()
    async with served(seed=1, heartbeat=600.0) as (http, url):
        clients = [await http.ws_connect(url, max_msg_size=0) for _ in range(1 + watchers)]
        for n, ws in enumerate(clients):
            hello = {
                "token": TOKEN,
                "world": "moves",
                "client": {"name": "moves"},
                "contests": n % 2 == 0,
            }
            await ws.send_json({"v": 1, "id": "h", "type": "hello", "payload": hello})
            assert json.loads((await ws.receive()).data)["type"] == "welcome"
        acting, others = clients[0], clients[1:]

        async def ask(frame: str) -> None:
            await acting.send_str(frame)
            reply = (await acting.receive()).data
            assert json.loads(reply)["type"] == "result", reply[:400]
            pushes = [_unnumbered((await other.receive()).data) for other in others]
            if hashes:  # which watcher a push numbers first follows the clients' set order
                for pushed in sorted(hashlib.sha256(text.encode()).digest() for text in pushes):
                    digest.update(pushed)
                digest.update(hashlib.sha256(reply.encode()).digest())

        for frame in _sync_frames(state, limit=900_000):
            await acting.send_str(frame)
            assert json.loads((await acting.receive()).data)["type"] == "result"
        for other in others:
            await other.receive()
        for number in range(1, rounds + 1):
            round_frame = {"kind": "round", "round": number}
            await ask(json.dumps({"v": 1, "id": f"r{number}", "type": "action", "payload": round_frame}))
        for i in range(WARM_UP):
            await ask(_move(ids, i))
        with _measured(profile, counted) as spent:
            for i in range(WARM_UP, WARM_UP + moves):
                await ask(_move(ids, i))
        cpu, wall = spent
        for ws in clients:
            await ws.close()
    if moves:
        per_cpu, per_wall = cpu / moves * 1e3, wall / moves * 1e3
        print(f"{moves} moves at {tokens} tokens: {per_cpu:.2f} ms CPU, {per_wall:.2f} ms wall each")
    if hashes:
        print(f"moves' replies and pushed frames: {digest.hexdigest()}")


def run_in_process(tokens: int, moves: int, profile: Path | None, counted: bool) -> None:
    """`--in-process`: sync, warm up and the measured moves on a `World` of this process."""
    collect_young_less_often()
    state = _sync_state(tokens)
    ids = list(state["tokens"])
    world = World("moves")
    synced = world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}})
    world.commit(synced, orjson.dumps(synced.result))

    def ruled(i: int) -> None:
        pending = world.prepare_action(f"m{i}", _payload(ids, i), SeededRoller(i))
        assert isinstance(pending, Pending)
        world.commit(pending, dumped_result(pending.result).data)

    for i in range(WARM_UP):
        ruled(i)
    with _measured(profile, counted) as spent:
        for i in range(WARM_UP, WARM_UP + moves):
            ruled(i)
    cpu = spent[0]
    if moves:
        print(f"{moves} moves at {tokens} tokens in process: {cpu / moves * 1e3:.3f} ms CPU each")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--watchers", type=int, default=0, help="more clients of the world, pushed each move")
    parser.add_argument("--rounds", type=int, default=0, help="combat rounds before the moves")
    parser.add_argument("--profile", type=Path, default=None, help="a cProfile of the moves, to this file")
    parser.add_argument("--callgrind", action="store_true", help="count the moves alone (under callgrind)")
    parser.add_argument("--hashes", action="store_true", help="the sha256 of the moves' replies and pushes")
    parser.add_argument("--in-process", action="store_true", help="on a World of this process, no server")
    parser.add_argument("--areas", choices=("on", "off"), default="on", help="off: without the area step")
    args = parser.parse_args()
    if args.hashes and os.environ.get("PYTHONHASHSEED") != "0":
        sys.exit("run with PYTHONHASHSEED=0")
    if args.areas == "off":
        setattr(world_module, "rule_areas", lambda before, after, *a, **k: after)  # noqa: B010
    if args.in_process:
        run_in_process(args.tokens, args.moves, args.profile, args.callgrind)
        return
    asyncio.run(
        run(args.tokens, args.moves, args.watchers, args.rounds, args.profile, args.hashes, args.callgrind)
    )


if __name__ == "__main__":
    main()
