"""d10 dice pools (DICE-1..7): successes on 8+, n-again, client-supplied dice. The engine's own seeded
dice are the engine's (`engine.roller.SeededRoller`): the rules take any `Roller`."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, cycle, repeat
from operator import add, itemgetter, mul
from typing import Protocol

from vtt_bridge.rules.common import RuleViolation, Step, counted

SUCCESS_THRESHOLD = 8
"""DICE-1: each die showing 8 or more is a success."""


class Roller(Protocol):
    """A source of d10 results (1..10). The rules never roll on their own: one is passed in."""

    def d10(self) -> int:
        """One die, 1..10."""
        ...


class FaceSource(Protocol):
    """A `Roller` that can also hand out many dice at once, as bytes of faces 1..10 in rolling order
    (the same dice `d10` would give one by one); `roll_pool` then counts them in C."""

    def d10(self) -> int:
        """One die, 1..10."""
        ...

    def faces(self, count: int) -> bytes:
        """The next `count` dice."""
        ...


_AGAIN_FACES = {again: tuple(range(again, 11)) for again in (8, 9, 10, 11)}
"""DICE-2: the faces that add a die, per n-again (none for 11: no rerolls)."""

_SUCCESS_FACES = tuple(range(SUCCESS_THRESHOLD, 11))
_ADDING_TABLES = {
    again: bytes(1 if face in faces else 0 for face in range(256)) for again, faces in _AGAIN_FACES.items()
}
"""DICE-2: per n-again, a die's face to 1 where it adds a die, else 0 (`bytes.translate`)."""

_SUCCESS_TABLE = bytes(1 if face >= SUCCESS_THRESHOLD else 0 for face in range(256))
"""DICE-1: a die's face to 1 for a success, else 0 (`bytes.translate`)."""


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
                f"too many dice: a pool of {roll.pool} with {_again_label(roll.again)} uses {self._used}, "
                f"not {self._given}",
                self._path,
            )
        return roll


@dataclass(frozen=True, slots=True)
class Roll:
    """A rolled pool: every die in the order rolled (rerolls included) and its successes; `by` (an
    actor uuid or token id) and `purpose` (`spot`, `hide`, `roll`, `oppose`) say whose roll it is
    and what for, once the action that rolled it names them (`Roll.of`)."""

    pool: int
    again: int
    dice: tuple[int, ...]
    successes: int
    by: str | None = None
    purpose: str | None = None

    def of(self, by: str, purpose: str) -> Roll:
        """This roll, named as `by`'s roll for `purpose`."""
        return _roll(self.pool, self.again, self.dice, self.successes, by, purpose)


_new = object.__new__
_set_pool: Callable[[Roll, int], None] = getattr(Roll, "pool").__set__  # noqa: B009
_set_again: Callable[[Roll, int], None] = getattr(Roll, "again").__set__  # noqa: B009
_set_dice: Callable[[Roll, tuple[int, ...]], None] = getattr(Roll, "dice").__set__  # noqa: B009
_set_successes: Callable[[Roll, int], None] = getattr(Roll, "successes").__set__  # noqa: B009
_set_by: Callable[[Roll, str | None], None] = getattr(Roll, "by").__set__  # noqa: B009
_set_purpose: Callable[[Roll, str | None], None] = getattr(Roll, "purpose").__set__  # noqa: B009


def _roll(
    pool: int, again: int, dice: tuple[int, ...], successes: int, by: str | None, purpose: str | None
) -> Roll:
    """`Roll(pool, again, dice, successes, by, purpose)`, its slots filled directly (a round names
    thousands): the frozen dataclass' `__init__` sets each field through `object.__setattr__`."""
    roll: Roll = _new(Roll)
    _set_pool(roll, pool)
    _set_again(roll, again)
    _set_dice(roll, dice)
    _set_successes(roll, successes)
    _set_by(roll, by)
    _set_purpose(roll, purpose)
    return roll


