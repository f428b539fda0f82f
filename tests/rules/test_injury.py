"""Taking damage, pure (rules/injury.py), and the rules the handlers used to decide: IWR-5's lapse at
a new round (rules/iwr.py) and the waking that recovering Willpower brings (rules/willpower.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vtt_bridge.rules.common import RuleViolation, Step
from vtt_bridge.rules.health import (
    Grade,
    HealthTrack,
    health_status,
    is_worsening,
    read_tracks,
    unconscious_from_injuries,
    worsen_tracks,
    wound_penalty,
)
from vtt_bridge.rules.injury import (
    at_guessed_square,
    check_token_shows,
    halve_damage,
    nobody_at_square,
    round_passes,
    take_damage,
)
from vtt_bridge.rules.iwr import DamageInstance, DealtDamage, TemporaryImmunity, lapse_temporary_immunities
from vtt_bridge.rules.willpower import Willpower, recover


def keys(steps: tuple[Step, ...]) -> list[str]:
    return [step.key for step in steps]


def test_HEALTH_11_temporary_hp_soaks_avoidable_damage_and_not_the_unavoidable() -> None:
    track = HealthTrack(max=7, temp_hp=3)
    dealt = (DealtDamage(0, Grade.LETHAL, 2), DealtDamage(1, Grade.BASHING, 1, unavoidable=True))
    taken = take_damage(dealt, track, None, Willpower(max=3, current=3))
    assert (taken.health.temp_hp, taken.health.lethal, taken.health.bashing) == (1, 0, 1)
    assert "HEALTH-11.unavoidable" in keys(taken.steps)


def test_HEALTH_2_no_damage_reaching_the_track_leaves_everything_as_it_was() -> None:
    track, will = HealthTrack(max=7, stabilized=True), Willpower(max=3, current=3, kept_conscious=True)
    taken = take_damage((DealtDamage(0, Grade.LETHAL, 0),), track, None, will)
    assert taken.health is track and taken.willpower is will and taken.second_health is None
    assert keys(taken.steps) == ["HEALTH-2.none"]


def test_HEALTH_4_and_WP_3_a_blow_that_gets_through_ends_stabilizing_and_staying_conscious() -> None:
    track = HealthTrack(max=3, lethal=3, stabilized=True, woken=True)
    will = Willpower(max=3, current=2, kept_conscious=True)
    taken = take_damage((DealtDamage(0, Grade.BASHING, 1),), track, None, will)
    assert not taken.health.stabilized and not taken.health.woken
    assert not taken.willpower.kept_conscious
    assert {"HEALTH-4.recheck", "WP-3.blow"} <= set(keys(taken.steps))


def test_IWR_5_a_new_round_ends_the_immunities_it_has_passed_and_a_restart_ends_every_counted_one() -> None:
    held = (
        TemporaryImmunity(effect="blindness", until_round=2),
        TemporaryImmunity(effect="fear", until_round=3),
        TemporaryImmunity(effect="poison"),
    )
    assert lapse_temporary_immunities("a", held, 3, restarted=False).kept == held[1:]
    assert lapse_temporary_immunities("a", held, 2, restarted=False).kept is held
    restart = lapse_temporary_immunities("a", held, 1, restarted=True)
    assert restart.kept == held[2:] and keys(restart.steps) == ["IWR-5.ended", "IWR-5.ended"]


def test_HEALTH_3_and_WP_5_recovering_willpower_wakes_the_injured_and_the_drained() -> None:
    out_cold = HealthTrack(max=2, lethal=2)
    will = Willpower(max=3, current=0, drained=True)
    woke = recover(will, 1, out_cold, None, unconscious_at_zero=True)
    assert woke.health.woken and woke.willpower.current == 1
    assert keys(woke.steps)[-2:] == ["HEALTH-3.woken", "WP-5.awake"]
    awake = HealthTrack(max=2)
    plain = recover(Willpower(max=3, current=1), 1, awake, None, unconscious_at_zero=False)
    assert plain.health is awake and "HEALTH-3.woken" not in keys(plain.steps)


def test_HEALTH_13_worsening_goes_to_the_second_track_once_the_first_is_all_aggravated() -> None:
    first, second = HealthTrack(max=2, aggravated=2, woken=True), HealthTrack(max=3, lethal=2, aggravated=1)
    out = worsen_tracks(first, second)
    assert out.second_health is not None and out.second_health.aggravated == 2
    assert not out.health.woken and keys(out.steps) == ["HEALTH-13.worsening"]
    assert out.steps[0].data["track"] == "second"


def test_HEALTH_4_worsening_stays_on_the_first_track_and_leaves_a_stable_one_alone() -> None:
    first = HealthTrack(max=3, lethal=2, aggravated=1)
    assert keys(worsen_tracks(first, None).steps) == ["HEALTH-4.worsening"]
    stable = first.model_copy(update={"stabilized": True})
    out = worsen_tracks(stable, None)
    assert out.health is stable and out.steps == ()


def test_HEALTH_4_WP_3_HEALTH_10_a_round_worsens_then_lapses_staying_conscious_then_heals() -> None:
    track = HealthTrack(max=3, lethal=2, aggravated=1)
    will = Willpower(max=3, current=2, kept_conscious=True)
    passed = round_passes(track, None, will, fast_healing=(1,), regeneration=())
    assert keys(passed.steps)[:2] == [*keys(worsen_tracks(track, None).steps), "WP-3.round"]
    assert not passed.willpower.kept_conscious
    assert any(step.rule == "HEALTH-10" for step in passed.steps)
    assert passed.health != worsen_tracks(track, None).health  # healed after it worsened


def test_HEALTH_10_no_healing_once_the_worsening_killed() -> None:
    track = HealthTrack(max=2, lethal=1, aggravated=1)
    passed = round_passes(track, None, Willpower(max=3, current=3), fast_healing=(3,), regeneration=(3,))
    assert passed.health.aggravated == 2 and not any(step.rule == "HEALTH-10" for step in passed.steps)


def test_HEALTH_6_and_HEALTH_7_tracks_read_at_once_as_each_rule_reads_them() -> None:
    for track in (
        HealthTrack(max=5),
        HealthTrack(max=5, lethal=2, bashing=1),
        HealthTrack(max=3, lethal=2, aggravated=1),
        HealthTrack(max=3, aggravated=3),
        HealthTrack(max=0),
    ):
        for enabled in (False, True):
            reading = read_tracks(track, None, enabled)
            assert reading.status is health_status(track)
            assert reading.out_from_injuries is unconscious_from_injuries(track)
            assert reading.worsening is is_worsening(track)
            assert reading.wound_penalty == wound_penalty(track, enabled)


def test_HEALTH_6_and_EP_2_the_dead_and_the_annihilated_pass_a_round_as_they_are() -> None:
    will = Willpower(max=3, current=2, kept_conscious=True)
    for track, annihilated in (
        (HealthTrack(max=2, aggravated=2), False),
        (HealthTrack(max=3, lethal=3), True),
    ):
        passed = round_passes(track, None, will, fast_healing=(2,), regeneration=(), annihilated=annihilated)
        assert passed.health is track and passed.willpower is will and passed.steps == ()


# ---- DET-10 and IWR-8: whom a damage hits, what an attack's damage counts for -------------------------


def test_DET_10_an_attack_on_an_approximate_target_deals_half_of_each_instance_rounded_down() -> None:
    """ "Their successes, extra successes, and effect points all count only half, rounded down": the
    damage those count for is halved the same way, instance by instance (5 -> 2, 4 -> 2, 1 -> 0)."""
    instances = tuple(DamageInstance(amount=n, grade=g) for n, g in ((5, "L"), (4, "B"), (1, "A")))
    halved = halve_damage(instances, "token0", "token2")
    assert [(i.amount, i.grade) for i in halved.instances] == [(2, "L"), (2, "B"), (0, "A")]
    (step,) = halved.steps
    assert (step.rule, step.key) == ("DET-10", "DET-10.damageHalved")
    assert step.text == "the damage counts half: 5 → 2, 4 → 2, 1 → 0"
    assert step.data == {"attacker": "token0", "target": "token2", "before": [5, 4, 1], "after": [2, 2, 0]}


def test_DET_10_an_attack_at_a_square_where_nobody_stands_misses() -> None:
    """ "A character can assume the target is at some position and attack it": nobody there, no hit."""
    step = nobody_at_square("token0")
    assert (step.rule, step.key, step.data) == (
        "DET-10",
        "DET-10.noTarget",
        {"attacker": "token0", "guessed": True, "right": False},
    )
    assert step.text == "nobody stands at the guessed square: the attack misses"


def test_DET_10_only_an_attack_naming_neither_target_nor_token_goes_at_a_guessed_square() -> None:
    assert at_guessed_square(None, True, None)
    assert not at_guessed_square("actor2", True, "token2")
    assert not at_guessed_square("actor2", False, None)
    with pytest.raises(RuleViolation) as refused:
        at_guessed_square("actor2", True, None)
    assert (refused.value.rule, refused.value.path) == ("DET-10", ("attack", "token"))


@pytest.mark.parametrize(("attack", "token"), [(False, None), (True, "token2")])
def test_IWR_8_a_damage_names_its_target(attack: bool, token: str | None) -> None:
    with pytest.raises(RuleViolation) as refused:
        at_guessed_square(None, attack, token)
    assert (refused.value.rule, refused.value.path) == ("IWR-8", ("target",))


def test_DET_10_the_attacks_token_shows_the_damaged_actor() -> None:
    check_token_shows("token2", "actor2", "actor2")
    check_token_shows("gone", None, "actor2")  # no such token: the attack's own check says so
    with pytest.raises(RuleViolation) as refused:
        check_token_shows("token2", "actor2", "actor1")
    assert (refused.value.rule, refused.value.path) == ("DET-10", ("attack", "token"))
    assert refused.value.message == "token 'token2' shows 'actor2', not the damaged actor 'actor1'"


def _written(steps: tuple[Step, ...] | list[Step]) -> list[tuple[str, str, list[tuple[str, object]], str]]:
    """Each step as the wire writes it: its data's fields in their order."""
    return [(s.rule, s.text, list(s.data.items()), s.key) for s in steps]


