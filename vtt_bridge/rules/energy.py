"""Energy Pools and Gauges (EP-1..4, EP-9's models and conflicts): the models, the categories and
traits, compatibility and annihilation, "cannot gain again", gaining and opening a pool again.
Using a pool is `rules.energy_use` (EP-5..8), using a Gauge `rules.gauges` (EP-9).

Willpower is not an Energy Pool (WP-1): nothing here reads or writes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Protocol, TypeVar

from pydantic import Field, model_validator

from vtt_bridge.rules.common import Count, Flag, RuleModel, RuleViolation, Slug, Step

EnergyName = Annotated[str, Field(strict=True, min_length=1, max_length=200)]


class Attribute(StrEnum):
    """The nine Attributes, in their three groups (EP-1)."""

    STR = "STR"
    DEX = "DEX"
    STA = "STA"
    INT = "INT"
    PER = "PER"
    RES = "RES"
    PRE = "PRE"
    MAN = "MAN"
    COM = "COM"


class PoolTrait(StrEnum):
    """EP-1: the subcategory an Attribute group gives a pool."""

    PHYSICAL = "physical"
    MENTAL = "mental"
    SOCIAL = "social"


ATTRIBUTE_GROUPS: Mapping[Attribute, PoolTrait] = {
    Attribute.STR: PoolTrait.PHYSICAL,
    Attribute.DEX: PoolTrait.PHYSICAL,
    Attribute.STA: PoolTrait.PHYSICAL,
    Attribute.INT: PoolTrait.MENTAL,
    Attribute.PER: PoolTrait.MENTAL,
    Attribute.RES: PoolTrait.MENTAL,
    Attribute.PRE: PoolTrait.SOCIAL,
    Attribute.MAN: PoolTrait.SOCIAL,
    Attribute.COM: PoolTrait.SOCIAL,
}
"""EP-1: Physical STR DEX STA; Mental INT PER RES; Social PRE MAN COM."""


class PoolCategory(StrEnum):
    """EP-1: general (Eastern, Western or both) or special."""

    GENERAL = "general"
    SPECIAL = "special"


class Region(StrEnum):
    """EP-1: a general pool's region."""

    EASTERN = "eastern"
    WESTERN = "western"
    BOTH = "both"


class CompatibilityMode(StrEnum):
    """EP-2: how a pool rejects others (no entry: no rejection)."""

    ONLY_WITH = "onlyWith"
    INCOMPATIBLE_WITH = "incompatibleWith"
    REJECTS_GAUGES = "rejectsGauges"


class Compatibility(RuleModel):
    """EP-2: one compatibility mode against a class.

    Pool classes: eastern, western, special, general, physical, mental, social, or a pool's id or
    slugged name (a variant also answers to its original's id). For `rejectsGauges`: a gauge's
    nature, id or slugged name.
    """

    mode: CompatibilityMode
    class_: Slug = Field(alias="class")


KeyAttributes = Annotated[tuple[Attribute, ...], Field(min_length=1, max_length=3)]


def _check_definition(
    category: PoolCategory, region: Region | None, key_attributes: tuple[Attribute, ...]
) -> None:
    if category is PoolCategory.GENERAL and region is None:
        raise ValueError("a general Energy Pool needs a region: 'eastern', 'western' or 'both' (EP-1)")
    if category is PoolCategory.SPECIAL and region is not None:
        raise ValueError("a special Energy Pool is neither Eastern nor Western: region must be null (EP-1)")
    if len(set(key_attributes)) != len(key_attributes):
        raise ValueError("key Attributes must not repeat (EP-1)")


class EnergyPool(RuleModel):
    """EP-1..8: one Energy Pool on an actor, keyed by its id in `energyPools`."""

    name: EnergyName
    category: PoolCategory
    region: Region | None = None
    key_attributes: KeyAttributes
    max: Count
    current: Count
    sources: tuple[EnergyName, ...] = ()
    variant_of: Slug | None = None
    counts_as_pool: Flag = True
    compatibility: tuple[Compatibility, ...] = ()
    reopenings: Count = 0
    """EP-4: how many times the pool was opened again from an entirely different source."""
    pays_for: tuple[Slug, ...] = ()
    """EP-7: pools (ids) a resource lets this pool be spent in place of, beyond its original."""

    @model_validator(mode="after")
    def _consistent(self) -> EnergyPool:
        _check_definition(self.category, self.region, self.key_attributes)
        if self.current > self.max:
            raise ValueError(f"current ({self.current}) exceeds max ({self.max})")
        return self