def roll_pool(pool: int, roller: Roller, again: int = 10) -> Roll:
    """DICE-1/2: roll `pool` d10s; each die of `again` or more adds a die, which can add more.

    A pool of 0 or less rolls nothing here (the chance-die rule is not in our rulebook text).
    """
    if again not in (8, 9, 10, 11):
        raise ValueError("again must be 8, 9, 10 or 11 (no rerolls)")
    faces = getattr(roller, "faces", None)
    if faces is not None and pool > 0:
        adding = _AGAIN_FACES[again]
        rolled: bytes = faces(pool)
        batch = rolled
        while more := sum(batch.count(face) for face in adding):
            batch = faces(more)
            rolled += batch
        successes = sum(rolled.count(face) for face in _SUCCESS_FACES)
        return Roll(pool=pool, again=again, dice=tuple(rolled), successes=successes)
    d10 = roller.d10
    dice: list[int] = []
    add = dice.append
    to_roll = max(0, pool)
    while to_roll > 0:
        face = d10()
        add(face)
        to_roll -= 1
        if face >= again:
            to_roll += 1
    successes = len([face for face in dice if face >= SUCCESS_THRESHOLD])
    return Roll(pool=max(0, pool), again=again, dice=tuple(dice), successes=successes)


@dataclass(frozen=True, slots=True)
class PoolRolls:
    """Many pools rolled one after another (`roll_pools`): every die in rolling order, where each
    pool's dice end, and each pool's successes; `roll(i)` is pool i's `Roll`, built only when asked."""

    pools: tuple[int, ...]
    again: int
    dice: bytes
    ends: tuple[int, ...]
    successes: tuple[int, ...]

    def roll(self, i: int) -> Roll:
        """Pool i's roll, as `roll_pool` gives it."""
        return self.named(i, None, None)

    def named(self, i: int, by: str | None, purpose: str | None) -> Roll:
        """Pool i's roll named as `by`'s roll for `purpose` (`Roll.of`), made at once."""
        ends = self.ends
        pool = self.pools[i]
        return _roll(
            pool if pool > 0 else 0,
            self.again,
            tuple(self.dice[ends[i - 1] if i else 0 : ends[i]]),
            self.successes[i],
            by,
            purpose,
        )


_CHUNK = 16_384
"""Pools per C loop of `roll_pools`: a C loop holds the interpreter's lock, and a
round in a worker thread must not keep another world's ruling waiting for long."""


_BYTES = tuple(bytes((value,)) for value in range(256))
"""Each byte value as a one-byte `bytes`."""

_ADDING_FACES = {again: bytes(range(again, 11)) for again in _AGAIN_FACES}
"""DICE-2: per n-again, the faces that add a die, as bytes (`bytes.translate` deletes them)."""


def _gather(indices: Sequence[int], table: bytes) -> bytes:
    """`table[i]` for each index, as bytes, in C loops (`itemgetter`) of at most `_CHUNK` items."""
    parts = []
    for at in range(0, len(indices), _CHUNK):
        some = indices[at : at + _CHUNK]
        parts.append(bytes(itemgetter(*some)(table)) if len(some) > 1 else table[some[0] : some[0] + 1])
    return b"".join(parts)


def _lane_sums(first: bytes, second: bytes) -> bytes:
    """Byte k of each added, as one big-integer sum: every sum must stay below 256 (no carry)."""
    total = int.from_bytes(first, "little") + int.from_bytes(second, "little")
    return total.to_bytes(len(first), "little")


def _lane_differences(counts: bytes) -> bytes:
    """Byte k: counts[k] - counts[k - 1] mod 256 (counts[-1] taken as 0), as one big-integer sum:
    two bytes a count, each 256 more than the one before, so no difference borrows."""
    wide = counts.decode("latin-1").encode("utf-16-le")
    now = int.from_bytes(wide, "little") + int.from_bytes(b"\0\1" * len(counts), "little")
    return (now - int.from_bytes(b"\0\0" + wide[:-2], "little")).to_bytes(len(wide), "little")[::2]


