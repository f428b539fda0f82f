"""Memory a long ruling freed goes back to the system (`heap.py`, glibc), and the server asks for it
once after a long ruling (`server._release_later`)."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
from pathlib import Path

import pytest

from vtt_bridge import heap, server
from vtt_bridge.bridge import Bridge, Config

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


def test_large_blocks_get_pages_of_their_own_and_give_them_back_when_freed() -> None:
    """`keep_large_blocks_apart` (the sidecar sets it when its app is made): blocks of a megabyte
    or more are mapped apart however large the blocks freed before (glibc's default raises that
    size to theirs, up to 32 MB), so a worker thread's (a long ruling's) freed between live blocks
    give their pages back at once: by default they stayed in its arena until released."""
    assert heap.keep_large_blocks_apart()
    alive: list[bytearray] = []

    def work() -> None:
        raised = bytearray(16 << 20)  # freed: by default, blocks up to 16 MB would come from the heap
        del raised
        pairs = [(bytearray(4 << 20), bytearray(4000)) for _ in range(16)]  # some 64 MB
        alive.extend(small for _, small in pairs)  # live blocks between the large ones

    before = _rss_kb()
    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    gc.collect()
    assert _rss_kb() - before < 16_000, "each large block's pages went back when it was freed"
    assert len(alive) == 16


def test_the_server_gives_freed_memory_back_once_after_long_rulings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    released: list[bool] = []
    real = heap.release_freed_memory

    def counted() -> bool:
        released.append(real())
        return released[-1]

    monkeypatch.setattr(heap, "release_freed_memory", counted)
    monkeypatch.setattr(server, "RELEASE_AFTER", 0.05)

    async def run() -> None:
        bridge = Bridge(Config(data_dir=tmp_path, token="t"))
        server._release_later(bridge)
        server._release_later(bridge)  # a second long ruling meanwhile: one release
        assert bridge.release is not None
        await asyncio.sleep(0.2)
        assert bridge.release is None
        server._release_later(bridge)
        await asyncio.sleep(0.2)

    asyncio.run(run())
    assert len(released) == 2


if sys.platform.startswith("linux"):

    def test_glibc_is_found_here() -> None:
        assert heap._glibc() is not None