class Gauge(RuleModel):
    """EP-9: a Gauge, not a pool: from one resource, its own max rules (null max: no maximum)."""

    name: EnergyName
    max: Count | None
    current: Count
    source: EnergyName
    nature: Slug | None = None
    compatibility: tuple[Compatibility, ...] = ()
    """EP-9: rare Gauges reject pools (onlyWith/incompatibleWith a pool class) or Gauges."""

    @model_validator(mode="after")
    def _current_fits(self) -> Gauge:
        if self.max is not None and self.current > self.max:
            raise ValueError(f"current ({self.current}) exceeds max ({self.max})")
        return self


class CannotGainAgain(RuleModel):
    """EP-3: "cannot gain <class> Energy Pools again", anchored when set.

    From then on gaining a pool of `class` annihilates, except a pool in `participants` gained
    through the anchoring process itself (same `source`).
    """

    class_: Slug = Field(alias="class")
    source: EnergyName
    participants: tuple[Slug, ...] = ()


class NewPool(RuleModel):
    """EP-1/EP-4: a pool being gained; `max` is derived from the key Attributes."""

    id: Slug
    name: EnergyName
    category: PoolCategory
    region: Region | None = None
    key_attributes: KeyAttributes
    source: EnergyName
    variant_of: Slug | None = None
    counts_as_pool: Flag = True
    compatibility: tuple[Compatibility, ...] = ()
    pays_for: tuple[Slug, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> NewPool:
        _check_definition(self.category, self.region, self.key_attributes)
        if self.variant_of == self.id:
            raise ValueError("a pool cannot be a variant of itself (EP-7)")
        return self


# ---------------------------------------------------------------- EP-1 categories and traits

REGION_CLASSES = frozenset({"eastern", "western", "special"})
TRAIT_CLASSES = frozenset(trait.value for trait in PoolTrait)


class NewGauge(RuleModel):
    """EP-9: a Gauge being gained from a resource; `current` defaults to full (0 without a max)."""

    id: Slug
    name: EnergyName
    max: Count | None
    source: EnergyName
    nature: Slug | None = None
    current: Count | None = None
    compatibility: tuple[Compatibility, ...] = ()

    @model_validator(mode="after")
    def _current_fits(self) -> NewGauge:
        if self.max is not None and self.current is not None and self.current > self.max:
            raise ValueError(f"current ({self.current}) exceeds max ({self.max})")
        return self


def slug(text: str) -> str:
    """A pool or gauge name as a class slug: 'Inner Force' -> 'inner-force'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def pool_traits(key_attributes: tuple[Attribute, ...]) -> frozenset[PoolTrait]:
    """EP-1: Physical/Mental/Social from the key Attributes' groups; two groups give both."""
    return frozenset(ATTRIBUTE_GROUPS[attribute] for attribute in key_attributes)


def base_max(key_attributes: tuple[Attribute, ...], attributes: Mapping[Attribute, int]) -> int:
    """EP-1: the base maximum is the sum of the key Attributes."""
    return sum(attributes.get(attribute, 0) for attribute in key_attributes)


def main_classes(category: PoolCategory, region: Region | None) -> frozenset[str]:
    """EP-1/EP-2: eastern, western (both East and West: each) or special."""
    if category is PoolCategory.SPECIAL:
        return frozenset({"special"})
    if region is Region.BOTH:
        return frozenset({"eastern", "western"})
    return frozenset({region.value}) if region is not None else frozenset()


def pool_classes(pool_id: str, pool: EnergyPool | NewPool) -> frozenset[str]:
    """EP-2: every class the pool can be classed as (a variant is also its original, EP-7)."""
    classes = set(main_classes(pool.category, pool.region))
    classes |= {trait.value for trait in pool_traits(pool.key_attributes)}
    if pool.category is PoolCategory.GENERAL:
        classes.add("general")
    classes |= {pool_id, slug(pool.name)}
    if pool.variant_of is not None:
        classes.add(pool.variant_of)
    return frozenset(classes)


def only_with_admits(cls: str, pool_id: str, pool: EnergyPool | NewPool) -> bool:
    """EP-2 "compatible only with <cls>": every way the pool can be classed on that axis must be cls.

    So a pool of both East and West is refused by "only with Eastern" (it can be classed as Western),
    and a Physical + Mental pool by "only with Physical".
    """
    if cls in REGION_CLASSES:
        return main_classes(pool.category, pool.region) <= {cls}
    if cls in TRAIT_CLASSES:
        return {trait.value for trait in pool_traits(pool.key_attributes)} <= {cls}
    return cls in pool_classes(pool_id, pool)


def _rejects_pool(rule: Compatibility, pool_id: str, pool: EnergyPool | NewPool) -> bool:
    if not pool.counts_as_pool:
        return False  # EP-8: never rejected
    if rule.mode is CompatibilityMode.ONLY_WITH:
        return not only_with_admits(rule.class_, pool_id, pool)
    if rule.mode is CompatibilityMode.INCOMPATIBLE_WITH:
        return rule.class_ in pool_classes(pool_id, pool)
    return False


def gauge_classes(gauge_id: str, gauge: Gauge) -> frozenset[str]:
    """EP-9: what a `rejectsGauges` class can name: the gauge's nature, id or slugged name."""
    classes = {gauge_id, slug(gauge.name)}
    if gauge.nature is not None:
        classes.add(gauge.nature)
    return frozenset(classes)


def _rejects_gauge(rule: Compatibility, gauge_id: str, gauge: Gauge) -> bool:
    return rule.mode is CompatibilityMode.REJECTS_GAUGES and rule.class_ in gauge_classes(gauge_id, gauge)


@dataclass(frozen=True, slots=True)
class Conflict:
    """EP-2/EP-3/EP-9: why something held and something gained cannot meet."""

    rule: str
    text: str
    data: dict[str, Any]
    """What the chat card words it from: `holder`, `mode`, `class`, `other` (EP-2/EP-9) or `class`,
    `anchorSource`, `name` (EP-3)."""


CONFLICT_KEYS: dict[str, str] = {"EP-2": "EP-2.rejects", "EP-9": "EP-9.rejects", "EP-3": "EP-3.anchor"}
"""The step key of a conflict, by its rule."""


def _describe(rule: Compatibility) -> str:
    return f"{rule.mode.value} {rule.class_!r}"


class _Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=_Named)


