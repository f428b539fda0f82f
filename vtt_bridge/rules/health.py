"""Health (HEALTH-1..13): the track of boxes, damage, status, recovery. Logic follows below the models."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from vtt_bridge.rules.common import Count, Flag, RuleModel, RuleViolation, Step, counted, update_path_segment

MAX_HEALTH = 10_000
"""The largest Health track the engine accepts (a sane bound; no rulebook creature comes near)."""

Boxes = Annotated[int, Field(strict=True, ge=0, le=MAX_HEALTH)]
EffectId = Annotated[str, Field(strict=True, min_length=1, max_length=100)]
MaxHealthChange = Annotated[int, Field(strict=True, ge=-MAX_HEALTH, le=MAX_HEALTH)]


class Grade(StrEnum):
    """HEALTH-1: damage grades, lightest first."""

    BASHING = "B"
    LETHAL = "L"
    AGGRAVATED = "A"

    @property
    def weight(self) -> int:
        """HEALTH-6: bashing-equivalents of one box of this grade (B 1, L 2, A 3)."""
        return {"B": 1, "L": 2, "A": 3}[self.value]


class HealthStatus(StrEnum):
    """HEALTH-6: what a creature's Health reads as."""

    UNHARMED = "unharmed"
    LIGHTLY = "lightly"
    MODERATELY = "moderately"
    BADLY = "badly"
    DYING = "dying"
    DEAD = "dead"


class HealthTrack(RuleModel):
    """HEALTH-1: `max` boxes, each healthy, B, L or A; kept as counts, healthy = max - B - L - A."""

    max: Boxes
    bashing: Boxes = 0
    lethal: Boxes = 0
    aggravated: Boxes = 0
    temp_hp: Boxes = 0
    temporary_max: dict[
        Annotated[str, Field(min_length=1, max_length=100), AfterValidator(update_path_segment)],
        Annotated[int, Field(strict=True, ge=-MAX_HEALTH, le=MAX_HEALTH)],
    ] = Field(default_factory=dict)
    stabilized: Flag = False
    """HEALTH-4: worsening stopped by healing or a successful First Aid; new damage clears it."""
    woken: Flag = False
    """HEALTH-3: woken by recovering Willpower (or by an ST ruling); new damage clears it."""
    rest_minutes: Count = 0
    """HEALTH-8: long rest taken toward the next L or A box, carried from one `heal` to the next (a
    night at a time adds up to the two days an L needs)."""

    @model_validator(mode="after")
    def _boxes_fit(self) -> HealthTrack:
        if self.bashing + self.lethal + self.aggravated > self.max:
            raise ValueError(
                f"bashing + lethal + aggravated ({self.bashing + self.lethal + self.aggravated}) "
                f"exceeds max ({self.max})"
            )
        return self

    @property
    def healthy(self) -> int:
        """Boxes with no damage."""
        return self.max - self.bashing - self.lethal - self.aggravated


# --------------------------------------------------------------------------------------------------
# Logic. Every function is pure: it takes tracks and returns an outcome, the new tracks with the steps
# that explain them.


@dataclass(frozen=True, slots=True)
class HealthOutcome:
    """A track after one HEALTH rule and the steps that explain it, in the order they happened."""

    track: HealthTrack
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class DamageSpill:
    """HEALTH-2 on one track: the track after the damage and, for every grade dealt, the part of it
    that did not fit because every box was already A (0 when all of it fit)."""

    track: HealthTrack
    overflow: dict[Grade, int]
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class TempHpAbsorption:
    """HEALTH-11: the track with the temporary HP left, and per grade the damage still to be taken
    (every grade present, 0 included)."""

    track: HealthTrack
    remaining: dict[Grade, int]
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class DamageOutcome:
    """HEALTH-2 + HEALTH-13: both tracks after damage or worsening (`second_health` None without one)."""

    health: HealthTrack
    second_health: HealthTrack | None
    steps: tuple[Step, ...]


