"""Memory a long ruling freed, given back to the system (glibc's allocator; elsewhere nothing).

A combat round of a big scene allocates hundreds of megabytes of short-lived objects and buffers
(its pairs, its log, its reply's JSON). Freed, most of their pages stay with the process: glibc
keeps the free pages inside its heaps for later use. `release_freed_memory` after a long ruling
(`malloc_trim`) gives the free pages of every arena back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache


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


M_MMAP_THRESHOLD = -3
"""`mallopt`'s parameter number of the size from which glibc maps a block of its own (malloc.h)."""

MAPPED_FROM = 1 << 20
"""Blocks of this many bytes or more get pages of their own (`keep_large_blocks_apart`)."""


def keep_large_blocks_apart() -> bool:
    """Have glibc map every block of `MAPPED_FROM` bytes or more apart, and unmap it when freed
    (True: it took the setting). By default the size adapts up to 32 MB as such blocks are freed,
    so after the first round the megabytes of its reply, its copies and its lists were cut from the
    heaps, in worker threads' arenas too, and the live objects between them kept the pages: the
    sidecar held some 70 MB more after a 1,000-token round than the same round ruled in the main
    thread of a process."""
    libc = _glibc()
    return libc is not None and libc.mallopt(M_MMAP_THRESHOLD, MAPPED_FROM) == 1


def release_freed_memory() -> bool:
    """Give the allocator's free pages back to the system (True: some were; a few ms for a heap of
    hundreds of MB, holding the allocator's locks meanwhile)."""
    libc = _glibc()
    return libc is not None and libc.malloc_trim(0) == 1
