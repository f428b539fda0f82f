"""HEALTH-1..13 and WP-1..6 through the action payloads and handlers."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import ValidationError

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.actions.health import ACTIONS, round_health
from vtt_bridge.document.derive import derive_actor
from vtt_bridge.document.models import Actor, NotFound, Scene, Settings, WorldState
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.health import HealthStatus

CTX = Context(roller=SeededRoller(0))


def world(health: dict[str, Any] | None = None, settings: Settings | None = None, **hero: Any) -> WorldState:
    fields: dict[str, Any] = {"name": "Hero", "health": health or {"max": 20}, **hero}
    return WorldState(
        scene=Scene(id="scene1", round=1),
        settings=settings or Settings(),
        actors={"hero": Actor.model_validate(fields), "other": Actor(name="Bystander")},
    )


def run(state: WorldState, payload: dict[str, Any]) -> Ruling:
    model, handler = ACTIONS[payload["kind"]]
    return handler(state, model.model_validate(payload), CTX)


def hero(ruling: Ruling) -> Actor:
    return derive_actor(ruling.state.actors["hero"], ruling.state.settings)


def boxes(actor: Actor) -> tuple[int, int, int, int]:
    t = actor.health
    return (t.healthy, t.bashing, t.lethal, t.aggravated)


def hit(*instances: tuple[int, str], **flags: Any) -> dict[str, Any]:
    return {
        "kind": "damage",
        "target": "hero",
        "instances": [{"amount": n, "grade": g, **flags} for n, g in instances],
    }


# ---- damage -----------------------------------------------------------------------------------------


def test_HEALTH_2_damage_action_runs_the_twenty_health_example() -> None:
    state = world()
    for payload in (hit((3, "B")), hit((4, "L")), hit((5, "A")), hit((10, "B"), (10, "L"))):
        ruling = run(state, payload)
        state = ruling.state
    assert boxes(state.actors["hero"]) == (0, 0, 14, 6)
    assert hero(ruling).conditions["unconscious"] and hero(ruling).conditions["worsening"]
    assert [s.rule for s in ruling.log if s.rule.startswith("HEALTH")] == ["HEALTH-2", "HEALTH-2", "HEALTH-6"]


def test_HEALTH_2_damage_leaves_other_actors_the_same_objects() -> None:
    state = world()
    ruling = run(state, hit((1, "B")))
    assert ruling.state.actors["other"] is state.actors["other"]
    assert state.actors["hero"].health.bashing == 0  # input not mutated


def test_HEALTH_11_temp_hp_before_the_track_but_not_against_unavoidable() -> None:
    state = world({"max": 10, "tempHp": 4})
    ruling = run(state, hit((3, "L"), (2, "A")))
    assert boxes(ruling.state.actors["hero"]) == (9, 0, 1, 0)
    assert ruling.state.actors["hero"].health.temp_hp == 0
    ruling = run(state, hit((3, "L"), unavoidable=True))
    assert boxes(ruling.state.actors["hero"]) == (7, 0, 3, 0)
    assert ruling.state.actors["hero"].health.temp_hp == 4
    assert any(s.rule == "HEALTH-11" and "unavoidable" in s.text for s in ruling.log)


# ---- IWR-9: unavoidable damage -------------------------------------------------------------------


def fire(amount: int, unavoidable: bool) -> dict[str, Any]:
    instance = {"amount": amount, "grade": "L", "type": "fire", "unavoidable": unavoidable}
    return {"kind": "damage", "target": "hero", "instances": [instance]}


def test_IWR_9_unavoidable_damage_is_not_reduced_by_resistance() -> None:
    state = world({"max": 10}, iwr={"resistances": [{"type": "fire", "value": 5}]})
    assert boxes(run(state, fire(6, unavoidable=False)).state.actors["hero"]) == (9, 0, 1, 0)
    ruling = run(state, fire(6, unavoidable=True))
    assert boxes(ruling.state.actors["hero"]) == (4, 0, 6, 0)
    assert [s.key for s in ruling.log if s.rule == "IWR-7"] == ["IWR-7.unavoidable"]


def test_IWR_9_unavoidable_damage_goes_past_temporary_hp_which_stays() -> None:
    state = world({"max": 10, "tempHp": 4})
    mixed = {
        "kind": "damage",
        "target": "hero",
        "instances": [
            {"amount": 2, "grade": "B", "type": "fire"},
            {"amount": 3, "grade": "L", "type": "cold", "unavoidable": True},
        ],
    }
    ruling = run(state, mixed)
    assert boxes(ruling.state.actors["hero"]) == (7, 0, 3, 0)
    assert ruling.state.actors["hero"].health.temp_hp == 2
    assert "HEALTH-11.unavoidable" in [s.key for s in ruling.log]


@pytest.mark.parametrize(
    "immune",
    [
        pytest.param({"iwr": {"immunities": [{"type": "fire"}]}}, id="pf2e immunity (IWR-1)"),
        pytest.param({"immunities": [{"kind": "damage", "subject": "fire"}]}, id="Ranks immunity (RANK-9)"),
    ],
)
def test_IWR_9_an_immunity_still_stops_unavoidable_damage(immune: dict[str, Any]) -> None:
    """Unavoidable damage cannot be reduced or saved against; an immunity does neither: the damage
    does not affect the creature at all (IWR-1)."""
    state = world({"max": 10}, **immune)
    ruling = run(state, fire(6, unavoidable=True))
    assert boxes(ruling.state.actors["hero"]) == (10, 0, 0, 0)


def test_IWR_9_a_weakness_still_adds_to_unavoidable_damage() -> None:
    state = world({"max": 10}, iwr={"weaknesses": [{"type": "fire", "value": 2}]})
    ruling = run(state, fire(3, unavoidable=True))
    assert boxes(ruling.state.actors["hero"]) == (5, 0, 5, 0)


def test_HEALTH_11_fully_absorbed_blow_keeps_flags() -> None:
    state = world(
        {"max": 5, "lethal": 5, "tempHp": 3}, willpower={"max": 2, "current": 1, "keptConscious": True}
    )
    ruling = run(state, hit((2, "B")))
    assert ruling.state.actors["hero"].willpower.kept_conscious


def test_HEALTH_13_damage_flows_into_the_second_track() -> None:
    state = world({"max": 3, "aggravated": 3}, secondHealth={"max": 4})
    ruling = run(state, hit((2, "L")))
    assert ruling.state.actors["hero"].second_health is not None
    assert ruling.state.actors["hero"].second_health.lethal == 2
    assert hero(ruling).status is HealthStatus.DYING


def test_WP_3_a_new_blow_clears_kept_conscious_and_stabilized() -> None:
    state = world(
        {"max": 5, "lethal": 4, "aggravated": 1, "stabilized": True},
        willpower={"max": 3, "current": 2, "keptConscious": True},
    )
    ruling = run(state, hit((1, "B")))
    actor = ruling.state.actors["hero"]
    assert not actor.willpower.kept_conscious and not actor.health.stabilized
    assert {"WP-3", "HEALTH-4"} <= {s.rule for s in ruling.log}


def test_HEALTH_2_unknown_target_is_not_found() -> None:
    with pytest.raises(NotFound) as err:
        run(world(), {**hit((1, "B")), "target": "ghost"})
    assert err.value.path == ("target",)


# ---- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "loc"),
    [
        pytest.param(hit((-3, "B")), ("instances", 0, "amount"), id="amount -3"),
        pytest.param(hit((10**30, "B")), ("instances", 0, "amount"), id="amount 1e30"),
        pytest.param(hit((math.nan, "B")), ("instances", 0, "amount"), id="amount NaN"),  # type: ignore[arg-type]
        pytest.param(hit((3, "X")), ("instances", 0, "grade"), id="grade X"),
        pytest.param({"kind": "gainSecondHealth", "actor": "hero", "max": -3}, ("max",), id="max -3"),
        pytest.param(
            {"kind": "heal", "target": "hero", "amount": 1, "grade": "X", "source": "magic"},
            ("grade",),
            id="heal X",
        ),
        pytest.param(
            {"kind": "heal", "target": "hero", "amount": -3, "source": "magic"}, ("amount",), id="heal -3"
        ),
        pytest.param(
            {"kind": "heal", "target": "hero", "amount": 1, "source": "prayer"}, ("source",), id="source"
        ),
        pytest.param(
            {"kind": "changeMaxHealth", "actor": "hero", "delta": 10**30}, ("delta",), id="delta 1e30"
        ),
        pytest.param({"kind": "gainTempHp", "actor": "hero", "amount": math.nan}, ("amount",), id="temp NaN"),
        pytest.param({"kind": "spendWillpower", "actor": "hero", "use": "nap"}, ("use",), id="use"),
    ],
)
def test_HEALTH_1_bad_input_fails_validation_with_a_field_path(
    payload: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    model, _ = ACTIONS[payload["kind"]]
    with pytest.raises(ValidationError) as err:
        model.model_validate(payload)
    assert err.value.errors()[0]["loc"] == loc


def test_HEALTH_1_enum_errors_list_the_allowed_values() -> None:
    model, _ = ACTIONS["damage"]
    with pytest.raises(ValidationError) as err:
        model.model_validate(hit((3, "X")))
    assert "'B', 'L' or 'A'" in str(err.value)


# ---- heal -------------------------------------------------------------------------------------------


def test_HEALTH_9_overseer_heal_reports_the_price() -> None:
    ruling = run(
        world({"max": 6, "bashing": 1, "aggravated": 2}),
        {"kind": "heal", "target": "hero", "amount": 3, "source": "overseer"},
    )
    assert boxes(ruling.state.actors["hero"]) == (6, 0, 0, 0)
    assert any(
        s.rule == "HEALTH-9" and s.data == {"cost": 400, "aggravated": 2, "actor": "hero"} for s in ruling.log
    )


def test_HEALTH_8_long_rest_heals_lethal_and_restores_willpower() -> None:
    state = world({"max": 6, "lethal": 3}, willpower={"max": 4, "current": 1})
    ruling = run(state, {"kind": "heal", "target": "hero", "amount": 4, "source": "longRest"})
    actor = ruling.state.actors["hero"]
    assert boxes(actor) == (5, 0, 1, 0)
    assert actor.willpower.current == 4


def test_HEALTH_4_first_aid_stops_worsening() -> None:
    state = world({"max": 5, "lethal": 4, "aggravated": 1})
    ruling = run(state, {"kind": "heal", "target": "hero", "amount": 0, "source": "firstAid"})
    assert ruling.state.actors["hero"].health.stabilized
    assert not hero(ruling).conditions["worsening"]
    assert hero(ruling).conditions["unconscious"]


# ---- Willpower --------------------------------------------------------------------------------------


def test_WP_3_the_five_lethal_example_pays_to_stay_conscious() -> None:
    state = run(world({"max": 5}, willpower={"max": 3, "current": 3}), hit((5, "L"))).state
    assert derive_actor(state.actors["hero"], state.settings).conditions["unconscious"]
    ruling = run(state, {"kind": "spendWillpower", "actor": "hero", "use": "stayConscious"})
    assert not hero(ruling).conditions["unconscious"]
    assert ruling.state.actors["hero"].willpower.current == 2
    # a roll is fine now, while kept conscious
    ruling = run(ruling.state, {"kind": "spendWillpower", "actor": "hero", "use": "roll"})
    assert ruling.state.actors["hero"].willpower.current == 1


def test_WP_2_no_roll_willpower_while_unconscious() -> None:
    state = world({"max": 5, "lethal": 5}, willpower={"max": 3, "current": 3})
    with pytest.raises(RuleViolation) as err:
        run(state, {"kind": "spendWillpower", "actor": "hero", "use": "defense"})
    assert err.value.rule == "WP-2"


def test_HEALTH_3_recovering_willpower_wakes_but_temporary_does_not() -> None:
    state = world({"max": 5, "lethal": 5}, willpower={"max": 3, "current": 1})
    temp = run(state, {"kind": "gainWillpower", "actor": "hero", "amount": 2, "temporary": True})
    assert hero(temp).conditions["unconscious"]
    real = run(state, {"kind": "gainWillpower", "actor": "hero", "amount": 1})
    assert not hero(real).conditions["unconscious"]
    assert any(s.rule == "HEALTH-3" for s in real.log)
    # new damage knocks them out again
    again = run(real.state, hit((1, "B")))
    assert hero(again).conditions["unconscious"]


def test_WP_5_losing_the_last_willpower_knocks_out_with_the_option_on() -> None:
    state = world(
        willpower={"max": 2, "current": 1, "temporary": 1},
        settings=Settings(unconscious_at_zero_willpower=True),
    )
    ruling = run(state, {"kind": "loseWillpower", "actor": "hero", "amount": 5})
    assert hero(ruling).conditions["unconscious"]
    assert ruling.log[-1].rule == "WP-5"


def test_WP_5_temporary_willpower_does_not_wake_a_character_out_at_0_recovery_does() -> None:
    """'They don't wake until they recover at least 1 Willpower'; 'gaining temporary Willpower isn't
    recovering Willpower' (WP-4)."""
    state = world(willpower={"max": 3, "current": 1}, settings=Settings(unconscious_at_zero_willpower=True))
    out = run(state, {"kind": "spendWillpower", "actor": "hero", "use": "roll"})
    assert hero(out).conditions["unconscious"] and hero(out).willpower.drained
    lifted = run(out.state, {"kind": "gainWillpower", "actor": "hero", "amount": 2, "temporary": True})
    assert hero(lifted).willpower.temporary == 2
    assert hero(lifted).conditions["unconscious"], "temporary Willpower wakes no one"
    with pytest.raises(RuleViolation, match="self-aware"):
        run(lifted.state, {"kind": "spendWillpower", "actor": "hero", "use": "roll"})
    woken = run(lifted.state, {"kind": "gainWillpower", "actor": "hero", "amount": 1})
    assert not hero(woken).conditions["unconscious"] and not hero(woken).willpower.drained
    assert "WP-5" in [step.rule for step in woken.log]