def _counted(
    dice: bytes, adds: bytes, again: int, sizes: bytes, totals: list[int]
) -> tuple[list[int], tuple[int, ...]] | None:
    """DICE-1/2: each pool's end and successes in the stream of a `roll_pools` (`adds` a byte a die,
    1 where it adds a die; `sizes` a byte a pool, each below 128), or None where a pool rolled 128
    or more adding dice (then `_searched` finds them).

    Pool k ends on its `totals[k]`-th die below `again`, so it holds the dice below `again` from
    the `totals[k - 1]`-th on, and the adding dice among them, every one a success (`again` is 8 or
    more). The adding dice cut the stream into runs of dice below `again`; a table with a byte per
    such die holds the run's number (mod 256), so the adding dice before each pool's end are one
    lookup and a pool's own the difference of two: no search per pool. Its successes below `again`
    are a count over its run of `totals` in those dice alone, found without its end."""
    if again <= 10:
        runs = adds.split(b"\x01")
        numbers = cycle(_BYTES)
        table = [b"\0"]
        for at in range(0, len(runs), 4 * _CHUNK):
            table.append(b"".join(map(mul, map(len, runs[at : at + 4 * _CHUNK]), numbers)))
        extra = _lane_differences(_gather(totals, b"".join(table)))
        """Byte k: pool k's adding dice (mod 256)."""
    else:
        extra = bytes(len(sizes))
    if not extra.isascii():  # a byte of 128 or more: no `max` over every pool's int
        return None
    ends = list(accumulate(_lane_sums(sizes, extra)))
    if ends[-1] != len(dice):  # a pool's adding dice were counted mod 256: their sum tells
        return None
    count = dice.translate(_SUCCESS_TABLE, _ADDING_FACES[again]).count  # the dice below `again`
    parts = []
    for at in range(0, len(totals), _CHUNK):
        starts = totals[at - 1 : at + _CHUNK - 1] if at else [0, *totals[: _CHUNK - 1]]
        parts.append(bytes(map(count, repeat(b"\x01"), starts, totals[at : at + _CHUNK])))
    return ends, tuple(_lane_sums(extra, b"".join(parts)))


def _searched(dice: bytes, adds: bytes, again: int, totals: list[int]) -> tuple[list[int], list[int]]:
    """`_counted` for any pools: each pool's end by a search in the running counts of the dice
    between two adding ones, its successes by a count of its dice."""
    ends = totals
    if again <= 10:
        runs = list(accumulate(map(len, adds.split(b"\x01"))))
        """The dice below `again` up to each adding die (and to the end)."""
        ends = []
        for at in range(0, len(totals), _CHUNK):
            some = totals[at : at + _CHUNK]
            ends.extend(map(add, some, map(bisect_left, repeat(runs), some)))
    hits = dice.translate(_SUCCESS_TABLE).count
    successes: list[int] = []
    for at in range(0, len(ends), _CHUNK):
        starts = ends[at - 1 : at + _CHUNK - 1] if at else [0, *ends[: _CHUNK - 1]]
        successes.extend(map(hits, repeat(b"\x01"), starts, ends[at : at + _CHUNK]))
    return ends, successes


def _lanes(sizes: Sequence[int]) -> bytes | None:
    """The sizes as a byte each (one C loop), or None when one is negative or 256 or more: then
    `isascii` tells in C whether every one is below 128, with no `min` or `max` over the ints."""
    try:
        return bytes(sizes)
    except ValueError:
        return None