LIGHTEST_FIRST: tuple[Grade, ...] = (Grade.BASHING, Grade.LETHAL, Grade.AGGRAVATED)
HEAVIEST_FIRST: tuple[Grade, ...] = (Grade.AGGRAVATED, Grade.LETHAL, Grade.BASHING)

OVERSEER_COST_PER_AGGRAVATED = 200
"""HEALTH-9: points the Overseer charges for each A box; B and L are free."""

FAST_HEALING_POINTS_PER_AGGRAVATED = 4
"""HEALTH-10: one instance of fast healing or regeneration heals 1 A instead of 4 B/L points."""

MINUTES_PER_DAY = 24 * 60


def _count(track: HealthTrack, grade: Grade) -> int:
    return {Grade.BASHING: track.bashing, Grade.LETHAL: track.lethal, Grade.AGGRAVATED: track.aggravated}[
        grade
    ]


def describe(track: HealthTrack) -> str:
    """The track as the rulebook writes it: '8 healthy + 3B + 4L + 5A'."""
    return _describe(track.healthy, track.bashing, track.lethal, track.aggravated)


def _describe(healthy: int, bashing: int, lethal: int, aggravated: int) -> str:
    return f"{healthy} healthy + {bashing}B + {lethal}L + {aggravated}A"


def _boxes(track: HealthTrack) -> dict[str, int]:
    return _box_counts(track.max, track.bashing, track.lethal, track.aggravated)


def _box_counts(max_: int, bashing: int, lethal: int, aggravated: int) -> dict[str, int]:
    return {
        "max": max_,
        "healthy": max_ - bashing - lethal - aggravated,
        "bashing": bashing,
        "lethal": lethal,
        "aggravated": aggravated,
    }


def damage_equivalent(track: HealthTrack) -> int:
    """HEALTH-6: E = B + 2L + 3A, the damage converted to bashing."""
    return track.bashing + 2 * track.lethal + 3 * track.aggravated


def is_full_of_aggravated(track: HealthTrack) -> bool:
    """HEALTH-5: every box (of a track with at least one) is A."""
    return track.max > 0 and track.aggravated == track.max


# ---- HEALTH-2: taking damage -----------------------------------------------------------------------


def spill_damage(track: HealthTrack, amounts: Mapping[Grade, int]) -> DamageSpill:
    """HEALTH-2 in closed form, lowest grade first; also returns what a full-A track could not take.

    Point by point, a grade's damage first turns healthy boxes into that grade, then (no healthy box
    left) B boxes into L (A for A damage), then (no B left) L into A; each stage only runs once the
    one before has used up its boxes, so each is a single `min`.
    """
    healthy, bashing, lethal, aggravated = track.healthy, track.bashing, track.lethal, track.aggravated
    overflow: dict[Grade, int] = {}
    steps: list[Step] = []
    for grade in LIGHTEST_FIRST:
        amount = amounts.get(grade, 0)
        if amount < 0:
            raise ValueError(f"damage amount must not be negative, got {amount} {grade.value}")
        if amount == 0:
            continue
        left = amount
        from_healthy = min(left, healthy)
        healthy -= from_healthy
        left -= from_healthy
        if grade is Grade.BASHING:
            bashing += from_healthy
        elif grade is Grade.LETHAL:
            lethal += from_healthy
        else:
            aggravated += from_healthy
        from_bashing = min(left, bashing)
        bashing -= from_bashing
        left -= from_bashing
        if grade is Grade.AGGRAVATED:
            aggravated += from_bashing
        else:
            lethal += from_bashing
        from_lethal = min(left, lethal)
        lethal -= from_lethal
        aggravated += from_lethal
        left -= from_lethal
        overflow[grade] = left
        name = str(grade)  # the value (a StrEnum), without the enum's `value` property on the hot path
        parts = []
        if from_healthy:
            parts.append(f"{from_healthy} healthy → {name}")
        if from_bashing:
            parts.append(f"{from_bashing} B → {'A' if grade is Grade.AGGRAVATED else 'L'}")
        if from_lethal:
            parts.append(f"{from_lethal} L → A")
        if left:
            parts.append(f"{left} left over (every box is A)")
        steps.append(
            Step(
                rule="HEALTH-2",
                text=f"{amount} {name} damage: {', '.join(parts)}; "
                f"now {_describe(healthy, bashing, lethal, aggravated)}",
                data={
                    "grade": name,
                    "amount": amount,
                    "healthyTo": from_healthy,
                    "bashingUp": from_bashing,
                    "lethalUp": from_lethal,
                    "leftOver": left,
                    "track": "first",
                    **_box_counts(track.max, bashing, lethal, aggravated),
                },
                key="HEALTH-2.damage",
            )
        )
    new = track.model_copy(update={"bashing": bashing, "lethal": lethal, "aggravated": aggravated})
    return DamageSpill(new, overflow, tuple(steps))