def _rejections(
    rule_id: str,
    holder: EnergyPool | NewPool | Gauge,
    rejects: Callable[[Compatibility, str, T], bool],
    other_id: str,
    other: T,
) -> list[Conflict]:
    """EP-2/EP-9: each of `holder`'s compatibility modes that rejects `other`."""
    return [
        Conflict(
            rule_id,
            f"{holder.name} ({_describe(rule)}) rejects {other.name}",
            {"holder": holder.name, "mode": rule.mode.value, "class": rule.class_, "other": other.name},
        )
        for rule in holder.compatibility
        if rejects(rule, other_id, other)
    ]


def pool_conflicts(
    new_id: str,
    new: EnergyPool | NewPool,
    pools: Mapping[str, EnergyPool],
    gauges: Mapping[str, Gauge],
    anchors: tuple[CannotGainAgain, ...] = (),
    source: str | None = None,
) -> list[Conflict]:
    """EP-2/EP-3/EP-9: every conflict that gaining pool `new_id` makes with what the actor holds.

    Checked both ways (the new pool rejecting a held one and a held one rejecting it), against held
    Gauges, and against the actor's "cannot gain again" anchors. A pool held under the same id (a
    reopening) is not checked against itself.
    """
    conflicts: list[Conflict] = []
    for held_id, held in pools.items():
        if held_id != new_id:
            conflicts += _rejections("EP-2", new, _rejects_pool, held_id, held)
            conflicts += _rejections("EP-2", held, _rejects_pool, new_id, new)
    for gauge_id, gauge in gauges.items():
        conflicts += _rejections("EP-9", new, _rejects_gauge, gauge_id, gauge)
        conflicts += _rejections("EP-9", gauge, _rejects_pool, new_id, new)
    if new.counts_as_pool:
        for anchor in anchors:
            if anchor.class_ not in pool_classes(new_id, new):
                continue
            if new_id in anchor.participants and source == anchor.source:
                continue
            conflicts.append(
                Conflict(
                    "EP-3",
                    f"cannot gain {anchor.class_!r} Energy Pools again since {anchor.source}; "
                    f"{new.name} is one",
                    {"class": anchor.class_, "anchorSource": anchor.source, "name": new.name},
                )
            )
    return conflicts


