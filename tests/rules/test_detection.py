"""Detection and locating, the pure rules (DET-1..10): one test per sentence of the rulebook text."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from vtt_bridge.document.models import Actor
from vtt_bridge.rules.detection import (
    APPROXIMATE,
    ORDINARY_SENSES,
    PINPOINTED,
    UNLOCATED,
    AntiDetectionMeans,
    Capability,
    DetectionMeans,
    Essence,
    LocateState,
    ObserverProfile,
    Reach,
    Sense,
    SpellKind,
    anti_key,
    attack_consequence,
    build_reach,
    contest,
    contest_modifiers,
    distance_squared,
    effective_rank,
    explain_locate,
    guess_step,
    hide_pool_base,
    locate,
    locate_step,
    raise_one_step,
    spot_pool_base,
    verdict_step,
)
from vtt_bridge.rules.dice import SuppliedDice, active_wins
from vtt_bridge.rules.ranks import Rank

P, A, U = LocateState.PINPOINTED, LocateState.APPROXIMATE, LocateState.UNLOCATED


def means(
    sense: str = "sight",
    essence: str = "natural",
    rank: str = "unranked",
    capability: str = "pinpoint",
    range: float | None = None,
) -> DetectionMeans:
    return DetectionMeans.model_validate(
        {"name": f"{essence} {sense}", "sense": sense, "essence": essence, "rank": rank,
         "capability": capability, "range": range}
    )  # fmt: skip


def anti(essence: str = "magical", rank: str = "C") -> AntiDetectionMeans:
    return AntiDetectionMeans.model_validate({"name": f"{essence} veil", "essence": essence, "rank": rank})


def see(*detection: DetectionMeans, antis: tuple[AntiDetectionMeans, ...] = (), humanoid: bool = True,
        blinded: bool = False, deafened: bool = False, distance: float = 0.0) -> LocateState:  # fmt: skip
    return locate(
        detection, antis, humanoid=humanoid, blinded=blinded, deafened=deafened, distance2=distance**2
    )


# --- DET-1 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("essence", list(Essence))
@pytest.mark.parametrize("rank", list(Rank))
def test_DET_1_every_means_has_a_rank_and_one_of_four_essences(essence: Essence, rank: Rank) -> None:
    made = means(essence=essence.value, rank=rank.value)
    hidden = anti(essence=essence.value, rank=rank.value)
    assert (made.essence, made.rank, hidden.essence, hidden.rank) == (essence, rank, essence, rank)
    assert anti_key([hidden]) == ((essence, rank.number),)


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        pytest.param(
            "sense", "taste", "'sight', 'hearing', 'smell', 'touch' or 'other'", id="sense-outside-table"
        ),
        pytest.param(
            "essence", "divine", "'natural', 'technological', 'magical' or 'anomalous'", id="essence"
        ),
        pytest.param("rank", "E", "'unranked', 'D', 'C', 'B', 'A' or 'S'", id="rank-outside-table"),
        pytest.param("capability", "exact", "'pinpoint' or 'approximate'", id="capability"),
    ],
)
def test_DET_1_values_outside_the_tables_are_refused_with_path_and_allowed_values(
    field: str, value: str, allowed: str
) -> None:
    data = {"name": "x", "sense": "sight", field: value}
    with pytest.raises(ValidationError) as error:
        Actor.model_validate({"detection": [data]})
    (problem,) = error.value.errors()
    assert problem["loc"] == ("detection", 0, field)
    assert allowed in problem["msg"]


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf], ids=["negative", "nan", "infinite"])
def test_DET_1_a_range_that_is_negative_or_not_finite_is_refused(bad: float) -> None:
    with pytest.raises(ValidationError) as error:
        Actor.model_validate({"detection": [{"name": "x", "sense": "sight", "range": bad}]})
    assert error.value.errors()[0]["loc"] == ("detection", 0, "range")


def test_DET_1_anti_detection_outside_the_tables_is_refused_with_path() -> None:
    with pytest.raises(ValidationError) as error:
        Actor.model_validate({"antiDetection": [{"name": "veil", "essence": "psychic"}]})
    assert error.value.errors()[0]["loc"] == ("antiDetection", 0, "essence")


# --- DET-2 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("detector", "hider", "expected"),
    [
        pytest.param(("magical", "C"), ("magical", "C"), A, id="same Essence same Rank: approximate"),
        pytest.param(
            ("natural", "C"), ("magical", "C"), P, id="Essences differ: counts one Rank higher: pinpoint"
        ),
        pytest.param(("natural", "D"), ("magical", "C"), A, id="differ and one lower: counts as equal"),
        pytest.param(("natural", "unranked"), ("magical", "C"), U, id="differ but two lower: unlocated"),
        pytest.param(("natural", "S"), ("magical", "S"), P, id="S of another Essence beats S"),
        pytest.param(
            ("magical", "S"), ("magical", "S"), A, id="S against S of the same Essence: approximate"
        ),
    ],
)
def test_DET_2_when_essences_differ_the_detecting_side_counts_one_rank_higher(
    detector: tuple[str, str], hider: tuple[str, str], expected: LocateState
) -> None:
    assert see(means(essence=detector[0], rank=detector[1]), antis=(anti(*hider),)) is expected


def test_DET_2_effective_rank_numbers() -> None:
    assert effective_rank(Essence.NATURAL, 5, Essence.MAGICAL) == 6
    assert effective_rank(Essence.MAGICAL, 2, Essence.MAGICAL) == 2


# --- DET-3 -----------------------------------------------------------------------------------------


def test_DET_3_a_means_that_can_only_locate_approximately_is_not_raised_by_a_higher_rank() -> None:
    scent = means("smell", rank="A", capability="approximate")
    assert see(scent, antis=(anti("magical", "D"),), humanoid=False) is A


def test_DET_3_the_essence_bump_does_not_raise_a_means_above_its_capability() -> None:
    ear = means("hearing", "natural", "C", capability="approximate")
    assert see(ear, antis=(anti("magical", "C"),), humanoid=False) is A


def test_DET_3_characters_based_on_humans_can_only_pinpoint_with_sight() -> None:
    keen_ear = means("hearing", rank="B", capability="pinpoint")
    assert see(keen_ear, antis=(anti("natural", "D"),), humanoid=True) is A
    assert see(keen_ear, antis=(anti("natural", "D"),), humanoid=False) is P
    assert see(keen_ear, humanoid=True) is A
    assert see(means("sight", rank="B"), antis=(anti("natural", "D"),), humanoid=True) is P


def test_DET_3_a_human_with_magical_sense_other_than_sight_gets_approximate_at_most() -> None:
    aura = means("other", "magical", "A")
    assert see(aura, antis=(anti("magical", "C"),), humanoid=True) is A


# --- DET-4 -----------------------------------------------------------------------------------------


def test_DET_4_locate_states_best_to_worst() -> None:
    assert [s.level for s in (P, A, U)] == [PINPOINTED, APPROXIMATE, UNLOCATED] == [2, 1, 0]
    assert [LocateState.from_level(n) for n in (0, 1, 2)] == [U, A, P]


def test_DET_4_locate_states_are_ordered_by_level_not_by_name() -> None:
    """Better for the observer is greater: the best over means is `max`, the worst is `min`."""
    assert U < A < P and P > A > U and U <= U and P >= A
    assert sorted([P, U, A]) == [U, A, P]
    assert max(U, A) is A and min(P, A) is A and max(P, U) is P
    assert ("pinpointed" < "unlocated") and P > U  # the names alone would order them the other way


# --- DET-5 -----------------------------------------------------------------------------------------


def test_DET_5_an_ordinary_eye_is_natural_unranked_sight_that_pinpoints_and_an_ear_hears_approximately() -> (
    None
):
    eye, ear = ORDINARY_SENSES
    assert (eye.sense, eye.essence, eye.rank, eye.capability, eye.range) == (
        Sense.SIGHT, Essence.NATURAL, Rank.UNRANKED, Capability.PINPOINT, None
    )  # fmt: skip
    assert (ear.sense, ear.essence, ear.rank, ear.capability) == (
        Sense.HEARING, Essence.NATURAL, Rank.UNRANKED, Capability.APPROXIMATE
    )  # fmt: skip
    assert Actor().detection == ORDINARY_SENSES


def test_DET_5_a_blinded_character_cant_locate_targets_by_sight() -> None:
    assert see(*ORDINARY_SENSES) is P
    assert see(*ORDINARY_SENSES, blinded=True) is A
    assert see(means("sight"), blinded=True) is U


def test_DET_5_a_deafened_character_cant_locate_targets_by_hearing() -> None:
    assert see(means("hearing"), deafened=True) is U
    assert see(*ORDINARY_SENSES, blinded=True, deafened=True) is U
    assert see(means("smell", capability="approximate"), blinded=True, deafened=True) is A


@pytest.mark.parametrize(
    ("distance", "expected"),
    [(9.99, P), (10.0, P), (10.01, A), (1000.0, A)],
    ids=["inside", "exactly at range", "just outside: hearing only", "far: hearing only"],
)
def test_DET_5_a_means_reaches_only_within_its_range(distance: float, expected: LocateState) -> None:
    assert (
        see(means("sight", range=10.0), means("hearing", capability="approximate"), distance=distance)
        is expected
    )


def test_DET_5_distance_is_3d_euclidean_in_scene_units() -> None:
    # 300 px, 400 px on a 100 px / 1.5 m grid: 7.5 m across; 10 m up: 12.5 m.
    assert distance_squared(300, 400, 10, (1.5 / 100) ** 2) == pytest.approx(12.5**2)


# --- DET-6 -----------------------------------------------------------------------------------------


def test_DET_6_if_no_target_has_anti_detection_everyone_is_exposed() -> None:
    assert see(*ORDINARY_SENSES) is P


def test_DET_6_stage_one_uses_the_best_usable_means_at_its_capability() -> None:
    assert see(means("hearing", capability="approximate")) is A
    assert see() is U


# --- DET-7 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "expected"),
    [("B", P), ("C", A), ("D", U)],
    ids=[
        "higher Rank: pinpointed at once",
        "same Rank: approximately located at once",
        "lower Rank: can't locate",
    ],
)
def test_DET_7_stage_two_compares_detection_with_anti_detection(rank: str, expected: LocateState) -> None:
    assert see(means("sight", "magical", rank), antis=(anti("magical", "C"),)) is expected


def test_DET_7_several_anti_detection_means_count_the_worst_for_the_observer_per_means() -> None:
    sight = means("sight", "magical", "B")
    # magical C alone: B > C: pinpoint. natural B: B+1 > B: pinpoint. magical A: lower: unlocated.
    assert see(sight, antis=(anti("magical", "C"), anti("natural", "B"))) is P
    assert see(sight, antis=(anti("magical", "C"), anti("magical", "B"))) is A
    assert see(sight, antis=(anti("magical", "C"), anti("magical", "A"))) is U


def test_DET_7_the_observer_gets_its_best_result_over_all_its_means() -> None:
    hidden = (anti("magical", "B"),)
    weak = means("sight", "magical", "D")
    strong = means("other", "technological", "B", capability="approximate")
    assert see(weak, antis=hidden) is U
    assert see(weak, strong, antis=hidden, humanoid=False) is A


def test_DET_7_the_worst_anti_detection_is_chosen_per_means_not_once() -> None:
    # Against sight (magical C) the anomalous C cloak is worst; against the anomalous sense the
    # magical B veil is worst. Each means still approximates: best over means is approximate.
    hidden = (anti("anomalous", "C"), anti("magical", "B"))
    sight = means("sight", "magical", "C")
    odd = means("other", "anomalous", "C", capability="approximate")
    assert see(sight, antis=hidden) is U
    assert see(odd, antis=hidden, humanoid=False) is A
    assert see(sight, odd, antis=hidden) is A


def test_DET_7_explanation_names_each_means_and_ends_with_the_result() -> None:
    outcome = explain_locate(
        (means("sight", "magical", "C"), means("hearing", capability="approximate")),
        (anti("natural", "C"),),
        humanoid=True,
        deafened=True,
    )
    result, steps = outcome.state, outcome.steps
    assert result is P
    rules = [s.rule for s in steps]
    assert rules[0] == "DET-1" and "DET-2" in rules and "DET-5" in rules and rules[-1] == "DET-7"
    assert steps[-1].data == {"result": "pinpointed", "means": "magical sight"}


# --- DET-8 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stage_two", "capability", "expected"),
    [
        pytest.param(UNLOCATED, PINPOINTED, APPROXIMATE, id="couldn't locate: now approximate"),
        pytest.param(APPROXIMATE, PINPOINTED, PINPOINTED, id="had approximate: now pinpoints"),
        pytest.param(APPROXIMATE, APPROXIMATE, APPROXIMATE, id="approximate-only means stay approximate"),
        pytest.param(UNLOCATED, APPROXIMATE, APPROXIMATE, id="hearing only: approximate"),
    ],
)
def test_DET_8_a_win_raises_the_stage_two_state_one_step(
    stage_two: int, capability: int, expected: int
) -> None:
    assert raise_one_step(stage_two, capability) == expected


@pytest.mark.parametrize(
    ("observer", "hider", "wins"),
    [(2, 1, True), (1, 1, True), (0, 0, False), (1, 2, False), (3, 0, True)],
    ids=["more", "tie goes to the detecting side (shield)", "no success", "fewer", "unopposed"],
)
def test_DET_8_observer_wins_with_a_success_and_at_least_the_hiders_successes(
    observer: int, hider: int, wins: bool
) -> None:
    assert active_wins(observer, hider) is wins


def test_DET_8_per_investigation_against_dex_stealth_with_supplied_dice() -> None:
    mods = contest_modifiers(
        unlocated=True, noisy=False, hearing=True, smell=False, attacked=False, made_sound=False,
        unusual_smell=False, moved_over_half_speed=False, within_approximate_range=False,
        within_sensory_range=False,
    )  # fmt: skip
    outcome = contest(4, 2, mods, SuppliedDice([8, 10, 3, 1, 9]), SuppliedDice([8] + [1] * 11))
    assert (outcome.observer_pool, outcome.hider_pool) == (4, 12)
    assert (outcome.observer_roll.successes, outcome.hider_roll.successes) == (3, 1)
    assert outcome.observer_wins


def test_DET_8_the_pools_bases_are_per_plus_investigation_and_dex_plus_stealth() -> None:
    assert spot_pool_base(perception=3, investigation=2) == 5
    assert hide_pool_base(dexterity=4, stealth=0) == 4
    assert spot_pool_base(0, 0) == hide_pool_base(0, 0) == 0


# --- DET-9 -----------------------------------------------------------------------------------------

NONE = dict(
    unlocated=False, noisy=False, hearing=True, smell=True, attacked=False, made_sound=False,
    unusual_smell=False, moved_over_half_speed=False, within_approximate_range=False,
    within_sensory_range=False,
)  # fmt: skip


@pytest.mark.parametrize(
    ("situation", "side", "dp"),
    [
        pytest.param({"unlocated": True}, "hider", 10, id="can't be located: invisible: Stealth +10"),
        pytest.param({"noisy": True}, "observer", -2, id="noisy surroundings: -2"),
        pytest.param({"attacked": True}, "observer", 2, id="attacked or cast last turn: +2"),
        pytest.param({"made_sound": True}, "observer", 2, id="made a sound last turn: +2"),
        pytest.param({"unusual_smell": True}, "observer", 2, id="unusual smell: +2"),
        pytest.param({"moved_over_half_speed": True}, "observer", 2, id="moved over half speed: +2"),
        pytest.param({"within_approximate_range": True}, "observer", 1, id="within approximate range: +1"),
        pytest.param({"within_sensory_range": True}, "observer", 1, id="within sensory range: +1"),
    ],
)
def test_DET_9_each_modifier(situation: dict[str, bool], side: str, dp: int) -> None:
    (modifier,) = contest_modifiers(**{**NONE, **situation})
    assert (modifier.side, modifier.dp) == (side, dp)


@pytest.mark.parametrize(
    "situation",
    [{"noisy": True}, {"attacked": True}, {"made_sound": True}],
    ids=["noise", "attack or spell", "sound"],
)
def test_DET_9_hearing_modifiers_do_not_apply_to_an_observer_without_hearing(
    situation: dict[str, bool],
) -> None:
    assert contest_modifiers(**{**NONE, "hearing": False, **situation}) == ()


def test_DET_9_the_smell_bonus_needs_a_sense_of_smell() -> None:
    assert contest_modifiers(**{**NONE, "smell": False, "unusual_smell": True}) == ()


def test_DET_9_moving_fast_needs_no_hearing() -> None:
    assert len(contest_modifiers(**{**NONE, "hearing": False, "moved_over_half_speed": True})) == 1


def test_DET_9_all_modifiers_stack() -> None:
    every = {key: True for key in NONE}
    mods = contest_modifiers(**every)
    assert sum(m.dp for m in mods if m.side == "observer") == -2 + 2 + 2 + 2 + 2 + 1 + 1
    assert sum(m.dp for m in mods if m.side == "hider") == 10


# --- DET-10 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("located", "spell", "counts", "allowed", "chance", "guess"),
    [
        pytest.param(P, None, (5, 3, 7), True, 1.0, False, id="pinpointed: attack freely"),
        pytest.param(A, None, (2, 1, 3), True, 1.0, False, id="approximate: halved, rounded down"),
        pytest.param(
            U, None, (2, 1, 3), True, 1.0, True, id="unlocated: guessed position, right guess approximate"
        ),
        pytest.param(P, SpellKind.TARGETED, (5, 3, 7), True, 1.0, False, id="pinpointed: targeted spell"),
        pytest.param(
            A, SpellKind.TARGETED, (5, 3, 7), True, 0.5, False, id="approximate: targeted spell half chance"
        ),
        pytest.param(
            U, SpellKind.TARGETED, (5, 3, 7), False, 0.0, False, id="unlocated: never a spell's target"
        ),
        pytest.param(A, SpellKind.AREA, (5, 3, 7), True, 1.0, False, id="approximate: area spell as normal"),
        pytest.param(U, SpellKind.AREA, (5, 3, 7), True, 1.0, False, id="unlocated: area spell as normal"),
    ],
)
def test_DET_10_consequences_of_locating(
    located: LocateState,
    spell: SpellKind | None,
    counts: tuple[int, int, int],
    allowed: bool,
    chance: float,
    guess: bool,
) -> None:
    result = attack_consequence(located, 5, 3, 7, spell)
    assert (result.successes, result.extra_successes, result.effect_points) == counts
    assert (result.spell_allowed, result.spell_chance, result.guessed_position_only) == (
        allowed,
        chance,
        guess,
    )


@pytest.mark.parametrize(("successes", "extra"), [(1, 0), (0, 0), (2, 2), (3, 2)])
def test_DET_10_DICE_3_halved_to_no_success_the_extra_successes_count_for_nothing(
    successes: int, extra: int
) -> None:
    """Extra successes "only add to a roll that already succeeded": an approximate target halves 1
    success to 0, and the 4 extra successes then add nothing (2 once a success is left)."""
    result = attack_consequence(A, successes, 4, 2)
    assert (result.successes, result.extra_successes) == (successes // 2, extra)


# --- properties --------------------------------------------------------------------------------------

senses = st.sampled_from(list(Sense))
essences = st.sampled_from(list(Essence))
ranks = st.sampled_from(list(Rank))
ranges = st.one_of(st.none(), st.sampled_from([0.0, 1.5, 5.0, 12.0]))
detection_means = st.builds(
    DetectionMeans,
    name=st.just("m"),
    sense=senses,
    essence=essences,
    rank=ranks,
    capability=st.sampled_from(list(Capability)),
    range=ranges,
)
anti_means = st.builds(AntiDetectionMeans, name=st.just("a"), essence=essences, rank=ranks)
distances = st.sampled_from([0.0, 1.5, 4.0, 5.0, 9.0, 12.0, 50.0])


@settings(max_examples=400)
@given(
    st.lists(detection_means, max_size=4),
    st.lists(anti_means, max_size=3),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    distances,
)
def test_DET_7_the_shared_profile_step_function_agrees_with_the_rule_by_rule_reading(
    detection: list[DetectionMeans],
    antis: list[AntiDetectionMeans],
    humanoid: bool,
    blinded: bool,
    deafened: bool,
    distance: float,
) -> None:
    profile = ObserverProfile(detection, humanoid=humanoid, blinded=blinded, deafened=deafened)
    slow = locate(
        detection, antis, humanoid=humanoid, blinded=blinded, deafened=deafened, distance2=distance**2
    )
    assert profile.reach(anti_key(antis)).at(distance**2) == slow.level


@given(
    st.lists(detection_means, min_size=1, max_size=4),
    st.data(),
    st.lists(anti_means, max_size=3),
    st.booleans(),
    distances,
)
def test_DET_2_raising_an_observers_detection_rank_never_makes_its_result_worse(
    detection: list[DetectionMeans],
    data: st.DataObject,
    antis: list[AntiDetectionMeans],
    humanoid: bool,
    distance: float,
) -> None:
    index = data.draw(st.integers(0, len(detection) - 1))
    old = detection[index]
    higher = data.draw(st.sampled_from([r for r in Rank if r >= old.rank]))
    raised = [*detection[:index], old.model_copy(update={"rank": higher}), *detection[index + 1 :]]
    before = locate(detection, antis, humanoid=humanoid, distance2=distance**2)
    after = locate(raised, antis, humanoid=humanoid, distance2=distance**2)
    assert after.level >= before.level


def test_DET_7_build_reach_merges_steps_and_keeps_the_unlimited_level() -> None:
    reach = build_reach([(25.0, 2), (100.0, 2), (400.0, 1), (math.inf, 1)])
    assert reach == Reach(limits=(100.0,), levels=(2, 1))
    assert [reach.at(d2) for d2 in (0, 100, 101, 1e12)] == [2, 2, 1, 1]


def test_DET_1_the_first_step_names_each_anti_detection_with_its_essence_and_rank() -> None:
    steps = explain_locate(
        (means(),), (anti("magical", "C"), anti("technological", "unranked")), humanoid=True
    ).steps
    assert steps[0].rule == "DET-1"
    assert steps[0].data == {
        "anti": ["magical veil", "technological veil"],
        "antiDetection": [
            {"name": "magical veil", "essence": "magical", "rank": "C"},
            {"name": "technological veil", "essence": "technological", "rank": "unranked"},
        ],
    }


def test_DET_10_a_guessed_square_is_right_only_inside_the_targets_square() -> None:
    from vtt_bridge.rules.detection import guess_is_right

    assert guess_is_right(200, 0, 100, 200, 0) and guess_is_right(200, 0, 100, 299.5, 99.5)
    assert not guess_is_right(200, 0, 100, 300, 50) and not guess_is_right(200, 0, 100, 199, 50)


@pytest.mark.parametrize(
    ("locate", "right", "expected"),
    [
        (LocateState.UNLOCATED, None, None),  # no guess: a miss
        (LocateState.UNLOCATED, False, None),  # a wrong square: a miss
        (LocateState.UNLOCATED, True, (2, 1, 3)),  # a right guess counts as approximate
        (LocateState.APPROXIMATE, None, (2, 1, 3)),
        (LocateState.PINPOINTED, None, (5, 3, 7)),
    ],
)
def test_DET_10_an_attack_at_a_guessed_square(
    locate: LocateState, right: bool | None, expected: tuple[int, int, int] | None
) -> None:
    from vtt_bridge.rules.detection import attack_on_guess

    out = attack_on_guess(locate, right, 5, 3, 7)
    if expected is None:
        assert out is None
    else:
        assert out is not None and (out.successes, out.extra_successes, out.effect_points) == expected


def test_DET_10_an_attacks_steps_say_how_it_was_located_guessed_and_what_it_counts_for() -> None:
    assert locate_step("a", "t", LocateState.APPROXIMATE).key == "DET-4.attack"
    assert [guess_step("a", "t", right).key for right in (None, True, False)] == [
        "DET-10.noGuess",
        "DET-10.guessRight",
        "DET-10.guessWrong",
    ]
    full = verdict_step("a", "t", attack_consequence(LocateState.PINPOINTED, 5, 3, 7))
    halved = verdict_step("a", "t", attack_consequence(LocateState.APPROXIMATE, 5, 3, 7))
    spell = verdict_step("a", "t", attack_consequence(LocateState.UNLOCATED, 5, spell=SpellKind.TARGETED))
    assert (full.key, full.data["successes"]) == ("DET-10.full", 5)
    assert (halved.key, halved.data["successes"], halved.data["halved"]) == ("DET-10.halved", 2, True)
    assert spell.key == "DET-10.noSpell" and spell.data["spellAllowed"] is False