def test_WP_6_change_will_action() -> None:
    ruling = run(
        world(willpower={"max": 3, "current": 3}), {"kind": "changeWill", "actor": "hero", "delta": -1}
    )
    assert ruling.state.actors["hero"].willpower.max == 2
    assert ruling.state.actors["hero"].willpower.current == 2


def test_WP_1_gain_willpower_action_recovers_up_to_max() -> None:
    ruling = run(
        world(willpower={"max": 3, "current": 1}), {"kind": "gainWillpower", "actor": "hero", "amount": 9}
    )
    assert ruling.state.actors["hero"].willpower.current == 3


def test_WP_4_spend_uses_temporary_first_through_the_action() -> None:
    ruling = run(
        world(willpower={"max": 3, "current": 3, "temporary": 1}),
        {"kind": "spendWillpower", "actor": "hero", "use": "roll"},
    )
    assert ruling.state.actors["hero"].willpower.temporary == 0
    assert ruling.state.actors["hero"].willpower.current == 3


# ---- max Health, second track, temp HP --------------------------------------------------------------


def test_HEALTH_12_actions_8_11_10_7() -> None:
    state = world({"max": 8})
    state = run(state, {"kind": "changeMaxHealth", "actor": "hero", "delta": 3, "effect": "potion"}).state
    state = run(state, {"kind": "changeMaxHealth", "actor": "hero", "delta": -1}).state
    assert state.actors["hero"].health.max == 10
    state = run(state, {"kind": "endTemporaryMax", "actor": "hero", "effect": "potion"}).state
    assert state.actors["hero"].health.max == 7