@pytest.mark.parametrize(
    ("instances", "first", "second"),
    [
        ([{"amount": 1, "grade": "B"}], HealthTrack(max=7), None),
        (
            [{"amount": 2, "grade": "L", "critical": True}, {"amount": 3, "grade": "B", "type": "fire"}],
            HealthTrack(max=5, bashing=1),
            None,
        ),
        (
            [{"amount": 4, "grade": "A"}, {"amount": 2, "grade": "L"}],
            HealthTrack(max=3, lethal=1),
            HealthTrack(max=2),
        ),
        ([{"amount": 9, "grade": "A"}], HealthTrack(max=2), None),
    ],
)
def test_IWR_8_and_HEALTH_2_steps_told_their_subjects_are_those_about_gives(
    instances: list[dict[str, object]], first: HealthTrack, second: HealthTrack | None
) -> None:
    """IWR-8, HEALTH-2, HEALTH-13: the rules that write the damaged actor into their steps themselves
    (`subjects`) give, once the handler's `about` has added it to the rest, the very steps (fields
    in the same order) that `about` makes of their steps without it; it keeps each told step as it is."""
    from vtt_bridge.rules.common import about
    from vtt_bridge.rules.iwr import Iwr, resolve_damage

    hit = tuple(DamageInstance.model_validate(i) for i in instances)
    will = Willpower(max=3, current=3)

    def ruled(subjects: dict[str, str]) -> tuple[Step, ...]:
        resolution = resolve_damage(
            hit, iwr=Iwr(), immunities=(), temporary_immunities=(), round=1, subjects=subjects
        )
        taken = take_damage(resolution.dealt, first, second, will, subjects)
        return (*resolution.steps, *taken.steps)

    told, plain = ruled({"actor": "hero"}), ruled({})
    kept = about(told, actor="hero")
    assert _written(kept) == _written(about(plain, actor="hero"))
    assert _written(told) != _written(plain)  # the subjects were written at all
    assert all(a is b for a, b in zip(kept, told, strict=True) if "actor" in b.data)


@st.composite
def _tracks(draw: st.DrawFn) -> HealthTrack:
    max_ = draw(st.integers(0, 6))
    aggravated = draw(st.integers(0, max_))
    lethal = draw(st.integers(0, max_ - aggravated))
    bashing = draw(st.integers(0, max_ - aggravated - lethal))
    return HealthTrack(
        max=max_, bashing=bashing, lethal=lethal, aggravated=aggravated, stabilized=draw(st.booleans())
    )


@given(_tracks(), st.one_of(st.none(), _tracks()), st.booleans())
def test_HEALTH_3_to_7_a_track_read_at_once_reads_as_each_rule_on_any_counts(
    first: HealthTrack, second: HealthTrack | None, enabled: bool
) -> None:
    """HEALTH-3..7, HEALTH-13: `read_tracks` (one track: its counts read once) gives what each rule
    gives, for every small track, stabilized or not, with or without a second track."""
    reading = read_tracks(first, second, enabled)
    assert reading.status is health_status(first, second)
    assert reading.out_from_injuries is unconscious_from_injuries(first, second)
    assert reading.worsening is is_worsening(first, second)
    assert reading.wound_penalty == wound_penalty(first, enabled)
