"""Long work off the event loop: the cycle collector paused while a long ruling (`commit.ruled_in_worker`)
or a big world's state (`queries.query_dumped`) is made in a worker thread (the memory it freed is
given back afterwards: `heap.release_later`).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


class CollectorPause:
    """The cycle collector paused while any long ruling runs (`ruled_in_worker`, one per world at most, in
    worker threads): off from the first one's start to the last one's end, then on again, with the
    objects made meanwhile frozen (`gc.freeze`) as the ones before were. Counted under a lock, so
    overlapping rulings of two worlds turn it back on only when both have ended; it was on before
    the first one or it stays off."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._was_enabled = False

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0 and self._was_enabled:
                    # what the rulings left alive (the new documents) out of reach too: else the
                    # next collection walks all of it at once, on whichever thread allocates next
                    gc.freeze()
                    gc.enable()


COLLECTOR = CollectorPause()