def test_HEALTH_12_a_temporary_loss_beyond_max_records_only_what_it_took() -> None:
    """A drain of 8 on max 5 removes the 5 boxes there are and records -5 (were the corpse revived,
    the drain's end would give back 5, not 8); losses that fit are recorded whole and summed."""
    state = world({"max": 5, "lethal": 1})
    drained = run(state, {"kind": "changeMaxHealth", "actor": "hero", "delta": -8, "effect": "drain"})
    assert drained.state.actors["hero"].health.max == 0
    assert drained.state.actors["hero"].health.temporary_max == {"drain": -5}
    assert "records -5" in drained.log[0].text
    alive = world({"max": 8})
    for delta in (-3, -2):
        alive = run(
            alive, {"kind": "changeMaxHealth", "actor": "hero", "delta": delta, "effect": "sap"}
        ).state
    assert alive.actors["hero"].health.temporary_max == {"sap": -5}
    ended = run(alive, {"kind": "endTemporaryMax", "actor": "hero", "effect": "sap"}).state
    assert ended.actors["hero"].health.max == 8


def test_HEALTH_5_the_dead_stay_dead_when_a_loss_of_max_that_killed_them_ends() -> None:
    """'Maximum Health drops to 0' kills; the drain ending does not bring the corpse back."""
    state = world({"max": 5})
    killed = run(state, {"kind": "changeMaxHealth", "actor": "hero", "delta": -5, "effect": "drain"})
    assert hero(killed).status is HealthStatus.DEAD
    ended = run(killed.state, {"kind": "endTemporaryMax", "actor": "hero", "effect": "drain"})
    assert hero(ended).status is HealthStatus.DEAD and hero(ended).health.temporary_max == {}
    assert [step.rule for step in ended.log] == ["HEALTH-5", "HEALTH-6"]
    with pytest.raises(RuleViolation, match="no max Health") as refused:
        run(killed.state, {"kind": "changeMaxHealth", "actor": "hero", "delta": 3})
    assert refused.value.rule == "HEALTH-5"