def roll_pools(pools: Sequence[int], roller: Roller, again: int = 10) -> PoolRolls:
    """DICE-1/2: `roll_pool` of each pool in turn, from one roller: the same dice, in the same order,
    as the rolls one by one. From a `FaceSource` it draws the dice in blocks no larger than what is
    surely rolled (every pool's dice, rerolls once they are known), so the stream stays the same, and
    counts them in C without a Python object per die."""
    if again not in _AGAIN_FACES:
        raise ValueError("again must be 8, 9, 10 or 11 (no rerolls)")
    pools = tuple(pools)
    faces = getattr(roller, "faces", None)
    if faces is None:
        rolls = [roll_pool(pool, roller, again) for pool in pools]
        ends: list[int] = []
        at = 0
        for roll in rolls:
            at += len(roll.dice)
            ends.append(at)
        dice = bytes(face for roll in rolls for face in roll.dice)
        return PoolRolls(pools, again, dice, tuple(ends), tuple(roll.successes for roll in rolls))
    # Each die showing `again` or more adds a die, so a roll ends on its first die below `again`
    # after it has rolled `pool` of them: pool k ends right after the (p1 + ... + pk)-th die below
    # `again` in the stream. So the stream is drawn until it holds that many (never a die more: each
    # one still owed is at least one more die); then every pool's end and successes are counted in C
    # loops (bytes methods, big-integer sums, `itemgetter`) over at most `_CHUNK` items: no Python
    # step per die or per pool.
    adding = _ADDING_TABLES[again]
    sizes, lanes = pools, _lanes(pools)
    if lanes is None and pools and min(pools) < 0:
        sizes = tuple(pool if pool > 0 else 0 for pool in pools)
        lanes = _lanes(sizes)
    totals = list(accumulate(sizes))
    owed = totals[-1] if totals else 0
    drawn, flags = bytearray(), bytearray()
    below = 0
    while below < owed:
        batch = faces(owed - below)
        drawn += batch
        flagged = batch.translate(adding)
        flags += flagged
        below += len(batch) - flagged.count(1)
    dice = bytes(drawn)
    adds = bytes(flags)
    """A byte a die: 1 where it adds a die (`_ADDING_TABLES`), as the draw found them."""
    counted = _counted(dice, adds, again, lanes, totals) if lanes and lanes.isascii() else None
    ends, successes = counted if counted is not None else _searched(dice, adds, again, totals)
    return PoolRolls(pools, again, dice, tuple(ends), tuple(successes))


def kept_extra_successes(successes: int, extra: int) -> int:
    """DICE-3: the extra successes that count: all of them on a roll left with a success, else none."""
    if extra < 0:
        raise ValueError(f"extra successes are not negative, got {extra}")
    return extra if successes >= 1 else 0


def with_extra_successes(roll: Roll, extra: int) -> int:
    """DICE-3: a roll's successes with the extra successes that count."""
    return roll.successes + kept_extra_successes(roll.successes, extra)


def active_wins(active: int, passive: int) -> bool:
    """DICE-5: the DC is the opponent's successes; the active side needs at least one success and at
    least the DC, so a tie is the active side's."""
    return active >= 1 and active >= passive


_NONZERO = bytes(min(value, 1) for value in range(256))
"""A byte to 1 where it is not 0 (`bytes.translate`)."""


def active_wins_each(successes: Sequence[int]) -> bytes:
    """DICE-5 for each contest of a list of pairs of rolls (the active side's successes, then the
    passive side's, pair after pair): a byte a pair, 1 where the active side wins (`active_wins`).
    In C: `256 + active - passive` in two-byte lanes of one big-integer sum (never below 1, so no
    lane borrows) has its high byte 1 exactly where active >= passive; that, and a success at all."""
    active_ints, passive_ints = successes[0::2], successes[1::2]
    try:
        active, passive = bytes(active_ints), bytes(passive_ints)
    except ValueError:  # a roll of 256 successes or more
        return bytes(map(active_wins, active_ints, passive_ints))
    count = len(active)
    lanes = (
        int.from_bytes(active.decode("latin-1").encode("utf-16-le"), "little")
        + int.from_bytes(b"\0\1" * count, "little")
        - int.from_bytes(passive.decode("latin-1").encode("utf-16-le"), "little")
    )
    at_least = int.from_bytes(lanes.to_bytes(2 * count, "little")[1::2], "little")
    return (at_least & int.from_bytes(active.translate(_NONZERO), "little")).to_bytes(count, "little")


# --- DICE-4: bonuses ------------------------------------------------------------------------------

PERFECT = "perfect"
"""DICE-4: the bonus type that stacks with everything."""


