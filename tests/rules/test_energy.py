"""EP-1..9: the pure Energy Pool and Gauge rules, with the rulebook's examples as data."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.energy import (
    Attribute,
    CannotGainAgain,
    Compatibility,
    CompatibilityMode,
    EnergyPool,
    Gauge,
    NewGauge,
    NewPool,
    PoolCategory,
    PoolTrait,
    Region,
    anchor_cannot_gain_again,
    annihilation_step,
    base_max,
    blocked_by_immunity,
    can_pay_for,
    change_gauge_max_by,
    change_max,
    change_pool_max_by,
    choice_refusal,
    gain_new_gauge,
    gain_pool,
    gauge_conflicts,
    payment,
    pool_conflicts,
    pool_traits,
    reopening_bonus,
    restore_gauge_by,
    restore_pool,
    spend_energy_from,
    spend_from_gauge,
)

A = Attribute
ATTRS: dict[Attribute, int] = {a: 2 for a in Attribute} | {A.STA: 3, A.PRE: 4, A.INT: 3, A.RES: 2}


def new(
    pool_id: str,
    keys: tuple[Attribute, ...] = (A.INT, A.RES),
    *,
    category: PoolCategory = PoolCategory.GENERAL,
    region: Region | None = Region.WESTERN,
    source: str = "Some Bloodline",
    variant_of: str | None = None,
    counts_as_pool: bool = True,
    compatibility: tuple[Compatibility, ...] = (),
) -> NewPool:
    return NewPool(
        id=pool_id,
        name=pool_id.replace("-", " ").title(),
        category=category,
        region=None if category is PoolCategory.SPECIAL else region,
        key_attributes=keys,
        source=source,
        variant_of=variant_of,
        counts_as_pool=counts_as_pool,
        compatibility=compatibility,
    )


def held(spec: NewPool) -> EnergyPool:
    """The pool as held after a first gain."""
    return gain_pool(spec, {}, {}, ATTRS).pools[spec.id]


def rule(mode: str, cls: str) -> Compatibility:
    return Compatibility(mode=CompatibilityMode(mode), class_=cls)


INNER_FORCE = new("inner-force", (A.STA, A.PER), region=Region.EASTERN)
HAMON = new("hamon", (A.STA, A.DEX), category=PoolCategory.SPECIAL)
CALORIES = new("calories", (A.STR, A.STA), category=PoolCategory.SPECIAL)
MANA = new("mana", (A.INT, A.RES), region=Region.WESTERN, source="Gem Person Bloodline")


# ---------------------------------------------------------------- EP-1


def test_EP_1_base_max_is_the_sum_of_the_key_attributes_stamina_3_presence_4_gives_7() -> None:
    assert base_max((A.STA, A.PRE), {A.STA: 3, A.PRE: 4}) == 7


@pytest.mark.parametrize(
    ("keys", "traits"),
    [
        pytest.param((A.STA, A.PER), {PoolTrait.PHYSICAL, PoolTrait.MENTAL}, id="inner force STA+PER: both"),
        pytest.param((A.STR, A.DEX), {PoolTrait.PHYSICAL}, id="two Physical Attributes: Physical"),
        pytest.param((A.INT, A.RES), {PoolTrait.MENTAL}, id="two Mental Attributes: Mental"),
        pytest.param((A.PRE, A.COM), {PoolTrait.SOCIAL}, id="two Social Attributes: Social"),
        pytest.param((A.MAN, A.RES), {PoolTrait.SOCIAL, PoolTrait.MENTAL}, id="Social + Mental: both"),
    ],
)
def test_EP_1_traits_come_from_the_key_attributes_groups(
    keys: tuple[Attribute, ...], traits: set[PoolTrait]
) -> None:
    assert pool_traits(keys) == traits


def test_EP_1_new_pool_starts_full_at_the_derived_max() -> None:
    pool = held(new("chakra", (A.STA, A.PRE), region=Region.EASTERN))
    assert (pool.max, pool.current, pool.sources) == (7, 7, ("Some Bloodline",))


def test_EP_1_a_pool_without_key_attributes_is_invalid_with_its_field_path() -> None:
    with pytest.raises(ValidationError) as info:
        NewPool.model_validate(
            {
                "id": "x",
                "name": "X",
                "category": "general",
                "region": "eastern",
                "keyAttributes": [],
                "source": "s",
            }
        )
    assert info.value.errors()[0]["loc"] == ("keyAttributes",)


def test_EP_1_an_attribute_not_in_the_table_is_invalid_and_the_allowed_ones_are_listed() -> None:
    with pytest.raises(ValidationError) as info:
        NewPool.model_validate(
            {
                "id": "x",
                "name": "X",
                "category": "general",
                "region": "eastern",
                "keyAttributes": ["STA", "LUCK"],
                "source": "s",
            }
        )
    error = info.value.errors()[0]
    assert error["loc"] == ("keyAttributes", 1)
    assert all(a.value in error["msg"] for a in Attribute)


@pytest.mark.parametrize(
    ("category", "region", "message"),
    [
        pytest.param("general", None, "needs a region", id="each general pool notes its region"),
        pytest.param("special", "eastern", "neither Eastern nor Western", id="special pools have no region"),
    ],
)
def test_EP_1_main_category_and_region_must_agree(category: str, region: str | None, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        NewPool.model_validate(
            {
                "id": "x",
                "name": "X",
                "category": category,
                "region": region,
                "keyAttributes": ["STA", "PER"],
                "source": "s",
            }
        )


# ---------------------------------------------------------------- EP-2


BOTH = new("both-pool", (A.INT, A.RES), region=Region.BOTH)
EAST_PHYSICAL = new("east-physical", (A.STR, A.DEX), region=Region.EASTERN)


@pytest.mark.parametrize(
    ("mode", "cls", "other", "rejected"),
    [
        pytest.param("onlyWith", "eastern", BOTH, True, id="only with Eastern rejects both East and West"),
        pytest.param("incompatibleWith", "eastern", BOTH, True, id="incompatible with Eastern rejects both"),
        pytest.param("onlyWith", "eastern", EAST_PHYSICAL, False, id="only with Eastern admits Eastern"),
        pytest.param("onlyWith", "western", EAST_PHYSICAL, True, id="only with Western rejects Eastern"),
        pytest.param("onlyWith", "special", EAST_PHYSICAL, True, id="only with special rejects general"),
        pytest.param("onlyWith", "special", HAMON, False, id="only with special admits Hamon"),
        pytest.param(
            "onlyWith", "physical", INNER_FORCE, True, id="only with Physical rejects Physical+Mental"
        ),
        pytest.param("onlyWith", "physical", EAST_PHYSICAL, False, id="only with Physical admits Physical"),
        pytest.param(
            "incompatibleWith", "mental", INNER_FORCE, True, id="incompatible with Mental: inner force"
        ),
        pytest.param("incompatibleWith", "special", HAMON, True, id="incompatible with special: Hamon"),
        pytest.param(
            "incompatibleWith", "western", EAST_PHYSICAL, False, id="incompatible with Western: Eastern ok"
        ),
        pytest.param(
            "incompatibleWith", "inner-force", INNER_FORCE, True, id="incompatible with a named pool"
        ),
        pytest.param(
            "rejectsGauges", "eastern", EAST_PHYSICAL, False, id="rejects Gauges leaves pools alone"
        ),
    ],
)
def test_EP_2_compatibility_modes(mode: str, cls: str, other: NewPool, rejected: bool) -> None:
    picky = held(
        new("picky", (A.PRE, A.MAN), category=PoolCategory.SPECIAL, compatibility=(rule(mode, cls),))
    )
    # the held pool rejects the newcomer, and the newcomer's own modes reject the held pool
    assert bool(pool_conflicts(other.id, other, {"picky": picky}, {})) is rejected
    newcomer = new("picky", (A.PRE, A.MAN), category=PoolCategory.SPECIAL, compatibility=(rule(mode, cls),))
    assert bool(pool_conflicts("picky", newcomer, {other.id: held(other)}, {})) is rejected


def test_EP_2_no_rejection_is_the_default() -> None:
    pools = {p.id: held(p) for p in (INNER_FORCE, HAMON, BOTH)}
    assert pool_conflicts(MANA.id, MANA, pools, {}) == []


def test_EP_2_gaining_a_conflicting_pool_annihilates() -> None:
    picky = held(new("picky", category=PoolCategory.SPECIAL, compatibility=(rule("onlyWith", "special"),)))
    gain = gain_pool(MANA, {"picky": picky}, {}, ATTRS)
    assert gain.annihilated
    assert [s.rule for s in gain.steps] == ["EP-1", "EP-2"]
    step = annihilation_step(gain.conflicts)
    assert step.key == "EP-2.annihilated" and len(step.data["conflicts"]) == len(gain.conflicts) > 0


def test_EP_2_a_pool_that_rejects_gauges_conflicts_with_a_held_gauge_of_that_nature() -> None:
    gauges = {"rage": Gauge(name="Rage", max=5, current=0, source="Berserker Title", nature="fury")}
    spec = new("calm", compatibility=(rule("rejectsGauges", "fury"),))
    assert [c.rule for c in pool_conflicts(spec.id, spec, {}, gauges)] == ["EP-9"]
    assert pool_conflicts(spec.id, spec, {}, {"x": gauges["rage"].model_copy(update={"nature": "joy"})}) == []


# ---------------------------------------------------------------- EP-3

TRUE_ESSENCE = CannotGainAgain(
    class_="eastern", source="True Essence condensing", participants=("inner-force",)
)


@pytest.mark.parametrize(
    "gained",
    [
        pytest.param(
            new("inner-force", (A.STA, A.PER), region=Region.EASTERN, source="another route"),
            id="example 1: gains inner force again by another route mid-condensing",
        ),
        pytest.param(
            new("buddha-power", (A.RES, A.COM), region=Region.EASTERN, source="bought"),
            id="example 2: buys Buddha power to add to the condensing",
        ),
        pytest.param(
            new("both-pool", (A.INT, A.RES), region=Region.BOTH, source="bought"),
            id="a pool of both East and West counts as Eastern",
        ),
    ],
)
def test_EP_3_true_essence_examples_annihilate(gained: NewPool) -> None:
    pools = {"inner-force": held(INNER_FORCE)}
    gain = gain_pool(gained, pools, {}, ATTRS, (TRUE_ESSENCE,))
    assert gain.annihilated
    assert "EP-3" in {c.rule for c in gain.conflicts}


def test_EP_3_pools_held_and_taking_part_stay_fine_and_other_classes_may_be_gained() -> None:
    pools = {"inner-force": held(INNER_FORCE)}
    assert not gain_pool(MANA, pools, {}, ATTRS, (TRUE_ESSENCE,)).annihilated
    # the participant gained through the anchoring process itself is no conflict
    through = new("inner-force", (A.STA, A.PER), region=Region.EASTERN, source="True Essence condensing")
    assert not gain_pool(through, pools, {}, ATTRS, (TRUE_ESSENCE,)).annihilated


# ---------------------------------------------------------------- EP-4


def test_EP_4_ouyang_gem_person_then_magician_then_necronomicon_gives_plus_5_then_plus_3() -> None:
    sources = ["Gem Person Bloodline", "Magician Title", "Necronomicon", "Fourth", "Fifth", "Sixth"]
    pools: dict[str, EnergyPool] = {}
    maxima = []
    for source in sources:
        pools = gain_pool(MANA.model_copy(update={"source": source}), pools, {}, ATTRS).pools
        maxima.append(pools["mana"].max)
    base = ATTRS[A.INT] + ATTRS[A.RES]
    assert maxima == [base, base + 5, base + 8, base + 9, base + 10, base + 10]
    assert pools["mana"].reopenings == 5
    assert pools["mana"].sources == tuple(sources)


@pytest.mark.parametrize(("before", "bonus"), [(0, 5), (1, 3), (2, 1), (3, 1), (4, 0), (9, 0)])
def test_EP_4_reopening_bonus_sequence(before: int, bonus: int) -> None:
    assert reopening_bonus(before) == bonus


def test_EP_4_the_same_source_again_is_refused() -> None:
    pools = {"mana": held(MANA)}
    with pytest.raises(RuleViolation, match="entirely different source") as info:
        gain_pool(MANA, pools, {}, ATTRS)
    assert info.value.path == ("pool", "source")


def test_EP_4_variants_are_separate_pools_and_give_no_bonus() -> None:
    pools = {"inner-force": held(INNER_FORCE)}
    demon = new(
        "heavenly-demon-force",
        (A.STA, A.PER),
        region=Region.EASTERN,
        source="Demon Art",
        variant_of="inner-force",
    )
    gain = gain_pool(demon, pools, {}, ATTRS)
    assert gain.pools["inner-force"] is pools["inner-force"]
    assert gain.pools["heavenly-demon-force"].max == ATTRS[A.STA] + ATTRS[A.PER]


def test_EP_4_a_variant_of_a_pool_the_actor_lacks_is_refused() -> None:
    demon = new("heavenly-demon-force", (A.STA, A.PER), region=Region.EASTERN, variant_of="inner-force")
    with pytest.raises(RuleViolation, match="does not have") as info:
        gain_pool(demon, {}, {}, ATTRS)
    assert info.value.path == ("pool", "variantOf")


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


# ---------------------------------------------------------------- EP-9


def test_EP_9_a_gauge_that_rejects_a_pool_class_or_another_gauge_conflicts() -> None:
    pools = {"inner-force": held(INNER_FORCE)}
    gauge = Gauge(
        name="Heat",
        max=None,
        current=0,
        source="Fire Bloodline",
        compatibility=(rule("incompatibleWith", "eastern"),),
    )
    assert [c.rule for c in gauge_conflicts("heat", gauge, pools, {})] == ["EP-9"]
    other = Gauge(name="Frost", max=3, current=3, source="Ice Title", nature="cold")
    picky = gauge.model_copy(update={"compatibility": (rule("rejectsGauges", "cold"),)})
    assert len(gauge_conflicts("heat", picky, {}, {"frost": other})) == 1
    assert (
        gauge_conflicts("heat", picky.model_copy(update={"compatibility": ()}), pools, {"frost": other}) == []
    )


def test_EP_9_gain_new_gauge_fills_it_keeps_same_names_apart_and_refuses_a_held_id() -> None:
    held_gauge = Gauge(name="Rage", max=5, current=2, source="Berserker Title")
    full = gain_new_gauge(
        NewGauge(id="rage-2", name="Rage", max=4, source="Blood Title"), {}, {"rage": held_gauge}
    )
    assert (full.gauge.current, full.gauge.max, full.conflicts) == (4, 4, ())
    assert [(s.key, s.text) for s in full.steps] == [
        ("EP-9.gained", "Rage from Blood Title: 4/4; separate from rage")
    ]
    assert full.steps[0].data == {"gauge": "rage-2", "current": 4, "max": 4}
    open_ended = gain_new_gauge(NewGauge(id="sin", name="Sin", max=None, source="Demon Bloodline"), {}, {})
    assert open_ended.gauge.current == 0
    assert open_ended.steps[0].text == "Sin from Demon Bloodline: 0 (no maximum)"
    with pytest.raises(RuleViolation) as refused:
        gain_new_gauge(NewGauge(id="rage", name="Fury", max=3, source="Other"), {}, {"rage": held_gauge})
    assert refused.value.rule == "EP-9" and refused.value.path == ("gauge", "id")


def test_EP_9_gain_new_gauge_names_each_conflict_for_the_annihilation() -> None:
    picky = NewGauge(
        id="heat",
        name="Heat",
        max=None,
        source="Fire Bloodline",
        compatibility=(rule("incompatibleWith", "eastern"),),
    )
    gained = gain_new_gauge(picky, {"inner-force": held(INNER_FORCE)}, {})
    assert [c.rule for c in gained.conflicts] == ["EP-9"]
    assert [s.key for s in gained.steps] == ["EP-9.gained", "EP-9.rejects"]
    assert gained.steps[1].text.endswith(": annihilated")


def test_EP_3_anchor_cannot_gain_again_writes_the_anchor_and_names_the_participants() -> None:
    anchored = anchor_cannot_gain_again("true-essence", "Ascension", ())
    anchor, step = anchored.anchor, anchored.step
    assert anchor == CannotGainAgain(class_="true-essence", source="Ascension")
    assert (step.rule, step.key) == ("EP-3", "EP-3.anchored")
    assert step.text == "from now on (Ascension) gaining a 'true-essence' Energy Pool annihilates"
    assert step.data == {"class": "true-essence", "participants": [], "anchorSource": "Ascension"}
    anchored = anchor_cannot_gain_again("true-essence", "Ascension", ("inner-force",))
    anchor, step = anchored.anchor, anchored.step
    assert anchor.participants == ("inner-force",)
    assert step.key == "EP-3.anchoredWith"
    assert step.text.endswith("; taking part: inner-force")


def test_EP_9_a_gauge_without_a_maximum_and_one_above_its_maximum() -> None:
    assert Gauge(name="Sin", max=None, current=999, source="Demon Bloodline").max is None
    with pytest.raises(ValidationError, match="exceeds max"):
        Gauge(name="Sin", max=3, current=4, source="Demon Bloodline")


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


def test_EP_9_a_gauge_spends_what_it_holds_restores_to_its_max_and_changes_a_max_it_has() -> None:
    rage = Gauge(name="Rage", max=5, current=3, source="Berserker")
    assert spend_from_gauge("rage", rage, 3).gauge.current == 0
    with pytest.raises(RuleViolation) as too_much:
        spend_from_gauge("rage", rage, 4)
    assert (too_much.value.rule, too_much.value.path) == ("EP-9", ("amount",))
    assert restore_gauge_by("rage", rage, 10).gauge.current == 5
    endless = Gauge(name="Gold", max=None, current=3, source="Merchant")
    assert restore_gauge_by("gold", endless, 10).gauge.current == 13
    lowered = change_gauge_max_by("rage", rage, -4)
    assert (lowered.gauge.max, lowered.gauge.current, lowered.step.data["lost"]) == (1, 1, 2)
    with pytest.raises(RuleViolation, match="no maximum"):
        change_gauge_max_by("gold", endless, 1)
