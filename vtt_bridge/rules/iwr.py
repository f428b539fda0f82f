"""Immunity, weakness, resistance (IWR-1..8), after Pathfinder 2e, and the one damage pipeline.

`iwr` entries follow the pf2e system's data (`{type, exceptions?}`, `{type, value, exceptions?,
doubleVs?}`), so a GM can copy a stat block. An entry's `type` (and each exception / doubleVs slug)
is matched against a damage instance by `matches`: a damage type, a group (`physical`, `energy`,
`all-damage`), `critical-hits`, `nonlethal-attacks`, an effect category (`death-effects` -> trait
`death`, any `x-effects` -> trait `x`), `magical` / `non-magical`, or else any trait or material of the
effect (open sets: `silver`, `cold-iron`, `water`, `spell`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.common import NO_SUBJECTS, Count, Flag, RuleModel, Slug, Step, make_step, quick_init
from vtt_bridge.rules.damage import DAMAGE_GROUPS, DAMAGE_TYPE_SLUGS, DamageType, is_damage_type_or_group
from vtt_bridge.rules.health import Grade
from vtt_bridge.rules.immunities import (
    Immunity,
    check_immunities,
    covers_damage,
    covers_traits,
)
from vtt_bridge.rules.ranks import CasterLevel, Priced, PricedRank, Rank

Amount = Annotated[int, Field(strict=True, ge=0, le=1_000_000)]
"""Damage, healing or an IWR value: a non-negative integer no larger than a million."""


EFFECT_CATEGORIES: dict[str, str] = {"death-effects": "death", "disease": "disease", "poison": "poison"}
"""IWR-2: immunity types naming an effect category, and the trait that marks an effect of it. Any
other `x-effects` type maps to trait `x` the same way."""


CRITICAL_HITS = "critical-hits"
"""IWR-3: the entry type of an immunity to critical hits (they do not double)."""
NONLETHAL_ATTACKS = "nonlethal-attacks"
"""IWR-4: the entry type of an immunity to nonlethal attacks (a `nonlethal` trait)."""
NON_MAGICAL = "non-magical"
"""An entry (or exception, or doubleVs) slug for damage of an effect without the `magical` trait."""

IWR_NAMES: frozenset[str] = frozenset(
    (set(DAMAGE_GROUPS) | set(EFFECT_CATEGORIES) | {CRITICAL_HITS, NONLETHAL_ATTACKS, NON_MAGICAL})
    - set(DAMAGE_TYPE_SLUGS)
)
"""What an IWR entry may name besides a damage type and an open trait or material (`matches`): a
damage group, an effect category, critical hits, nonlethal attacks, non-magical."""


class DamageInstance(Priced):
    """One instance of damage: one type within one hit (IWR-6), with its grade and Rank (IWR-8).

    `rank` also takes a price (RANK-2); `casterLevel`: the damage is a spell's (RANK-4).
    """

    amount: Amount
    grade: Grade
    type: DamageType = DamageType.UNTYPED
    rank: PricedRank = Rank.UNRANKED
    caster_level: CasterLevel | None = None
    traits: tuple[Slug, ...] = ()
    materials: tuple[Slug, ...] = ()
    critical: Flag = False
    unavoidable: Flag = False
    source: Annotated[str, Field(strict=True, min_length=1, max_length=200)] | None = None
    """The creature or ability it comes from (IWR-5: a temporary immunity naming a creature)."""


class IwrImmunity(RuleModel):
    """IWR-1..5: an immunity as pf2e writes it, `{type, exceptions?}`."""

    type: Slug
    exceptions: tuple[Slug, ...] = ()


class Weakness(RuleModel):
    """IWR-6: weakness N to a type, group or substance."""

    type: Slug
    value: Amount
    exceptions: tuple[Slug, ...] = ()
    double_vs: tuple[Slug, ...] = ()


class Resistance(RuleModel):
    """IWR-7: resistance N to a type or group, with exceptions and double-vs."""

    type: Slug
    value: Amount
    exceptions: tuple[Slug, ...] = ()
    double_vs: tuple[Slug, ...] = ()


class Iwr(RuleModel):
    """An actor's immunities, weaknesses and resistances, copied from a pf2e stat block."""

    immunities: tuple[IwrImmunity, ...] = ()
    weaknesses: tuple[Weakness, ...] = ()
    resistances: tuple[Resistance, ...] = ()


