"""Health (HEALTH-1..7, HEALTH-11..13): the track of boxes, taking damage, temporary HP, what the
track reads as, changes to maximum Health, second Health. Healing (HEALTH-8..10) is `rules.healing`.
Logic follows below the models."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, Field, model_validator

from vtt_bridge.rules.common import (
    NO_SUBJECTS,
    Count,
    Flag,
    RuleModel,
    RuleViolation,
    Step,
    counted,
    make_step,
    quick_init,
    update_path_segment,
)
from vtt_bridge.rules.conditions import Condition

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


@quick_init
@dataclass(frozen=True, slots=True)
class HealthOutcome:
    """A track after one HEALTH rule and the steps that explain it, in the order they happened."""

    track: HealthTrack
    steps: tuple[Step, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class DamageSpill:
    """HEALTH-2 on one track: the track after the damage and, for every grade dealt, the part of it
    that did not fit because every box was already A (0 when all of it fit)."""

    track: HealthTrack
    overflow: dict[Grade, int]
    steps: tuple[Step, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class TempHpAbsorption:
    """HEALTH-11: the track with the temporary HP left, and per grade the damage still to be taken
    (every grade present, 0 included)."""

    track: HealthTrack
    remaining: dict[Grade, int]
    steps: tuple[Step, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class DamageOutcome:
    """HEALTH-2 + HEALTH-13: both tracks after damage or worsening (`second_health` None without one)."""

    health: HealthTrack
    second_health: HealthTrack | None
    steps: tuple[Step, ...]


LIGHTEST_FIRST: tuple[Grade, ...] = (Grade.BASHING, Grade.LETHAL, Grade.AGGRAVATED)
HEAVIEST_FIRST: tuple[Grade, ...] = (Grade.AGGRAVATED, Grade.LETHAL, Grade.BASHING)


def grade_count(track: HealthTrack, grade: Grade) -> int:
    """HEALTH-1: how many boxes of the track hold `grade`."""
    return {Grade.BASHING: track.bashing, Grade.LETHAL: track.lethal, Grade.AGGRAVATED: track.aggravated}[
        grade
    ]


def describe(track: HealthTrack) -> str:
    """The track as the rulebook writes it: '8 healthy + 3B + 4L + 5A'."""
    return _describe(track.healthy, track.bashing, track.lethal, track.aggravated)


def _describe(healthy: int, bashing: int, lethal: int, aggravated: int) -> str:
    return f"{healthy} healthy + {bashing}B + {lethal}L + {aggravated}A"


def box_data(track: HealthTrack) -> dict[str, int]:
    """The track's boxes as a step's data: max, healthy, bashing, lethal, aggravated."""
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


def spill_damage(
    track: HealthTrack, amounts: Mapping[Grade, int], subjects: Mapping[str, str] = NO_SUBJECTS
) -> DamageSpill:
    """HEALTH-2 in closed form, lowest grade first; also returns what a full-A track could not take.
    `subjects` (the damaged actor: `{"actor": id}`) end each step's data, as `about` would add them.

    Point by point, a grade's damage first turns healthy boxes into that grade, then (no healthy box
    left) B boxes into L (A for A damage), then (no B left) L into A; each stage only runs once the
    one before has used up its boxes, so each is a single `min`.
    """
    fields = track.__dict__  # each count read once, not through the model's `__getattr__` hook
    max_, bashing, lethal = fields["max"], fields["bashing"], fields["lethal"]
    aggravated = fields["aggravated"]
    healthy = max_ - bashing - lethal - aggravated  # `HealthTrack.healthy`
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
            make_step(
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
                    **_box_counts(max_, bashing, lethal, aggravated),
                    **subjects,
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
    first: HealthTrack,
    second: HealthTrack | None,
    amounts: Mapping[Grade, int],
    subjects: Mapping[str, str] = NO_SUBJECTS,
) -> DamageOutcome:
    """HEALTH-2 + HEALTH-13: the first track takes the damage; what an all-A first track cannot take
    goes to the second track (lowest grade first still holds: overflow only starts once the first
    track is all A), and what neither can take is wasted. `subjects`: see `spill_damage`."""
    spill = spill_damage(first, amounts, subjects)
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
    spill2 = spill_damage(second, overflow, subjects)
    steps2 = tuple(
        replace(s, rule="HEALTH-2", text="second track: " + s.text, data={**s.data, "track": "second"})
        for s in spill2.steps
    )
    wasted = _wasted_step(spill2.overflow, "both Health tracks are all A")
    return DamageOutcome(spill.track, spill2.track, (*steps, note, *steps2, *((wasted,) if wasted else ())))


def clear_after_damage(track: HealthTrack) -> HealthTrack:
    """HEALTH-4/HEALTH-3: new damage re-checks: it ends a stabilization and an earlier waking."""
    fields = track.__dict__  # read once, not through the model's `__getattr__` hook
    if not fields["stabilized"] and not fields["woken"]:
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
    carried = kept_alive or (second is not None and second.max > 0 and not is_full_of_aggravated(second))
    return _status(track.max, track.bashing, track.lethal, track.aggravated, carried)


def _status(max_: int, bashing: int, lethal: int, aggravated: int, carried: bool) -> HealthStatus:
    """`health_status` of a track's counts; `carried`: an all-A track is dying, not dead."""
    if max_ == 0:
        return HealthStatus.DEAD
    if aggravated == max_:  # HEALTH-5: every box is A (`is_full_of_aggravated`)
        return HealthStatus.DYING if carried else HealthStatus.DEAD
    e = bashing + 2 * lethal + 3 * aggravated  # HEALTH-6: `damage_equivalent`
    if e == 0:
        return HealthStatus.UNHARMED
    if e <= max_:
        return HealthStatus.LIGHTLY
    if e <= 2 * max_:
        return HealthStatus.MODERATELY
    return HealthStatus.BADLY