def gauge_conflicts(
    new_id: str, new: Gauge, pools: Mapping[str, EnergyPool], gauges: Mapping[str, Gauge]
) -> list[Conflict]:
    """EP-9: every conflict gaining Gauge `new_id` makes with held pools and Gauges, both ways."""
    conflicts: list[Conflict] = []
    for pool_id, pool in pools.items():
        conflicts += _rejections("EP-9", pool, _rejects_gauge, new_id, new)
        conflicts += _rejections("EP-9", new, _rejects_pool, pool_id, pool)
    for held_id, held in gauges.items():
        conflicts += _rejections("EP-9", new, _rejects_gauge, held_id, held)
        conflicts += _rejections("EP-9", held, _rejects_gauge, new_id, new)
    return conflicts


# ---------------------------------------------------------------- EP-4 gaining and reopening

REOPENING_BONUSES: tuple[int, ...] = (5, 3, 1, 1)
"""EP-4: extra maximum for the first, second, third and fourth reopening; nothing after."""


def reopening_bonus(reopenings_before: int) -> int:
    """EP-4: the extra maximum the next reopening gives, after `reopenings_before` earlier ones."""
    return REOPENING_BONUSES[reopenings_before] if reopenings_before < len(REOPENING_BONUSES) else 0


@dataclass(frozen=True, slots=True)
class PoolGain:
    """The outcome of gaining a pool: the actor's pools afterwards, the conflicts, the steps."""

    pools: dict[str, EnergyPool]
    conflicts: tuple[Conflict, ...]
    steps: tuple[Step, ...]

    @property
    def annihilated(self) -> bool:
        """EP-2: any conflict annihilates (dead beyond revival, no save)."""
        return bool(self.conflicts)


def _same_definition(held: EnergyPool, new: NewPool) -> list[str]:
    fields = ("name", "category", "region", "key_attributes", "variant_of", "counts_as_pool")
    return [f for f in fields if getattr(held, f) != getattr(new, f)]