class TemporaryImmunity(RuleModel):
    """IWR-5: immunity to one effect until `untilRound` (inclusive; None: until removed).

    The effect is named by a trait its instances carry (e.g. `blindness`); with `creature`, only
    that creature's effects (the instance's `source`) are blocked.
    """

    effect: Slug
    until_round: Count | None = None
    creature: Annotated[str, Field(strict=True, min_length=1, max_length=200)] | None = None

    def over_by(self, round: int) -> bool:
        """Whether its duration has run out by this round (it lasts through `untilRound`)."""
        return self.until_round is not None and round > self.until_round


@quick_init
@dataclass(frozen=True, slots=True)
class DealtDamage:
    """What one instance deals after immunities, weaknesses and resistances (before temporary HP)."""

    index: int
    grade: Grade
    amount: int
    unavoidable: bool = False


@quick_init
@dataclass(frozen=True, slots=True)
class DamageResolution:
    """IWR-8 steps up to resistances: the damage each instance still deals, and why."""

    dealt: tuple[DealtDamage, ...]
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True, slots=True)
class ImmunitiesLapse:
    """IWR-5 at a new round: the temporary immunities an actor keeps (the same tuple when none ends),
    and a step per one that ends."""

    kept: tuple[TemporaryImmunity, ...]
    steps: tuple[Step, ...] = ()


def lapse_temporary_immunities(
    actor: str, held: tuple[TemporaryImmunity, ...], round_number: int, restarted: bool
) -> ImmunitiesLapse:
    """IWR-5: a temporary immunity lasts through its round; the new round `round_number` ends those it
    has passed, and a restart (a new combat: round 0 or 1 again) ends every one counted in rounds."""
    ended = [t for t in held if t.until_round is not None and (restarted or t.over_by(round_number))]
    if not ended:
        return ImmunitiesLapse(held)
    return ImmunitiesLapse(
        tuple(t for t in held if t not in ended),
        tuple(
            Step(
                rule="IWR-5",
                text=f"{actor}: temporary immunity to {t.effect!r} ends (it lasted through round "
                f"{t.until_round})",
                data={"actor": actor, "ended": t.effect, "untilRound": t.until_round},
                key="IWR-5.ended",
            )
            for t in ended
        ),
    )


# --- matching --------------------------------------------------------------------------------------


def matches(
    slug: str, instance: DamageInstance, effect_traits: frozenset[str], *, immunity: bool = False
) -> bool:
    """Whether an IWR type, exception or doubleVs slug applies to this instance of this effect.

    For an immunity, an effect category that is also a damage type (`poison`) covers the effect's
    trait as well as the damage type (IWR-2).
    """
    if immunity and slug in EFFECT_CATEGORIES and EFFECT_CATEGORIES[slug] in effect_traits:
        return True
    if slug in DAMAGE_GROUPS:
        return instance.type in DAMAGE_GROUPS[slug]
    if slug in DAMAGE_TYPE_SLUGS:
        return instance.type == slug
    if slug == CRITICAL_HITS:
        return instance.critical
    if slug == NONLETHAL_ATTACKS:
        return "nonlethal" in effect_traits
    if slug == NON_MAGICAL:
        return "magical" not in effect_traits
    if slug in EFFECT_CATEGORIES:
        return EFFECT_CATEGORIES[slug] in effect_traits
    if slug.endswith("-effects"):
        return slug.removesuffix("-effects") in effect_traits
    return slug in effect_traits or slug in instance.materials


def _applies(
    type_: str, exceptions: Sequence[str], instance: DamageInstance, effect_traits: frozenset[str]
) -> bool:
    """The entry's type matches and none of its exceptions (OR-ed) does."""
    if not matches(type_, instance, effect_traits):
        return False
    return not any(matches(exception, instance, effect_traits) for exception in exceptions)


def _blocks_whole_effect(immunity: IwrImmunity, instance: DamageInstance) -> bool:
    """IWR-2: an effect category (or other non-damage kind) blocks the whole effect; a damage type
    only its own damage (IWR-1).
    """
    if immunity.type in EFFECT_CATEGORIES:
        return immunity.type != instance.type
    return not is_damage_type_or_group(immunity.type)


# --- the pipeline ----------------------------------------------------------------------------------


def _label(instance: DamageInstance, amount: int) -> str:
    return f"{amount} {instance.type.english}"