def is_dead(first: HealthTrack, second: HealthTrack | None, *, annihilated: bool) -> bool:
    """HEALTH-5: dead as the tracks read (HEALTH-6), or annihilated (EP-2: dead beyond any revival)."""
    return annihilated or health_status(first, second) is HealthStatus.DEAD


def unconscious_from_injuries(first: HealthTrack, second: HealthTrack | None = None) -> bool:
    """HEALTH-3/HEALTH-4: no healthy box left on the active track (before Willpower or waking)."""
    track = active_track(first, second)
    return _out(track.max, track.healthy)


def _out(max_: int, healthy: int) -> bool:
    """`unconscious_from_injuries` of the active track's counts."""
    return max_ > 0 and healthy == 0


def is_worsening(first: HealthTrack, second: HealthTrack | None = None) -> bool:
    """HEALTH-4: no healthy box, at least one A but not all A, and not stabilized."""
    track = active_track(first, second)
    return _worsening(track.max, track.healthy, track.aggravated, track.stabilized)


def _worsening(max_: int, healthy: int, aggravated: int, stabilized: bool) -> bool:
    """`is_worsening` of the active track's counts."""
    return healthy == 0 and 0 < aggravated < max_ and not stabilized and max_ > 0


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
        data={"from": which, "grade": which, "track": "first", **box_data(new)},
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
    return _penalty(track.healthy, track.lethal, track.aggravated, enabled)


def _penalty(healthy: int, lethal: int, aggravated: int, enabled: bool) -> int:
    """`wound_penalty` of a track's counts."""
    if not enabled or (lethal == 0 and aggravated == 0):
        return 0
    return max(0, 3 - healthy)


@quick_init
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
    """HEALTH-3..7 read off an actor's tracks in one go (`document.derive` writes them into it): with
    one track (most actors), its counts are read once and each reading made of them."""
    if second is not None:
        return TrackReading(
            health_status(first, second),
            unconscious_from_injuries(first, second),
            is_worsening(first, second),
            wound_penalty(first, wound_penalties),
        )
    fields = first.__dict__  # each count read once, not through the model's `__getattr__` hook
    max_, bashing, lethal = fields["max"], fields["bashing"], fields["lethal"]
    aggravated = fields["aggravated"]
    healthy = max_ - bashing - lethal - aggravated
    return TrackReading(
        _status(max_, bashing, lethal, aggravated, False),
        _out(max_, healthy),
        _worsening(max_, healthy, aggravated, fields["stabilized"]),
        _penalty(healthy, lethal, aggravated, wound_penalties),
    )