def _wasted_step(overflow: Mapping[Grade, int], why: str) -> Step | None:
    wasted = {g.value: n for g, n in overflow.items() if n}
    if not wasted:
        return None
    listed = " + ".join(f"{n}{g}" for g, n in wasted.items())
    return Step(
        rule="HEALTH-2", text=f"{listed} damage wasted: {why}", data={"wasted": wasted}, key="HEALTH-2.wasted"
    )


def apply_damage(track: HealthTrack, amounts: Mapping[Grade, int]) -> HealthOutcome:
    """HEALTH-2: several grades at once, lowest first, O(1); damage beyond an all-A track is wasted."""
    spill = spill_damage(track, amounts)
    steps = spill.steps
    wasted = _wasted_step(spill.overflow, "every box is already A")
    return HealthOutcome(spill.track, (*steps, wasted) if wasted else steps)


def damage_tracks(
    first: HealthTrack, second: HealthTrack | None, amounts: Mapping[Grade, int]
) -> DamageOutcome:
    """HEALTH-2 + HEALTH-13: the first track takes the damage; what an all-A first track cannot take
    goes to the second track (lowest grade first still holds: overflow only starts once the first
    track is all A), and what neither can take is wasted."""
    spill = spill_damage(first, amounts)
    overflow, steps = spill.overflow, spill.steps
    if second is None or not any(overflow.values()):
        wasted = _wasted_step(overflow, "every box is already A")
        return DamageOutcome(spill.track, second, (*steps, wasted) if wasted else steps)
    moved = " + ".join(f"{n}{g.value}" for g, n in overflow.items() if n)
    note = Step(
        rule="HEALTH-13",
        text=f"the first track is all A: {moved} goes to the second Health track",
        data={"overflow": {g.value: n for g, n in overflow.items() if n}},
        key="HEALTH-13.overflow",
    )
    spill2 = spill_damage(second, overflow)
    steps2 = tuple(
        replace(s, rule="HEALTH-2", text="second track: " + s.text, data={**s.data, "track": "second"})
        for s in spill2.steps
    )
    wasted = _wasted_step(spill2.overflow, "both Health tracks are all A")
    return DamageOutcome(spill.track, spill2.track, (*steps, note, *steps2, *((wasted,) if wasted else ())))


def clear_after_damage(track: HealthTrack) -> HealthTrack:
    """HEALTH-4/HEALTH-3: new damage re-checks: it ends a stabilization and an earlier waking."""
    if not track.stabilized and not track.woken:
        return track
    return track.model_copy(update={"stabilized": False, "woken": False})


# ---- HEALTH-11: temporary HP ----------------------------------------------------------------------