def resolve_damage(
    instances: Sequence[DamageInstance],
    *,
    iwr: Iwr,
    immunities: Sequence[Immunity],
    temporary_immunities: Sequence[TemporaryImmunity],
    round: int,
    subjects: Mapping[str, str] = NO_SUBJECTS,
) -> DamageResolution:
    """IWR-8: per instance, in order: critical doubling (IWR-3), the Ranks immunities (RANK-5/9/10),
    temporary immunities (IWR-5), pf2e immunities (IWR-1/2/4), weaknesses (IWR-6), resistances
    (IWR-7). The instances together are one effect (one hit): its traits are their union and its Rank
    their highest, so an effect-category immunity blocks all of it or none, and a harmless
    substance's weakness hits once.
    Temporary HP and the Health track (HEALTH-11) follow in the damage handler. `subjects` (the
    damaged actor: `{"actor": id}`) end the data of the steps that always come (an instance, what it
    deals, its doubling), as `about` would add them; the others are left to `about`.
    """
    if not (immunities or temporary_immunities or iwr.immunities or iwr.weaknesses or iwr.resistances):
        return _undefended(instances, subjects)  # most targets: the same steps, without the checks
    return _defended(instances, iwr, immunities, temporary_immunities, round)


def _defended(
    instances: Sequence[DamageInstance],
    iwr: Iwr,
    immunities: Sequence[Immunity],
    temporary_immunities: Sequence[TemporaryImmunity],
    round: int,
) -> DamageResolution:
    """`resolve_damage`, every check run."""
    effect_traits = frozenset(trait for instance in instances for trait in instance.traits)
    effect_rank = max(
        (instance.rank for instance in instances), key=lambda r: r.number, default=Rank.UNRANKED
    )
    steps: list[Step] = []
    dealt: list[DealtDamage] = []
    hit = _Hit()
    for index, instance in enumerate(instances):
        amount, instance_steps = _resolve_one(
            index,
            instance,
            effect_traits,
            effect_rank,
            iwr=iwr,
            immunities=immunities,
            temporary_immunities=temporary_immunities,
            round=round,
            hit=hit,
        )
        steps.extend(instance_steps)
        dealt.append(
            DealtDamage(index=index, grade=instance.grade, amount=amount, unavoidable=instance.unavoidable)
        )
    return DamageResolution(dealt=tuple(dealt), steps=tuple(steps))


