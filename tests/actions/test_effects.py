"""`affect` and `gainImmunity`: points and conditions meet immunities (RANK-3/5/9/10/12/13, IWR-2/5)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.actions.helpers import run
from vtt_bridge.actions import Context, Ruling
from vtt_bridge.actions.effects import ACTIONS
from vtt_bridge.actions.round import RoundAction, new_round
from vtt_bridge.document.models import Actor, NotFound, WorldState
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.rules.common import RuleViolation


def world(round: int = 1, **hero: Any) -> WorldState:
    return WorldState.model_validate(
        {
            "scene": {"id": "s", "round": round},
            "actors": {"hero": {"name": "Lu Ren", **hero}, "other": {"name": "Bystander"}},
        }
    )


def affect(state: WorldState, **effect: Any) -> Ruling:
    return run(state, {"kind": "affect", "actor": "hero", "effect": effect})


def hero(ruling: Ruling) -> Actor:
    return ruling.state.actors["hero"]


MAGE_SLAYER = {"kind": "flat-footed", "rank": "C", "source": "Title: Mage Slayer"}


@pytest.mark.parametrize(
    ("rank", "flat_footed"),
    [
        pytest.param("C", False, id="the C-Rank Stinger Tongue does not make Lu Ren flat-footed"),
        pytest.param("B", True, id="the B-Rank Nanaya Body Arts still makes Lu Ren flat-footed"),
    ],
)
def test_RANK_5_lu_ren_c_rank_flat_footed_immunity(rank: str, flat_footed: bool) -> None:
    state = world(immunities=[MAGE_SLAYER])
    ruling = affect(state, rank=rank, conditions=["flat-footed"], source="Zerg")
    assert hero(ruling).conditions.get("flat-footed", False) is flat_footed
    assert any(step.rule == "RANK-5" for step in ruling.log)
    if not flat_footed:
        assert ruling.state is state


def test_RANK_5_d_rank_mind_affecting_lets_a_rank_fear_points_through() -> None:
    state = world(immunities=[{"kind": "mind-affecting", "rank": "D"}])
    assert hero(affect(state, rank="A", emotionPoints={"fear": 2})).emotion_points == {"fear": 2}
    assert hero(affect(state, rank="D", emotionPoints={"fear": 2})).emotion_points == {}


def test_RANK_3_a_heightened_spell_deals_points_at_its_higher_rank() -> None:
    state = world(immunities=[{"kind": "mind-affecting", "rank": "C"}])
    ruling = affect(state, rank="C", rankWhenGained="B", emotionPoints={"dejection": 1})
    assert hero(ruling).emotion_points == {"dejection": 1}
    assert ruling.log[0].rule == "RANK-3"


def test_RANK_9_emotion_point_immunity_is_per_kind_and_uncontested() -> None:
    state = world(immunities=[{"kind": "emotion-points", "subject": "fear"}])
    ruling = affect(state, rank="S", emotionPoints={"fear": 3, "elation": 1})
    assert hero(ruling).emotion_points == {"elation": 1}
    assert ruling.log[0].rule == "RANK-9"


def test_RANK_12_condition_immunity_still_gains_the_points_but_not_the_condition() -> None:
    state = world(immunities=[{"kind": "condition", "subject": "frozen"}])
    ruling = affect(state, conditionPoints={"freeze": 4}, conditions=["frozen"])
    assert hero(ruling).condition_points == {"freeze": 4}
    assert "frozen" not in hero(ruling).conditions


def test_RANK_12_point_immunity_never_gains_the_points() -> None:
    state = world(
        immunities=[{"kind": "condition-points", "subject": "freeze"}], conditionPoints={"freeze": 1}
    )
    ruling = affect(state, conditionPoints={"freeze": 4, "burn": 2})
    assert hero(ruling).condition_points == {"freeze": 1, "burn": 2}


def test_RANK_12_points_add_up() -> None:
    state = world(conditionPoints={"burn": 2})
    assert hero(affect(state, conditionPoints={"burn": 3})).condition_points == {"burn": 5}


def test_RANK_10_poison_immunity_blocks_the_whole_poison_effect_by_rank() -> None:
    state = world(immunities=[{"kind": "poison", "rank": "C"}])
    effect = {"conditionPoints": {"nausea": 2}, "conditions": ["poisoned"], "traits": ["poison"]}
    assert affect(state, rank="C", **effect).state is state
    assert hero(affect(state, rank="B", **effect)).condition_points == {"nausea": 2}


def test_IWR_2_pf2e_effect_immunity_blocks_the_effect_and_conditions() -> None:
    state = world(iwr={"immunities": [{"type": "fear-effects"}, {"type": "blinded"}, {"type": "fire"}]})
    assert affect(state, rank="S", emotionPoints={"fear": 1}, traits=["fear"]).state is state
    assert "blinded" not in hero(affect(state, conditions=["blinded"])).conditions
    burned = affect(state, conditionPoints={"burn": 2}, traits=["fire"])
    assert hero(burned).condition_points == {"burn": 2}, "fire damage immunity does not block a fire effect"


def test_IWR_2_an_exception_lifts_a_condition_immunity() -> None:
    """'Immune to blinded except magical': a magical effect blinds, a mundane one does not."""
    state = world(iwr={"immunities": [{"type": "blinded", "exceptions": ["magical"]}]})
    assert hero(affect(state, conditions=["blinded"], traits=["magical"])).conditions.get("blinded")
    assert "blinded" not in hero(affect(state, conditions=["blinded"])).conditions


@pytest.mark.parametrize(("immunity", "condition"), [("poison", "poisoned"), ("disease", "diseased")])
def test_IWR_2_an_effect_category_immunity_keeps_its_condition_off(immunity: str, condition: str) -> None:
    """Immune to poison effects: no effect poisons the creature, even one that names no trait."""
    state = world(iwr={"immunities": [{"type": immunity}]})
    ruling = affect(state, conditions=[condition])
    assert condition not in hero(ruling).conditions
    assert [step.rule for step in ruling.log] == ["IWR-2"]


def test_IWR_5_a_temporary_immunity_ends_with_its_duration_and_with_its_combat() -> None:
    """Through round 3: the round-4 action ends it (a step says so); a new combat (round 1 again)
    ends every immunity counted in rounds; one without a duration stays."""

    def round_to(state: WorldState, number: int) -> Ruling:
        return new_round(state, RoundAction(kind="round", round=number), Context(roller=SeededRoller(0)))

    immunities = [
        {"effect": "blindness", "untilRound": 3},
        {"effect": "fear", "untilRound": 9},
        {"effect": "sleep"},
    ]
    state = world(round=3, temporaryImmunities=immunities)
    fourth = round_to(state, 4)
    assert [t.effect for t in hero(fourth).temporary_immunities] == ["fear", "sleep"]
    ended = [step.data for step in fourth.log if step.rule == "IWR-5"]
    assert ended == [{"actor": "hero", "ended": "blindness", "untilRound": 3}]
    assert hero(affect(fourth.state, conditions=["blinded"], traits=["blindness"])).conditions["blinded"]
    restarted = round_to(fourth.state, 1)
    assert [t.effect for t in hero(restarted).temporary_immunities] == ["sleep"]


@pytest.mark.parametrize(
    ("round", "creature", "source", "blocked"),
    [
        pytest.param(3, None, "anyone", True, id="within the duration, from any source: no effect"),
        pytest.param(6, None, "anyone", False, id="after the duration: the effect works"),
        pytest.param(3, "Vex", "Mira", False, id="naming a creature: others' effects work"),
    ],
)
def test_IWR_5_temporary_immunity_to_the_same_effect(
    round: int, creature: str | None, source: str, blocked: bool
) -> None:
    temporary = {"effect": "blindness", "untilRound": 5} | ({"creature": creature} if creature else {})
    state = world(round=round, temporaryImmunities=[temporary], conditions={"blinded": True})
    ruling = affect(state, conditions=["deafened"], traits=["blindness"], source=source)
    assert (ruling.state is state) is blocked
    assert hero(ruling).conditions["blinded"] is True, "an effect already active is not ended"


def test_RANK_13_gain_immunity_replaces_and_adds_the_reflex_bonus() -> None:
    state = world(immunities=[{"kind": "flat-footed", "rank": "D", "source": "Bloodline"}])
    ruling = run(state, {"kind": "gainImmunity", "actor": "hero", "immunity": MAGE_SLAYER})
    actor = hero(ruling)
    assert [i.model_dump(mode="json", exclude_none=True) for i in actor.immunities] == [MAGE_SLAYER]
    assert actor.save_bonuses.reflex == 2
    assert ruling.log[0].rule == "RANK-13"
    assert ruling.state.actors["other"] is state.actors["other"]
    assert actor.health is state.actors["hero"].health


def test_RANK_9_gain_immunity_adds_a_plain_immunity() -> None:
    state = world()
    ruling = run(
        state, {"kind": "gainImmunity", "actor": "hero", "immunity": {"kind": "damage", "subject": "fire"}}
    )
    assert hero(ruling).immunities[0].subject == "fire"
    assert hero(ruling).save_bonuses is state.actors["hero"].save_bonuses


@pytest.mark.parametrize(
    ("payload", "loc", "needle"),
    [
        pytest.param({"conditionPoints": {"itch": 1}}, ("effect", "conditionPoints", "itch", "[key]"),
                     "'burn'",
                     id="an unknown condition point kind lists the kinds"),
        pytest.param({"emotionPoints": {"anger": 1}}, ("effect", "emotionPoints", "anger", "[key]"), "'fear'",
                     id="an unknown emotion kind lists the kinds"),
        pytest.param({"conditions": ["sad"]}, ("effect", "conditions", 0), "'frozen'",
                     id="an unknown condition lists the conditions"),
        pytest.param({"conditionPoints": {"burn": -1}}, ("effect", "conditionPoints", "burn"), "0",
                     id="negative points"),
        pytest.param({"rank": "E"}, ("effect", "rank"), "'S'", id="Rank E"),
    ],
)  # fmt: skip
def test_RANK_9_bad_effects_are_invalid_with_path_and_allowed_values(
    payload: dict[str, Any], loc: tuple[str | int, ...], needle: str
) -> None:
    model, _ = ACTIONS["affect"]
    with pytest.raises(ValidationError) as error:
        model.model_validate({"kind": "affect", "actor": "hero", "effect": payload})
    problem = error.value.errors()[0]
    assert problem["loc"] == loc and needle in problem["msg"]


def test_RANK_9_bad_immunity_kind_in_gain_immunity_is_invalid() -> None:
    model, _ = ACTIONS["gainImmunity"]
    with pytest.raises(ValidationError) as error:
        model.model_validate({"kind": "gainImmunity", "actor": "hero", "immunity": {"kind": "lava"}})
    assert error.value.errors()[0]["loc"] == ("immunity", "kind")
    assert "'mind-affecting'" in error.value.errors()[0]["msg"]


def test_HEALTH_3_derived_conditions_cannot_be_set_by_an_effect() -> None:
    with pytest.raises(RuleViolation) as error:
        affect(world(), conditions=["dead"])
    assert error.value.path == ("effect", "conditions", 0)


def test_unknown_actor_is_not_found() -> None:
    with pytest.raises(NotFound):
        run(world(), {"kind": "affect", "actor": "ghost", "effect": {}})


@pytest.mark.parametrize(
    ("immunity", "effect", "what"),
    [
        pytest.param({"kind": "mind-affecting", "rank": "D"}, {"rank": "A", "emotionPoints": {"fear": 2}},
                     {"what": "points", "kind": "fear"}, id="points"),
        pytest.param(MAGE_SLAYER, {"rank": "C", "conditions": ["flat-footed"]},
                     {"what": "condition", "condition": "flat-footed"}, id="a condition"),
        pytest.param({"kind": "poison", "rank": "B"}, {"rank": "C", "traits": ["poison"]}, {"what": "effect"},
                     id="the whole effect"),
    ],
)  # fmt: skip
def test_RANK_5_every_immunity_check_names_what_it_meets(
    immunity: dict[str, Any], effect: dict[str, Any], what: dict[str, Any]
) -> None:
    ruling = affect(world(immunities=[immunity]), **effect)
    checks = [step for step in ruling.log if step.data and "immunity" in step.data]
    assert checks and all(step.rule == "RANK-5" for step in checks)
    for step in checks:
        assert step.data is not None
        assert {key: step.data[key] for key in what} == what
        assert isinstance(step.data["blocked"], bool) and step.data["effectRank"] == effect["rank"]