def absorb_temp_hp(track: HealthTrack, amounts: Mapping[Grade, int]) -> TempHpAbsorption:
    """HEALTH-11: temporary HP soaks (avoidable) damage of any grade, highest grade first.

    The caller passes only damage temporary HP works against (not unavoidable damage).
    """
    remaining = {g: amounts.get(g, 0) for g in LIGHTEST_FIRST}
    temp = track.temp_hp
    if not temp:
        return TempHpAbsorption(track, remaining, ())
    absorbed: dict[str, int] = {}
    for grade in HEAVIEST_FIRST:
        taken = min(temp, remaining[grade])
        if taken:
            temp -= taken
            remaining[grade] -= taken
            absorbed[grade.value] = taken
    if not absorbed:
        return TempHpAbsorption(track, remaining, ())
    listed = " + ".join(f"{n}{g}" for g, n in absorbed.items())
    step = Step(
        rule="HEALTH-11",
        text=f"temporary HP {track.temp_hp} absorbs {listed} (highest grade first); {temp} left",
        data={"absorbed": absorbed, "tempHpBefore": track.temp_hp, "tempHp": temp},
        key="HEALTH-11.absorb",
    )
    return TempHpAbsorption(track.model_copy(update={"temp_hp": temp}), remaining, (step,))


def gain_temp_hp(track: HealthTrack, amount: int) -> HealthOutcome:
    """HEALTH-11: temporary HP does not stack; the higher amount stays."""
    if amount <= track.temp_hp:
        step = Step(
            rule="HEALTH-11",
            text=f"temporary HP does not stack: {track.temp_hp} already held, {amount} gives nothing",
            data={"tempHp": track.temp_hp, "offered": amount},
            key="HEALTH-11.noStack",
        )
        return HealthOutcome(track, (step,))
    step = Step(
        rule="HEALTH-11",
        text=f"temporary HP {track.temp_hp} → {amount} (the higher amount stays)",
        data={"tempHp": amount, "before": track.temp_hp},
        key="HEALTH-11.gain",
    )
    return HealthOutcome(track.model_copy(update={"temp_hp": amount}), (step,))


# ---- HEALTH-3..6, HEALTH-13: what the track means ----------------------------------------------------


def active_track(first: HealthTrack, second: HealthTrack | None) -> HealthTrack:
    """HEALTH-13: the track that currently keeps the character going (the second once the first is all A)."""
    if second is not None and is_full_of_aggravated(first):
        return second
    return first


def health_status(
    track: HealthTrack, second: HealthTrack | None = None, *, kept_alive: bool = False
) -> HealthStatus:
    """HEALTH-6 (and HEALTH-5): the status read from a track.

    Max 0 is dead (HEALTH-5, "max Health drops to 0"). All A is dying when a second track that is not
    itself all A carries the character (HEALTH-13) or `kept_alive` (an ability) says so; else dead.
    """
    if track.max == 0:
        return HealthStatus.DEAD
    if is_full_of_aggravated(track):
        carried = second is not None and second.max > 0 and not is_full_of_aggravated(second)
        return HealthStatus.DYING if carried or kept_alive else HealthStatus.DEAD
    e = damage_equivalent(track)
    if e == 0:
        return HealthStatus.UNHARMED
    if e <= track.max:
        return HealthStatus.LIGHTLY
    if e <= 2 * track.max:
        return HealthStatus.MODERATELY
    return HealthStatus.BADLY


def unconscious_from_injuries(first: HealthTrack, second: HealthTrack | None = None) -> bool:
    """HEALTH-3/HEALTH-4: no healthy box left on the active track (before Willpower or waking)."""
    track = active_track(first, second)
    return track.max > 0 and track.healthy == 0


def is_worsening(first: HealthTrack, second: HealthTrack | None = None) -> bool:
    """HEALTH-4: no healthy box, at least one A but not all A, and not stabilized."""
    track = active_track(first, second)
    return track.healthy == 0 and 0 < track.aggravated < track.max and not track.stabilized and track.max > 0


