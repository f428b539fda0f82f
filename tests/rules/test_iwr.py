"""IWR-1..8 and RANK-5/9/10 in the damage pipeline (`resolve_damage`)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from vtt_bridge.rules.damage import DAMAGE_GROUPS, DamageType
from vtt_bridge.rules.immunities import Immunity
from vtt_bridge.rules.iwr import (
    DamageInstance,
    DamageResolution,
    Iwr,
    TemporaryImmunity,
    _defended,
    resolve_damage,
)


def instance(type_: str, amount: int, **fields: Any) -> DamageInstance:
    return DamageInstance.model_validate({"amount": amount, "grade": "L", "type": type_, **fields})


def iwr(**fields: Any) -> Iwr:
    return Iwr.model_validate(fields)


def resolve(
    *instances: DamageInstance,
    target: Iwr | None = None,
    immunities: list[dict[str, Any]] | None = None,
    temporary: list[dict[str, Any]] | None = None,
    round: int = 1,
) -> DamageResolution:
    return resolve_damage(
        instances,
        iwr=target or Iwr(),
        immunities=[Immunity.model_validate(i) for i in immunities or []],
        temporary_immunities=[TemporaryImmunity.model_validate(t) for t in temporary or []],
        round=round,
    )


def amounts(resolution: DamageResolution) -> list[int]:
    return [dealt.amount for dealt in resolution.dealt]


def rules(resolution: DamageResolution) -> list[str]:
    return [step.rule for step in resolution.steps]


NON_MAGICAL_BLUDGEONING = [{"type": "bludgeoning", "value": 5, "exceptions": ["magical"]}]
PHYSICAL_EXCEPT_SILVER = [{"type": "physical", "value": 10, "exceptions": ["silver"]}]
FIRE_3_ENERGY_5 = [{"type": "fire", "value": 3}, {"type": "energy", "value": 5}]
BLIND_TO_10 = {"effect": "blindness", "untilRound": 10}


# --- IWR-1 / IWR-2 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instances", "immune", "expected"),
    [
        pytest.param([instance("fire", 9)], "fire", [0], id="immunity to fire ignores all fire damage"),
        pytest.param([instance("fire", 5), instance("acid", 4)], "fire", [0, 4],
                     id="a spell of fire and acid still deals its acid to a fire-immune target"),
        pytest.param([instance("acid", 4, traits=["fire"])], "fire", [4],
                     id="damage-type immunity blocks only that damage, even when the effect has that trait"),
        pytest.param([instance("slashing", 6)], "physical", [0], id="immunity to physical covers slashing"),
        pytest.param([instance("ballistic", 6)], "physical", [0], id="ballistic is physical"),
        pytest.param([instance("radiant", 6)], "energy", [0], id="radiant is energy"),
        pytest.param([instance("mental", 6)], "energy", [6], id="mental is not energy"),
        pytest.param([instance("untyped", 6)], "all-damage", [0], id="all-damage covers every type"),
    ],
)  # fmt: skip
def test_IWR_1_immunity_to_a_damage_type(
    instances: list[DamageInstance], immune: str, expected: list[int]
) -> None:
    result = resolve(*instances, target=iwr(immunities=[{"type": immune}]))
    assert amounts(result) == expected
    assert rules(result).count("IWR-1") == expected.count(0)


@pytest.mark.parametrize(
    ("instances", "immune", "expected"),
    [
        pytest.param([instance("void", 8, traits=["death"]), instance("slashing", 3)], "death-effects",
                     [0, 0],
                     id="immunity to death effects blocks the whole effect, damage included"),
        pytest.param([instance("piercing", 2, traits=["poison"]), instance("poison", 4, traits=["poison"])],
                     "poison", [0, 0], id="immunity to poison blocks the poisoned dart's piercing too"),
        pytest.param([instance("cold", 5, traits=["disease"])], "disease", [0], id="immunity to disease"),
        pytest.param([instance("mental", 5, traits=["fear"])], "fear-effects", [0],
                     id="any x-effects category blocks effects with trait x"),
        pytest.param([instance("fire", 5, traits=["magical"])], "magic", [5],
                     id="an unrelated category does nothing"),
    ],
)  # fmt: skip
def test_IWR_2_immunity_to_an_effect_category_blocks_the_whole_effect(
    instances: list[DamageInstance], immune: str, expected: list[int]
) -> None:
    result = resolve(*instances, target=iwr(immunities=[{"type": immune}]))
    assert amounts(result) == expected
    assert ("IWR-2" in rules(result)) is (expected != [5])


def test_IWR_1_immunity_exceptions_are_or_ed() -> None:
    target = iwr(immunities=[{"type": "physical", "exceptions": ["adamantine", "magical"]}])
    result = resolve(
        instance("slashing", 5),
        instance("slashing", 5, materials=["adamantine"]),
        target=target,
    )
    assert amounts(result) == [0, 5]
    assert amounts(resolve(instance("piercing", 4, traits=["magical"]), target=target)) == [4]


# --- IWR-3 / IWR-4 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        pytest.param(iwr(), 12, id="a critical hit deals double damage"),
        pytest.param(iwr(immunities=[{"type": "critical-hits"}]), 6,
                     id="immune to critical hits: normal, not double, damage"),
    ],
)  # fmt: skip
def test_IWR_3_critical_hits(target: Iwr, expected: int) -> None:
    result = resolve(instance("slashing", 6, critical=True), target=target)
    assert amounts(result) == [expected]
    assert "IWR-3" in rules(result)


def test_IWR_4_immune_to_nonlethal_takes_no_damage_from_nonlethal_attacks_whatever_the_type() -> None:
    construct = iwr(immunities=[{"type": "nonlethal-attacks"}])
    fist = instance("bludgeoning", 4, grade="B", traits=["nonlethal", "unarmed"])
    assert amounts(resolve(fist, target=construct)) == [0]
    assert rules(resolve(fist, target=construct))[-2] == "IWR-4"
    assert amounts(resolve(instance("bludgeoning", 4, traits=["unarmed"]), target=construct)) == [4]


# --- IWR-5 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("temporary", "round", "source", "expected"),
    [
        pytest.param(BLIND_TO_10, 5, "anyone", 0,
                     id="a repeat within the duration does nothing, from any source"),
        pytest.param(BLIND_TO_10, 10, "anyone", 0, id="the last round counts"),
        pytest.param(BLIND_TO_10, 11, "anyone", 3, id="after it, the effect works"),
        pytest.param({"effect": "blindness"}, 99, "anyone", 0, id="without an end, until removed"),
        pytest.param({"effect": "blindness", "creature": "Vex"}, 1, "Vex", 0,
                     id="naming a creature: that creature's effect is blocked"),
        pytest.param({"effect": "blindness", "creature": "Vex"}, 1, "Mira", 3,
                     id="naming a creature: another's effect works"),
    ],
)  # fmt: skip
def test_IWR_5_temporary_immunity(temporary: dict[str, Any], round: int, source: str, expected: int) -> None:
    hit = instance("force", 3, traits=["blindness", "spell"], source=source)
    result = resolve(hit, temporary=[temporary], round=round)
    assert amounts(result) == [expected]
    assert ("IWR-5" in rules(result)) is (expected == 0)


# --- IWR-6 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("roll", range(2, 13))
def test_IWR_6_2d6_fire_against_weakness_fire_5_is_2d6_plus_5(roll: int) -> None:
    result = resolve(instance("fire", roll), target=iwr(weaknesses=[{"type": "fire", "value": 5}]))
    assert amounts(result) == [roll + 5]


@pytest.mark.parametrize(
    ("instances", "weaknesses", "expected"),
    [
        pytest.param([instance("slashing", 6), instance("fire", 4)],
                     [{"type": "slashing", "value": 2}, {"type": "fire", "value": 5}], [8, 9],
                     id="slashing 6 + fire 4 vs weakness slashing 2 and fire 5 is 8 + 9"),
        pytest.param([instance("fire", 3), instance("cold", 3)], [{"type": "energy", "value": 4}], [7, 7],
                     id="one energy weakness 4 against fire 3 + cold 3 is 7 + 7"),
        pytest.param([instance("slashing", 5, materials=["cold-iron"])],
                     [{"type": "cold-iron", "value": 5}, {"type": "slashing", "value": 3}], [10],
                     id="a cold iron axe vs weakness cold iron and slashing: only the highest"),
        pytest.param([instance("untyped", 0, traits=["water"])], [{"type": "water", "value": 5}], [5],
                     id="contact with a harmless substance deals the weakness value"),
        pytest.param([instance("untyped", 0, traits=["water"]), instance("untyped", 0, traits=["water"])],
                     [{"type": "water", "value": 5}], [5, 0],
                     id="the harmless substance hurts once per effect"),
        pytest.param([instance("fire", 0)], [{"type": "fire", "value": 5}], [0],
                     id="no damage of a type: no weakness to that type"),
        pytest.param([instance("slashing", 4, traits=["magical"])],
                     [{"type": "slashing", "value": 3, "exceptions": ["magical"]}], [4],
                     id="an exception keeps the weakness off"),
        pytest.param([instance("piercing", 4)], [{"type": "fire", "value": 3}], [4], id="other types: none"),
        pytest.param([instance("bludgeoning", 4, traits=["water"]), instance("cold", 3)],
                     [{"type": "water", "value": 5}], [9, 3],
                     id="a wave of water and cold: the water weakness once per effect, the first instance"),
        pytest.param([instance("bludgeoning", 4, traits=["water"]), instance("untyped", 0, traits=["water"])],
                     [{"type": "water", "value": 5}], [9, 0],
                     id="the water that hurt on the first instance does not hurt again on contact"),
        pytest.param([instance("slashing", 5, materials=["silver"]),
                      instance("piercing", 3, materials=["silver"])],
                     [{"type": "silver", "value": 4}], [9, 3],
                     id="a material's weakness once per hit"),
        pytest.param([instance("fire", 4, traits=["water"]), instance("cold", 3)],
                     [{"type": "water", "value": 5}, {"type": "cold", "value": 2}], [9, 5],
                     id="the substance spent, a damage type's weakness still counts on its own instance"),
        pytest.param([instance("slashing", 5), instance("slashing", 3, grade="B")],
                     [{"type": "slashing", "value": 5}], [10, 3],
                     id="one slashing instance in two grades: the weakness once, on the first"),
    ],
)  # fmt: skip
def test_IWR_6_weaknesses(
    instances: list[DamageInstance], weaknesses: list[dict[str, Any]], expected: list[int]
) -> None:
    result = resolve(*instances, target=iwr(weaknesses=weaknesses))
    assert amounts(result) == expected


# --- IWR-7 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instances", "resistances", "expected"),
    [
        pytest.param([instance("slashing", 7), instance("fire", 4)], [{"type": "all-damage", "value": 5}],
                     [2, 0], id="7 slashing + 4 fire vs resistance 5 to all damage is 2 + 0"),
        pytest.param([instance("bludgeoning", 8)], NON_MAGICAL_BLUDGEONING,
                     [3], id="resistance to non-magical bludgeoning reduces a plain club"),
        pytest.param([instance("bludgeoning", 8, traits=["magical"])],
                     NON_MAGICAL_BLUDGEONING, [8],
                     id="resistance to non-magical bludgeoning: a +1 mace deals full damage"),
        pytest.param([instance("piercing", 8)], NON_MAGICAL_BLUDGEONING,
                     [8], id="resistance to non-magical bludgeoning: a plain spear deals full damage"),
        pytest.param([instance("slashing", 12)], PHYSICAL_EXCEPT_SILVER,
                     [2], id="resistance 10 to physical except silver reduces steel"),
        pytest.param([instance("slashing", 12, materials=["silver"])],
                     PHYSICAL_EXCEPT_SILVER, [12],
                     id="resistance 10 to physical except silver: a silver weapon deals full damage"),
        pytest.param([instance("fire", 9)], FIRE_3_ENERGY_5, [4],
                     id="several resistances apply: only the highest"),
        pytest.param([instance("fire", 9)], [{"type": "fire", "value": 3, "doubleVs": ["non-magical"]}], [3],
                     id="doubleVs doubles the resistance"),
        pytest.param([instance("fire", 9, traits=["magical"])],
                     [{"type": "fire", "value": 3, "doubleVs": ["non-magical"]}], [6],
                     id="doubleVs not met: the plain value"),
        pytest.param([instance("fire", 2)], [{"type": "fire", "value": 30}], [0], id="never below 0"),
        pytest.param([instance("fire", 9, unavoidable=True)], [{"type": "fire", "value": 5}], [9],
                     id="unavoidable damage is not reduced"),
        pytest.param([instance("slashing", 4, grade="B"), instance("slashing", 4)],
                     [{"type": "slashing", "value": 5}], [0, 3],
                     id="one slashing instance in two grades: the resistance's 5 once, in order"),
        pytest.param([instance("slashing", 4), instance("fire", 4), instance("slashing", 4, grade="B")],
                     [{"type": "all-damage", "value": 5}], [0, 0, 3],
                     id="resistance to all damage: 5 from the slashing, 5 from the fire"),
    ],
)  # fmt: skip
def test_IWR_7_resistances(
    instances: list[DamageInstance], resistances: list[dict[str, Any]], expected: list[int]
) -> None:
    result = resolve(*instances, target=iwr(resistances=resistances))
    assert amounts(result) == expected


# --- IWR-8: the order, and the Ranks immunities in the same pass -----------------------------------------


def test_IWR_8_twelve_fire_becomes_seven_step_by_step() -> None:
    target = iwr(weaknesses=[{"type": "fire", "value": 2}], resistances=[{"type": "energy", "value": 7}])
    result = resolve(instance("fire", 6, critical=True), target=target)
    assert amounts(result) == [7]
    assert rules(result) == ["IWR-8", "IWR-3", "IWR-6", "IWR-7", "IWR-8"]
    assert [(s.data or {}).get("after") for s in result.steps] == [None, 12, 14, 7, None]
    assert "14 - 7 = 7" in result.steps[3].text


def test_IWR_8_weakness_before_resistance() -> None:
    target = iwr(weaknesses=[{"type": "fire", "value": 5}], resistances=[{"type": "fire", "value": 5}])
    assert amounts(resolve(instance("fire", 3), target=target)) == [3]


def test_IWR_8_immunity_before_weakness() -> None:
    target = iwr(immunities=[{"type": "fire"}], weaknesses=[{"type": "fire", "value": 5}])
    assert amounts(resolve(instance("fire", 3), target=target)) == [0]


def test_IWR_8_grade_and_unavoidable_pass_through() -> None:
    result = resolve(instance("fire", 3, grade="A", unavoidable=True))
    assert (result.dealt[0].grade.value, result.dealt[0].unavoidable) == ("A", True)


@pytest.mark.parametrize(
    ("hit", "immunity", "expected", "rule"),
    [
        pytest.param(instance("poison", 6, rank="C"), {"kind": "poison", "rank": "C"}, 0, "RANK-5",
                     id="a C-Rank poison immunity stops C-Rank poison damage"),
        pytest.param(instance("poison", 6, rank="B"), {"kind": "poison", "rank": "C"}, 6, "RANK-5",
                     id="a C-Rank poison immunity does not stop B-Rank poison"),
        pytest.param(instance("poison", 6), {"kind": "poison", "rank": "D"}, 0, "RANK-5",
                     id="an instance without rank is unranked"),
        pytest.param(instance("piercing", 3, rank="C", traits=["poison"]), {"kind": "poison", "rank": "C"}, 0,
                     "RANK-5", id="a poisoned C-Rank dart is a poison effect"),
        pytest.param(instance("fire", 9, rank="S"), {"kind": "damage", "subject": "fire"}, 0, "RANK-9",
                     id="damage immunity is never contested by Rank"),
        pytest.param(instance("acid", 9, traits=["fire"]), {"kind": "damage", "subject": "fire"}, 9, None,
                     id="damage immunity to fire does not cover a fire-trait acid instance"),
        pytest.param(instance("mental", 4, rank="D"), {"kind": "mind-affecting", "rank": "D"}, 0, "RANK-5",
                     id="mind-affecting immunity covers mental damage"),
        pytest.param(instance("bludgeoning", 4, traits=["falling"]), {"kind": "falling-damage"}, 0, "RANK-9",
                     id="immunity to falling damage"),
    ],
)  # fmt: skip
def test_RANK_5_ranks_immunities_in_the_damage_pipeline(
    hit: DamageInstance, immunity: dict[str, Any], expected: int, rule: str | None
) -> None:
    result = resolve(hit, immunities=[immunity])
    assert amounts(result) == [expected]
    if rule is not None:
        assert rule in rules(result)


# --- properties --------------------------------------------------------------------------------------------

instances_strategy = st.lists(
    st.builds(
        DamageInstance,
        amount=st.integers(min_value=0, max_value=10_000),
        grade=st.sampled_from(["B", "L", "A"]),
        type=st.sampled_from(list(DamageType)),
        rank=st.sampled_from(["unranked", "D", "C", "B", "A", "S"]),
        traits=st.lists(st.sampled_from(["magical", "fire", "spell", "death", "water"]), max_size=3).map(
            tuple
        ),
        materials=st.lists(st.sampled_from(["silver", "cold-iron"]), max_size=2).map(tuple),
        critical=st.booleans(),
        unavoidable=st.booleans(),
    ),
    max_size=6,
)


@given(instances_strategy)
def test_IWR_8_without_iwr_the_pipeline_delivers_exactly_the_damage_given(hits: list[DamageInstance]) -> None:
    result = resolve(*hits)
    assert amounts(result) == [h.amount * (2 if h.critical else 1) for h in hits]
    assert [(d.grade, d.unavoidable) for d in result.dealt] == [(h.grade, h.unavoidable) for h in hits]


@given(instances_strategy)
def test_IWR_8_a_target_without_defences_gets_the_very_steps_of_the_full_pipeline(
    hits: list[DamageInstance],
) -> None:
    """`resolve_damage` skips the checks when the target has no immunity, weakness or resistance;
    what it rules and says is what running every check gives."""
    fast = resolve(*hits)
    full = _defended(hits, Iwr(), (), (), 1)
    assert fast == full


@given(
    instances_strategy,
    st.lists(
        st.fixed_dictionaries(
            {
                "type": st.sampled_from([*DAMAGE_GROUPS, "fire", "slashing", "silver", "magical"]),
                "value": st.integers(min_value=0, max_value=20_000),
            }
        ),
        max_size=4,
    ),
)
def test_IWR_7_resistance_never_makes_damage_negative_nor_larger(
    hits: list[DamageInstance], resistances: list[dict[str, Any]]
) -> None:
    result = resolve(*hits, target=iwr(resistances=resistances))
    for dealt, hit in zip(result.dealt, hits, strict=True):
        assert 0 <= dealt.amount <= hit.amount * (2 if hit.critical else 1)


# --- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "loc", "needle"),
    [
        pytest.param({"amount": 3, "grade": "L", "type": "lava"}, ("type",), "'pure-energy'",
                     id="an unknown damage type lists the allowed ones"),
        pytest.param({"amount": -3, "grade": "L"}, ("amount",), "greater than or equal to 0",
                     id="a negative amount"),
        pytest.param({"amount": 3, "grade": "X"}, ("grade",), "'B'", id="an unknown grade"),
        pytest.param({"amount": 3, "grade": "L", "rank": "E"}, ("rank",), "'unranked'", id="Rank E"),
        pytest.param({"amount": 3, "grade": "L", "rank": "SS+"}, ("rank",), "'S'", id="Rank SS+"),
        pytest.param({"amount": "3", "grade": "L"}, ("amount",), "integer", id="a string amount"),
    ],
)  # fmt: skip
def test_IWR_8_bad_instances_are_invalid_with_path_and_allowed_values(
    payload: dict[str, Any], loc: tuple[str, ...], needle: str
) -> None:
    with pytest.raises(ValidationError) as error:
        DamageInstance.model_validate(payload)
    problem = error.value.errors()[0]
    assert problem["loc"] == loc and needle in problem["msg"]


def test_IWR_8_traits_and_materials_are_open_sets() -> None:
    hit = instance("fire", 3, traits=["homebrew-trait"], materials=["star-metal"])
    assert hit.traits == ("homebrew-trait",) and hit.materials == ("star-metal",)


def test_IWR_7_negative_resistance_is_invalid() -> None:
    with pytest.raises(ValidationError) as error:
        Iwr.model_validate({"resistances": [{"type": "fire", "value": -5}]})
    assert error.value.errors()[0]["loc"] == ("resistances", 0, "value")


def test_RANK_5_one_effect_meets_a_contested_immunity_whole_at_its_highest_rank() -> None:
    dart = [instance("poison", 3, rank="B", traits=["poison"]), instance("piercing", 2)]
    result = resolve(*dart, immunities=[{"kind": "poison", "rank": "C"}])
    assert amounts(result) == [3, 2]
    dart = [instance("poison", 3, rank="C", traits=["poison"]), instance("piercing", 2)]
    assert amounts(resolve(*dart, immunities=[{"kind": "poison", "rank": "C"}])) == [0, 0]


@pytest.mark.parametrize(
    ("hit", "immunity", "rule", "what"),
    [
        pytest.param(instance("fire", 9, rank="S"), {"kind": "damage", "subject": "fire"}, "RANK-9",
                     {"what": "damage", "amount": 9, "type": "fire"}, id="damage immunity, blocked"),
        pytest.param(instance("poison", 6, rank="B"), {"kind": "poison", "rank": "C"}, "RANK-5",
                     {"what": "damage", "amount": 6, "type": "poison"}, id="contested, not stopped"),
        pytest.param(instance("piercing", 3, rank="C", traits=["poison"]), {"kind": "poison", "rank": "C"},
                     "RANK-5", {"what": "effect"}, id="a poison effect, blocked whole"),
    ],
)  # fmt: skip
def test_RANK_5_damage_pipeline_immunity_steps_name_what_they_meet(
    hit: DamageInstance, immunity: dict[str, Any], rule: str, what: dict[str, Any]
) -> None:
    result = resolve(hit, immunities=[immunity])
    steps = [step for step in result.steps if step.data and "immunity" in step.data]
    assert [step.rule for step in steps] == [rule]
    data = steps[0].data or {}
    assert {key: data.get(key) for key in what} == what
    assert data["immunity"]["kind"] == immunity["kind"] and isinstance(data["blocked"], bool)