@pytest.mark.parametrize("flag", ["stabilized", "woken"])
def test_HEALTH_12_a_loss_of_max_that_leaves_no_healthy_box_ends_stabilizing_and_waking(flag: str) -> None:
    """HEALTH-3/4: falling to no healthy box again is checked again, as after new damage."""
    state = world({"max": 5, "lethal": 3, "aggravated": 1, flag: True})
    after = hero(run(state, {"kind": "changeMaxHealth", "actor": "hero", "delta": -1}))
    assert boxes(after) == (0, 0, 3, 1)
    assert not after.health.stabilized and not after.health.woken
    assert after.conditions["unconscious"] and after.conditions["worsening"]


def test_HEALTH_13_worsening_on_the_second_track_ends_a_waking() -> None:
    """HEALTH-3: woken by Willpower, then the injuries (on the second track) worsen: out again."""
    state = world(
        {"max": 3, "aggravated": 3, "woken": True}, secondHealth={"max": 3, "lethal": 2, "aggravated": 1}
    )
    assert not hero(run(state, {"kind": "changeWill", "actor": "hero", "delta": 0})).conditions["unconscious"]
    worse = hero(round_health(state, CTX))
    assert worse.second_health is not None and worse.second_health.aggravated == 2
    assert not worse.health.woken and worse.conditions["unconscious"]


