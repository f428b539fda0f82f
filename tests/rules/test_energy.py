"""EP-1..9: the pure Energy Pool and Gauge rules, with the rulebook's examples as data."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.energy import (
    Attribute,
    CannotGainAgain,
    Compatibility,
    CompatibilityMode,
    EnergyPool,
    Gauge,
    NewPool,
    PoolCategory,
    PoolTrait,
    Region,
    anchor_cannot_gain_again,
    annihilation_step,
    base_max,
    check_not_annihilated,
    gain_pool,
    gauge_conflicts,
    pool_conflicts,
    pool_traits,
    reopening_bonus,
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


def test_EP_2_the_annihilated_are_dead_beyond_revival_and_gain_or_spend_nothing_more() -> None:
    """EP-3's example 1 ends in EP-2's annihilation: Player A gains inner force again mid-condensing
    and "is annihilated"; from then on nothing is gained, spent or changed on him."""
    pools = {"inner-force": held(INNER_FORCE)}
    again = new("inner-force", (A.STA, A.PER), region=Region.EASTERN, source="another route")
    assert gain_pool(again, pools, {}, ATTRS, (TRUE_ESSENCE,)).annihilated
    with pytest.raises(RuleViolation) as refused:
        check_not_annihilated("Player A", True)
    assert (refused.value.rule, refused.value.path) == ("EP-2", ("actor",))
    assert refused.value.message == "Player A is annihilated: dead beyond revival"
    check_not_annihilated("Player B", False)


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
