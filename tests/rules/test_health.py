"""HEALTH-1..13: the pure Health rules."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from vtt_bridge.document.models import Actor
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.healing import HealSource, heal, round_start_healing
from vtt_bridge.rules.health import (
    Grade,
    HealthStatus,
    HealthTrack,
    absorb_temp_hp,
    apply_damage,
    change_max,
    clear_after_damage,
    damage_equivalent,
    damage_tracks,
    end_temporary_max,
    gain_second_health,
    gain_temp_hp,
    health_status,
    is_dead,
    is_worsening,
    read_tracks,
    status_steps,
    worsen,
    wound_penalty,
)

B, L, A = Grade.BASHING, Grade.LETHAL, Grade.AGGRAVATED


def track(max: int, b: int = 0, lethal: int = 0, a: int = 0, **extra: object) -> HealthTrack:
    return HealthTrack.model_validate({"max": max, "bashing": b, "lethal": lethal, "aggravated": a, **extra})


def boxes(t: HealthTrack) -> tuple[int, int, int, int]:
    return (t.healthy, t.bashing, t.lethal, t.aggravated)


def point_by_point(t: HealthTrack, amounts: Mapping[Grade, int]) -> tuple[int, int, int, int]:
    """HEALTH-2 exactly as the text words it, one point at a time (the reference for the closed form)."""
    h, b, lethal, a = boxes(t)
    for grade in (B, L, A):
        for _ in range(amounts.get(grade, 0)):
            if h:
                h -= 1
                if grade is B:
                    b += 1
                elif grade is L:
                    lethal += 1
                else:
                    a += 1
            elif b:
                b -= 1
                if grade is A:
                    a += 1
                else:
                    lethal += 1
            elif lethal:
                lethal -= 1
                a += 1
    return (h, b, lethal, a)


# ---- HEALTH-1 ---------------------------------------------------------------------------------------


def test_HEALTH_1_track_holds_max_boxes_healthy_is_the_rest() -> None:
    t = track(8, 1, 2, 3)
    assert boxes(t) == (2, 1, 2, 3)


def test_HEALTH_1_more_damage_than_boxes_is_refused() -> None:
    with pytest.raises(ValidationError) as err:
        track(5, 2, 2, 2)
    assert "exceeds max" in str(err.value)


# ---- HEALTH-2 ---------------------------------------------------------------------------------------

TWENTY_HEALTH_EXAMPLE = [
    pytest.param(track(20), {B: 3}, (17, 3, 0, 0), id="first attack 3 bashing: 17 healthy + 3B"),
    pytest.param(track(20, 3), {L: 4}, (13, 3, 4, 0), id="trap 4 lethal: 13 healthy + 3B + 4L"),
    pytest.param(track(20, 3, 4), {A: 5}, (8, 3, 4, 5), id="boss 5 aggravated: 8 healthy + 3B + 4L + 5A"),
    pytest.param(track(20, 3, 4, 5), {B: 10}, (0, 9, 6, 5), id="10 bashing: 8 healthy to B, 2 B to L"),
    pytest.param(
        track(20, 3, 4, 5),
        {B: 10, L: 10},
        (0, 0, 14, 6),
        id="10B+10L at once, lowest first: 0 + 0B + 14L + 6A",
    ),
    pytest.param(track(5), {L: 6}, (0, 0, 4, 1), id="5 Health takes 6L: 4L1A"),
    pytest.param(track(5), {L: 5}, (0, 0, 5, 0), id="5 Health takes 5L: 5L"),
]


@pytest.mark.parametrize(("before", "amounts", "after"), TWENTY_HEALTH_EXAMPLE)
def test_HEALTH_2_worked_examples(
    before: HealthTrack, amounts: dict[Grade, int], after: tuple[int, int, int, int]
) -> None:
    outcome = apply_damage(before, amounts)
    new, steps = outcome.track, outcome.steps
    assert boxes(new) == after
    assert all(s.rule == "HEALTH-2" for s in steps)


@pytest.mark.parametrize(
    ("grade", "after"),
    [
        pytest.param(B, (0, 2, 1, 0), id="B: healthy first, then B to L"),
        pytest.param(L, (0, 0, 3, 0), id="L: healthy first, then B to L"),
        pytest.param(A, (0, 0, 0, 3), id="A: healthy first, then B to A"),
    ],
)
def test_HEALTH_2_each_grade_upgrades_in_its_order(grade: Grade, after: tuple[int, int, int, int]) -> None:
    new = apply_damage(track(3, 1), {grade: 3}).track
    assert boxes(new) == after


def test_HEALTH_2_a_damage_turns_l_into_a_once_no_b_is_left() -> None:
    new = apply_damage(track(3, 1, 2), {A: 2}).track
    assert boxes(new) == (0, 0, 1, 2)


def test_HEALTH_2_damage_on_a_full_a_track_is_wasted_and_said_so() -> None:
    outcome = apply_damage(track(4, 0, 1, 3), {B: 1_000_000})
    new, steps = outcome.track, outcome.steps
    assert boxes(new) == (0, 0, 0, 4)
    assert steps[-1].data == {"wasted": {"B": 999_999}}
    assert "wasted" in steps[-1].text


def test_HEALTH_2_a_million_points_is_closed_form() -> None:
    new = apply_damage(track(10_000), {B: 1_000_000, L: 1_000_000, A: 1_000_000}).track
    assert boxes(new) == (0, 0, 0, 10_000)


def test_HEALTH_2_negative_amount_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        apply_damage(track(5), {B: -3})


@st.composite
def tracks(draw: st.DrawFn, max_max: int = 30) -> HealthTrack:
    m = draw(st.integers(0, max_max))
    b = draw(st.integers(0, m))
    lethal = draw(st.integers(0, m - b))
    a = draw(st.integers(0, m - b - lethal))
    return track(m, b, lethal, a)


amounts_st = st.dictionaries(st.sampled_from([B, L, A]), st.integers(0, 40))


@given(tracks(), amounts_st)
def test_HEALTH_2_closed_form_equals_point_by_point(t: HealthTrack, amounts: dict[Grade, int]) -> None:
    new = apply_damage(t, amounts).track
    assert boxes(new) == point_by_point(t, amounts)


@given(tracks(), amounts_st)
def test_HEALTH_2_damage_never_heals(t: HealthTrack, amounts: dict[Grade, int]) -> None:
    new = apply_damage(t, amounts).track
    assert damage_equivalent(new) >= damage_equivalent(t)
    # no box's grade decreases: with boxes sorted A, L, B, healthy, every cumulative count only grows
    assert new.aggravated >= t.aggravated
    assert new.aggravated + new.lethal >= t.aggravated + t.lethal
    assert new.aggravated + new.lethal + new.bashing >= t.aggravated + t.lethal + t.bashing
    assert new.max == t.max


# ---- HEALTH-3, HEALTH-4 -----------------------------------------------------------------------------


def _actor(t: HealthTrack, **extra: object) -> Actor:
    return Actor.model_validate({"health": t.model_dump(by_alias=True), **extra})


WORSENING_EXAMPLE = [
    pytest.param(track(5, 0, 4, 1), (0, 0, 3, 2), id="5 Health 4L1A worsens to 3L2A (L first)"),
    pytest.param(track(3, 2, 0, 1), (0, 1, 0, 2), id="no L left: a B becomes A"),
    pytest.param(track(3, 1, 1, 1), (0, 1, 0, 2), id="L before B"),
    pytest.param(track(5, 0, 5, 0), (0, 0, 5, 0), id="no A: unconscious but no worsening"),
    pytest.param(track(5, 0, 3, 1), (1, 0, 3, 1), id="a healthy box: no worsening"),
    pytest.param(track(2, 0, 0, 2), (0, 0, 0, 2), id="all A: nothing left to worsen"),
    pytest.param(track(5, 0, 4, 1, stabilized=True), (0, 0, 4, 1), id="stabilized: worsening stopped"),
]


@pytest.mark.parametrize(("before", "after"), WORSENING_EXAMPLE)
def test_HEALTH_4_worsening_at_the_end_of_the_round(
    before: HealthTrack, after: tuple[int, int, int, int]
) -> None:
    outcome = worsen(before)
    new, steps = outcome.track, outcome.steps
    assert boxes(new) == after
    assert bool(steps) == (after != boxes(before))


def test_HEALTH_4_six_lethal_example_is_worsening_until_all_a() -> None:
    t = apply_damage(track(5), {L: 6}).track
    assert is_worsening(t)
    rounds = 0
    while is_worsening(t):
        t = worsen(t).track
        rounds += 1
    assert rounds == 4 and boxes(t) == (0, 0, 0, 5)
    assert health_status(t) is HealthStatus.DEAD


def test_HEALTH_4_healing_or_first_aid_stabilizes_and_new_damage_unstabilizes() -> None:
    t = track(5, 0, 4, 1)
    aided = heal(t, None, amount=0, source=HealSource.FIRST_AID).health
    assert aided.stabilized and not is_worsening(aided)
    first = damage_tracks(aided, None, {B: 1}).health
    assert not clear_after_damage(first).stabilized
    assert is_worsening(clear_after_damage(first))


# ---- HEALTH-5, HEALTH-6 -----------------------------------------------------------------------------

STATUS_TABLE = [
    pytest.param(track(5), HealthStatus.UNHARMED, id="E = 0: unharmed"),
    pytest.param(track(5, 5), HealthStatus.LIGHTLY, id="E = max: lightly"),
    pytest.param(track(5, 0, 3), HealthStatus.MODERATELY, id="max < E = 6 <= 2max: moderately"),
    pytest.param(track(5, 0, 5), HealthStatus.MODERATELY, id="E = 2max: moderately"),
    pytest.param(track(5, 0, 4, 1), HealthStatus.BADLY, id="2max < E <= 3max: badly"),
    pytest.param(track(5, 0, 0, 5), HealthStatus.DEAD, id="all A: dead"),
    pytest.param(track(0), HealthStatus.DEAD, id="max Health 0: dead"),
]


@pytest.mark.parametrize(("t", "status"), STATUS_TABLE)
def test_HEALTH_6_status_from_bashing_equivalent(t: HealthTrack, status: HealthStatus) -> None:
    assert health_status(t) is status


def test_HEALTH_5_all_a_is_dead_unless_an_ability_or_second_track() -> None:
    t = track(4, 0, 0, 4)
    assert health_status(t) is HealthStatus.DEAD
    assert health_status(t, kept_alive=True) is HealthStatus.DYING
    assert health_status(t, track(3)) is HealthStatus.DYING
    assert health_status(t, track(3, 0, 0, 3)) is HealthStatus.DEAD


def test_HEALTH_5_dead_when_all_a_or_max_0_or_annihilated() -> None:
    """ "A character dies when all their Health has become A"; "maximum Health drops to 0" kills too;
    the annihilated (EP-2) are dead whatever their tracks say."""
    assert is_dead(track(4, 0, 0, 4), None, annihilated=False)
    assert is_dead(track(0), None, annihilated=False)
    assert is_dead(track(4), None, annihilated=True)
    assert not is_dead(track(4, 0, 0, 4), track(3), annihilated=False)  # dying on the second track
    assert not is_dead(track(20, 0, 14, 6), None, annihilated=False)  # the worked example: worsening


def test_HEALTH_5_the_dead_gain_no_max_health_but_still_lose_it() -> None:
    dead = track(3, 0, 0, 3)
    with pytest.raises(RuleViolation) as refused:
        change_max(dead, 2, dead=True)
    assert (refused.value.rule, refused.value.path) == ("HEALTH-5", ("delta",))
    assert "revival is the Overseer's" in str(refused.value)
    assert change_max(dead, -1, dead=True).track.max == 2
    assert change_max(track(3), 2, dead=False).track.max == 5


def test_HEALTH_5_a_loss_that_ends_gives_the_dead_no_health_back() -> None:
    """The rulebook's temporary-max example, dead in between: Health 8, a curse takes 3 for its
    duration and the character dies all A; when the curse ends the 3 boxes do not come back."""
    cursed = change_max(track(8), -3, "curse").track
    dead = cursed.model_copy(update={"aggravated": 5})
    ended = end_temporary_max(dead, "curse", dead=True)
    assert (ended.track.max, ended.track.aggravated, ended.track.temporary_max) == (5, 5, {})
    (step,) = ended.steps
    assert (step.rule, step.key) == ("HEALTH-5", "HEALTH-5.notReturned")
    assert step.data == {"effect": "curse", "notReturned": 3}
    assert (
        step.text == "effect 'curse' ends, but the dead stay dead: the 3 max Health it took is not given back"
    )
    assert end_temporary_max(dead, "curse", dead=False).track.max == 8
    boon = change_max(track(8), 3, "boon").track.model_copy(update={"aggravated": 11})
    assert end_temporary_max(boon, "boon", dead=True).track.max == 8  # a gain that ends is still reversed


# ---- HEALTH-7 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("t", "enabled", "penalty"),
    [
        pytest.param(track(7, 0, 1), True, 0, id="6 healthy: 3 - 6 never below 0"),
        pytest.param(track(7, 0, 5), True, 1, id="2 healthy with L: 1"),
        pytest.param(track(7, 3, 4), True, 3, id="0 healthy with L: 3"),
        pytest.param(track(7, 6), True, 0, id="bashing only: no penalty"),
        pytest.param(track(7, 0, 5), False, 0, id="optional rule off"),
        pytest.param(track(7, 0, 0, 6), True, 2, id="A counts as lethal-or-worse"),
    ],
)
def test_HEALTH_7_wound_penalty(t: HealthTrack, enabled: bool, penalty: int) -> None:
    assert wound_penalty(t, enabled) == penalty


def test_HEALTH_6_the_worked_example_ends_badly_injured_unconscious_and_worsening() -> None:
    """The rulebook's worked example: 20 Health ends at 0 healthy + 0B + 14L + 6A; E = 14*2 + 6*3 = 46,
    past twice 20, so badly injured; he passes out and his injuries keep worsening."""
    t = track(20, 0, 14, 6)
    reading = read_tracks(t, None, wound_penalties=False)
    assert (reading.status, reading.out_from_injuries, reading.worsening) == (HealthStatus.BADLY, True, True)
    conditions = {"unconscious": reading.out_from_injuries, "worsening": reading.worsening, "frozen": True}
    (step,) = status_steps("a1", reading.status, conditions, 0, reading.wound_penalty)
    assert (step.rule, step.key) == ("HEALTH-6", "HEALTH-6.status")
    assert step.text == "status: badly; unconscious, worsening"
    assert step.data == {"actor": "a1", "status": "badly", "conditions": ["unconscious", "worsening"]}


def test_HEALTH_6_dying_and_dead_are_the_status_and_are_not_named_again() -> None:
    conditions = {"dead": True, "unconscious": False, "dying": False}
    (step,) = status_steps("a1", HealthStatus.DEAD, conditions, 0, 0)
    assert step.text == "status: dead" and step.data["conditions"] == []
    (step,) = status_steps("a1", HealthStatus.DYING, {"dying": True, "unconscious": True}, 0, 0)
    assert step.text == "status: dying; unconscious" and step.data["conditions"] == ["unconscious"]


def test_HEALTH_7_a_changed_wound_penalty_is_said_before_the_status() -> None:
    """The worked example with the optional rule on: no healthy box left, so (3 - 0) = 3 dice."""
    reading = read_tracks(track(20, 0, 14, 6), None, wound_penalties=True)
    assert reading.wound_penalty == 3
    change, summary = status_steps("a1", reading.status, {}, 1, reading.wound_penalty)
    assert (change.rule, change.key, summary.key) == ("HEALTH-7", "HEALTH-7.change", "HEALTH-6.status")
    assert change.text == "wound penalty -1 → -3 dice"
    assert change.data == {"actor": "a1", "before": 1, "after": 3}
    healed, _ = status_steps("a1", HealthStatus.LIGHTLY, {}, 3, 0)
    assert healed.text == "wound penalty -3 → 0 dice"
    assert [s.key for s in status_steps("a1", HealthStatus.LIGHTLY, {}, 2, 2)] == ["HEALTH-6.status"]


# ---- HEALTH-11 --------------------------------------------------------------------------------------


def test_HEALTH_11_temp_hp_absorbs_highest_grade_first() -> None:
    outcome = absorb_temp_hp(track(10, temp_hp=5), {B: 3, L: 2, A: 2})
    t, left, steps = outcome.track, outcome.remaining, outcome.steps
    assert left == {B: 2, L: 0, A: 0}
    assert t.temp_hp == 0
    assert steps[0].data is not None and steps[0].data["absorbed"] == {"A": 2, "L": 2, "B": 1}


def test_HEALTH_11_temp_hp_does_not_stack_the_higher_stays() -> None:
    t = gain_temp_hp(track(10, temp_hp=5), 3).track
    assert t.temp_hp == 5
    t = gain_temp_hp(t, 8).track
    assert t.temp_hp == 8


# ---- HEALTH-12 --------------------------------------------------------------------------------------


def test_HEALTH_12_text_example_8_to_11_to_10_then_effect_ends_at_7() -> None:
    t = track(8)
    t = change_max(t, 3, "stamina-potion").track
    assert t.max == 11 and t.healthy == 11
    t = change_max(t, -1).track
    assert t.max == 10
    outcome = end_temporary_max(t, "stamina-potion")
    t, steps = outcome.track, outcome.steps
    assert t.max == 7 and t.healthy == 7
    assert t.temporary_max == {}
    assert steps[0].data == {"effect": "stamina-potion", "reversed": 3}


@pytest.mark.parametrize(
    ("before", "delta", "after"),
    [
        pytest.param(track(6, 1, 1, 1), -2, (1, 1, 1, 1), id="healthy first"),
        pytest.param(track(6, 1, 1, 1), -4, (0, 0, 1, 1), id="then B"),
        pytest.param(track(6, 1, 1, 1), -5, (0, 0, 0, 1), id="then L, leaving all A"),
        pytest.param(track(6, 1, 1, 1), -9, (0, 0, 0, 0), id="never below 0"),
        pytest.param(track(6, 1, 1, 1), 2, (5, 1, 1, 1), id="a gain adds healthy boxes"),
    ],
)
def test_HEALTH_12_loss_removes_healthy_then_b_l_a(
    before: HealthTrack, delta: int, after: tuple[int, int, int, int]
) -> None:
    new = change_max(before, delta).track
    assert boxes(new) == after


def test_HEALTH_12_a_loss_leaving_all_a_means_death() -> None:
    outcome = change_max(track(6, 1, 1, 1), -5)
    new, steps = outcome.track, outcome.steps
    assert health_status(new) is HealthStatus.DEAD
    assert "death" in steps[0].text


def test_HEALTH_12_ending_an_unknown_effect_is_refused() -> None:
    with pytest.raises(RuleViolation) as err:
        end_temporary_max(track(5), "nope")
    assert err.value.path == ("effect",)


# ---- HEALTH-13 --------------------------------------------------------------------------------------


def test_HEALTH_13_a_second_track_is_set_up_all_healthy_and_replaces_an_earlier_one() -> None:
    """ "A new Health track is set up based on your maximum Willpower ... at that moment": max
    Willpower 5 gives 5 healthy boxes; a second one set up later takes the earlier one's place."""
    first = gain_second_health(5)
    assert boxes(first.track) == (5, 0, 0, 0)
    assert [(s.rule, s.key, s.data) for s in first.steps] == [("HEALTH-13", "HEALTH-13.new", {"max": 5})]
    assert first.steps[0].text == "second Health track of 5 healthy boxes set up"
    again = gain_second_health(3, replacing=True)
    assert boxes(again.track) == (3, 0, 0, 0)
    assert [s.key for s in again.steps] == ["HEALTH-13.replaced", "HEALTH-13.new"]
    assert again.steps[0].data == {"replaced": True}
    assert again.steps[0].text == "the earlier second Health track is replaced"


