"""The bridge: the engine's own dice (DICE-6) are reproducible from a seed."""

from __future__ import annotations

from vtt_bridge.bridge import SeededRoller
from vtt_bridge.rules.dice import roll_pool


def test_DICE_6_a_seed_reproduces_the_engine_dice() -> None:
    assert roll_pool(10, SeededRoller(42), 8) == roll_pool(10, SeededRoller(42), 8)
    assert {SeededRoller(seed).d10() for seed in range(200)} == set(range(1, 11))
