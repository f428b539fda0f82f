"""HEALTH-8..10 and HEALTH-13's healing: the pure healing rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.rules.test_health import boxes, track, tracks
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.healing import (
    HealSource,
    RecoveryKind,
    heal,
    heal_character,
    recovery_long_rests,
    recovery_time,
    round_start_healing,
)
from vtt_bridge.rules.health import Grade, HealthTrack
from vtt_bridge.rules.willpower import Willpower

B, L, A = Grade.BASHING, Grade.LETHAL, Grade.AGGRAVATED


# ---- HEALTH-8 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "double", "minutes"),
    [
        (RecoveryKind.SHORT_REST, False, 15),
        (RecoveryKind.SHORT_REST, True, 8),
        (RecoveryKind.LONG_REST, False, 480),
        (RecoveryKind.LONG_REST, True, 240),
        (RecoveryKind.LETHAL, False, 2880),
        (RecoveryKind.LETHAL, True, 1440),
        (RecoveryKind.AGGRAVATED, False, 10080),
        (RecoveryKind.AGGRAVATED, True, 5040),
    ],
)
def test_HEALTH_8_recovery_time_halved_rounded_up(kind: RecoveryKind, double: bool, minutes: int) -> None:
    assert recovery_time(kind, double) == minutes


def test_HEALTH_8_double_recovery_halves_rest_counts_rounding_up() -> None:
    assert recovery_long_rests(RecoveryKind.AGGRAVATED) == 7
    assert recovery_long_rests(RecoveryKind.AGGRAVATED, True) == 4
    assert recovery_long_rests(RecoveryKind.LETHAL, True) == 1


def test_HEALTH_8_short_rests_heal_one_bashing_each() -> None:
    out = heal(track(6, 3, 2), None, amount=2, source=HealSource.SHORT_REST)
    assert boxes(out.health) == (3, 1, 2, 0)
    with pytest.raises(RuleViolation) as err:
        heal(track(6, 3, 2), None, amount=2, grade="L", source=HealSource.SHORT_REST)
    assert err.value.rule == "HEALTH-8" and err.value.path == ("grade",)


@pytest.mark.parametrize(
    ("grade", "days", "double", "after"),
    [
        pytest.param("L", 7, False, (3, 0, 1, 2), id="7 days: 3 L"),
        pytest.param("A", 7, False, (1, 0, 4, 1), id="7 days: or 1 A, not both"),
        pytest.param("any", 7, False, (3, 0, 1, 2), id="any: L while L remains"),
        pytest.param("A", 7, True, (2, 0, 4, 0), id="double: 1 A per 3.5 days"),
        pytest.param("L", 1, False, (0, 0, 4, 2), id="one day is not enough for L"),
    ],
)
def test_HEALTH_8_long_rest_heals_l_or_a_never_combined(
    grade: str, days: int, double: bool, after: tuple[int, int, int, int]
) -> None:
    out = heal(track(6, 0, 4, 2), None, amount=days, grade=grade, source=HealSource.LONG_REST, double=double)  # type: ignore[arg-type]
    assert boxes(out.health) == after


def test_HEALTH_8_rest_taken_a_night_at_a_time_adds_up() -> None:
    """'Every two days ... turns 1 L back to healthy': two one-day rests heal the L one two-day rest
    does; the day that made no box carries, and nothing carries once no box of its grade is left."""
    night = heal(track(6, 0, 2), None, amount=1, source=HealSource.LONG_REST)
    assert boxes(night.health) == (4, 0, 2, 0) and night.health.rest_minutes == 24 * 60
    assert night.steps[-1].data == {"restHours": 24, "grade": "L", "periodHours": 48}
    second = heal(night.health, None, amount=1, source=HealSource.LONG_REST)
    assert boxes(second.health) == (5, 0, 1, 0) and second.health.rest_minutes == 0
    week = track(6, 0, 0, 1)
    for _ in range(6):
        week = heal(week, None, amount=1, grade="A", source=HealSource.LONG_REST).health
    assert boxes(week) == (5, 0, 0, 1) and week.rest_minutes == 6 * 24 * 60
    assert boxes(heal(week, None, amount=1, grade="A", source=HealSource.LONG_REST).health) == (6, 0, 0, 0)
    done = heal(track(6, 0, 1), None, amount=3, source=HealSource.LONG_REST).health
    assert boxes(done) == (6, 0, 0, 0) and done.rest_minutes == 0


def test_HEALTH_8_long_rest_does_not_heal_bashing() -> None:
    with pytest.raises(RuleViolation):
        heal(track(6, 2), None, amount=3, grade="B", source=HealSource.LONG_REST)


# ---- HEALTH-9 ---------------------------------------------------------------------------------------


def test_HEALTH_9_overseer_heals_b_and_l_free_and_charges_200_per_a() -> None:
    out = heal(track(10, 2, 3, 3), None, amount=10, source=HealSource.OVERSEER)
    assert boxes(out.health) == (10, 0, 0, 0)
    assert out.overseer_cost == 600
    assert any(s.rule == "HEALTH-9" and s.data == {"cost": 600, "aggravated": 3} for s in out.steps)


# ---- HEALTH-10 --------------------------------------------------------------------------------------


FAST_HEALING = [
    # The rulebook's own examples.
    pytest.param((1,), (), track(10, 2), (9, 1, 0, 0), id="fast healing 1: 1 point of B or L"),
    pytest.param((4,), (), track(10, 0, 4), (10, 0, 0, 0), id="fast healing 4: 4 points of B or L"),
    pytest.param((4,), (), track(10, 0, 0, 2), (9, 0, 0, 1), id="fast healing 4: or 1 A"),
    pytest.param((), (4,), track(10, 0, 0, 2), (9, 0, 0, 1), id="regeneration 4: or 1 A"),
    pytest.param((3, 2), (), track(10, 3, 3, 2), (7, 1, 0, 2), id="fast healing 3 + 2: 5 B/L, never A"),
    pytest.param((3, 2), (), track(10, 0, 2, 2), (8, 0, 0, 2), id="3 + 2 with only 2L and 2A: A stays"),
    pytest.param((1,), (1,), track(10, 2), (10, 0, 0, 0), id="regeneration works beside fast healing"),
    # The least severe track: fewest A, then L, then B.
    pytest.param((4,), (6,), track(10, 0, 1, 3), (9, 0, 0, 1), id="1L 3A, fast 4 + regen 6: 1 A left"),
    pytest.param((4,), (), track(10, 1, 0, 2), (8, 1, 0, 1), id="4 with B left buys the A"),
    pytest.param((2,), (), track(10, 2, 2), (8, 2, 0, 0), id="B/L points heal L before B"),
    pytest.param((1,), (4,), track(10, 1, 0, 2), (9, 0, 0, 1), id="regen 4 buys an A, the 1 heals B"),
    pytest.param((8,), (), track(10, 0, 0, 3), (9, 0, 0, 1), id="8 points buy 2 A"),
    pytest.param((5,), (), track(10, 1, 0, 1), (10, 0, 0, 0), id="5 buys an A and heals a B"),
    pytest.param((7, 4), (), track(10, 0, 4, 2), (9, 0, 1, 0), id="7 + 4: each buys an A, 3 mend 3 L"),
]


@pytest.mark.parametrize(("fast", "regen", "before", "after"), FAST_HEALING)
def test_HEALTH_10_instances_leave_the_least_severe_track(
    fast: tuple[int, ...], regen: tuple[int, ...], before: HealthTrack, after: tuple[int, int, int, int]
) -> None:
    out = round_start_healing(before, None, fast, regen)
    assert boxes(out.health) == after


def test_HEALTH_10_the_rules_example_says_what_each_instance_bought() -> None:
    """1 L and 3 A, fast healing 4 and regeneration 6: the 4 buys an A; the 6 buys an A and mends the L."""
    out = round_start_healing(track(10, 0, 1, 3), None, (4,), (6,))
    healed = [(s.data or {})["healed"] for s in out.steps if s.key == "HEALTH-10.healed"]
    sources = [(s.data or {})["source"] for s in out.steps if s.key == "HEALTH-10.source"]
    assert sorted(zip(sources, [sorted(h.items()) for h in healed], strict=True)) == [
        ("fastHealing", [("A", 1)]),
        ("regeneration", [("A", 1), ("L", 1)]),
    ]


def _best_by_search(
    first: tuple[int, int, int], second: tuple[int, int, int] | None, ratings: tuple[int, ...]
) -> tuple[int, ...]:
    """The least severe (second A, L, B, first A, L, B) over every way to spend each instance (1 point
    per B/L box, 4 per A box, every split tried); the first track heals only once the second is all
    healthy (HEALTH-13)."""
    start = (*(second or (0, 0, 0)), *first)
    states = {start}
    for rating in ratings:
        nxt = set()
        for state in states:
            a2, l2, b2, a1, l1, b1 = state
            for da2 in range(a2 + 1):
                for da1 in range(a1 + 1):
                    rest = rating - 4 * (da2 + da1)
                    if rest < 0:
                        break
                    for dl2 in range(min(l2, rest) + 1):
                        for db2 in range(min(b2, rest - dl2) + 1):
                            r1 = rest - dl2 - db2
                            for dl1 in range(min(l1, r1) + 1):
                                db1 = min(b1, r1 - dl1)
                                for b in range(db1 + 1):
                                    nxt.add((a2 - da2, l2 - dl2, b2 - db2, a1 - da1, l1 - dl1, b1 - b))
        states = nxt
    allowed = [s for s in states if s[3:] == start[3:] or s[:3] == (0, 0, 0)]
    return min(allowed, key=lambda s: (s[0], s[1], s[2], s[3], s[4], s[5]))


@st.composite
def small_tracks(draw: st.DrawFn) -> HealthTrack:
    return draw(tracks(max_max=6))


@settings(max_examples=150, deadline=None)
@given(
    first=small_tracks(),
    second=st.none() | small_tracks(),
    ratings=st.lists(st.integers(0, 9), max_size=3),
)
def test_HEALTH_10_the_plan_is_the_best_any_split_reaches(
    first: HealthTrack, second: HealthTrack | None, ratings: list[int]
) -> None:
    out = round_start_healing(first, second, ratings, ())
    got = (
        *(
            (out.second_health.aggravated, out.second_health.lethal, out.second_health.bashing)
            if out.second_health
            else (0, 0, 0)
        ),
        out.health.aggravated,
        out.health.lethal,
        out.health.bashing,
    )
    want = _best_by_search(
        (first.aggravated, first.lethal, first.bashing),
        None if second is None else (second.aggravated, second.lethal, second.bashing),
        tuple(ratings),
    )
    assert got == want


def test_HEALTH_10_an_instance_below_4_cannot_heal_a() -> None:
    with pytest.raises(RuleViolation) as err:
        heal(track(5, 0, 0, 1), None, amount=3, grade="A", source=HealSource.FAST_HEALING)
    assert err.value.rule == "HEALTH-10"


# ---- HEALTH-13: healing the second track first ---------------------------------------------------


def test_HEALTH_13_healing_heals_the_second_track_first_excess_to_first() -> None:
    out = heal(track(3, 0, 0, 3), track(4, 1, 1), amount=4, source=HealSource.MAGIC)
    assert out.second_health is not None and boxes(out.second_health) == (4, 0, 0, 0)
    assert boxes(out.health) == (2, 0, 0, 1)


def test_HEALTH_13_no_excess_while_the_second_track_is_still_damaged() -> None:
    out = heal(track(3, 0, 0, 3), track(4, 1, 0, 1), amount=3, grade="B", source=HealSource.MAGIC)
    assert out.second_health is not None and boxes(out.second_health) == (3, 0, 0, 1)
    assert boxes(out.health) == (0, 0, 0, 3)


# ---- HEALTH-8 on a character: long rests also restore Willpower ----------------------------------------


def test_HEALTH_8_each_long_rest_restores_1_willpower_and_stacks_with_health_recovery() -> None:
    """ "Each long rest of at least 8 hours ... restores 1 Willpower. These effects stack with Health
    recovery": two days heal 1 L (two days, two long rests) and restore 2 Willpower."""
    willpower = Willpower(max=3, current=0)
    out = heal_character(
        track(6, 0, 2), None, willpower, amount=2, source=HealSource.LONG_REST, unconscious_at_zero=False
    )
    assert boxes(out.health) == (5, 0, 1, 0) and out.willpower.current == 2
    assert [s.key for s in out.steps] == [
        "HEALTH-8.source",
        "HEALTH-8.healed",
        "HEALTH-4.stabilized",
        "HEALTH-8.longRest",
        "WP-1.recover",
    ]
    rested = out.steps[3]
    assert rested.rule == "HEALTH-8" and rested.data == {"longRests": 2}
    assert rested.text == "2 long rests: 1 Willpower each (stacks with Health recovery)"


