"""Memory a long ruling freed goes back to the system (`heap.py`, glibc), and the server asks for it
once after a long ruling (`heap.release_later`)."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
from pathlib import Path

import pytest

from vtt_bridge.server import heap
from vtt_bridge.server.bridge import Bridge, Config

pytestmark = pytest.mark.skipif(heap._glibc() is None, reason="glibc's allocator only")


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_the_pages_freed_blocks_held_go_back_to_the_system() -> None:
    """Blocks from glibc's heap (larger than pymalloc's 512 bytes), freed below one still alive,
    stay with the process until `release_freed_memory` gives their pages back."""
    heap.release_freed_memory()
    before = _rss_kb()
    blocks = [bytes(4000) + i.to_bytes(4, "little") for i in range(20_000)]  # some 80 MB
    last = blocks[-1]  # alive: the heap's top cannot shrink past it
    assert _rss_kb() - before > 60_000
    del blocks
    gc.collect()
    freed = _rss_kb()
    assert freed - before > 60_000, "freed below a live block, the pages stay"
    assert heap.release_freed_memory()
    assert freed - _rss_kb() > 50_000, "and go back when released"
    assert len(last) == 4004


ARENAS = """
import ctypes, sys, threading
from vtt_bridge.server import heap
if sys.argv[1] == "one":
    assert heap.share_one_arena()

def work() -> None:  # a worker's allocations, as a long ruling's
    blocks = [bytearray(4000) for _ in range(1000)]
    del blocks

workers = [threading.Thread(target=work) for _ in range(4)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype, libc.fopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
out = libc.fopen(sys.argv[2].encode(), b"w")
libc.malloc_info(0, out)
libc.fclose(out)
print(open(sys.argv[2]).read().count("<heap nr="))
"""
"""Counts the arenas (glibc's `malloc_info`) after four worker threads allocated."""


def test_the_sidecars_threads_allocate_from_one_arena(tmp_path: Path) -> None:
    """`share_one_arena` (the sidecar sets it when its app is made): worker threads allocate from
    glibc's main arena, not each from one of its own (what they free, the event loop reuses)."""

    def arenas(mode: str) -> int:
        run = subprocess.run(
            [sys.executable, "-c", ARENAS, mode, str(tmp_path / f"{mode}.xml")],
            capture_output=True,
            text=True,
            check=True,
        )
        return int(run.stdout)

    assert arenas("default") > 1
    assert arenas("one") == 1


def test_the_server_gives_freed_memory_back_once_after_long_rulings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    released: list[bool] = []
    real = heap.release_freed_memory

    def counted() -> bool:
        released.append(real())
        return released[-1]

    monkeypatch.setattr(heap, "release_freed_memory", counted)
    monkeypatch.setattr(heap, "RELEASE_AFTER", 0.05)

    async def run() -> None:
        bridge = Bridge(Config(data_dir=tmp_path, token="t"))
        heap.release_later(bridge)
        heap.release_later(bridge)  # a second long ruling meanwhile: one release
        assert bridge.release is not None
        await asyncio.sleep(0.2)
        assert bridge.release is None
        heap.release_later(bridge)
        await asyncio.sleep(0.2)

    asyncio.run(run())
    assert len(released) == 2


if sys.platform.startswith("linux"):

    def test_glibc_is_found_here() -> None:
        assert heap._glibc() is not None