def test_HEALTH_13_damage_past_an_all_a_first_track_goes_to_the_second() -> None:
    second = gain_second_health(4).track
    outcome = damage_tracks(track(3, 0, 2), second, {L: 2, A: 3})
    first, second2, steps = outcome.health, outcome.second_health, outcome.steps
    assert boxes(first) == (0, 0, 0, 3)
    assert second2 is not None and boxes(second2) == (3, 0, 0, 1)
    assert any(s.rule == "HEALTH-13" for s in steps)
    assert health_status(first, second2) is HealthStatus.DYING


# ---- HEALTH-1 properties: any sequence keeps the track whole ----------------------------------------

ops = st.lists(
    st.one_of(
        st.tuples(st.just("damage"), amounts_st),
        st.tuples(st.just("heal"), st.integers(0, 30), st.sampled_from(["B", "L", "A", "any"])),
        st.tuples(st.just("max"), st.integers(-20, 20)),
        st.tuples(st.just("fast"), st.lists(st.integers(0, 9), max_size=3)),
        st.tuples(st.just("worsen")),
    ),
    max_size=25,
)


@settings(max_examples=200)
@given(tracks(), ops)
def test_HEALTH_1_track_always_holds_exactly_max_boxes(
    t: HealthTrack, sequence: list[tuple[object, ...]]
) -> None:
    for op in sequence:
        if op[0] == "damage":
            t = apply_damage(t, op[1]).track  # type: ignore[arg-type]
        elif op[0] == "heal":
            t = heal(t, None, amount=op[1], grade=op[2], source=HealSource.MAGIC).health  # type: ignore[arg-type]
        elif op[0] == "max":
            t = change_max(t, op[1]).track  # type: ignore[arg-type]
        elif op[0] == "fast":
            t = round_start_healing(t, None, op[1], ()).health  # type: ignore[arg-type]
        else:
            t = worsen(t).track
        t = HealthTrack.model_validate(t.model_dump())  # the validator re-checks B + L + A <= max
        assert t.healthy >= 0 and t.bashing + t.lethal + t.aggravated <= t.max