def worsen(track: HealthTrack) -> HealthOutcome:
    """HEALTH-4: at the end of the character's round one non-A box becomes A, L first."""
    if not (track.healthy == 0 and 0 < track.aggravated < track.max and not track.stabilized):
        return HealthOutcome(track, ())
    if track.lethal:
        new = track.model_copy(
            update={"lethal": track.lethal - 1, "aggravated": track.aggravated + 1, "woken": False}
        )
        which = "L"
    else:
        new = track.model_copy(
            update={"bashing": track.bashing - 1, "aggravated": track.aggravated + 1, "woken": False}
        )
        which = "B"
    step = Step(
        rule="HEALTH-4",
        text=f"injuries worsen at the end of the round: 1 {which} → A; now {describe(new)}",
        data={"from": which, "grade": which, "track": "first", **_boxes(new)},
        key="HEALTH-4.worsening",
    )
    return HealthOutcome(new, (step,))


def worsen_tracks(first: HealthTrack, second: HealthTrack | None) -> DamageOutcome:
    """HEALTH-4 on the active track at the end of the round (HEALTH-13: the second one once the first
    is all A; its steps say so, and the first track's waking, HEALTH-3, ends with it); both tracks
    the same objects when nothing worsens."""
    if not is_worsening(first, second):
        return DamageOutcome(first, second, ())
    if second is None or not is_full_of_aggravated(first):
        worsened = worsen(first)
        return DamageOutcome(worsened.track, second, worsened.steps)
    worsened = worsen(second)
    steps = tuple(
        replace(
            s,
            rule="HEALTH-13",
            text="second track: " + s.text,
            data={**s.data, "track": "second"},
            key="HEALTH-13.worsening",
        )
        for s in worsened.steps
    )
    if steps and first.woken:  # the waking (HEALTH-3) is kept on the first track
        first = first.model_copy(update={"woken": False})
    return DamageOutcome(first, worsened.track, steps)


# ---- HEALTH-7: wound penalty -----------------------------------------------------------------------


def wound_penalty(track: HealthTrack, enabled: bool) -> int:
    """HEALTH-7 (optional): with lethal (or worse) damage, (3 - healthy) to rolls and defense, never < 0."""
    if not enabled or (track.lethal == 0 and track.aggravated == 0):
        return 0
    return max(0, 3 - track.healthy)


@dataclass(frozen=True, slots=True)
class TrackReading:
    """What an actor's tracks say before its conditions and Willpower are weighed: its status
    (HEALTH-6), whether its injuries leave it unconscious (HEALTH-3/4), whether it worsens
    (HEALTH-4), and its wound penalty (HEALTH-7, 0 when the optional rule is off)."""

    status: HealthStatus
    out_from_injuries: bool
    worsening: bool
    wound_penalty: int


def read_tracks(first: HealthTrack, second: HealthTrack | None, wound_penalties: bool) -> TrackReading:
    """HEALTH-3..7 read off an actor's tracks in one go (`document.derive` writes them into it)."""
    return TrackReading(
        health_status(first, second),
        unconscious_from_injuries(first, second),
        is_worsening(first, second),
        wound_penalty(first, wound_penalties),
    )


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
    counts = {g: _count(track, g) for g in LIGHTEST_FIRST}
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
                    data={"healed": {g.value: n for g, n in healed_second.items()}, **_boxes(second)},
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
                data={"healed": {g.value: n for g, n in healed_first.items()}, **_boxes(first)},
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
    counts = {g: _count(track, g) for g in LIGHTEST_FIRST}
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
        data={"healed": {g.value: healed[g] for g in HEAVIEST_FIRST if healed.get(g)}, **_boxes(track)},
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


# ---- HEALTH-12: changes to maximum Health -------------------------------------------------------------