def _resolve_one(
    index: int,
    instance: DamageInstance,
    effect_traits: frozenset[str],
    effect_rank: Rank,
    *,
    iwr: Iwr,
    immunities: Sequence[Immunity],
    temporary_immunities: Sequence[TemporaryImmunity],
    round: int,
    hit: _Hit,
) -> tuple[int, list[Step]]:
    """One instance through IWR-8: the amount dealt and the steps. `hit` keeps what the hit's
    instances share (IWR-6/7), and is updated.
    """
    base: dict[str, object] = {"index": index, "type": instance.type.value}
    amount = instance.amount
    steps: list[Step] = [_intro_step(index, instance, base, NO_SUBJECTS)]

    def blocked(rule: str, key: str, text: str, **extra: object) -> tuple[int, list[Step]]:
        data = {**base, **extra, "before": amount, "after": 0}
        steps.append(Step(rule=rule, text=text, data=data, key=key))
        steps.append(
            Step(
                rule="IWR-8", text=f"instance {index} deals 0", data={**base, "amount": 0}, key="IWR-8.deals"
            )
        )
        return 0, steps

    # IWR-3: a critical hit doubles, unless the target is immune to critical hits.
    if instance.critical:
        crit_immunity = next(
            (
                immunity
                for immunity in iwr.immunities
                if immunity.type == CRITICAL_HITS
                and _applies(immunity.type, immunity.exceptions, instance, effect_traits)
            ),
            None,
        )
        if crit_immunity is not None:
            steps.append(
                Step(
                    rule="IWR-3",
                    text=f"immune to critical hits: {_label(instance, amount)} is not doubled",
                    data={**base, "before": amount, "after": amount},
                    key="IWR-3.immune",
                )
            )
        else:
            steps.append(_doubled_step(amount, base, NO_SUBJECTS))
            amount *= 2

    # RANK-5/9/10: the Ranks rules' immunities, against the instance's Rank.
    # Damage they cover meets the instance's Rank; an effect they cover (by trait) meets the
    # effect's Rank, the highest of its instances, so one effect is blocked whole or not at all.
    # RANK-4: the caster level of a spell's damage meets that of a spell's immunity.
    checks: tuple[tuple[Callable[[Immunity], bool], Rank, str, dict[str, object]], ...] = ()
    if immunities:  # (most creatures have none: skip building the checks)
        checks = (
            (
                lambda i: covers_damage(i, instance.type),
                instance.rank,
                _label(instance, amount),
                {**base, "what": "damage", "amount": amount},
            ),
            (
                lambda i: covers_traits(i, effect_traits) is not None,
                effect_rank,
                "the effect",
                {**base, "what": "effect"},
            ),
        )
    for covers, rank, what, what_data in checks:
        check = check_immunities(
            immunities, covers, rank, what, data=what_data, caster_level=instance.caster_level
        )
        steps.extend(check.steps[:-1] if check.blocked else check.steps)
        if check.blocked:
            last = check.steps[-1]
            said = {key: value for key, value in last.data.items() if key not in base}
            return blocked(last.rule, last.key, last.text, **said)

    # IWR-5: temporary immunity to the same effect, while it lasts.
    for temporary in temporary_immunities:
        if temporary.effect not in effect_traits:
            continue
        if temporary.over_by(round):
            continue
        if temporary.creature is not None and temporary.creature != instance.source:
            continue
        until = "until removed" if temporary.until_round is None else f"through round {temporary.until_round}"
        return blocked(
            "IWR-5",
            "IWR-5.blocked",
            f"temporarily immune to {temporary.effect!r} ({until}): {_label(instance, amount)} does nothing",
            effect=temporary.effect,
        )

    # IWR-1/2/4: pf2e immunities.
    for immunity in iwr.immunities:
        if immunity.type == CRITICAL_HITS:
            continue
        if not matches(immunity.type, instance, effect_traits, immunity=True):
            continue
        exception = next((e for e in immunity.exceptions if matches(e, instance, effect_traits)), None)
        if exception is not None:
            steps.append(
                Step(
                    rule="IWR-1",
                    text=f"immunity to {immunity.type} does not apply: exception {exception}",
                    data={**base, "immunity": immunity.type, "exception": exception},
                    key="IWR-1.exception",
                )
            )
            continue
        if immunity.type == NONLETHAL_ATTACKS:
            rule, why = "IWR-4", "immune to nonlethal attacks"
        elif _blocks_whole_effect(immunity, instance):
            rule, why = "IWR-2", f"immune to {immunity.type}: the whole effect does nothing"
        else:
            rule, why = "IWR-1", f"immune to {immunity.type} damage"
        return blocked(
            rule, f"{rule}.blocked", f"{why}: {_label(instance, amount)} ignored", immunity=immunity.type
        )

    # IWR-6: weaknesses, the highest applicable one only; once per damage type of the hit, and one to
    # a substance once per effect.
    contact = amount == 0
    candidates = [
        (weakness, _value(weakness.value, weakness.double_vs, instance, effect_traits))
        for weakness in iwr.weaknesses
        if (not contact or not is_damage_type_or_group(weakness.type))
        and _weakness_key(weakness.type, instance) not in hit.weakened
        and _applies(weakness.type, weakness.exceptions, instance, effect_traits)
    ]
    if candidates:
        weakness, value = max(candidates, key=lambda pair: pair[1])
        others = [w.type for w, _ in candidates if w is not weakness]
        text = (
            f"contact with {weakness.type}, harmless to others: weakness {value} deals {value}"
            if contact
            else f"weakness to {weakness.type} {value}: {amount} + {value} = {amount + value}"
        )
        if others:
            text += f" (only the highest; also applicable: {', '.join(others)})"
        steps.append(
            Step(
                rule="IWR-6",
                text=text,
                data={
                    **base,
                    "weakness": weakness.type,
                    "value": value,
                    "before": amount,
                    "after": amount + value,
                },
                key="IWR-6.weakness",
            )
        )
        amount += value
        hit.weakened.add(_weakness_key(weakness.type, instance))

    # IWR-7: resistances, the highest applicable one only, never below 0.
    if amount > 0:
        resistances = [
            (resistance, _value(resistance.value, resistance.double_vs, instance, effect_traits))
            for resistance in iwr.resistances
            if _applies(resistance.type, resistance.exceptions, instance, effect_traits)
        ]
        if resistances and instance.unavoidable:
            steps.append(
                Step(
                    rule="IWR-7",
                    text="unavoidable damage: resistances do not reduce it",
                    data=dict(base),
                    key="IWR-7.unavoidable",
                )
            )
        elif resistances:
            resistance, value = max(resistances, key=lambda pair: pair[1])
            share = (resistance.type, instance.type.value)
            left = hit.resisted.get(share, value)
            after = max(0, amount - left)
            hit.resisted[share] = left - (amount - after)
            others = [r.type for r, _ in resistances if r is not resistance]
            if left == value:
                text = f"resistance to {resistance.type} {value}: {amount} - {value} = {after}"
            else:
                text = (
                    f"resistance to {resistance.type} {value}, {left} of it left after this hit's other "
                    f"{instance.type.english}: {amount} - {left} = {after}"
                )
            if amount - left < 0:
                text += " (never below 0)"
            if value != resistance.value:
                text += f" (doubled from {resistance.value})"
            if others:
                text += f" (only the highest; also applicable: {', '.join(others)})"
            steps.append(
                Step(
                    rule="IWR-7",
                    text=text,
                    data={
                        **base,
                        "resistance": resistance.type,
                        "value": value,
                        "before": amount,
                        "after": after,
                    },
                    key="IWR-7.resistance",
                )
            )
            amount = after

    steps.append(_dealt_step(index, instance, amount, base, NO_SUBJECTS))
    return amount, steps


