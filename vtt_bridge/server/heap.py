"""Memory a long ruling freed, given back to the system (glibc's allocator; elsewhere nothing).

A combat round of a big scene allocates hundreds of megabytes of short-lived objects and buffers
(its pairs, its log, its reply's JSON). Freed, most of their pages stay with the process: glibc
keeps the free pages inside its heaps for later use. `release_freed_memory` after a long ruling
(`malloc_trim`) gives the free pages of every arena back.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import sys
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vtt_bridge.server.bridge import Bridge


@cache
def _glibc() -> ctypes.CDLL | None:
    """glibc, when this process runs on it (musl, macOS and Windows have no `malloc_trim`)."""
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c") or "libc.so.6"
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
        libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


M_ARENA_MAX = -8
"""`mallopt`'s parameter number of the most arenas glibc makes (malloc.h)."""


def share_one_arena() -> bool:
    """Have every thread allocate from glibc's one main arena (True: it took the setting). By
    default each thread that allocates gets an arena of its own: a long ruling's megabytes were cut
    from its worker's arena, their copies and replies from the event loop's, and each kept the
    pages the other could not reuse (docs/benchmarks.md). The threads allocate under the
    interpreter lock all but a few C calls (Zstandard, SQLite), so they hardly contend for the one
    arena."""
    libc = _glibc()
    return libc is not None and libc.mallopt(M_ARENA_MAX, 1) == 1


def release_freed_memory() -> bool:
    """Give the allocator's free pages back to the system (True: some were), holding the allocator's
    locks meanwhile."""
    libc = _glibc()
    return libc is not None and libc.malloc_trim(0) == 1


YOUNG_COLLECTION_EVERY = 10_000
"""Allocations of container objects (less their frees) between two collections of the youngest
generation; Python's default is 700."""


def collect_young_less_often() -> None:
    """Run the cycle collector's youngest generation every `YOUNG_COLLECTION_EVERY` allocations
    (the older generations keep their ratios). A ruling's objects are trees that reference counting
    frees, but each collection walks every young object still alive, such as the rows of areas a
    `move` copies (docs/benchmarks.md). Cyclic garbage (a ruling makes none on purpose) waits
    longer to be freed."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_EVERY, middle, old)


RELEASE_AFTER = 2.0
"""Seconds after a long ruling's commit that the memory it freed is given back to the system (its
reply sent meanwhile, and its objects gone with the frames that held them)."""


def release_later(bridge: Bridge) -> None:
    """After a long ruling: its freed memory given back (`release_freed_memory`) in
    `RELEASE_AFTER` seconds, once for any number of long rulings meanwhile."""
    if bridge.release is not None:
        return

    def release() -> None:
        bridge.release = None
        release_freed_memory()

    bridge.release = asyncio.get_running_loop().call_later(RELEASE_AFTER, release)
