"""d10 dice pools (DICE-1..7): successes on 8+, n-again, a seedable roller and client-supplied dice."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

SUCCESS_THRESHOLD = 8
"""DICE-1: each die showing 8 or more is a success."""


class Roller(Protocol):
    """A source of d10 results (1..10). The rules never roll on their own: one is passed in."""

    def d10(self) -> int:
        """One die, 1..10."""
        ...


class SeededRoller:
    """DICE-6: the engine's own dice, reproducible from a seed."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def d10(self) -> int:
        return self._random.randint(1, 10)


class DiceExhausted(ValueError):
    """Client-supplied dice ran out before the roll was complete."""


class SuppliedDice:
    """DICE-6: dice the VTT rolled, used exactly as given, in order."""

    def __init__(self, dice: Sequence[int]) -> None:
        for face in dice:
            if not 1 <= face <= 10:
                raise ValueError(f"a d10 shows 1..10, not {face}")
        self._dice: Iterator[int] = iter(list(dice))

    def d10(self) -> int:
        try:
            return next(self._dice)
        except StopIteration:
            raise DiceExhausted("the supplied dice ran out") from None


@dataclass(frozen=True)
class Roll:
    """A rolled pool: every die in the order rolled (rerolls included) and its successes."""

    pool: int
    again: int
    dice: tuple[int, ...]
    successes: int


def roll_pool(pool: int, roller: Roller, again: int = 10) -> Roll:
    """DICE-1/2: roll `pool` d10s; each die of `again` or more adds a die, which can add more.

    A pool of 0 or less rolls nothing here (the chance-die rule is not in our rulebook text).
    """
    if again not in (8, 9, 10, 11):
        raise ValueError("again must be 8, 9, 10 or 11 (no rerolls)")
    dice: list[int] = []
    to_roll = max(0, pool)
    while to_roll > 0:
        face = roller.d10()
        dice.append(face)
        to_roll -= 1
        if face >= again:
            to_roll += 1
    successes = sum(1 for face in dice if face >= SUCCESS_THRESHOLD)
    return Roll(pool=max(0, pool), again=again, dice=tuple(dice), successes=successes)
