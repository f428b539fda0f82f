"""d10 dice pools (DICE-1..7): successes on 8+, n-again, client-supplied dice. The engine's own seeded
dice are the shell's (`bridge.SeededRoller`): the rules take any `Roller`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from vtt_bridge.rules.common import RuleViolation

SUCCESS_THRESHOLD = 8
"""DICE-1: each die showing 8 or more is a success."""


class Roller(Protocol):
    """A source of d10 results (1..10). The rules never roll on their own: one is passed in."""

    def d10(self) -> int:
        """One die, 1..10."""
        ...


class SuppliedDice:
    """DICE-6: dice the VTT rolled, used exactly as given, in order. A die that is not 1..10, a roll
    that needs more dice than given, or dice left over (`used_up`) is a DICE-6 `RuleViolation` whose
    path points at the dice (and at the bad die)."""

    __slots__ = ("_dice", "_given", "_path", "_used")

    def __init__(self, dice: Sequence[int], path: tuple[str | int, ...] = ("dice",)) -> None:
        for index, face in enumerate(dice):
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 10:
                raise RuleViolation("DICE-6", f"a d10 shows 1..10, not {face!r}", (*path, index))
        self._given = len(dice)
        self._dice: Iterator[int] = iter(list(dice))
        self._path = path
        self._used = 0

    def d10(self) -> int:
        """The next supplied die."""
        try:
            face = next(self._dice)
        except StopIteration:
            raise RuleViolation(
                "DICE-6",
                f"too few dice: the roll needs more than the {self._given} given (one more per reroll)",
                self._path,
            ) from None
        self._used += 1
        return face

    def used_up(self, roll: Roll) -> Roll:
        """The roll, when it used every supplied die; else a DICE-6 violation ("too many")."""
        if self._used != self._given:
            raise RuleViolation(
                "DICE-6",
                f"too many dice: a pool of {roll.pool} with {roll.again}-again uses {self._used}, "
                f"not {self._given}",
                self._path,
            )
        return roll


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


def kept_extra_successes(successes: int, extra: int) -> int:
    """DICE-3: the extra successes that count: all of them on a roll left with a success, else none."""
    if extra < 0:
        raise ValueError(f"extra successes are not negative, got {extra}")
    return extra if successes >= 1 else 0


def active_wins(active: int, passive: int) -> bool:
    """DICE-5: the DC is the opponent's successes; the active side needs at least one success and at
    least the DC (a tie is the active side's)."""
    return active >= 1 and active >= passive