def change_max(track: HealthTrack, delta: int, effect: str | None = None) -> HealthOutcome:
    """HEALTH-12: a gain adds healthy boxes; a loss removes healthy, then B, L, A boxes (never below
    max 0). A loss that leaves no healthy box ends a stabilization and a waking, as new damage does
    (HEALTH-3/4).

    With `effect`, the change is temporary and the change actually made is recorded (a loss of 8 from
    max 5 removes 5), so `end_temporary_max` reverses exactly that.
    """
    update: dict[str, Any] = {}
    applied = delta if delta >= 0 else -min(-delta, track.max)
    if effect is not None:
        held = dict(track.temporary_max)
        total = held.get(effect, 0) + applied
        if abs(total) > MAX_HEALTH:
            raise RuleViolation("HEALTH-12", f"temporary change {total} is out of range", ("delta",))
        if total:
            held[effect] = total
        else:
            held.pop(effect, None)
        update["temporary_max"] = held
    if delta >= 0:
        new_max = track.max + delta
        if new_max > MAX_HEALTH:
            raise RuleViolation("HEALTH-12", f"max Health {new_max} exceeds {MAX_HEALTH}", ("delta",))
        update["max"] = new_max
        text = f"max Health {track.max} → {new_max}: {counted(delta, 'healthy box', 'healthy boxes')} gained"
        removed = {"healthy": 0, "B": 0, "L": 0, "A": 0}
    else:
        loss = min(-delta, track.max)
        removed = {}
        left = loss
        for key, held_boxes in (
            ("healthy", track.healthy),
            ("B", track.bashing),
            ("L", track.lethal),
            ("A", track.aggravated),
        ):
            removed[key] = min(left, held_boxes)
            left -= removed[key]
        update.update(
            max=track.max - loss,
            bashing=track.bashing - removed["B"],
            lethal=track.lethal - removed["L"],
            aggravated=track.aggravated - removed["A"],
        )
        listed = ", ".join(f"{n} {k}" for k, n in removed.items() if n) or "nothing"
        text = f"max Health {track.max} → {track.max - loss}: removes {listed} (healthy, then B, L, A)"
    new = track.model_copy(update=update)
    if track.healthy > 0 and new.healthy == 0:
        new = clear_after_damage(new)
    if effect is not None:
        text += f"; temporary, effect {effect!r}"
        if applied != delta:
            text += f" (records {applied}: the boxes that were there to lose)"
    if is_full_of_aggravated(new) or new.max == 0:
        text += "; the track is all A: death unless an ability says otherwise"
    step = Step(
        rule="HEALTH-12",
        text=text,
        data={"delta": delta, "effect": effect, "removed": removed, **_boxes(new)},
        key="HEALTH-12.change",
    )
    return HealthOutcome(new, (step,))


def end_temporary_max(track: HealthTrack, effect: str) -> HealthOutcome:
    """HEALTH-12: a temporary max change ends; it is reversed and other changes stay as they are."""
    if effect not in track.temporary_max:
        known = ", ".join(sorted(track.temporary_max)) or "none"
        raise RuleViolation(
            "HEALTH-12", f"no temporary max Health change {effect!r} (held: {known})", ("effect",)
        )
    delta = track.temporary_max[effect]
    held = {k: v for k, v in track.temporary_max.items() if k != effect}
    changed = change_max(track.model_copy(update={"temporary_max": held}), -delta)
    note = Step(
        rule="HEALTH-12",
        text=f"effect {effect!r} ends: its {delta:+d} max Health is reversed",
        data={"effect": effect, "reversed": delta},
        key="HEALTH-12.ends",
    )
    return HealthOutcome(changed.track, (note, *changed.steps))


# ---- HEALTH-13: second Health --------------------------------------------------------------------


def gain_second_health(max_boxes: int) -> HealthOutcome:
    """HEALTH-13: a new all-healthy track sized from a value at this moment; later changes to that value
    do not touch it."""
    track = HealthTrack(max=max_boxes)
    step = Step(
        rule="HEALTH-13",
        text=f"second Health track of {max_boxes} healthy boxes set up",
        data={"max": max_boxes},
        key="HEALTH-13.new",
    )
    return HealthOutcome(track, (step,))
