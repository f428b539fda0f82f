"""Sidecars of several source trees, and the reply-only server, timed on `damage` round trips in one
run, interleaved: to measure a change against the code before it on the same machine, in the same
minute (a `git worktree` of the commit before it, say).

    python -m benchmarks.bench_compare [--rounds 5] [--count 300] NAME=TREE [NAME=TREE ...]

Each TREE is a folder holding a `vtt_bridge` package; its sidecar runs in a process of its own with
that folder first on its path (the dependencies are this environment's). Every round times each
server in turn, the order rotating round by round; each placement of `benchmarks.common` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import aiohttp

from benchmarks.bench_roundtrip import WARM_UP, _damage, _setup_world
from benchmarks.common import Server, baseline, cpu_seconds, free_port, place, placements, process, summary


@contextmanager
def sidecar_of(tree: Path) -> Iterator[Server]:
    """The sidecar of one source tree, in a process of its own, on a fresh data folder."""
    port = free_port()
    previous = os.environ.get("PYTHONPATH")
    with tempfile.TemporaryDirectory() as data:
        os.environ["PYTHONPATH"] = str(tree)
        try:
            started = process(
                [sys.executable, "-m", "vtt_bridge", "serve", "--port", str(port), "--data-dir", data],
                "listening on",
            )
            child = started.__enter__()
        finally:
            if previous is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = previous
        try:
            yield Server(port, child.pid)
        finally:
            started.__exit__(None, None, None)


async def run(trees: dict[str, Path], rounds: int, count: int) -> None:
    with ExitStack() as stack:
        servers = {name: stack.enter_context(sidecar_of(tree)) for name, tree in trees.items()}
        servers["reply-only"] = stack.enter_context(baseline())
        names = list(servers)
        async with aiohttp.ClientSession() as session:
            sockets = {
                name: await session.ws_connect(f"ws://127.0.0.1:{s.port}/ws") for name, s in servers.items()
            }
            for name in trees:  # the running index covers every server, in every placement
                await _setup_world(sockets[name], requests=2 * len(names) * (WARM_UP + rounds * count))
            index = 0

            async def timed(name: str, n: int) -> list[float]:
                nonlocal index
                ws, times = sockets[name], []
                for _ in range(n):
                    start = time.perf_counter_ns()
                    await ws.send_str(_damage(index))
                    reply = json.loads((await ws.receive()).data)
                    times.append((time.perf_counter_ns() - start) / 1000)
                    assert name == "reply-only" or reply["type"] == "result", reply
                    index += 1
                return times

            with open("/proc/loadavg") as load:
                start_load = load.read().split()[0]
            print(f"damage round trip, interleaved, one run (load average at the start: {start_load})")
            for placement in placements():
                place(placement, [s.pid for s in servers.values()])
                for name in names:
                    await timed(name, WARM_UP)
                times: dict[str, list[float]] = {name: [] for name in names}
                cpu = dict.fromkeys(names, 0.0)
                ratios: dict[str, list[float]] = {name: [] for name in trees}
                for r in range(rounds):
                    order = names[r % len(names) :] + names[: r % len(names)]
                    medians = {}
                    for name in order if r % 2 == 0 else reversed(order):
                        before = cpu_seconds(servers[name].pid) or 0.0
                        got = await timed(name, count)
                        cpu[name] += (cpu_seconds(servers[name].pid) or 0.0) - before
                        times[name].extend(got)
                        medians[name] = statistics.median(got)
                    for name in trees:
                        ratios[name].append(medians[name] / medians["reply-only"])
                base = statistics.median(times["reply-only"])
                print(f"  {placement.describe()}")
                for name in names:
                    used = cpu[name] / len(times[name]) * 1e6
                    line = f"    {name:12} {summary(times[name])}   CPU {used:4.0f} µs/request"
                    if name in trees:
                        each = " ".join(f"{x:.2f}" for x in ratios[name])
                        line += f"   {statistics.median(times[name]) / base:.2f}x (rounds {each})"
                    print(line)
            for ws in sockets.values():
                await ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("trees", nargs="+", metavar="NAME=TREE")
    args = parser.parse_args()
    trees = {name: Path(tree).resolve() for name, _, tree in (t.partition("=") for t in args.trees)}
    asyncio.run(run(trees, args.rounds, args.count))


if __name__ == "__main__":
    main()