def test_HEALTH_13_gain_second_health_makes_an_all_a_hero_dying() -> None:
    state = world({"max": 3, "aggravated": 3})
    assert derive_actor(state.actors["hero"], state.settings).status is HealthStatus.DEAD
    ruling = run(state, {"kind": "gainSecondHealth", "actor": "hero", "max": 4})
    assert hero(ruling).status is HealthStatus.DYING


def test_HEALTH_11_gain_temp_hp_action_keeps_the_higher() -> None:
    state = run(world(), {"kind": "gainTempHp", "actor": "hero", "amount": 5}).state
    state = run(state, {"kind": "gainTempHp", "actor": "hero", "amount": 2}).state
    assert state.actors["hero"].health.temp_hp == 5


# ---- the round --------------------------------------------------------------------------------------


def test_HEALTH_4_round_worsens_the_six_lethal_example_and_clears_kept_conscious() -> None:
    state = run(world({"max": 5}, willpower={"max": 3, "current": 3}), hit((6, "L"))).state
    state = run(state, {"kind": "spendWillpower", "actor": "hero", "use": "stayConscious"}).state
    assert boxes(state.actors["hero"]) == (0, 0, 4, 1)
    ruling = round_health(state, CTX)
    actor = ruling.state.actors["hero"]
    assert boxes(actor) == (0, 0, 3, 2)
    assert not actor.willpower.kept_conscious
    assert hero(ruling).conditions["unconscious"]
    assert ruling.state.actors["other"] is state.actors["other"]
    assert all(s.data is not None and s.data["actor"] == "hero" for s in ruling.log)


