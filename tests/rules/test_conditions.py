"""RANK-9 / RANK-12 tables: conditions, condition point kinds, emotion point kinds."""

from __future__ import annotations

from enum import StrEnum

import pytest

from vtt_bridge.document.derive import derive_actor
from vtt_bridge.document.models import Actor, Settings
from vtt_bridge.rules.conditions import (
    DERIVED,
    SERVER_WRITTEN,
    Condition,
    ConditionPointKind,
    EmotionPointKind,
)
from vtt_bridge.rules.health import HealthTrack


@pytest.mark.parametrize("table", [Condition, ConditionPointKind, EmotionPointKind])
def test_RANK_9_every_table_entry_has_a_slug_id_and_an_english_name(table: type[StrEnum]) -> None:
    for member in table:
        assert member.value == member.value.lower() and " " not in member.value
        name = member.english  # type: ignore[attr-defined]
        assert isinstance(name, str) and name[0].isupper()


def test_RANK_9_the_rulebook_lists_are_in_the_tables() -> None:
    points = "burn freeze pain nausea tinnitus dazzle crystallization mental-bind entangle paralysis stun"
    points += " charm bleed fatigue stall drowsiness limb-impairment"
    assert {kind.value for kind in ConditionPointKind} == set(points.split())
    assert {kind.value for kind in EmotionPointKind} == {"dejection", "elation", "fear"}
    listed = {"frozen", "nauseated", "petrified", "infatuated", "exhausted", "blinded", "deafened", "asleep"}
    assert listed <= {condition.value for condition in Condition}


def test_RANK_12_the_derived_conditions_are_those_the_document_derives() -> None:
    derived = derive_actor(Actor(health=HealthTrack(max=3, lethal=3)), Settings())
    assert {Condition(c) for c in derived.conditions} == DERIVED
    assert Condition.DEAD.derived and not Condition.FROZEN.derived and not Condition.ANNIHILATED.derived
    assert DERIVED | {Condition.ANNIHILATED} == SERVER_WRITTEN
