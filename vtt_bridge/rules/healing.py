"""Healing (HEALTH-8..10, HEALTH-13's healing): natural recovery by short and long rests, First Aid,
magic, the Overseer's price, fast healing and regeneration; every heal reaches the second Health
track first, and healing that restores Health stops worsening (HEALTH-4)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal

from vtt_bridge.rules import willpower as wp
from vtt_bridge.rules.common import RuleViolation, Step, counted
from vtt_bridge.rules.health import (
    HEAVIEST_FIRST,
    LIGHTEST_FIRST,
    Grade,
    HealthTrack,
    box_data,
    describe,
    grade_count,
    is_dead,
)

OVERSEER_COST_PER_AGGRAVATED = 200
"""HEALTH-9: points the Overseer charges for each A box; B and L are free."""

FAST_HEALING_POINTS_PER_AGGRAVATED = 4
"""HEALTH-10: one instance of fast healing or regeneration heals 1 A instead of 4 B/L points."""

MINUTES_PER_DAY = 24 * 60


# ---- HEALTH-8: natural recovery times --------------------------------------------------------------


class RecoveryKind(StrEnum):
    """HEALTH-8: the natural recovery periods."""

    SHORT_REST = "shortRest"
    """15 minutes: 1 B."""
    LONG_REST = "longRest"
    """8 hours (1 Willpower)."""
    LETHAL = "lethal"
    """two days with two long rests: 1 L."""
    AGGRAVATED = "aggravated"
    """seven days with seven long rests: 1 A."""


_RECOVERY_MINUTES = {
    RecoveryKind.SHORT_REST: 15,
    RecoveryKind.LONG_REST: 8 * 60,
    RecoveryKind.LETHAL: 2 * MINUTES_PER_DAY,
    RecoveryKind.AGGRAVATED: 7 * MINUTES_PER_DAY,
}
_RECOVERY_LONG_RESTS = {RecoveryKind.LETHAL: 2, RecoveryKind.AGGRAVATED: 7}


def recovery_time(kind: RecoveryKind, double: bool = False) -> int:
    """HEALTH-8: minutes one recovery period takes; double recovery halves it, rounded up to the minute."""
    minutes = _RECOVERY_MINUTES[kind]
    return math.ceil(minutes / 2) if double else minutes


def recovery_long_rests(kind: RecoveryKind, double: bool = False) -> int:
    """HEALTH-8: long rests a period must include (L 2, A 7; halved and rounded up when double)."""
    rests = _RECOVERY_LONG_RESTS.get(kind, 1 if kind is RecoveryKind.LONG_REST else 0)
    return math.ceil(rests / 2) if double else rests


# ---- healing ---------------------------------------------------------------------------------------


class HealSource(StrEnum):
    """Where a `heal` comes from; decides which boxes it may heal and what a point buys."""

    FAST_HEALING = "fastHealing"
    REGENERATION = "regeneration"
    FIRST_AID = "firstAid"
    MAGIC = "magic"
    OVERSEER = "overseer"
    SHORT_REST = "shortRest"
    LONG_REST = "longRest"


HealGrade = Literal["B", "L", "A", "any"]

_SOURCE_RULE = {
    HealSource.FAST_HEALING: "HEALTH-10",
    HealSource.REGENERATION: "HEALTH-10",
    HealSource.FIRST_AID: "HEALTH-8",
    HealSource.MAGIC: "HEALTH-8",
    HealSource.OVERSEER: "HEALTH-9",
    HealSource.SHORT_REST: "HEALTH-8",
    HealSource.LONG_REST: "HEALTH-8",
}


@dataclass(frozen=True, slots=True)
class HealOutcome:
    """What a heal did: both tracks, the boxes healed per grade, the Overseer's price (HEALTH-9)."""

    health: HealthTrack
    second_health: HealthTrack | None
    healed: dict[Grade, int]
    overseer_cost: int
    steps: tuple[Step, ...]