def test_HEALTH_8_other_sources_restore_no_willpower_and_leave_it_the_same_object() -> None:
    willpower = Willpower(max=3, current=0)
    for source in (HealSource.SHORT_REST, HealSource.MAGIC, HealSource.FIRST_AID):
        out = heal_character(
            track(6, 2, 2), None, willpower, amount=1, source=source, unconscious_at_zero=False
        )
        assert out.willpower is willpower and all(s.key != "HEALTH-8.longRest" for s in out.steps)
    nothing = heal_character(
        track(6, 0, 2), None, willpower, amount=0, source=HealSource.LONG_REST, unconscious_at_zero=False
    )
    assert nothing.willpower is willpower


def test_HEALTH_8_a_long_rest_wakes_the_injured_through_willpower() -> None:
    """HEALTH-3: recovering 1 Willpower wakes a character unconscious from injuries, even when the
    rest heals no box (here no L is left, and a day is far from the seven an A needs)."""
    out = heal_character(
        track(2, 2), None, Willpower(max=2, current=0), amount=1, source=HealSource.LONG_REST,
        unconscious_at_zero=False,
    )  # fmt: skip
    assert boxes(out.health) == (0, 2, 0, 0) and out.health.woken


def test_HEALTH_5_the_dead_are_healed_only_by_the_overseer_and_the_annihilated_not_at_all() -> None:
    dead, willpower = track(3, 0, 0, 3), Willpower(max=2, current=2)
    with pytest.raises(RuleViolation) as refused:
        heal_character(dead, None, willpower, amount=1, source=HealSource.MAGIC, unconscious_at_zero=False)
    assert (refused.value.rule, refused.value.path) == ("HEALTH-5", ("source",))
    assert str(refused.value).startswith("the dead are not healed by magic")
    revived = heal_character(
        dead, None, willpower, amount=1, source=HealSource.OVERSEER, unconscious_at_zero=False
    )
    assert boxes(revived.health) == (1, 0, 0, 2)
    with pytest.raises(RuleViolation) as beyond:
        heal_character(
            track(3), None, willpower, amount=1, source=HealSource.OVERSEER, unconscious_at_zero=False,
            annihilated=True,
        )  # fmt: skip
    assert (beyond.value.rule, beyond.value.path) == ("HEALTH-5", ("target",))
    dying = heal_character(
        dead, track(2, 0, 1), willpower, amount=1, source=HealSource.MAGIC, unconscious_at_zero=False
    )
    assert dying.second_health is not None and boxes(dying.second_health) == (2, 0, 0, 0)
