"""Effects on an actor (`affect`): condition points, emotion points and conditions, each against the
immunities that block it (RANK-3/5/9/10/12, IWR-2/5). The handler reads the actor and applies the
outcome; every decision and its step is here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Protocol

from pydantic import Field

from vtt_bridge.rules.common import Count, RuleViolation, Slug, Step
from vtt_bridge.rules.conditions import Condition, ConditionPointKind, EmotionPointKind
from vtt_bridge.rules.damage import is_damage_type_or_group
from vtt_bridge.rules.immunities import (
    Immunity,
    check_immunities,
    covers_condition,
    covers_condition_points,
    covers_emotion_points,
    covers_traits,
)
from vtt_bridge.rules.iwr import EFFECT_CATEGORIES, Iwr, TemporaryImmunity
from vtt_bridge.rules.ranks import CasterLevel, Priced, PricedRank, PriceText, Rank, effect_rank

Source = Annotated[str, Field(strict=True, min_length=1, max_length=200)]


class Effect(Priced):
    """What an effect does to an actor: points of each kind, conditions, with its Rank and traits.

    Each Rank also takes a price (RANK-2); `casterLevel`: the effect is a spell's (RANK-4).
    """

    PRICED = {
        ("rank",): ("price",),
        ("rank_when_gained", "rankWhenGained"): ("price_when_gained", "priceWhenGained"),
    }

    rank: PricedRank = Rank.UNRANKED
    rank_when_gained: PricedRank | None = None
    """RANK-3: the effect's Rank is the higher of `rank` (when used) and this."""
    price_when_gained: PriceText | None = None
    """RANK-2: the price the GM wrote for `rankWhenGained`."""
    caster_level: CasterLevel | None = None
    condition_points: dict[ConditionPointKind, Count] = Field(default_factory=dict)
    emotion_points: dict[EmotionPointKind, Count] = Field(default_factory=dict)
    conditions: tuple[Condition, ...] = ()
    traits: tuple[Slug, ...] = ()
    source: Source | None = None


class Affectable(Protocol):
    """What `affect_actor` reads of an actor (the document's `Actor` is one)."""

    @property
    def immunities(self) -> Sequence[Immunity]: ...
    @property
    def temporary_immunities(self) -> Sequence[TemporaryImmunity]: ...
    @property
    def iwr(self) -> Iwr: ...
    @property
    def condition_points(self) -> Mapping[str, int]: ...
    @property
    def emotion_points(self) -> Mapping[str, int]: ...
    @property
    def conditions(self) -> Mapping[str, bool]: ...


@dataclass(frozen=True, slots=True)
class Affected:
    """The actor's points and conditions after an effect, and the steps that explain them."""

    condition_points: dict[str, int]
    emotion_points: dict[str, int]
    conditions: dict[str, bool]
    steps: tuple[Step, ...]


_CATEGORY_OF_CONDITION: dict[str, str] = {"poisoned": "poison", "diseased": "disease"}
"""IWR-2: the condition an effect category's effects leave (an immunity to poison keeps a creature
from being poisoned, whatever the effect's traits say)."""


def _iwr_type_covers_trait(type_: str, traits: tuple[str, ...]) -> str | None:
    """IWR-2: a pf2e immunity to an effect category or kind covers an effect carrying its trait; an
    immunity to a damage type covers only that damage, never a trait of the same name.
    """
    if is_damage_type_or_group(type_) and type_ not in EFFECT_CATEGORIES:
        return None
    trait = EFFECT_CATEGORIES.get(type_, type_.removesuffix("-effects"))
    return trait if trait in traits else None


def _gain_points(
    held: Mapping[str, int],
    gains: Mapping[ConditionPointKind, int] | Mapping[EmotionPointKind, int],
    covers: Callable[[Immunity, str], bool],
    rule: str,
    immunities: Sequence[Immunity],
    rank: Rank,
    steps: list[Step],
    caster_level: int | None = None,
) -> dict[str, int]:
    """RANK-5/9/12: add each kind of points the actor's immunities do not block; explain each."""
    points_now = dict(held)
    for kind, points in gains.items():
        check = check_immunities(
            immunities,
            partial(_covers_kind, covers, kind.value),
            rank,
            f"{kind.value} points",
            data={"what": "points", "kind": kind.value},
            caster_level=caster_level,
        )
        steps.extend(check.steps)
        if not check.blocked:
            points_now[kind.value] = total = points_now.get(kind.value, 0) + points
            steps.append(
                Step(
                    rule=rule,
                    text=f"gains {points} {kind.english.lower()} (now {total})",
                    data={"kind": kind.value, "points": points, "total": total},
                    key=f"{rule}.points",
                )
            )
    return points_now


