"""Helpers of the benchmarks: processes of their own, free ports, interleaved timing."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

TOKEN = "bench-token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


_USABLE = sorted(os.sched_getaffinity(0))
"""The CPUs this benchmark may use (read once, before the client pins itself to one of them)."""


def _cpus() -> tuple[int, int] | None:
    """The CPU for this process (the client) and the one for every server, when there are two."""
    return (_USABLE[-2], _USABLE[-1]) if len(_USABLE) >= 2 else None


def pin_client() -> str:
    """Pin this process (the client) to one CPU and say where everything runs.

    Both servers then run on the other CPU: each request wakes its server across the same pair of
    CPUs. Left to the scheduler, whichever server ran last shared the client's CPU, and per-round
    ratios swung between about 1.9 and 3.0 with the order of the rounds; pinned, they agree within
    a few percent.
    """
    cpus = _cpus()
    if cpus is None:
        return "one CPU: nothing pinned"
    os.sched_setaffinity(0, {cpus[0]})
    return f"client on CPU {cpus[0]}, both servers on CPU {cpus[1]}"


@contextmanager
def process(args: list[str], ready: str) -> Iterator[subprocess.Popen[str]]:
    """A child process (on the servers' CPU, see `pin_client`), ready once its first line contains `ready`."""
    child = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "VTT_BRIDGE_TOKEN": TOKEN, "VTT_BRIDGE_LOG_LEVEL": "WARNING"},
    )
    cpus = _cpus()
    if cpus is not None:
        os.sched_setaffinity(child.pid, {cpus[1]})
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


@contextmanager
def sidecar() -> Iterator[int]:
    """The real sidecar, in a process of its own, on a fresh data folder."""
    port = free_port()
    with (
        tempfile.TemporaryDirectory() as data,
        process(
            [sys.executable, "-m", "vtt_bridge", "serve", "--port", str(port), "--data-dir", str(Path(data))],
            "listening on",
        ),
    ):
        yield port


@contextmanager
def baseline() -> Iterator[int]:
    """The reply-only websocket server, in a process of its own."""
    port = free_port()
    script = Path(__file__).with_name("reply_only_server.py")
    with process([sys.executable, str(script), str(port)], "reply-only server"):
        yield port


async def time_round_trips(call: Callable[[int], Awaitable[None]], count: int) -> list[float]:
    """Microseconds of each of `count` sequential calls."""
    times = []
    for i in range(count):
        start = time.perf_counter_ns()
        await call(i)
        times.append((time.perf_counter_ns() - start) / 1000)
    return times


def summary(times: list[float]) -> str:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return f"median {statistics.median(times):8.1f} µs   p99 {p99:8.1f} µs   n={len(times)}"