def test_HEALTH_10_round_fast_healing_3_and_2_never_heals_a() -> None:
    state = world({"max": 10, "lethal": 6, "aggravated": 2}, healing={"fastHealing": [3, 2]})
    ruling = round_health(state, CTX)
    assert boxes(ruling.state.actors["hero"]) == (7, 0, 1, 2)


def test_HEALTH_10_round_spends_fast_4_and_regeneration_6_to_leave_1_a() -> None:
    """The careful Storyteller's split: the 4 buys an A; the 6 buys an A and mends the L."""
    state = world(
        {"max": 10, "lethal": 1, "aggravated": 3}, healing={"fastHealing": [4], "regeneration": [6]}
    )
    ruling = round_health(state, CTX)
    assert boxes(ruling.state.actors["hero"]) == (9, 0, 0, 1)


def test_HEALTH_10_a_heal_by_fast_healing_buys_the_a_before_the_b() -> None:
    state = world({"max": 10, "bashing": 1, "aggravated": 2})
    ruling = run(state, {"kind": "heal", "target": "hero", "amount": 4, "source": "fastHealing"})
    assert boxes(hero(ruling)) == (8, 1, 0, 1)


@pytest.mark.parametrize(
    "source", ["firstAid", "magic", "fastHealing", "regeneration", "shortRest", "longRest"]
)
def test_HEALTH_5_the_dead_are_not_healed_a_revival_is_the_overseers(source: str) -> None:
    """All A is dead: First Aid, magic or rest do not bring a corpse back (a revival goes "usually
    through the Overseer"); the Overseer's healing does, at 200 points an A box (HEALTH-9)."""
    dead = world({"max": 3, "aggravated": 3})
    with pytest.raises(RuleViolation, match="not healed") as refused:
        run(dead, {"kind": "heal", "target": "hero", "amount": 4, "source": source})
    assert refused.value.rule == "HEALTH-5" and refused.value.path == ("source",)
    revived = run(dead, {"kind": "heal", "target": "hero", "amount": 1, "source": "overseer"})
    assert boxes(hero(revived)) == (1, 0, 0, 2)
    assert hero(revived).status is HealthStatus.MODERATELY  # E = 2 x 3 = 6 <= 2 x max


def test_HEALTH_5_the_annihilated_are_beyond_any_revival() -> None:
    gone = world({"max": 3, "aggravated": 3}, conditions={"annihilated": True})
    with pytest.raises(RuleViolation, match="beyond any revival"):
        run(gone, {"kind": "heal", "target": "hero", "amount": 1, "source": "overseer"})


def test_HEALTH_5_a_character_carried_by_a_second_track_is_dying_and_may_be_healed() -> None:
    carried = world({"max": 3, "aggravated": 3}, secondHealth={"max": 2, "aggravated": 1})
    healed = run(carried, {"kind": "heal", "target": "hero", "amount": 1, "source": "magic"})
    assert hero(healed).status is not HealthStatus.DEAD


def test_HEALTH_5_round_skips_the_dead() -> None:
    state = world({"max": 3, "aggravated": 3}, healing={"regeneration": [4]})
    ruling = round_health(state, CTX)
    assert ruling.state is state and ruling.log == ()


def test_HEALTH_1_actions_table_names_every_kind() -> None:
    assert set(ACTIONS) == {
        "damage",
        "heal",
        "spendWillpower",
        "gainWillpower",
        "loseWillpower",
        "changeWill",
        "changeMaxHealth",
        "endTemporaryMax",
        "gainSecondHealth",
        "gainTempHp",
    }
    for kind, (model, _) in ACTIONS.items():
        assert model.model_fields["kind"].annotation is not None
        assert kind in str(model.model_fields["kind"].annotation)