@dataclass(slots=True)
class _Hit:
    """What the instances of one hit share. An instance is the damage of one type within one hit
    (IWR-6), so instances of the same type (the same damage in two grades: 10 L + 10 B untyped) are
    that one instance: a weakness adds its value once per damage type, one to a substance (water,
    silver) once per effect, and a resistance takes its value once from a damage type's damage,
    in the order the instances come."""

    weakened: set[tuple[str, str | None]] = field(default_factory=set)
    """(weakness, damage type or None for a substance) already counted."""
    resisted: dict[tuple[str, str], int] = field(default_factory=dict)
    """(resistance, damage type) -> the part of its value not yet used."""


def _weakness_key(slug: str, instance: DamageInstance) -> tuple[str, str | None]:
    return (slug, instance.type.value) if is_damage_type_or_group(slug) else (slug, None)


def _intro_step(
    index: int, instance: DamageInstance, base: dict[str, object], subjects: Mapping[str, str]
) -> Step:
    fields = instance.__dict__  # each read once, not through the model's `__getattr__` hook
    amount, rank = fields["amount"], fields["rank"]
    grade = str(fields["grade"])  # StrEnums' values, without the enum's `value` property (hot path)
    return make_step(
        rule="IWR-8",
        text=f"instance {index}: {amount} {fields['type'].english} ({grade}, "
        f"{rank.label}{', critical' if fields['critical'] else ''})",
        data={**base, "amount": amount, "grade": grade, "rank": str(rank), **subjects},
        key="IWR-8.instance",
    )


def _doubled_step(amount: int, base: dict[str, object], subjects: Mapping[str, str]) -> Step:
    return make_step(
        rule="IWR-3",
        text=f"critical hit doubles {amount} to {amount * 2}",
        data={**base, "before": amount, "after": amount * 2, **subjects},
        key="IWR-3.doubled",
    )


def _dealt_step(
    index: int, instance: DamageInstance, amount: int, base: dict[str, object], subjects: Mapping[str, str]
) -> Step:
    return make_step(
        rule="IWR-8",
        text=f"instance {index} deals {_label(instance, amount)}",
        data={**base, "amount": amount, **subjects},
        key="IWR-8.deals",
    )


def _undefended(instances: Sequence[DamageInstance], subjects: Mapping[str, str]) -> DamageResolution:
    """IWR-8 against a target with no immunity, weakness or resistance of any kind: each instance
    deals its amount, doubled on a critical hit (IWR-3); the steps are those `_resolve_one` gives
    (with `subjects`, as `about` gives them)."""
    steps: list[Step] = []
    dealt: list[DealtDamage] = []
    for index, instance in enumerate(instances):
        fields = instance.__dict__  # each read once, not through the model's `__getattr__` hook
        base: dict[str, object] = {"index": index, "type": str(fields["type"])}
        amount = fields["amount"]
        steps.append(_intro_step(index, instance, base, subjects))
        if fields["critical"]:
            steps.append(_doubled_step(amount, base, subjects))
            amount *= 2
        steps.append(_dealt_step(index, instance, amount, base, subjects))
        dealt.append(DealtDamage(index, fields["grade"], amount, fields["unavoidable"]))
    return DamageResolution(dealt=tuple(dealt), steps=tuple(steps))


def _value(
    value: int, double_vs: Sequence[str], instance: DamageInstance, effect_traits: frozenset[str]
) -> int:
    """An IWR value, doubled when any of its doubleVs slugs applies."""
    return value * 2 if any(matches(slug, instance, effect_traits) for slug in double_vs) else value
