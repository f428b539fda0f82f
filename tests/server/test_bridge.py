"""The bridge: the engine's own dice (DICE-6) are reproducible from a seed."""

from __future__ import annotations

from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.rules.dice import roll_pool


def test_DICE_6_a_seed_reproduces_the_engine_dice() -> None:
    assert roll_pool(10, SeededRoller(42), 8) == roll_pool(10, SeededRoller(42), 8)
    assert {SeededRoller(seed).d10() for seed in range(200)} == set(range(1, 11))


def test_DICE_6_the_seeded_dice_are_one_stream_uniform_over_1_to_10() -> None:
    """The engine's seeded dice: `faces` and `d10` draw the same stream, reproducibly, each face
    about equally often."""
    block = SeededRoller(5).faces(20_000)
    one = SeededRoller(5)
    assert [one.d10() for _ in range(20_000)] == list(block)
    mixed = SeededRoller(5)
    assert [*mixed.faces(7), mixed.d10(), *mixed.faces(9000)] == list(block[:9008])
    counts = [block.count(face) for face in range(1, 11)]
    assert set(block) == set(range(1, 11))
    assert max(counts) - min(counts) < 400, counts
