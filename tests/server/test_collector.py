"""The cycle collector is paused while a long ruling runs in a worker (`server.CollectorPause`,
`server.ruled_in_worker`), and back on once the last one ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.server.commit import ruled_in_worker
from vtt_bridge.server.workers import CollectorPause


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_while_a_ruling_runs_and_on_again_after() -> None:
    pause = CollectorPause()
    with pause.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_stays_on_after_an_error_in_the_ruling() -> None:
    pause = CollectorPause()
    with pytest.raises(RuntimeError), pause.paused():
        raise RuntimeError("a bug in a ruling")
    assert gc.isenabled()


def test_overlapping_rulings_of_two_worlds_turn_it_on_only_when_both_have_ended() -> None:
    pause = CollectorPause()
    first_in, second_done, seen = threading.Event(), threading.Event(), []

    def first() -> None:
        with pause.paused():
            first_in.set()
            second_done.wait(5)
            seen.append(("first, after the second ended", gc.isenabled()))

    worker = threading.Thread(target=first)
    worker.start()
    assert first_in.wait(5)
    with pause.paused():
        seen.append(("second", gc.isenabled()))
    seen.append(("between", gc.isenabled()))
    second_done.set()
    worker.join(5)
    assert seen == [("second", False), ("between", False), ("first, after the second ended", False)]
    assert gc.isenabled()


def test_a_collector_off_before_stays_off() -> None:
    gc.disable()
    pause = CollectorPause()
    with pause.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_a_long_ruling_runs_with_the_collector_paused_and_its_reply_dumped() -> None:
    world = World("w")
    state = {"scene": {"id": "s"}, "actors": {"a": {"name": "A"}}, "tokens": {"t": {"actor": "a"}}}
    synced = world.prepare_sync({"state": state})
    world.commit(synced, b"{}")
    seen = []

    def prepare(*args: object) -> Pending | bytes:
        seen.append(gc.isenabled())
        return world.prepare_action("r", {"kind": "round", "round": 1}, SeededRoller(1))

    prepared, dumped = ruled_in_worker(prepare)
    assert seen == [False] and gc.isenabled()
    assert isinstance(prepared, Pending) and dumped is not None
    assert dumped.data.startswith(b'{"rev":')


def test_the_collector_pause_freezes_what_the_rulings_left_alive() -> None:
    """Back on, the collector finds what the long rulings made already frozen (`gc.freeze`): the
    next collection does not walk a round's new documents."""
    pause = CollectorPause()
    gc.unfreeze()
    with pause.paused():
        made = [{"row": i} for i in range(1000)]
    assert gc.get_freeze_count() >= len(made)
    gc.unfreeze()


def test_a_long_ruling_freezes_the_live_heap_before_it_starts() -> None:
    gc.unfreeze()
    alive = [{"doc": i} for i in range(1000)]
    frozen: list[int] = []

    def prepare(*args: object) -> bytes:
        frozen.append(gc.get_freeze_count())
        return b"{}"

    ruled_in_worker(prepare)
    assert frozen and frozen[0] >= len(alive)
    gc.unfreeze()
