"""EP-1..9 through the wire: the energy action payloads and handlers."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest
from pydantic import ValidationError

from tests.actions.helpers import run
from vtt_bridge.document.models import Actor, NotFound, WorldState
from vtt_bridge.rules.common import RuleViolation

ATTRIBUTES = {"STR": 2, "DEX": 3, "STA": 3, "INT": 3, "PER": 2, "RES": 2, "PRE": 4, "MAN": 1, "COM": 2}


def world() -> WorldState:
    hero = Actor.model_validate({"name": "Ouyang", "attributes": ATTRIBUTES})
    other = Actor.model_validate({"name": "Bystander"})
    return WorldState(actors={"hero": hero, "other": other})


def pool(pool_id: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": pool_id,
        "name": pool_id.replace("-", " ").title(),
        "category": "general",
        "region": "western",
        "keyAttributes": ["INT", "RES"],
        "source": "Gem Person Bloodline",
    }
    return base | fields


def gain(state: WorldState, spec: dict[str, Any]) -> WorldState:
    return run(state, {"kind": "gainEnergyPool", "actor": "hero", "pool": spec}).state


def hero(state: WorldState) -> Actor:
    return state.actors["hero"]


INNER_FORCE = pool("inner-force", region="eastern", keyAttributes=["STA", "PER"], source="Wudang Title")
HAMON = pool("hamon", category="special", region=None, keyAttributes=["STA", "DEX"], source="Ripple Title")
CALORIES = pool("calories", category="special", region=None, keyAttributes=["STR", "STA"], source="Glutton")


def test_EP_1_gain_energy_pool_derives_max_and_patches_map_to_the_pool_path() -> None:
    before = world()
    after = gain(before, INNER_FORCE)
    stored = hero(after).energy_pools["inner-force"]
    assert (stored.max, stored.current) == (5, 5)  # STA 3 + PER 2
    assert after.actors["other"] is before.actors["other"]
    assert hero(after).willpower is hero(before).willpower  # WP-1
    patch = jsonpatch.make_patch(before.model_dump(mode="json"), after.model_dump(mode="json")).patch
    assert [op["path"] for op in patch] == ["/actors/hero/energyPools/inner-force"]
    assert patch[0]["value"]["keyAttributes"] == ["STA", "PER"]
    assert patch[0]["value"]["sources"] == ["Wudang Title"]


def test_EP_1_inner_force_sta_per_is_reported_physical_and_mental() -> None:
    ruling = run(world(), {"kind": "gainEnergyPool", "actor": "hero", "pool": INNER_FORCE})
    assert ruling.log[0].rule == "EP-1"
    assert ruling.log[0].data is not None and ruling.log[0].data["traits"] == ["mental", "physical"]


@pytest.mark.parametrize(
    ("bad", "loc"),
    [
        pytest.param({"keyAttributes": []}, ("pool", "keyAttributes"), id="a pool without key Attributes"),
        pytest.param({"keyAttributes": ["INT", "LCK"]}, ("pool", "keyAttributes", 1), id="not in the table"),
        pytest.param({"region": None}, ("pool",), id="a general pool without a region"),
    ],
)
def test_EP_1_bad_pools_are_invalid_with_the_field_path(bad: dict[str, Any], loc: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError) as info:
        run(world(), {"kind": "gainEnergyPool", "actor": "hero", "pool": pool("mana") | bad})
    assert info.value.errors()[0]["loc"] == loc


def test_EP_2_a_conflicting_gain_annihilates_dead_beyond_revival() -> None:
    state = gain(world(), pool("picky", compatibility=[{"mode": "onlyWith", "class": "western"}]))
    ruling = run(state, {"kind": "gainEnergyPool", "actor": "hero", "pool": INNER_FORCE})
    conditions = hero(ruling.state).conditions
    assert conditions["annihilated"] is True and conditions["dead"] is True
    assert ruling.log[-1].rule == "EP-2"
    with pytest.raises(RuleViolation, match="annihilated"):
        run(ruling.state, {"kind": "restoreEnergy", "actor": "hero", "pool": "picky", "amount": 1})


TRUE_ESSENCE_ANCHOR: dict[str, Any] = {
    "kind": "cannotGainAgain",
    "actor": "hero",
    "class": "eastern",
    "source": "True Essence condensing",
    "participants": ["inner-force"],
}
"""EP-3: condensing True Essence: no other eastern pool may be gained afterwards."""


@pytest.mark.parametrize(
    "gained",
    [
        pytest.param(
            INNER_FORCE | {"source": "another route"}, id="example 1: inner force again mid-condensing"
        ),
        pytest.param(
            pool("buddha-power", region="eastern", source="bought"),
            id="example 2: buys Buddha power mid-condensing",
        ),
    ],
)
def test_EP_3_true_essence_examples_annihilate_through_the_wire(gained: dict[str, Any]) -> None:
    state = gain(world(), INNER_FORCE)
    anchor = TRUE_ESSENCE_ANCHOR
    state = run(state, anchor).state
    assert hero(state).model_dump()["cannotGainAgain"][0]["class"] == "eastern"
    assert not hero(state).conditions.get("annihilated")
    after = gain(state, gained)
    assert hero(after).conditions == {"annihilated": True, "dead": True}


def test_EP_3_an_anchor_naming_a_pool_not_held_is_not_found() -> None:
    payload = {
        "kind": "cannotGainAgain",
        "actor": "hero",
        "class": "eastern",
        "source": "x",
        "participants": ["qi"],
    }
    with pytest.raises(NotFound) as info:
        run(world(), payload)
    assert info.value.path == ("participants", 0)


def test_EP_4_ouyang_gem_person_magician_necronomicon_plus_5_then_plus_3() -> None:
    state = gain(world(), pool("mana"))
    state = gain(state, pool("mana", source="Magician Title"))
    assert hero(state).energy_pools["mana"].max == 5 + 5
    ruling = run(
        state, {"kind": "gainEnergyPool", "actor": "hero", "pool": pool("mana", source="Necronomicon")}
    )
    assert hero(ruling.state).energy_pools["mana"].max == 5 + 5 + 3
    assert ruling.log[0].rule == "EP-4" and ruling.log[0].data == {
        "actor": "hero",
        "reopening": 2,
        "bonus": 3,
        "max": 13,
        "name": "Mana",
        "gainedFrom": "Necronomicon",
        "before": 10,
    }


def test_EP_4_a_variant_of_a_pool_the_actor_lacks_changes_nothing() -> None:
    state = world()
    demon = pool("heavenly-demon-force", region="eastern", variantOf="inner-force")
    with pytest.raises(RuleViolation, match="does not have"):
        run(state, {"kind": "gainEnergyPool", "actor": "hero", "pool": demon})
    assert hero(state).energy_pools == {}


def test_EP_5_change_pool_max_gain_is_empty_and_loss_is_for_good() -> None:
    state = gain(world(), pool("mana"))
    up = run(state, {"kind": "changePoolMax", "actor": "hero", "pool": "mana", "delta": 1}).state
    assert (hero(up).energy_pools["mana"].max, hero(up).energy_pools["mana"].current) == (6, 5)
    down = run(state, {"kind": "changePoolMax", "actor": "hero", "pool": "mana", "delta": -1}).state
    back = run(down, {"kind": "changePoolMax", "actor": "hero", "pool": "mana", "delta": 1}).state
    assert (hero(back).energy_pools["mana"].max, hero(back).energy_pools["mana"].current) == (5, 4)


def test_EP_5_restore_energy_stops_at_max() -> None:
    state = gain(world(), pool("mana"))
    state = run(state, {"kind": "spendEnergy", "actor": "hero", "pool": "mana", "cost": 3}).state
    state = run(state, {"kind": "restoreEnergy", "actor": "hero", "pool": "mana", "amount": 10}).state
    assert hero(state).energy_pools["mana"].current == 5


def test_EP_6_spending_5_with_a_reduction_of_2_keeps_the_7_round_effect() -> None:
    state = gain(world(), pool("mana", keyAttributes=["INT", "PRE"]))  # max 7
    ruling = run(state, {"kind": "spendEnergy", "actor": "hero", "pool": "mana", "cost": 7, "reduction": 2})
    assert hero(ruling.state).energy_pools["mana"].current == 2
    assert ruling.log[-1].data is not None
    assert (ruling.log[-1].data["paid"], ruling.log[-1].data["effectCost"]) == (5, 7)
    assert hero(ruling.state).willpower is hero(state).willpower  # WP-1


def test_EP_6_spend_all_gets_no_reduction() -> None:
    state = gain(world(), pool("mana"))
    ruling = run(
        state, {"kind": "spendEnergy", "actor": "hero", "pool": "mana", "spendAll": True, "reduction": 2}
    )
    assert hero(ruling.state).energy_pools["mana"].current == 0
    assert ruling.log[-1].data is not None and ruling.log[-1].data["effectCost"] == 5
    assert "no cost reduction" in ruling.log[0].text


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        pytest.param({"cost": 6}, RuleViolation, id="spending more than held"),
        pytest.param({"cost": -1}, ValidationError, id="a negative cost"),
        pytest.param({"cost": 1.5}, ValidationError, id="a fractional cost"),
        pytest.param({}, ValidationError, id="no cost and not spend-all"),
        pytest.param({"pool": "chakra", "cost": 1}, NotFound, id="a pool the actor lacks"),
    ],
)
def test_EP_6_bad_spends_change_nothing(payload: dict[str, Any], error: type[Exception]) -> None:
    state = gain(world(), pool("mana"))
    dumped = state.model_dump()
    with pytest.raises(error):
        run(state, {"kind": "spendEnergy", "actor": "hero", "pool": "mana"} | payload)
    assert state.model_dump() == dumped


def test_EP_6_a_negative_cost_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        run(world(), {"kind": "spendEnergy", "actor": "hero", "pool": "mana", "cost": -1})
    assert info.value.errors()[0]["loc"] == ("cost",)


def test_EP_7_a_variant_pays_for_its_original_not_the_reverse() -> None:
    state = gain(world(), INNER_FORCE)
    demon = pool(
        "heavenly-demon-force", region="eastern", keyAttributes=["STA", "PER"], variantOf="inner-force"
    )
    state = gain(state, demon)
    spend = {"kind": "spendEnergy", "actor": "hero", "cost": 2}
    ruling = run(state, spend | {"pool": "inner-force", "substituteFrom": "heavenly-demon-force"})
    pools = hero(ruling.state).energy_pools
    assert (pools["heavenly-demon-force"].current, pools["inner-force"].current) == (3, 5)
    assert pools["inner-force"] is hero(state).energy_pools["inner-force"]
    assert ruling.log[0].rule == "EP-7"
    with pytest.raises(RuleViolation, match="original cannot be spent in place of its variant"):
        run(state, spend | {"pool": "heavenly-demon-force", "substituteFrom": "inner-force"})


def test_EP_7_immunity_data_names_the_pool_actually_spent() -> None:
    source_energy = pool("source-energy", category="special", region=None, keyAttributes=["STR", "STA"])
    state = gain(gain(world(), INNER_FORCE), source_energy | {"paysFor": ["inner-force"]})
    ruling = run(
        state,
        {
            "kind": "spendEnergy",
            "actor": "hero",
            "pool": "inner-force",
            "cost": 1,
            "substituteFrom": "source-energy",
        },
    )
    assert ruling.log[-1].data is not None
    assert ruling.log[-1].data["pool"] == "source-energy"
    assert "mental" not in ruling.log[-1].data["classes"]


@pytest.mark.parametrize(
    ("spec", "chosen_class", "allowed"),
    [
        pytest.param(INNER_FORCE, "physical", True, id="Infinite Fist chooses inner force as Physical"),
        pytest.param(HAMON, "physical", False, id="Infinite Fist cannot choose Hamon"),
        pytest.param(pool("mana"), None, True, id="Nail Fist pays 1 energy from mana"),
        pytest.param(CALORIES, None, False, id="Nail Fist cannot pay Calories"),
        pytest.param(pool("shade", countsAsPool=False), None, False, id="doesn't count as an Energy Pool"),
    ],
)
def test_EP_8_choosing_a_pool_to_pay(spec: dict[str, Any], chosen_class: str | None, allowed: bool) -> None:
    state = gain(world(), spec)
    payload = {"kind": "spendEnergy", "actor": "hero", "pool": spec["id"], "cost": 1, "chosen": True}
    if chosen_class is not None:
        payload["chosenClass"] = chosen_class
    if allowed:
        assert hero(run(state, payload).state).energy_pools[spec["id"]].current == 4
    else:
        with pytest.raises(RuleViolation) as info:
            run(state, payload)
        assert info.value.rule == "EP-8"


def test_EP_8_attacks_and_enhancement_leave_a_non_pool_alone() -> None:
    state = gain(world(), pool("shade", countsAsPool=False))
    attack = {"kind": "changePoolMax", "actor": "hero", "pool": "shade", "delta": -3, "reason": "attack"}
    ruling = run(state, attack)
    assert ruling.state is state and ruling.log[0].rule == "EP-8"
    with pytest.raises(RuleViolation, match="cannot be enhanced"):
        run(state, attack | {"delta": 2, "reason": "enhancement"})


def test_EP_9_same_named_gauges_from_different_upgrades_stay_separate() -> None:
    state = world()
    for gauge_id, source in (("rage-berserker", "Berserker Title"), ("rage-blood", "Rage Bloodline")):
        gauge = {"id": gauge_id, "name": "Rage", "max": 5, "source": source, "current": 0}
        state = run(state, {"kind": "gainGauge", "actor": "hero", "gauge": gauge}).state
    state = run(state, {"kind": "restoreGauge", "actor": "hero", "gauge": "rage-blood", "amount": 3}).state
    gauges = hero(state).gauges
    assert (gauges["rage-berserker"].current, gauges["rage-blood"].current) == (0, 3)
    with pytest.raises(RuleViolation, match="needs more than"):
        run(state, {"kind": "spendGauge", "actor": "hero", "gauge": "rage-blood", "amount": 4})
    state = run(state, {"kind": "spendGauge", "actor": "hero", "gauge": "rage-blood", "amount": 2}).state
    assert hero(state).gauges["rage-blood"].current == 1
    assert hero(state).energy_pools == {}


def test_EP_9_a_gauge_needs_a_source_and_a_unique_id() -> None:
    gauge = {"id": "g", "name": "Heat", "max": None, "source": "Fire Bloodline"}
    state = run(world(), {"kind": "gainGauge", "actor": "hero", "gauge": gauge}).state
    assert hero(state).gauges["g"].current == 0
    with pytest.raises(RuleViolation, match="own id"):
        run(state, {"kind": "gainGauge", "actor": "hero", "gauge": gauge})
    with pytest.raises(ValidationError):
        run(world(), {"kind": "gainGauge", "actor": "hero", "gauge": gauge | {"source": ""}})


def test_EP_9_a_pool_rejecting_a_gauge_annihilates_when_they_meet() -> None:
    state = gain(world(), pool("calm", compatibility=[{"mode": "rejectsGauges", "class": "fury"}]))
    gauge = {"id": "rage", "name": "Rage", "max": 5, "source": "Berserker Title", "nature": "fury"}
    ruling = run(state, {"kind": "gainGauge", "actor": "hero", "gauge": gauge})
    assert hero(ruling.state).conditions == {"annihilated": True, "dead": True}


def test_EP_9_gauge_max_changes_follow_ep_5() -> None:
    gauge = {"id": "g", "name": "Focus", "max": 4, "source": "Monk Title"}
    state = run(world(), {"kind": "gainGauge", "actor": "hero", "gauge": gauge}).state
    down = run(state, {"kind": "changeGaugeMax", "actor": "hero", "gauge": "g", "delta": -1}).state
    back = run(down, {"kind": "changeGaugeMax", "actor": "hero", "gauge": "g", "delta": 1}).state
    assert (hero(back).gauges["g"].max, hero(back).gauges["g"].current) == (4, 3)


def test_unknown_actor_is_not_found() -> None:
    with pytest.raises(NotFound) as info:
        run(world(), {"kind": "gainEnergyPool", "actor": "ghost", "pool": pool("mana")})
    assert info.value.path == ("actor",)


# --- step data the chat card words ----------------------------------------------------------------------


def test_EP_1_step_names_the_pool_its_category_and_region() -> None:
    step = run(world(), {"kind": "gainEnergyPool", "actor": "hero", "pool": INNER_FORCE}).log[0]
    assert step.rule == "EP-1"
    assert step.data == {
        "actor": "hero",
        "max": 5,
        "keyAttributes": {"STA": 3, "PER": 2},
        "traits": ["mental", "physical"],
        "name": "Inner Force",
        "category": "general",
        "region": "eastern",
    }


def test_EP_2_each_conflict_step_names_holder_mode_class_and_other() -> None:
    state = gain(world(), pool("picky", compatibility=[{"mode": "onlyWith", "class": "western"}]))
    log = run(state, {"kind": "gainEnergyPool", "actor": "hero", "pool": INNER_FORCE}).log
    conflict = next(step for step in log if step.rule == "EP-2" and step.data and "mode" in step.data)
    assert conflict.data == {
        "actor": "hero",
        "holder": "Picky",
        "mode": "onlyWith",
        "class": "western",
        "other": "Inner Force",
    }
    assert log[-1].data is not None and [c["rule"] for c in log[-1].data["conflicts"]] == ["EP-2"]


def test_EP_3_anchor_and_its_conflict_name_the_class_and_the_source() -> None:
    state = gain(world(), INNER_FORCE)
    anchor = TRUE_ESSENCE_ANCHOR
    ruling = run(state, anchor)
    assert ruling.log[0].data == {
        "actor": "hero",
        "class": "eastern",
        "participants": ["inner-force"],
        "anchorSource": "True Essence condensing",
    }
    buddha = pool("buddha-power", region="eastern", source="bought")
    log = run(ruling.state, {"kind": "gainEnergyPool", "actor": "hero", "pool": buddha}).log
    conflict = next(step for step in log if step.rule == "EP-3")
    assert conflict.data == {
        "actor": "hero",
        "class": "eastern",
        "anchorSource": "True Essence condensing",
        "name": "Buddha Power",
    }


def test_EP_7_variant_and_substitution_steps_name_the_pools() -> None:
    state = gain(world(), pool("mana"))
    ruling = run(
        state, {"kind": "gainEnergyPool", "actor": "hero", "pool": pool("dark-mana", variantOf="mana")}
    )
    assert ruling.log[1].data == {"actor": "hero", "variantOf": "mana", "name": "Dark Mana"}
    spend = {"kind": "spendEnergy", "actor": "hero", "pool": "mana", "substituteFrom": "dark-mana", "cost": 2}
    step = run(ruling.state, spend).log[0]
    assert step.rule == "EP-7" and step.data is not None
    assert (step.data["name"], step.data["inPlaceOf"], step.data["pool"]) == (
        "Dark Mana",
        "mana",
        "dark-mana",
    )


def test_EP_8_an_attack_on_a_non_pool_names_it() -> None:
    state = gain(world(), pool("shade", countsAsPool=False))
    attack = {"kind": "changePoolMax", "actor": "hero", "pool": "shade", "delta": -3, "reason": "attack"}
    assert run(state, attack).log[0].data == {
        "actor": "hero",
        "pool": "shade",
        "name": "Shade",
        "attack": True,
    }


def test_EP_9_a_gauge_conflict_step_names_holder_mode_class_and_other() -> None:
    state = gain(world(), pool("calm", compatibility=[{"mode": "rejectsGauges", "class": "fury"}]))
    gauge = {"id": "rage", "name": "Rage", "max": 5, "source": "Berserker Title", "nature": "fury"}
    log = run(state, {"kind": "gainGauge", "actor": "hero", "gauge": gauge}).log
    conflict = next(step for step in log if step.rule == "EP-9" and step.data and "mode" in step.data)
    assert conflict.data == {
        "actor": "hero",
        "holder": "Calm",
        "mode": "rejectsGauges",
        "class": "fury",
        "other": "Rage",
    }