def _covers_kind(covers: Callable[[Immunity, str], bool], kind: str, immunity: Immunity) -> bool:
    return covers(immunity, kind)


def affect_actor(target: Affectable, effect: Effect, round_: int) -> Affected:
    """Apply `effect` in round `round_`: whole-effect immunities first (temporary IWR-5, pf2e IWR-2,
    Ranks RANK-5/9/10 by trait), then each kind of points and each condition against the immunities
    that cover it. A server-written condition is refused (HEALTH-3)."""
    for index, condition in enumerate(effect.conditions):
        if condition.server_written:
            raise RuleViolation(
                "HEALTH-3",
                f"{condition.value!r} is derived by the server; an effect cannot set it",
                ("effect", "conditions", index),
            )
    steps: list[Step] = []
    rank = effect.rank
    if effect.rank_when_gained is not None:
        rank = effect_rank(effect.rank, effect.rank_when_gained)
        steps.append(
            Step(
                rule="RANK-3",
                text=f"the effect's Rank is the higher of {effect.rank} (used) and "
                f"{effect.rank_when_gained} (gained): {rank}",
                data={"rank": rank.value},
                key="RANK-3.rank",
            )
        )
    blocker = _whole_effect_blocker(target, effect, rank, round_=round_)
    steps.extend(blocker[1])
    if blocker[0]:
        return Affected(
            dict(target.condition_points), dict(target.emotion_points), dict(target.conditions), tuple(steps)
        )

    condition_points = _gain_points(
        target.condition_points,
        effect.condition_points,
        covers_condition_points,
        "RANK-12",
        target.immunities,
        rank,
        steps,
        effect.caster_level,
    )
    emotion_points = _gain_points(
        target.emotion_points,
        effect.emotion_points,
        covers_emotion_points,
        "RANK-5",
        target.immunities,
        rank,
        steps,
        effect.caster_level,
    )
    conditions = dict(target.conditions)
    for condition in effect.conditions:
        iwr_hit = next(
            (
                i.type
                for i in target.iwr.immunities
                if i.type in (condition.value, _CATEGORY_OF_CONDITION.get(condition.value))
                and not any(e in effect.traits for e in i.exceptions)
            ),
            None,
        )
        if iwr_hit is not None:
            steps.append(
                Step(
                    rule="IWR-2",
                    text=f"immune to {condition.english.lower()}: the condition does not apply",
                    data={"condition": condition.value},
                    key="IWR-2.condition",
                )
            )
            continue

        def covers_cond(immunity: Immunity, condition: str = condition.value) -> bool:
            return covers_condition(immunity, condition)

        check = check_immunities(
            target.immunities,
            covers_cond,
            rank,
            f"the {condition.value} condition",
            data={"what": "condition", "condition": condition.value},
            caster_level=effect.caster_level,
        )
        steps.extend(check.steps)
        if not check.blocked:
            conditions[condition.value] = True
            steps.append(
                Step(
                    rule="RANK-5",
                    text=f"becomes {condition.english.lower()}",
                    data={"condition": condition.value},
                    key="RANK-5.condition",
                )
            )
    return Affected(condition_points, emotion_points, conditions, tuple(steps))


def _whole_effect_blocker(
    target: Affectable, effect: Effect, rank: Rank, round_: int
) -> tuple[bool, list[Step]]:
    """IWR-5, IWR-2 and RANK-5/9/10 by trait: immunities that stop the whole effect."""
    traits = effect.traits
    for temporary in target.temporary_immunities:
        if temporary.effect not in traits:
            continue
        if temporary.over_by(round_):
            continue
        if temporary.creature is not None and temporary.creature != effect.source:
            continue
        return True, [
            Step(
                rule="IWR-5",
                text=f"temporarily immune to {temporary.effect!r}: the effect does nothing",
                data={"effect": temporary.effect, "untilRound": temporary.until_round},
                key="IWR-5.temporary",
            )
        ]
    for immunity in target.iwr.immunities:
        trait = _iwr_type_covers_trait(immunity.type, traits)
        if trait is not None and not any(e in traits for e in immunity.exceptions):
            return True, [
                Step(
                    rule="IWR-2",
                    text=f"immune to {immunity.type}: the {trait} effect does nothing",
                    data={"immunity": immunity.type, "trait": trait},
                    key="IWR-2.trait",
                )
            ]
    covers: Callable[[Immunity], bool] = lambda immunity: covers_traits(immunity, traits) is not None  # noqa: E731
    check = check_immunities(
        target.immunities,
        covers,
        rank,
        "the effect",
        data={"what": "effect"},
        caster_level=effect.caster_level,
    )
    return check.blocked, list(check.steps)
