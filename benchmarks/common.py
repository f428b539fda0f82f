"""Helpers of the benchmarks: processes of their own, free ports, interleaved timing."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from aiohttp.test_utils import TestServer

from vtt_bridge.cli.app import create_app
from vtt_bridge.server.bridge import Config

TOKEN = "bench-token-0123456789"  # at least 16 characters (limits.MIN_TOKEN_LENGTH)


@asynccontextmanager
async def served(seed: int, heartbeat: float = 60.0) -> AsyncIterator[tuple[aiohttp.ClientSession, str]]:
    """The real sidecar in this process (`cli/app.py` `create_app` on loopback, its store a real
    SQLite file in a temporary folder, the engine's dice seeded): a client session and the
    websocket's URL, the server closed and the folder removed after."""
    with tempfile.TemporaryDirectory() as folder:
        config = Config(data_dir=Path(folder), token=TOKEN, heartbeat=heartbeat, seed=seed)
        server = TestServer(create_app(config), host="127.0.0.1")
        await server.start_server()
        try:
            async with aiohttp.ClientSession() as http:
                yield http, f"ws://127.0.0.1:{server.port}/ws"
        finally:
            await server.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


_USABLE = sorted(os.sched_getaffinity(0))
"""The CPUs this benchmark may use (read once, before anything is pinned)."""


@dataclass(frozen=True)
class Placement:
    """Where the client and both servers run while one measurement lasts."""

    name: str
    client: int | None
    servers: int | None

    def describe(self) -> str:
        if self.client is None:
            return f"{self.name}: where the scheduler puts them"
        if self.client == self.servers:
            return f"{self.name}: client and both servers on CPU {self.client}"
        return f"{self.name}: client on CPU {self.client}, both servers on CPU {self.servers}"


def placements() -> list[Placement]:
    """Each measurement runs in both: `spread`, every request crossing from the client's CPU to the
    servers' (as a browser and the sidecar on a multi-core machine); `shared`, all on one CPU (pure
    CPU cost, no cross-CPU wake-ups). Both servers always share a CPU, so each meets the same
    conditions. Left to the scheduler, whichever server ran last shared the client's CPU, and the
    per-round ratios swung between about 1.9 and 3.0 with the order of the rounds."""
    if len(_USABLE) < 2:
        return [Placement("one CPU", None, None)]
    a, b = _USABLE[-2], _USABLE[-1]
    return [Placement("spread", a, b), Placement("shared", b, b)]


def place(placement: Placement, servers: Iterable[int]) -> None:
    """Move this process (the client) and the server processes to the placement's CPUs."""
    if placement.client is None or placement.servers is None:
        return
    os.sched_setaffinity(0, {placement.client})
    for pid in servers:
        os.sched_setaffinity(pid, {placement.servers})


def child_env() -> dict[str, str]:
    """The environment of a benchmarked server process: the bench token, warnings only, and a fixed
    hash seed (with Python's random one, identical sidecars measured side by side differed by up to
    12% (dict layouts); with it, by 3%)."""
    return {**os.environ, "VTT_BRIDGE_TOKEN": TOKEN, "VTT_BRIDGE_LOG_LEVEL": "WARNING", "PYTHONHASHSEED": "0"}


@contextmanager
def process(args: list[str], ready: str) -> Iterator[subprocess.Popen[str]]:
    """A child process, ready once its first line contains `ready`."""
    child = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=child_env(),
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if ready not in line:
        child.kill()
        raise RuntimeError(f"{args[0]} did not start: {line!r}")
    try:
        yield child
    finally:
        child.terminate()
        child.wait(timeout=10)


@dataclass(frozen=True)
class Server:
    """A server process: where to connect, and its pid (to place it on a CPU)."""

    port: int
    pid: int


@contextmanager
def sidecar(*options: str) -> Iterator[Server]:
    """The real sidecar, in a process of its own, on a fresh data folder (`options`: more of `serve`'s)."""
    port = free_port()
    with (
        tempfile.TemporaryDirectory() as data,
        process(
            [
                sys.executable,
                "-m",
                "vtt_bridge",
                "serve",
                "--port",
                str(port),
                "--data-dir",
                str(Path(data)),
                *options,
            ],
            "listening on",
        ) as child,
    ):
        yield Server(port, child.pid)


@contextmanager
def baseline() -> Iterator[Server]:
    """The reply-only websocket server, in a process of its own."""
    port = free_port()
    script = Path(__file__).with_name("reply_only_server.py")
    with process([sys.executable, str(script), str(port)], "reply-only server") as child:
        yield Server(port, child.pid)


async def time_round_trips(call: Callable[[int], Awaitable[None]], count: int) -> list[float]:
    """Microseconds of each of `count` sequential calls."""
    times = []
    for i in range(count):
        start = time.perf_counter_ns()
        await call(i)
        times.append((time.perf_counter_ns() - start) / 1000)
    return times


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far, from /proc (None where there is none)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Interleaved:
    """One placement's measurement: every round trip of each server, each round's ratio, and the
    CPU time each server used per request while it was timed."""

    placement: Placement
    bridge: list[float]
    base: list[float]
    ratios: list[float]
    cpu: dict[str, float]
    """Server name -> CPU seconds used during its timed calls."""

    def report(self) -> list[str]:
        ratio = statistics.median(self.bridge) / statistics.median(self.base)
        rounds = " ".join(f"{x:.2f}" for x in self.ratios)
        lines = [
            f"  {self.placement.describe()}",
            f"    sidecar    {summary(self.bridge)}",
            f"    reply-only {summary(self.base)}",
            f"    ratio of medians: {ratio:.2f}x   per-round ratios: {rounds}",
        ]
        if self.cpu:
            sidecar = self.cpu["bridge"] / len(self.bridge) * 1e6
            base = self.cpu["base"] / len(self.base) * 1e6
            lines.append(
                f"    server CPU per request (mean): sidecar {sidecar:.0f} µs, reply-only {base:.0f} µs"
            )
        return lines


async def interleave(
    on_bridge: Callable[[int], Awaitable[None]],
    on_base: Callable[[int], Awaitable[None]],
    servers: Iterable[int],
    rounds: int,
    count: int,
    warm_up: int,
) -> list[Interleaved]:
    """For each placement: a warm-up, then `rounds` rounds of `count` calls on each server, the
    order alternating round by round (`on_*` get a running index, so no request repeats)."""
    pids = list(servers)
    index = 0

    async def timed(call: Callable[[int], Awaitable[None]], n: int) -> list[float]:
        nonlocal index
        start = index
        index += n
        return await time_round_trips(lambda i: call(start + i), n)

    def used(pid: int) -> float:
        return cpu_seconds(pid) or 0.0

    out = []
    for placement in placements():
        place(placement, pids)
        await timed(on_bridge, warm_up)
        await timed(on_base, warm_up)
        result = Interleaved(placement, [], [], [], {})
        measured = cpu_seconds(pids[0]) is not None
        for r in range(rounds):
            medians: dict[str, float] = {}
            for name in ("bridge", "base") if r % 2 == 0 else ("base", "bridge"):
                pid = pids[0] if name == "bridge" else pids[1]
                before = used(pid)
                times = await timed(on_bridge if name == "bridge" else on_base, count)
                if measured:
                    result.cpu[name] = result.cpu.get(name, 0.0) + used(pid) - before
                getattr(result, name).extend(times)
                medians[name] = statistics.median(times)
            result.ratios.append(medians["bridge"] / medians["base"])
        out.append(result)
    return out


def summary(times: list[float]) -> str:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return f"median {statistics.median(times):8.1f} µs   p99 {p99:8.1f} µs   n={len(times)}"