@dataclass(frozen=True, slots=True)
class Bonus:
    """A bonus (positive) or penalty (negative) in dice, of a type (`morale`, `perfect`, ...)."""

    value: int
    type: str
    source: str = ""


def counted_bonuses(bonuses: Sequence[Bonus], *, all_stack: bool = False) -> tuple[Bonus, ...]:
    """DICE-4: the bonuses that count, in the order given: per type only the highest bonus (and the
    worst penalty), the first of equals; every perfect bonus; with `all_stack` (the detection
    contest), every one.
    """
    if all_stack:
        return tuple(bonuses)
    best: dict[str, int] = {}
    worst: dict[str, int] = {}
    for index, bonus in enumerate(bonuses):
        if bonus.type == PERFECT:
            continue
        into = best if bonus.value >= 0 else worst
        held = into.get(bonus.type)
        if held is None or abs(bonus.value) > abs(bonuses[held].value):
            into[bonus.type] = index
    kept = {*best.values(), *worst.values()}
    return tuple(b for i, b in enumerate(bonuses) if b.type == PERFECT or i in kept)


def stack_bonuses(bonuses: Sequence[Bonus], *, all_stack: bool = False) -> int:
    """DICE-4: per type only the highest bonus (and the worst penalty) counts; perfect bonuses stack
    with all; where a rule says all its modifiers stack (`all_stack`, the detection contest), all do.
    """
    return sum(bonus.value for bonus in counted_bonuses(bonuses, all_stack=all_stack))


WILLPOWER_BONUS = 3
"""DICE-7 / WP-2: Willpower's basic use adds +3 DP, a perfect bonus."""


def add_willpower(bonuses: Sequence[Bonus]) -> tuple[Bonus, ...]:
    """DICE-7: the bonuses with Willpower's +3 DP perfect bonus; once per action (ValueError twice)."""
    if any(bonus.source == "willpower" for bonus in bonuses):
        raise ValueError("Willpower's +3 DP is spent at most once per action (DICE-7)")
    return (*bonuses, Bonus(value=WILLPOWER_BONUS, type=PERFECT, source="willpower"))


# --- DICE-5: opposed rolls ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opposed:
    """DICE-5: the outcome of an opposed roll, with the numbers that decided it."""

    active_successes: int
    dc: int
    active_wins: bool
    reason: str


def opposed(active: int, passive: int) -> Opposed:
    """DICE-5 (`active_wins`) with the reason in words, for the `roll` action's opposed roll."""
    if active < 0 or passive < 0:
        raise ValueError("successes are not negative")
    wins = active_wins(active, passive)
    if active < 1:
        reason = "no success: the active side fails"
    elif active > passive:
        reason = f"{counted(active, 'success', 'successes')} beat DC {passive}"
    elif active == passive:
        reason = f"{counted(active, 'success', 'successes')} meet DC {passive}"
    else:
        reason = f"{counted(active, 'success', 'successes')} fall short of DC {passive}"
    return Opposed(active, passive, wins, reason)


# --- DICE-6: client-supplied dice -----------------------------------------------------------------


def _again_label(again: int) -> str:
    return "no rerolls" if again == 11 else f"{again}-again"


def roll_supplied(
    pool: int, dice: Sequence[int], again: int = 10, path: tuple[str | int, ...] = ("dice",)
) -> Roll:
    """DICE-6: the roll with exactly the dice the client supplied, or the `SuppliedDice` violation:
    each die must show 1..10 and the count must be the pool plus one die per reroll (DICE-2).
    """
    supplied = SuppliedDice(dice, path)
    return supplied.used_up(roll_pool(pool, supplied, again))


# --- a roll on its own: the pool, its modifiers and the steps that explain it --------------------

NO_AGAIN = 11
"""DICE-2: the `again` of a roll without rerolls (`again: null` on the wire)."""

MAX_POOL = 1000
"""The most dice a pool is given as (a number, a modifier, a trait's dots are far below it)."""