def gain_pool(
    new: NewPool,
    pools: Mapping[str, EnergyPool],
    gauges: Mapping[str, Gauge],
    attributes: Mapping[Attribute, int],
    anchors: tuple[CannotGainAgain, ...] = (),
) -> PoolGain:
    """EP-1..4, EP-7, EP-8: gain `new`, or open it again (reopening bonus), and find conflicts.

    Raises `RuleViolation` for a variant of a pool not held, a reopening from a source already
    counted, or a reopening whose definition differs from the pool held.
    """
    steps: list[Step] = []
    if new.variant_of is not None and new.variant_of not in pools:
        raise RuleViolation(
            "EP-7",
            f"{new.name} is a variant of {new.variant_of!r}, which the actor does not have",
            ("pool", "variantOf"),
        )
    held = pools.get(new.id)
    result = dict(pools)
    if held is None:
        traits = sorted(trait.value for trait in pool_traits(new.key_attributes))
        maximum = base_max(new.key_attributes, attributes)
        values = {a.value: attributes.get(a, 0) for a in new.key_attributes}
        steps.append(
            Step(
                rule="EP-1",
                text=(
                    f"{new.name}: {' + '.join(f'{k} {v}' for k, v in values.items())} = max {maximum}; "
                    f"{new.category.value}{'' if new.region is None else ' ' + new.region.value}, "
                    f"{' and '.join(traits)}"
                ),
                data={
                    "max": maximum,
                    "keyAttributes": values,
                    "traits": traits,
                    "name": new.name,
                    "category": new.category.value,
                    "region": None if new.region is None else new.region.value,
                },
                key="EP-1.gained",
            )
        )
        if new.variant_of is not None:
            steps.append(
                Step(
                    rule="EP-7",
                    text=f"{new.name} is a variant of {new.variant_of}: a separate pool, no reopening bonus",
                    data={"variantOf": new.variant_of, "name": new.name},
                    key="EP-7.variant",
                )
            )
        result[new.id] = EnergyPool(
            name=new.name,
            category=new.category,
            region=new.region,
            key_attributes=new.key_attributes,
            max=maximum,
            current=maximum,
            sources=(new.source,),
            variant_of=new.variant_of,
            counts_as_pool=new.counts_as_pool,
            compatibility=new.compatibility,
            pays_for=new.pays_for,
        )
    else:
        differing = _same_definition(held, new)
        if differing:
            raise RuleViolation(
                "EP-4",
                f"pool {new.id!r} is held with a different {', '.join(differing)}; "
                "a pool opened again must be the same pool (a variant needs its own id)",
                ("pool", "id"),
            )
        if new.source in held.sources:
            raise RuleViolation(
                "EP-4",
                f"{held.name} was already gained from {new.source!r}; "
                "opening it again needs an entirely different source",
                ("pool", "source"),
            )
        bonus = reopening_bonus(held.reopenings)
        steps.append(
            Step(
                rule="EP-4",
                text=(
                    f"{held.name} opened again from {new.source} (reopening {held.reopenings + 1}): "
                    + (f"max +{bonus}, {held.max} -> {held.max + bonus}" if bonus else "no further bonus")
                ),
                data={
                    "reopening": held.reopenings + 1,
                    "bonus": bonus,
                    "max": held.max + bonus,
                    "name": held.name,
                    "gainedFrom": new.source,
                    "before": held.max,
                },
                key="EP-4.reopened" if bonus else "EP-4.noBonus",
            )
        )
        result[new.id] = held.model_copy(
            update={
                "max": held.max + bonus,
                "sources": (*held.sources, new.source),
                "reopenings": held.reopenings + 1,
            }
        )
    conflicts = pool_conflicts(new.id, new, pools, gauges, anchors, new.source)
    for conflict in conflicts:
        steps.append(
            Step(
                rule=conflict.rule,
                text=f"{conflict.text}: annihilated, dead beyond revival",
                data=conflict.data,
                key=CONFLICT_KEYS[conflict.rule],
            )
        )
    return PoolGain(pools=result, conflicts=tuple(conflicts), steps=tuple(steps))


# ---------------------------------------------------------------- EP-2 annihilation, EP-3 anchoring


def check_not_annihilated(name: str, annihilated: bool) -> None:
    """EP-2: the annihilated are dead beyond any revival: nothing more is gained, spent or changed on
    them (`RuleViolation`)."""
    if annihilated:
        raise RuleViolation("EP-2", f"{name} is annihilated: dead beyond revival", ("actor",))


def annihilation_step(conflicts: Sequence[Conflict]) -> Step:
    """EP-2: conflicting Energy Pools or Gauges meet; the character is annihilated, dead beyond any
    revival, with no save (the conflicts that did it named)."""
    return Step(
        rule="EP-2",
        text="conflicting Energy Pools or Gauges meet: annihilated, dead beyond any revival, no save",
        data={"conflicts": [{"rule": c.rule, "text": c.text} for c in conflicts]},
        key="EP-2.annihilated",
    )


@dataclass(frozen=True, slots=True)
class Anchoring:
    """EP-3: the anchor set and the step that explains it."""

    anchor: CannotGainAgain
    step: Step


def anchor_cannot_gain_again(class_: str, source: str, participants: tuple[str, ...]) -> Anchoring:
    """EP-3: anchor "cannot gain <class> Energy Pools again" now (the pools in `participants` take
    part through `source`)."""
    anchor = CannotGainAgain(class_=class_, source=source, participants=participants)
    step = Step(
        rule="EP-3",
        text=(
            f"from now on ({source}) gaining a {class_!r} Energy Pool annihilates"
            + (f"; taking part: {', '.join(participants)}" if participants else "")
        ),
        data={"class": class_, "participants": list(participants), "anchorSource": source},
        key="EP-3.anchoredWith" if participants else "EP-3.anchored",
    )
    return Anchoring(anchor, step)
