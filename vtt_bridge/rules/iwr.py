"""Immunity, weakness, resistance (IWR-1..8), after Pathfinder 2e, and one damage instance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.common import Count, Flag, RuleModel, Slug, Step
from vtt_bridge.rules.health import Grade
from vtt_bridge.rules.immunities import Immunity
from vtt_bridge.rules.ranks import Rank

Amount = Annotated[int, Field(strict=True, ge=0, le=1_000_000)]
"""Damage, healing or an IWR value: a non-negative integer no larger than a million."""


class DamageInstance(RuleModel):
    """One instance of damage: one type within one hit (IWR-6), with its grade and Rank (IWR-8)."""

    amount: Amount
    grade: Grade
    type: Slug = "untyped"
    rank: Rank = Rank.UNRANKED
    traits: tuple[Slug, ...] = ()
    materials: tuple[Slug, ...] = ()
    critical: Flag = False
    unavoidable: Flag = False


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
    """IWR-5: immunity to one effect until `untilRound` (inclusive; None: until removed)."""

    effect: Slug
    until_round: Count | None = None
    creature: Annotated[str, Field(strict=True, min_length=1, max_length=200)] | None = None


class DealtDamage(RuleModel):
    """What one instance deals after immunities, weaknesses and resistances (before temporary HP)."""

    index: Count
    grade: Grade
    amount: Count
    unavoidable: Flag = False


class DamageResolution(RuleModel):
    """IWR-8 steps up to resistances: the damage each instance still deals, and why."""

    dealt: tuple[DealtDamage, ...]
    steps: tuple[Step, ...] = ()


def resolve_damage(
    instances: Sequence[DamageInstance],
    *,
    iwr: Iwr,
    immunities: Sequence[Immunity],
    temporary_immunities: Sequence[TemporaryImmunity],
    round: int,
) -> DamageResolution:
    """IWR-8: immunities (Rank-contested and not), then weaknesses, then resistances, per instance.

    PLACEHOLDER until the IWR pipeline lands: passes every instance through unchanged.
    """
    dealt = tuple(
        DealtDamage(index=i, grade=inst.grade, amount=inst.amount, unavoidable=inst.unavoidable)
        for i, inst in enumerate(instances)
    )
    return DamageResolution(dealt=dealt, steps=())