WOUND = "wound"
"""HEALTH-7: the penalty type that exists only because of the optional wound penalty rule."""


def _signed(value: int) -> str:
    return f"{value:+d}"


@dataclass(frozen=True, slots=True)
class DicePool:
    """DICE-1: the dice pool (DP) of a roll and the steps that add it up; `pool` may be 0 or less, and
    then nothing is rolled."""

    pool: int
    steps: tuple[Step, ...]


def dice_pool(
    traits: Sequence[tuple[str, int]], bonuses: Sequence[Bonus], wound_penalty: int = 0
) -> DicePool:
    """DICE-1/4/7, HEALTH-7: the DP of a roll: its traits' dots (or a number of dice, as one part),
    the modifiers that count under DICE-4 (Willpower's +3 DP among the perfect ones, DICE-7), and
    the wound penalty.
    """
    base = sum(value for _, value in traits)
    parts = " + ".join(f"{name} {value}" for name, value in traits)
    steps = [
        Step(
            rule="DICE-1",
            text=f"dice pool: {parts} = {base} DP",
            data={"traits": [{"trait": name, "value": value} for name, value in traits], "base": base},
            key="DICE-1.pool",
        )
    ]
    counted = counted_bonuses(bonuses)
    others = [bonus for bonus in bonuses if bonus.source != "willpower"]
    if others:
        kept = [any(bonus is held for held in counted) for bonus in others]
        listed = [
            {
                "type": bonus.source or bonus.type,
                "value": bonus.value,
                "perfect": bonus.type == PERFECT,
                "counted": counts,
            }
            for bonus, counts in zip(others, kept, strict=True)
        ]
        total = sum(bonus.value for bonus, counts in zip(others, kept, strict=True) if counts)
        dropped = [
            f"{bonus.source or bonus.type} {_signed(bonus.value)}"
            for bonus, counts in zip(others, kept, strict=True)
            if not counts
        ]
        text = f"modifiers: {_signed(total)} DP" + (
            f" ({', '.join(dropped)} do not stack with a bigger one of the same type)" if dropped else ""
        )
        steps.append(
            Step(rule="DICE-4", text=text, data={"modifiers": listed, "total": total}, key="DICE-4.modifiers")
        )
    willpower = sum(bonus.value for bonus in bonuses if bonus.source == "willpower")
    if willpower:
        steps.append(
            Step(
                rule="DICE-7",
                text=f"Willpower: {_signed(willpower)} DP perfect bonus (stacks with every bonus)",
                data={"bonus": willpower},
                key="DICE-7.bonus",
            )
        )
    if wound_penalty:
        steps.append(
            Step(
                rule="HEALTH-7",
                text=f"wound penalty: {_signed(-wound_penalty)} DP",
                data={"penalty": wound_penalty},
                key="HEALTH-7.penalty",
            )
        )
    pool = base + stack_bonuses(bonuses) - wound_penalty
    if pool != base or len(steps) > 1:
        steps.append(
            Step(
                rule="DICE-1",
                text=f"{max(0, pool)} DP to roll",
                data={"pool": max(0, pool)},
                key="DICE-1.toRoll",
            )
        )
    return DicePool(pool, tuple(steps))


