"""EP-5..8: using Energy Pools, the pure rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.rules.test_energy import ATTRS, CALORIES, HAMON, INNER_FORCE, MANA, A, held, new, rule
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.energy import (
    CannotGainAgain,
    EnergyPool,
    NewPool,
    PoolCategory,
    Region,
    gain_pool,
    pool_conflicts,
)
from vtt_bridge.rules.energy_use import (
    blocked_by_immunity,
    can_pay_for,
    change_max,
    change_pool_max_by,
    choice_refusal,
    payment,
    restore_pool,
    spend_energy_from,
)

# ---------------------------------------------------------------- EP-5


def test_EP_5_temporary_intelligence_point_adds_one_empty_max() -> None:
    gained = change_max(5, 5, +1)
    assert (gained.max, gained.current, gained.lost) == (6, 5, 0)


def test_EP_5_losing_intelligence_drops_the_excess_and_it_does_not_come_back() -> None:
    lost = change_max(5, 5, -1)
    assert (lost.max, lost.current, lost.lost) == (4, 4, 1)
    back = change_max(lost.max, lost.current, +1)
    assert (back.max, back.current) == (5, 4)


@given(st.integers(0, 50), st.integers(0, 50), st.integers(-50, 50))
def test_EP_5_current_never_rises_and_never_exceeds_max(maximum: int, spent: int, delta: int) -> None:
    current = max(0, maximum - spent)
    if maximum + delta < 0:
        with pytest.raises(RuleViolation):
            change_max(maximum, current, delta)
        return
    change = change_max(maximum, current, delta)
    assert change.current <= change.max
    assert change.current <= current
    assert change.current + change.lost == current


# ---------------------------------------------------------------- EP-6


def test_EP_6_spending_5_with_a_reduction_of_2_lasts_7_rounds() -> None:
    pay = payment(cost=7, reduction=2, spend_all=False, current=10)
    rounds = pay.effect_cost * 1  # the ability lasts (energy spent) x 1 rounds, from the original cost
    assert (pay.paid, rounds) == (5, 7)


def test_EP_6_a_spend_all_ability_gets_no_reduction() -> None:
    pay = payment(cost=0, reduction=2, spend_all=True, current=9)
    assert (pay.paid, pay.effect_cost, pay.reduction_applied) == (9, 9, 0)


@given(st.integers(0, 100), st.integers(0, 100))
def test_EP_6_reduction_never_changes_the_effect_and_never_pays_below_zero(cost: int, reduction: int) -> None:
    pay = payment(cost, reduction, False, 1000)
    assert pay.effect_cost == cost
    assert pay.paid == max(0, cost - reduction)


# ---------------------------------------------------------------- EP-7


def test_EP_7_a_variant_pays_for_its_original_not_the_reverse() -> None:
    spec = new("heavenly-demon-force", (A.STA, A.PER), region=Region.EASTERN, variant_of="inner-force")
    pools = gain_pool(spec, {"inner-force": held(INNER_FORCE)}, {}, ATTRS).pools
    assert can_pay_for("heavenly-demon-force", pools["heavenly-demon-force"], "inner-force")
    assert not can_pay_for("inner-force", pools["inner-force"], "heavenly-demon-force")


@pytest.mark.parametrize(
    ("payer", "blocked"),
    [
        pytest.param(
            held(new("source-energy", (A.STR, A.STA), category=PoolCategory.SPECIAL)).model_copy(
                update={"pays_for": ("inner-force",)}
            ),
            False,
            id="Source Energy in place of inner force is not blocked by immunity to Mental energy",
        ),
        pytest.param(
            held(new("haoran-qi", (A.RES, A.COM), region=Region.EASTERN)).model_copy(
                update={"pays_for": ("yokai-power",)}
            ),
            True,
            id="Haoran qi in place of yokai power is blocked by immunity to Mental energy",
        ),
    ],
)
def test_EP_7_immunity_is_judged_on_the_pool_actually_spent(payer: EnergyPool, blocked: bool) -> None:
    payer_id = "source-energy" if payer.name == "Source Energy" else "haoran-qi"
    assert can_pay_for(payer_id, payer, payer.pays_for[0])
    assert blocked_by_immunity(payer_id, payer, "mental") is blocked


# ---------------------------------------------------------------- EP-8


@pytest.mark.parametrize(
    ("spec", "required", "choosable"),
    [
        pytest.param(INNER_FORCE, "physical", True, id="Infinite Fist: inner force counts as Physical"),
        pytest.param(HAMON, "physical", False, id="Infinite Fist: Hamon is special, not choosable"),
        pytest.param(MANA, None, True, id="Nail Fist pays 1 energy: mana"),
        pytest.param(CALORIES, None, False, id="Nail Fist pays 1 energy: not Calories, a special pool"),
        pytest.param(
            new("bound-qi", counts_as_pool=False), None, False, id="doesn't count as a pool: not 'any pool'"
        ),
    ],
)
def test_EP_8_choosing_a_pool(spec: NewPool, required: str | None, choosable: bool) -> None:
    assert (choice_refusal(spec.id, held(spec), required) is None) is choosable


def test_EP_8_a_pool_that_does_not_count_as_a_pool_is_never_rejected() -> None:
    hater = held(new("hater", compatibility=(rule("incompatibleWith", "western"),)))
    shadow = new("shadow", region=Region.WESTERN, counts_as_pool=False)
    assert pool_conflicts(shadow.id, shadow, {"hater": hater}, {}) == []
    anchor = CannotGainAgain(class_="western", source="x")
    assert pool_conflicts(shadow.id, shadow, {}, {}, (anchor,)) == []


def test_EP_6_EP_7_spend_energy_from_pays_reduced_in_place_of_the_original_and_refuses_the_reverse() -> None:
    spec = new("heavenly-demon-force", (A.STA, A.PER), region=Region.EASTERN, variant_of="inner-force")
    pools = gain_pool(spec, {"inner-force": held(INNER_FORCE)}, {}, ATTRS).pools
    variant, original = pools["heavenly-demon-force"], pools["inner-force"]
    spent = spend_energy_from(
        "heavenly-demon-force", variant, "inner-force", original,
        substituted=True, chosen=False, chosen_class=None, cost=3, reduction=1, spend_all=False,
    )  # fmt: skip
    assert spent.pool.current == variant.current - 2 and spent.payment.effect_cost == 3
    assert [step.key for step in spent.steps] == ["EP-7.substitute", "EP-6.reduced", "EP-6.paid"]
    with pytest.raises(RuleViolation) as refused:
        spend_energy_from(
            "inner-force", original, "heavenly-demon-force", variant,
            substituted=True, chosen=False, chosen_class=None, cost=1, reduction=0, spend_all=False,
        )  # fmt: skip
    assert refused.value.rule == "EP-7" and refused.value.path == ("substituteFrom",)
    with pytest.raises(RuleViolation) as too_much:
        spend_energy_from(
            "inner-force", original, "inner-force", original,
            substituted=False, chosen=False, chosen_class=None, cost=original.current + 1, reduction=0,
            spend_all=False,
        )  # fmt: skip
    assert too_much.value.rule == "EP-6" and too_much.value.path == ("cost",)


def test_EP_5_restoring_stops_at_the_maximum_and_a_full_pool_stays_the_same_object() -> None:
    pool = held(INNER_FORCE).model_copy(update={"current": 1})
    restored = restore_pool("inner-force", pool, 100)
    assert restored.pool.current == pool.max and restored.step.data["restored"] == pool.max - 1
    full = restored.pool
    assert restore_pool("inner-force", full, 3).pool is full


def test_EP_5_EP_8_a_max_change_keeps_current_or_loses_the_excess_and_special_pools_refuse_enhancement() -> (
    None
):
    pool = held(INNER_FORCE)
    lost = change_pool_max_by("inner-force", pool, -2, attack=False, enhancement=False)
    assert (lost.pool.max, lost.pool.current, lost.step.data["lost"]) == (pool.max - 2, pool.max - 2, 2)
    gained = change_pool_max_by("inner-force", pool, 3, attack=False, enhancement=True)
    assert (gained.pool.max, gained.pool.current) == (pool.max + 3, pool.current)
    with pytest.raises(RuleViolation) as refused:
        change_pool_max_by("hamon", held(HAMON), 1, attack=False, enhancement=True)
    assert refused.value.rule == "EP-8"
