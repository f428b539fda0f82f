"""Long work off the event loop: a long ruling or a big world's state dumped in a worker thread with
the cycle collector paused (the memory it freed is given back afterwards: `heap.release_later`).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import orjson

from vtt_bridge.engine.world import Pending, World
from vtt_bridge.server.commit import Dumped, dumped_result, json_default

P = TypeVar("P")


def query_dumped(world: World, payload: dict[str, Any]) -> bytes:
    """In a worker: a query answered (`World.query`) and its result's JSON (one `orjson` call: the
    state is dumped in parts already, `dumped_in_parts`), the cycle collector paused as for a long
    ruling (`ruled_in_worker`)."""
    gc.freeze()
    with COLLECTOR.paused():
        return orjson.dumps(world.query(payload), default=json_default)


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


def ruled_in_worker(prepare: Callable[..., P], *args: Any) -> tuple[P, Dumped | None]:
    """In a worker: a long ruling prepared, and its result's JSON (None for a stored reply's text).

    The objects alive when it starts (the worlds' documents: millions in a big scene) are moved out
    of the cycle collector's reach first (`gc.freeze`), and the collector is paused while it runs
    (`COLLECTOR`): a round allocates enough to trigger full collections, each walked every object it
    made so far holding the interpreter lock, and none freed anything: a ruling's objects are
    trees that reference counting frees. Only cyclic garbage made meanwhile waits for the next
    collection."""
    gc.freeze()
    with COLLECTOR.paused():
        prepared = prepare(*args)
        if isinstance(prepared, Pending):
            return prepared, dumped_result(prepared.result, in_turns=True)
        return prepared, None