def roll_steps(roll: Roll, *, supplied: bool, extra: int = 0) -> tuple[Step, ...]:
    """DICE-1/2/3/6: what a roll showed: the dice (the VTT's or the engine's), the rerolls its
    `again` gave, its successes, and extra successes only on a roll that has at least one (DICE-3).
    """
    steps: list[Step] = []
    rerolls = sum(1 for face in roll.dice if face >= roll.again)
    if roll.again != NO_AGAIN:
        steps.append(
            Step(
                rule="DICE-2",
                text=f"{roll.again}-again: {counted(rerolls, 'reroll')}",
                data={"again": roll.again, "rerolls": rerolls},
                key="DICE-2.again",
            )
        )
    else:
        steps.append(
            Step(rule="DICE-2", text="no rerolls", data={"again": None, "rerolls": 0}, key="DICE-2.noAgain")
        )
    faces = ", ".join(str(face) for face in roll.dice) or "none"
    steps.append(
        Step(
            rule="DICE-6" if supplied else "DICE-1",
            text=f"{'the VTT' if supplied else 'the engine'} rolled [{faces}]: "
            f"{counted(roll.successes, 'success', 'successes')}",
            data={"dice": list(roll.dice), "successes": roll.successes, "supplied": supplied},
            key="DICE-6.rolled" if supplied else "DICE-1.rolled",
        )
    )
    if extra:
        total = with_extra_successes(roll, extra)
        steps.append(
            Step(
                rule="DICE-3",
                text=(
                    f"+{counted(extra, 'extra success', 'extra successes')}: {total}"
                    if roll.successes >= 1
                    else f"+{counted(extra, 'extra success', 'extra successes')} "
                    f"{'does' if extra == 1 else 'do'} not count: the roll has no success"
                ),
                data={"extra": extra, "counted": roll.successes >= 1, "total": total},
                key="DICE-3.extra" if roll.successes >= 1 else "DICE-3.noExtra",
            )
        )
    return tuple(steps)


def check_opponent(actor: str, opponent: str | None, *, opposed: bool) -> None:
    """DICE-5: an actor does not roll against itself; an opposed roll names its opponent."""
    if opponent == actor:
        raise RuleViolation("DICE-5", "an actor does not roll against itself", ("opponent",))
    if opposed and opponent is None:
        raise RuleViolation(
            "DICE-5", "an opposed roll needs the opponent's actor id (`opponent`)", ("opposed",)
        )


def opposed_step(actor: str, opponent: str, successes: int, dc: int) -> Step:
    """DICE-5: the opposed roll's result; the opponent's successes are the roller's DC."""
    outcome = opposed(successes, dc)
    return Step(
        rule="DICE-5",
        text=f"opposed roll: {outcome.reason}",
        data={
            "actor": actor,
            "opponent": opponent,
            "successes": successes,
            "dc": dc,
            "wins": outcome.active_wins,
        },
        key="DICE-5.opposed",
    )


def result_step(actor: str, successes: int) -> Step:
    """DICE-1: a plain roll's result; no success is a failure."""
    return Step(
        rule="DICE-1",
        text=counted(successes, "success", "successes") + (" (a failure)" if successes == 0 else ""),
        data={"actor": actor, "successes": successes, "wins": successes >= 1},
        key="DICE-1.result",
    )


def pool_traits(
    pool: Sequence[str], attributes: Mapping[str, int], skills: Mapping[str, int], path: tuple[str | int, ...]
) -> list[tuple[str, int]]:
    """DICE-1: each trait of a pool (an Attribute or one of the actor's Skills) with its dots, in the
    pool's order. `attributes` holds every Attribute (0 where the actor has none); an unknown trait,
    or one named twice, is refused at its place in the pool (`path`, "pool", index)."""
    out: list[tuple[str, int]] = []
    for index, trait in enumerate(pool):
        if trait in attributes:
            value = attributes[trait]
        elif trait in skills:
            value = skills[trait]
        else:
            allowed = ", ".join((*attributes, *sorted(skills)))
            raise RuleViolation(
                "DICE-1", f"unknown Attribute or Skill {trait!r}; allowed: {allowed}", (*path, "pool", index)
            )
        if any(name == trait for name, _ in out):
            raise RuleViolation("DICE-1", f"{trait!r} is named twice in the pool", (*path, "pool", index))
        out.append((trait, value))
    return out


def check_pool_size(pool: int, path: tuple[str | int, ...]) -> None:
    """DICE-1: a roll rolls at most `MAX_POOL` dice, its modifiers counted; a larger pool is refused at
    its modifiers (each part is bounded, their sum may not be)."""
    if pool > MAX_POOL:
        raise RuleViolation(
            "DICE-1",
            f"the dice pool after its modifiers is {pool} dice; a roll rolls at most {MAX_POOL}",
            (*path, "modifiers"),
        )