def _heal_points(
    track: HealthTrack, points: int, order: Sequence[Grade], aggravated_cost: int
) -> tuple[HealthTrack, dict[Grade, int], int]:
    """Spend `points` on boxes of `order`'s grades, in that order (an A box costs `aggravated_cost`)."""
    healed: dict[Grade, int] = {}
    counts = {g: grade_count(track, g) for g in LIGHTEST_FIRST}
    for grade in order:
        cost = aggravated_cost if grade is Grade.AGGRAVATED else 1
        n = min(counts[grade], points // cost)
        if n:
            counts[grade] -= n
            points -= n * cost
            healed[grade] = n
    if not healed:
        return track, healed, points
    new = track.model_copy(
        update={
            "bashing": counts[Grade.BASHING],
            "lethal": counts[Grade.LETHAL],
            "aggravated": counts[Grade.AGGRAVATED],
        }
    )
    return new, healed, points


def _stabilize(track: HealthTrack) -> HealthTrack:
    return track if track.stabilized else track.model_copy(update={"stabilized": True})


def _heal_plan(
    first: HealthTrack,
    second: HealthTrack | None,
    amount: int,
    grade: HealGrade,
    source: HealSource,
    double: bool,
    rest: tuple[Grade, RecoveryKind, int, int] | None = None,
) -> tuple[int, tuple[Grade, ...], int, str]:
    """(points, grades in order, cost of one A box, how the points were worked out); `rest`: a long
    rest's plan (`_long_rest`)."""
    chosen = None if grade == "any" else Grade(grade)
    if source is HealSource.SHORT_REST:
        if chosen not in (None, Grade.BASHING):
            raise RuleViolation("HEALTH-8", "a short rest heals only B (1 per 15-minute rest)", ("grade",))
        minutes = recovery_time(RecoveryKind.SHORT_REST, double)
        return amount, (Grade.BASHING,), 1, f"{counted(amount, 'short rest')} of {minutes} minutes: 1 B each"
    if source is HealSource.LONG_REST:
        chosen, kind, period, rested = rest or _long_rest(first, second, amount, grade, double)
        points = rested // period
        carried = f" + {first.rest_minutes // 60} hours carried" if first.rest_minutes else ""
        how = (
            f"{counted(amount, 'day')} of rest{carried} ({recovery_long_rests(kind, double)} long rests per "
            f"{period // 60} hours): {points} {chosen.value}; recovery periods do not combine"
        )
        return points, (chosen,), 1, how
    if source in (HealSource.FAST_HEALING, HealSource.REGENERATION):
        if chosen is Grade.AGGRAVATED and amount < FAST_HEALING_POINTS_PER_AGGRAVATED:
            raise RuleViolation(
                "HEALTH-10",
                f"{source.value} {amount} cannot heal A: one instance needs at least 4",
                ("grade",),
            )
        order = LIGHTEST_FIRST if chosen is None else (chosen,)
        return (
            amount,
            order,
            FAST_HEALING_POINTS_PER_AGGRAVATED,
            f"{source.value} {amount}: {amount} points of B/L, 4 points buy 1 A",
        )
    order = LIGHTEST_FIRST if chosen is None else (chosen,)
    return amount, order, 1, f"{source.value}: {counted(amount, 'box', 'boxes')}"


def _long_rest(
    first: HealthTrack, second: HealthTrack | None, amount: int, grade: HealGrade, double: bool
) -> tuple[Grade, RecoveryKind, int, int]:
    """HEALTH-8 long rests: the grade they heal (L while any is left), its recovery kind, its period
    in minutes, and the minutes of rest toward it (these days and what earlier ones carried)."""
    chosen = None if grade == "any" else Grade(grade)
    if chosen is Grade.BASHING:
        raise RuleViolation("HEALTH-8", "long rests heal L or A; B heals by short rests", ("grade",))
    if chosen is None:
        has_lethal = first.lethal > 0 or (second is not None and second.lethal > 0)
        chosen = Grade.LETHAL if has_lethal else Grade.AGGRAVATED
    kind = RecoveryKind.LETHAL if chosen is Grade.LETHAL else RecoveryKind.AGGRAVATED
    return chosen, kind, recovery_time(kind, double), amount * MINUTES_PER_DAY + first.rest_minutes


def heal(
    first: HealthTrack,
    second: HealthTrack | None,
    *,
    amount: int,
    grade: HealGrade = "any",
    source: HealSource,
    double: bool = False,
) -> HealOutcome:
    """Heal by source (HEALTH-8..10), second track first (HEALTH-13); healing that restores Health,
    or a successful First Aid, stops worsening (HEALTH-4).

    `amount` is boxes (firstAid, magic, overseer), the instance's rating (fastHealing, regeneration:
    1 point per B/L box, 4 points per A box), short rests (shortRest: 1 B each) or days of rest
    (longRest: 1 L per two days, or 1 A per seven days, never both). `grade` "any" heals lightest
    first, except fast healing and regeneration, spent as `spend_fast_healing` plans (HEALTH-10).
    """
    if amount < 0:
        raise ValueError(f"heal amount must not be negative, got {amount}")
    rule = _SOURCE_RULE[source]
    if source in (HealSource.FAST_HEALING, HealSource.REGENERATION) and grade == "any":
        planned = spend_fast_healing(first, second, [(amount, source)])
        if planned.healed:
            return planned
        how = f"{source.value} {amount}: {amount} points of B/L, 4 points buy 1 A"
        return replace(
            planned,
            steps=(
                Step(
                    rule=rule, text=how, data={"source": source.value, "points": amount}, key=f"{rule}.source"
                ),
                Step(
                    rule=rule, text="nothing this source can heal", data={"healed": {}}, key=f"{rule}.nothing"
                ),
            ),
        )
    rest = _long_rest(first, second, amount, grade, double) if source is HealSource.LONG_REST else None
    points, order, a_cost, how = _heal_plan(first, second, amount, grade, source, double, rest)
    steps = [Step(rule=rule, text=how, data={"source": source.value, "points": points}, key=f"{rule}.source")]
    healed: dict[Grade, int] = {}
    if second is not None:
        second, healed_second, points = _heal_points(second, points, order, a_cost)
        if healed_second:
            listed = " + ".join(f"{n}{g.value}" for g, n in healed_second.items())
            steps.append(
                Step(
                    rule="HEALTH-13",
                    text=f"heals the second track first: {listed}; now {describe(second)}",
                    data={"healed": {g.value: n for g, n in healed_second.items()}, **box_data(second)},
                    key="HEALTH-13.healed",
                )
            )
        for g, n in healed_second.items():
            healed[g] = healed.get(g, 0) + n
        if second.healthy < second.max:
            points = 0
    healed_first: dict[Grade, int] = {}
    if points:
        first, healed_first, points = _heal_points(first, points, order, a_cost)
    if healed_first:
        listed = " + ".join(f"{n}{g.value}" for g, n in healed_first.items())
        steps.append(
            Step(
                rule=rule,
                text=f"heals {listed}; now {describe(first)}",
                data={"healed": {g.value: n for g, n in healed_first.items()}, **box_data(first)},
                key=f"{rule}.healed",
            )
        )
    for g, n in healed_first.items():
        healed[g] = healed.get(g, 0) + n
    if not healed:
        steps.append(
            Step(rule=rule, text="nothing this source can heal", data={"healed": {}}, key=f"{rule}.nothing")
        )
    if rest is not None:
        first = _carry_rest(first, second, rest, healed, steps)
    cost = 0
    if source is HealSource.OVERSEER:
        aggravated = healed.get(Grade.AGGRAVATED, 0)
        cost = aggravated * OVERSEER_COST_PER_AGGRAVATED
        steps.append(
            Step(
                rule="HEALTH-9",
                text=f"the Overseer heals B and L free; {aggravated} A cost {cost} points",
                data={"cost": cost, "aggravated": aggravated},
                key="HEALTH-9.cost",
            )
        )
    if healed or source is HealSource.FIRST_AID:
        newly = not first.stabilized or (second is not None and not second.stabilized)
        first = _stabilize(first)
        second = None if second is None else _stabilize(second)
        if newly:
            why = "a successful First Aid" if source is HealSource.FIRST_AID else "healing restores Health"
            steps.append(
                Step(
                    rule="HEALTH-4",
                    text=f"{why}: worsening stops until new damage",
                    data={"stabilized": True},
                    key="HEALTH-4.stabilized",
                )
            )
    return HealOutcome(
        health=first, second_health=second, healed=healed, overseer_cost=cost, steps=tuple(steps)
    )


@dataclass(frozen=True, slots=True)
class CharacterHealing:
    """A heal on a character: both Health tracks and Willpower after it, and the steps."""

    health: HealthTrack
    second_health: HealthTrack | None
    willpower: wp.Willpower
    steps: tuple[Step, ...]


def heal_character(
    first: HealthTrack,
    second: HealthTrack | None,
    willpower: wp.Willpower,
    *,
    amount: int,
    grade: HealGrade = "any",
    source: HealSource,
    double: bool = False,
    unconscious_at_zero: bool,
    annihilated: bool = False,
) -> CharacterHealing:
    """`heal` on a character's tracks; days of long rest also restore 1 Willpower each (HEALTH-8:
    stacks with the Health they heal), a WP-1 recovery that may wake the character (HEALTH-3, WP-5:
    `unconscious_at_zero` is the table's option). Untouched parts stay the same objects.

    The dead (HEALTH-5) are not healed: bringing them back is a revival, the Overseer's (`source`
    overseer), and the `annihilated` (EP-2) are beyond any (`RuleViolation`)."""
    if is_dead(first, second, annihilated=annihilated):
        if annihilated:
            raise RuleViolation("HEALTH-5", "the annihilated are dead beyond any revival", ("target",))
        if source is not HealSource.OVERSEER:
            raise RuleViolation(
                "HEALTH-5",
                f"the dead are not healed by {source.value}; a revival is the Overseer's (source overseer)",
                ("source",),
            )
    out = heal(first, second, amount=amount, grade=grade, source=source, double=double)
    if source is not HealSource.LONG_REST or not amount:
        return CharacterHealing(out.health, out.second_health, willpower, out.steps)
    rested = Step(
        rule="HEALTH-8",
        text=f"{counted(amount, 'long rest')}: 1 Willpower each (stacks with Health recovery)",
        data={"longRests": amount},
        key="HEALTH-8.longRest",
    )
    recovery = wp.recover(
        willpower, amount, out.health, out.second_health, unconscious_at_zero=unconscious_at_zero
    )
    return CharacterHealing(
        recovery.health, out.second_health, recovery.willpower, (*out.steps, rested, *recovery.steps)
    )


def _carry_rest(
    first: HealthTrack,
    second: HealthTrack | None,
    rest: tuple[Grade, RecoveryKind, int, int],
    healed: Mapping[Grade, int],
    steps: list[Step],
) -> HealthTrack:
    """HEALTH-8: the rest that has not yet made a box (`rest` as `_long_rest` planned it, before the
    healing) carries to the next long rest, while a box of its grade is left to heal."""
    chosen, _, period, rested = rest
    left = rested - healed.get(chosen, 0) * period
    still = first.lethal + (second.lethal if second else 0)
    if chosen is Grade.AGGRAVATED:
        still = first.aggravated + (second.aggravated if second else 0)
    carry = left if still and 0 < left < period else 0
    if carry:
        steps.append(
            Step(
                rule="HEALTH-8",
                text=f"{carry // 60} hours of rest carry toward the next {chosen.value} "
                f"({period // 60} hours heal one)",
                data={"restHours": carry // 60, "grade": chosen.value, "periodHours": period // 60},
                key="HEALTH-8.restCarried",
            )
        )
    return first if carry == first.rest_minutes else first.model_copy(update={"rest_minutes": carry})


@dataclass(frozen=True, slots=True)
class _Instance:
    """One fast healing or regeneration instance and what HEALTH-10's plan spends it on, per track."""

    rating: int
    source: HealSource
    second: dict[Grade, int]
    first: dict[Grade, int]


def _spend(instances: list[_Instance], left: list[int], track: HealthTrack, on: str) -> HealthTrack:
    """HEALTH-10 on one track: as many A as the instances' 4-point blocks buy, then the points left heal
    L, then B; single points come first from what no block needs (`rating % 4`), so as few blocks as
    possible are broken. Returns the track after; `left` and each instance's `on` plan are updated."""
    counts = {g: grade_count(track, g) for g in LIGHTEST_FIRST}
    for i in sorted(range(len(left)), key=lambda i: -left[i]):
        n = min(counts[Grade.AGGRAVATED], left[i] // FAST_HEALING_POINTS_PER_AGGRAVATED)
        if n:
            left[i] -= n * FAST_HEALING_POINTS_PER_AGGRAVATED
            counts[Grade.AGGRAVATED] -= n
            getattr(instances[i], on)[Grade.AGGRAVATED] = n
    points = sum(left)
    need = {Grade.LETHAL: min(counts[Grade.LETHAL], points)}
    need[Grade.BASHING] = min(counts[Grade.BASHING], points - need[Grade.LETHAL])
    for free_only in (True, False):
        for i in range(len(left)):
            for grade in (Grade.LETHAL, Grade.BASHING):
                spare = left[i] % FAST_HEALING_POINTS_PER_AGGRAVATED if free_only else left[i]
                n = min(need[grade], spare)
                if n:
                    left[i] -= n
                    need[grade] -= n
                    counts[grade] -= n
                    plan = getattr(instances[i], on)
                    plan[grade] = plan.get(grade, 0) + n
    return track.model_copy(
        update={
            "bashing": counts[Grade.BASHING],
            "lethal": counts[Grade.LETHAL],
            "aggravated": counts[Grade.AGGRAVATED],
        }
    )


def _healed_step(rule: str, key: str, prefix: str, healed: Mapping[Grade, int], track: HealthTrack) -> Step:
    listed = " + ".join(f"{healed[g]}{g.value}" for g in HEAVIEST_FIRST if healed.get(g))
    return Step(
        rule=rule,
        text=f"{prefix}{listed}; now {describe(track)}",
        data={"healed": {g.value: healed[g] for g in HEAVIEST_FIRST if healed.get(g)}, **box_data(track)},
        key=key,
    )


def spend_fast_healing(
    first: HealthTrack,
    second: HealthTrack | None,
    instances: Sequence[tuple[int, HealSource]],
) -> HealOutcome:
    """HEALTH-10: spend fast healing and regeneration instances as a careful Storyteller would, leaving
    the least severe track: fewest A, then fewest L, then fewest B (HEALTH-13: the second track first,
    the first track only once the second is all healthy).

    Each instance heals its rating in points, 1 per B or L box, 4 per A box; instances never pool
    points into one A. The plan is exact: every A a 4-point block can buy is bought, and single points
    use each instance's remainder below 4 before breaking a block.
    """
    plans = [
        _Instance(rating, source, {}, {})
        for rating, source in sorted(
            ((r, s) for r, s in instances if r > 0), key=lambda pair: (pair[0], pair[1].value)
        )
    ]
    left = [plan.rating for plan in plans]
    new_second = second
    if second is not None:
        new_second = _spend(plans, left, second, "second")
    new_first = first
    if new_second is None or new_second.healthy == new_second.max:
        new_first = _spend(plans, left, first, "first")
    steps: list[Step] = []
    healed: dict[Grade, int] = {}
    running_first, running_second = first, second
    for plan in sorted(plans, key=lambda p: (not p.second, bool(p.first))):
        if not plan.second and not plan.first:
            continue
        steps.append(
            Step(
                rule="HEALTH-10",
                text=f"{plan.source.value} {plan.rating}: {plan.rating} points of B/L, 4 points buy 1 A",
                data={"source": plan.source.value, "points": plan.rating},
                key="HEALTH-10.source",
            )
        )
        if plan.second and running_second is not None:
            running_second = _minus(running_second, plan.second)
            steps.append(
                _healed_step(
                    "HEALTH-13",
                    "HEALTH-13.healed",
                    "heals the second track first: ",
                    plan.second,
                    running_second,
                )
            )
        if plan.first:
            running_first = _minus(running_first, plan.first)
            steps.append(_healed_step("HEALTH-10", "HEALTH-10.healed", "heals ", plan.first, running_first))
        for part in (plan.second, plan.first):
            for g, n in part.items():
                healed[g] = healed.get(g, 0) + n
    if healed:
        newly = not new_first.stabilized or (new_second is not None and not new_second.stabilized)
        new_first = _stabilize(new_first)
        new_second = None if new_second is None else _stabilize(new_second)
        if newly:
            steps.append(
                Step(
                    rule="HEALTH-4",
                    text="healing restores Health: worsening stops until new damage",
                    data={"stabilized": True},
                    key="HEALTH-4.stabilized",
                )
            )
    return HealOutcome(
        health=new_first, second_health=new_second, healed=healed, overseer_cost=0, steps=tuple(steps)
    )


def _minus(track: HealthTrack, healed: Mapping[Grade, int]) -> HealthTrack:
    return track.model_copy(
        update={
            "bashing": track.bashing - healed.get(Grade.BASHING, 0),
            "lethal": track.lethal - healed.get(Grade.LETHAL, 0),
            "aggravated": track.aggravated - healed.get(Grade.AGGRAVATED, 0),
        }
    )


def round_start_healing(
    first: HealthTrack,
    second: HealthTrack | None,
    fast_healing: Sequence[int],
    regeneration: Sequence[int],
) -> HealOutcome:
    """HEALTH-10: every fast healing and regeneration instance heals at the round's start, together
    spent as `spend_fast_healing` plans (the least severe track)."""
    return spend_fast_healing(
        first,
        second,
        [(r, HealSource.FAST_HEALING) for r in fast_healing]
        + [(r, HealSource.REGENERATION) for r in regeneration],
    )