_DERIVED_IN_ORDER: tuple[str, ...] = tuple(c.value for c in Condition if c.derived)
"""The derived conditions (HEALTH-3..5, WP-5) in the order the HEALTH-6 summary names them."""


def status_steps(
    actor: str, status: HealthStatus, conditions: Mapping[str, bool], wound_before: int, wound_after: int
) -> tuple[Step, ...]:
    """HEALTH-6: what a ruling leaves the character as, read off its derived fields: its status and
    the derived conditions besides it (Dying and Dead are the status itself, HEALTH-5: named once);
    after a HEALTH-7 step when the wound penalty changed (`wound_*`: the penalty in dice, >= 0)."""
    name = str(status)  # the StrEnum's value, without the enum's `value` property (hot path)
    flags = [c for c in _DERIVED_IN_ORDER if conditions.get(c) and c != name]
    summary = make_step(
        rule="HEALTH-6",
        text=f"status: {name}" + (f"; {', '.join(flags)}" if flags else ""),
        data={"actor": actor, "status": name, "conditions": flags},
        key="HEALTH-6.status",
    )
    if wound_after == wound_before:
        return (summary,)
    change = Step(
        rule="HEALTH-7",
        text=f"wound penalty {-wound_before or 0} → {-wound_after or 0} dice",
        data={"actor": actor, "before": wound_before, "after": wound_after},
        key="HEALTH-7.change",
    )
    return (change, summary)


# ---- HEALTH-12: changes to maximum Health -------------------------------------------------------------


def change_max(
    track: HealthTrack, delta: int, effect: str | None = None, *, dead: bool = False
) -> HealthOutcome:
    """HEALTH-12: a gain adds healthy boxes; a loss removes healthy, then B, L, A boxes (never below
    max 0). A loss that leaves no healthy box ends a stabilization and a waking, as new damage does
    (HEALTH-3/4). The `dead` gain nothing (HEALTH-5: a revival is the Overseer's heal).

    With `effect`, the change is temporary and the change actually made is recorded (a loss of 8 from
    max 5 removes 5), so `end_temporary_max` reverses exactly that.
    """
    if delta > 0 and dead:
        raise RuleViolation(
            "HEALTH-5",
            "the dead gain no max Health; a revival is the Overseer's (heal, source overseer)",
            ("delta",),
        )
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
        data={"delta": delta, "effect": effect, "removed": removed, **box_data(new)},
        key="HEALTH-12.change",
    )
    return HealthOutcome(new, (step,))


def end_temporary_max(track: HealthTrack, effect: str, *, dead: bool = False) -> HealthOutcome:
    """HEALTH-12: a temporary max change ends; it is reversed and other changes stay as they are.
    The `dead` stay dead (HEALTH-5): a loss that ends gives them no Health back."""
    taken = -track.temporary_max.get(effect, 0)
    if taken > 0 and dead:
        held = {k: v for k, v in track.temporary_max.items() if k != effect}
        step = Step(
            rule="HEALTH-5",
            text=f"effect {effect!r} ends, but the dead stay dead: the {taken} max Health it took "
            "is not given back",
            data={"effect": effect, "notReturned": taken},
            key="HEALTH-5.notReturned",
        )
        return HealthOutcome(track.model_copy(update={"temporary_max": held}), (step,))
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


def gain_second_health(max_boxes: int, *, replacing: bool = False) -> HealthOutcome:
    """HEALTH-13: a new all-healthy track sized from a value at this moment; later changes to that value
    do not touch it. It takes the place of a second track the character holds (`replacing`)."""
    track = HealthTrack(max=max_boxes)
    step = Step(
        rule="HEALTH-13",
        text=f"second Health track of {max_boxes} healthy boxes set up",
        data={"max": max_boxes},
        key="HEALTH-13.new",
    )
    if not replacing:
        return HealthOutcome(track, (step,))
    replaced = Step(
        rule="HEALTH-13",
        text="the earlier second Health track is replaced",
        data={"replaced": True},
        key="HEALTH-13.replaced",
    )
    return HealthOutcome(track, (replaced, step))
