"""`affect_actor`: an effect's points and conditions against both kinds of immunity, decided and
explained without a server (RANK-3/5/12, IWR-2/5, HEALTH-3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.effects import Effect, affect_actor
from vtt_bridge.rules.immunities import Immunity
from vtt_bridge.rules.iwr import Iwr, TemporaryImmunity


@dataclass
class Target:
    """A plain actor for the rules: what `Affectable` asks for and nothing more."""

    immunities: tuple[Immunity, ...] = ()
    temporary_immunities: tuple[TemporaryImmunity, ...] = ()
    iwr: Iwr = field(default_factory=Iwr)
    condition_points: dict[str, int] = field(default_factory=dict)
    emotion_points: dict[str, int] = field(default_factory=dict)
    conditions: dict[str, bool] = field(default_factory=dict)


def effect(**fields: Any) -> Effect:
    return Effect.model_validate(fields)


def test_RANK_3_the_effect_rank_is_the_higher_of_used_and_gained_and_is_explained() -> None:
    target = Target(immunities=(Immunity(kind="mind-affecting", rank="C"),))
    affected = affect_actor(target, effect(rank="D", rankWhenGained="B", emotionPoints={"fear": 2}), 1)
    assert affected.steps[0].key == "RANK-3.rank" and affected.steps[0].data == {"rank": "B"}
    assert affected.emotion_points == {"fear": 2}
    lower = affect_actor(target, effect(rank="D", emotionPoints={"fear": 2}), 1)
    assert lower.emotion_points == {}


def test_RANK_5_a_contested_condition_immunity_blocks_a_lower_rank_and_not_a_higher_one() -> None:
    target = Target(immunities=(Immunity(kind="flat-footed", rank="C"),))
    blocked = affect_actor(target, effect(rank="C", conditions=["flat-footed"]), 1)
    assert blocked.conditions == {}
    assert "RANK-5.condition" not in [s.key for s in blocked.steps]
    through = affect_actor(target, effect(rank="B", conditions=["flat-footed"]), 1)
    assert through.conditions == {"flat-footed": True}
    assert through.steps[-1].key == "RANK-5.condition"
    assert through.steps[-1].data == {"condition": "flat-footed"}


def test_RANK_12_condition_points_add_up_and_name_the_total() -> None:
    target = Target(condition_points={"burn": 1})
    affected = affect_actor(target, effect(conditionPoints={"burn": 2}), 1)
    assert affected.condition_points == {"burn": 3}
    assert [(s.key, s.data) for s in affected.steps] == [
        ("RANK-12.points", {"kind": "burn", "points": 2, "total": 3})
    ]
    assert target.condition_points == {"burn": 1}


def test_IWR_2_a_pf2e_immunity_stops_an_effect_with_its_trait_and_keeps_its_condition_off() -> None:
    target = Target(iwr=Iwr.model_validate({"immunities": [{"type": "poison"}]}))
    whole = affect_actor(target, effect(traits=["poison"], conditionPoints={"nausea": 2}), 1)
    assert [s.key for s in whole.steps] == ["IWR-2.trait"] and whole.condition_points == {}
    condition = affect_actor(target, effect(conditions=["poisoned"]), 1)
    assert [s.key for s in condition.steps] == ["IWR-2.condition"] and condition.conditions == {}


def test_IWR_5_a_temporary_immunity_holds_through_its_round_only() -> None:
    target = Target(temporary_immunities=(TemporaryImmunity(effect="blindness", until_round=2),))
    held = affect_actor(target, effect(traits=["blindness"], conditions=["blinded"]), 2)
    assert [s.key for s in held.steps] == ["IWR-5.temporary"] and held.conditions == {}
    over = affect_actor(target, effect(traits=["blindness"], conditions=["blinded"]), 3)
    assert over.conditions == {"blinded": True}


def test_HEALTH_3_an_effect_cannot_set_a_server_written_condition() -> None:
    with pytest.raises(RuleViolation) as refused:
        affect_actor(Target(), effect(conditions=["frozen", "dead"]), 1)
    assert refused.value.rule == "HEALTH-3"
    assert refused.value.path == ("effect", "conditions", 1)
