"""The Ranks rules' immunities (RANK-5, RANK-9..13): `{kind, subject?, rank?, source?}` on actors.

The catalogue of immunity kinds is data (`IMMUNITY_KINDS`): a stable id, an English name, whether
Ranks contest it (RANK-10) or not (RANK-9), and what it covers: damage types, effect traits,
conditions, condition point kinds, emotion point kinds. Traits are the effect's open set of slugs
(`poison`, `fear`, `touch`, ...), the same ones a damage instance carries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator

from vtt_bridge.rules.common import RuleModel, Slug, Step
from vtt_bridge.rules.conditions import Condition, ConditionPointKind, EmotionPointKind
from vtt_bridge.rules.damage import DamageType
from vtt_bridge.rules.ranks import (
    CasterLevel,
    Priced,
    PricedRank,
    Rank,
    Spell,
    opposed_contest,
    spell_contest,
)


class ImmunityKindId(StrEnum):
    """Stable ids of the immunity kinds of RANK-9 (uncontested) and RANK-10 (Rank-contested)."""

    DAMAGE = "damage"
    GRAPPLE = "grapple"
    TRIP = "trip"
    BULL_RUSH = "bull-rush"
    CALLED_SHOTS = "called-shots"
    DISARM = "disarm"
    ARMOR_PIERCING = "armor-piercing"
    SPELL_PIERCING = "spell-piercing"
    FALLING_DAMAGE = "falling-damage"
    DIFFICULT_TERRAIN = "difficult-terrain"
    ENVIRONMENTAL_EFFECTS = "environmental-effects"
    ENVIRONMENT = "environment"
    EIGHT_AGAIN = "8-again"
    NINE_AGAIN = "9-again"
    CANNOT_BE_REVIVED = "cannot-be-revived"
    EMOTION_POINTS = "emotion-points"
    CONDITION_POINTS = "condition-points"
    MULTIPLE_ATTACK_PENALTY = "multiple-attack-penalty"
    CONDITION = "condition"
    AGING = "aging"
    HIGH_SPEED = "high-speed"
    INVISIBILITY = "invisibility"
    TRANSFORMATION = "transformation"
    POSSESSION = "possession"
    ENERGY_POOL = "energy-pool"
    INSTANT_DEATH = "instant-death"
    SUFFOCATION = "suffocation"
    SILENCE = "silence"
    SEALING = "sealing"
    IMPRISONMENT = "imprisonment"
    BANISHMENT = "banishment"
    DISEASE = "disease"
    POISON = "poison"
    MIND_AFFECTING = "mind-affecting"
    HALLUCINATIONS = "hallucinations"
    FLAT_FOOTED = "flat-footed"
    TOUCH_ATTACKS = "touch-attacks"
    CURSES = "curses"
    TIME = "time"
    SPACE = "space"
    CAUSALITY = "causality"
    MUST_ATTACK = "must-attack"
    CANNOT_BE_ATTACKED = "cannot-be-attacked"


SubjectTable = Literal["damage-type", "emotion-point", "condition-point", "condition", "name"]


@dataclass(frozen=True, slots=True)
class ImmunityKind:
    """One row of the catalogue: what an immunity of this kind covers and whether Ranks contest it."""

    id: ImmunityKindId
    english: str
    contested: bool
    subject: SubjectTable | None = None
    """The table the immunity's `subject` names (required when set, refused when None)."""
    damage_types: frozenset[str] = frozenset()
    traits: frozenset[str] = frozenset()
    conditions: frozenset[Condition] = frozenset()
    condition_points: frozenset[ConditionPointKind] = frozenset()
    emotion_points: frozenset[EmotionPointKind] = frozenset()

    @property
    def rule(self) -> str:
        """RANK-10 for a Rank-contested kind, RANK-9 for an uncontested one."""
        return "RANK-10" if self.contested else "RANK-9"


def _kind(
    id: ImmunityKindId,
    english: str,
    *,
    contested: bool,
    subject: SubjectTable | None = None,
    damage_types: Iterable[str] = (),
    traits: Iterable[str] = (),
    conditions: Iterable[Condition] = (),
    condition_points: Iterable[ConditionPointKind] = (),
    emotion_points: Iterable[EmotionPointKind] = (),
) -> ImmunityKind:
    return ImmunityKind(
        id,
        english,
        contested,
        subject,
        frozenset(damage_types),
        frozenset(traits),
        frozenset(conditions),
        frozenset(condition_points),
        frozenset(emotion_points),
    )


K = ImmunityKindId
IMMUNITY_KINDS: dict[ImmunityKindId, ImmunityKind] = {
    kind.id: kind
    for kind in (
        # RANK-9: uncontested (Rank never matters)
        _kind(K.DAMAGE, "Damage immunity", contested=False, subject="damage-type"),
        _kind(K.GRAPPLE, "Immunity to grapples", contested=False, traits={"grapple"}),
        _kind(K.TRIP, "Immunity to trips", contested=False, traits={"trip"}),
        _kind(K.BULL_RUSH, "Immunity to bull rushes", contested=False, traits={"bull-rush"}),
        _kind(K.CALLED_SHOTS, "Immunity to called shots", contested=False, traits={"called-shot"}),
        _kind(K.DISARM, "Immunity to disarm", contested=False, traits={"disarm"}),
        _kind(K.ARMOR_PIERCING, "Immunity to Armor Piercing", contested=False, traits={"armor-piercing"}),
        _kind(K.SPELL_PIERCING, "Immunity to Spell Piercing", contested=False, traits={"spell-piercing"}),
        _kind(K.FALLING_DAMAGE, "Immunity to falling damage", contested=False, traits={"falling"}),
        _kind(
            K.DIFFICULT_TERRAIN,
            "Immunity to difficult terrain",
            contested=False,
            traits={"difficult-terrain"},
        ),
        _kind(
            K.ENVIRONMENTAL_EFFECTS,
            "Immunity to environmental effects",
            contested=False,
            traits={"environmental"},
        ),
        _kind(K.ENVIRONMENT, "Immunity to a named environment", contested=False, subject="name"),
        _kind(K.EIGHT_AGAIN, "Immunity to 8-again", contested=False),
        _kind(K.NINE_AGAIN, "Immunity to 9-again", contested=False),
        _kind(K.CANNOT_BE_REVIVED, "Can't be revived", contested=False, traits={"revive"}),
        _kind(K.EMOTION_POINTS, "Immunity to emotion points", contested=False, subject="emotion-point"),
        _kind(K.CONDITION_POINTS, "Immunity to condition points", contested=False, subject="condition-point"),
        _kind(K.MULTIPLE_ATTACK_PENALTY, "Immunity to the multiple-attack penalty", contested=False),
        _kind(K.CONDITION, "Immunity to a condition", contested=False, subject="condition"),
        _kind(K.AGING, "Immunity to aging (unlimited lifespan)", contested=False, traits={"natural-aging"}),
        _kind(K.HIGH_SPEED, "Immunity to High Speed", contested=False, traits={"high-speed"}),
        # RANK-10: Rank-contested
        _kind(K.INVISIBILITY, "Invisibility (anti-detection)", contested=True),
        _kind(
            K.TRANSFORMATION,
            "Immunity to transformation",
            contested=True,
            traits={"transformation", "polymorph"},
            conditions={Condition.TRANSFORMED},
        ),
        _kind(
            K.POSSESSION,
            "Immunity to possession",
            contested=True,
            traits={"possession"},
            conditions={Condition.POSSESSED},
        ),
        _kind(K.ENERGY_POOL, "Immunity to effects of an Energy Pool", contested=True, subject="name"),
        _kind(
            K.INSTANT_DEATH, "Immunity to instant death", contested=True, traits={"instant-death", "death"}
        ),
        _kind(
            K.SUFFOCATION,
            "Immunity to suffocation",
            contested=True,
            traits={"suffocation"},
            conditions={Condition.SUFFOCATING},
        ),
        _kind(
            K.SILENCE,
            "Immunity to silence",
            contested=True,
            traits={"silence"},
            conditions={Condition.SILENCED},
        ),
        _kind(
            K.SEALING,
            "Immunity to sealing",
            contested=True,
            traits={"sealing"},
            conditions={Condition.SEALED},
        ),
        _kind(
            K.IMPRISONMENT,
            "Immunity to imprisonment",
            contested=True,
            traits={"imprisonment"},
            conditions={Condition.IMPRISONED},
        ),
        _kind(
            K.BANISHMENT,
            "Immunity to banishment",
            contested=True,
            traits={"banishment"},
            conditions={Condition.BANISHED},
        ),
        _kind(
            K.DISEASE,
            "Immunity to disease",
            contested=True,
            traits={"disease"},
            conditions={Condition.DISEASED},
        ),
        _kind(
            K.POISON,
            "Immunity to poison",
            contested=True,
            damage_types={"poison"},
            traits={"poison"},
            conditions={Condition.POISONED},
        ),
        _kind(
            K.MIND_AFFECTING,
            "Immunity to mind-affecting effects",
            contested=True,
            damage_types={"mental"},
            traits={
                "mind-affecting",
                "mental",
                "emotion",
                "morale",
                "charm",
                "control",
                "infatuation",
                "intimidation",
            },
            conditions={
                Condition.INFATUATED,
                Condition.CHARMED,
                Condition.CONTROLLED,
                Condition.INTIMIDATED,
            },
            condition_points={ConditionPointKind.CHARM},
            emotion_points=set(EmotionPointKind),
        ),
        _kind(
            K.HALLUCINATIONS,
            "Immunity to hallucinations",
            contested=True,
            traits={"hallucination"},
            conditions={Condition.HALLUCINATING},
        ),
        _kind(
            K.FLAT_FOOTED,
            "Immunity to being flat-footed",
            contested=True,
            traits={"flat-footed"},
            conditions={Condition.FLAT_FOOTED},
        ),
        _kind(K.TOUCH_ATTACKS, "Immunity to touch attacks", contested=True, traits={"touch"}),
        _kind(
            K.CURSES, "Immunity to curses", contested=True, traits={"curse"}, conditions={Condition.CURSED}
        ),
        _kind(K.TIME, "Immunity to time", contested=True, traits={"time"}),
        _kind(K.SPACE, "Immunity to space", contested=True, traits={"space", "teleportation"}),
        _kind(K.CAUSALITY, "Immunity to causality", contested=True, traits={"causality"}),
        _kind(K.MUST_ATTACK, "Must attack", contested=True, traits={"must-attack"}),
        _kind(K.CANNOT_BE_ATTACKED, "Can't be attacked", contested=True, traits={"cannot-be-attacked"}),
    )
}
del K


def _subject_values(table: SubjectTable) -> list[str] | None:
    """The allowed subjects of a table (None: any slug)."""
    if table == "damage-type":
        return [member.value for member in DamageType]
    if table == "emotion-point":
        return [member.value for member in EmotionPointKind]
    if table == "condition-point":
        return [member.value for member in ConditionPointKind]
    if table == "condition":
        return [member.value for member in Condition]
    return None


class Immunity(Priced):
    """A Ranks-rules immunity: `{kind: "poison", rank: "C"}`, `{kind: "damage", subject: "fire"}`.

    `rank` also takes a price (`"CC+300"`, RANK-2); `casterLevel`: the immunity is a spell's (RANK-4).
    """

    kind: ImmunityKindId
    subject: Slug | None = Field(default=None, validate_default=True)
    rank: PricedRank = Rank.UNRANKED
    caster_level: CasterLevel | None = None
    source: Annotated[str, Field(strict=True, max_length=200)] | None = None

    @field_validator("subject")
    @classmethod
    def _subject_fits_kind(cls, value: str | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("kind")
        if kind is None:
            return value
        table = IMMUNITY_KINDS[kind].subject
        if table is None:
            if value is not None:
                raise ValueError(f"an immunity of kind {kind.value!r} takes no subject")
            return value
        allowed = _subject_values(table)
        if value is None:
            listed = f": one of {', '.join(allowed)}" if allowed else ""
            raise ValueError(f"an immunity of kind {kind.value!r} needs a subject ({table}){listed}")
        if allowed is not None and value not in allowed:
            raise ValueError(
                f"unknown {table} {value!r} for kind {kind.value!r}; allowed: {', '.join(allowed)}"
            )
        return value

    @property
    def catalogue(self) -> ImmunityKind:
        """The catalogue row of this immunity's kind."""
        return IMMUNITY_KINDS[self.kind]

    def describe(self) -> str:
        """A short English label, e.g. `C-Rank poison` or `damage (fire)`."""
        label = self.kind.value if self.subject is None else f"{self.kind.value} ({self.subject})"
        return f"{self.rank.label} {label}" if self.catalogue.contested else label


class SaveBonuses(RuleModel):
    """RANK-13: perfect bonuses (DP) on the three saves, won by replacing an immunity."""

    reflex: Annotated[int, Field(strict=True, ge=0, le=1000)] = 0
    fortitude: Annotated[int, Field(strict=True, ge=0, le=1000)] = 0
    will: Annotated[int, Field(strict=True, ge=0, le=1000)] = 0


# --- what an immunity covers -----------------------------------------------------------------------


def covers_damage(immunity: Immunity, damage_type: str) -> bool:
    """RANK-9 damage immunity to this type, or a kind that covers it (poison, mental)."""
    if immunity.kind is ImmunityKindId.DAMAGE:
        return immunity.subject == damage_type
    return damage_type in immunity.catalogue.damage_types


def covers_traits(immunity: Immunity, traits: Iterable[str]) -> str | None:
    """The first of the effect's traits this immunity covers (the whole effect is blocked), or None.

    A damage immunity never covers a trait: it blocks that damage only (IWR-2).
    """
    kind = immunity.catalogue
    covered = set(kind.traits)
    if kind.subject == "name" and immunity.subject is not None:
        covered.add(immunity.subject)
    if kind.id is ImmunityKindId.AGING and immunity.rank >= Rank.A:
        covered.add("aging")
    for trait in traits:
        if trait in covered:
            return trait
    return None


def covers_condition(immunity: Immunity, condition: str) -> bool:
    """RANK-9 condition immunity (RANK-12: the condition only) or a kind covering the condition."""
    if immunity.kind is ImmunityKindId.CONDITION:
        return immunity.subject == condition
    return condition in immunity.catalogue.conditions


def covers_condition_points(immunity: Immunity, kind: str) -> bool:
    """RANK-9/12 immunity to a kind of condition points (you never gain them), or a covering kind."""
    if immunity.kind is ImmunityKindId.CONDITION_POINTS:
        return immunity.subject == kind
    return kind in immunity.catalogue.condition_points


def covers_emotion_points(immunity: Immunity, kind: str) -> bool:
    """RANK-9 immunity to a kind of emotion points, or mind-affecting (RANK-10)."""
    if immunity.kind is ImmunityKindId.EMOTION_POINTS:
        return immunity.subject == kind
    return kind in immunity.catalogue.emotion_points


@dataclass(frozen=True, slots=True)
class ImmunityCheck:
    """Whether immunities block something, the immunity that does, and the steps explaining it."""

    blocked: bool
    by: Immunity | None
    steps: tuple[Step, ...]


_CHECKED: dict[str, Any] = {
    "what": None,
    "kind": None,
    "condition": None,
    "amount": None,
    "index": None,
    "type": None,
    "before": None,
    "after": None,
    "effectRank": None,
    "casterLevel": None,
}
"""The fields of every immunity check step (`RANK-4/5/9.blocks`, `.unstopped`): those the caller's
`data` or the contest leaves out are null."""


def check_immunities(
    immunities: Sequence[Immunity],
    covers: Callable[[Immunity], bool],
    effect_rank: Rank,
    what: str,
    data: dict[str, Any] | None = None,
    caster_level: int | None = None,
) -> ImmunityCheck:
    """RANK-5/9/10: the first covering immunity that holds blocks `what`. An uncontested one always
    holds (RANK-9); a Rank-contested one only against effects of its Rank or lower (RANK-5, RANK-6:
    the immune side is the shield and wins ties). Without one, an effect of any Rank applies.
    `data` names `what` for the chat card (`{"what": "points", "kind": ...}`, `"condition"`,
    `"effect"`, `"damage"`); each step adds `immunity`, `blocked` and, when contested, `effectRank`.
    `caster_level`: the effect is a spell's; against an immunity that is a spell's too, at equal Rank
    the higher caster level wins (RANK-4; equal levels: RANK-6, the immune side).
    """
    steps: list[Step] = []
    for immunity in immunities:
        if not covers(immunity):
            continue
        row = immunity.catalogue
        info = {**_CHECKED, **(data or {}), "immunity": immunity.model_dump(mode="json", exclude_none=True)}
        if not row.contested:
            info["blocked"] = True
            steps.append(
                Step(
                    rule="RANK-9",
                    text=f"immunity to {immunity.describe()} blocks {what}",
                    data=info,
                    key="RANK-9.blocks",
                )
            )
            return ImmunityCheck(True, immunity, tuple(steps))
        if caster_level is not None and immunity.caster_level is not None:
            outcome = spell_contest(
                Spell(rank=effect_rank, caster_level=caster_level),
                Spell(rank=immunity.rank, caster_level=immunity.caster_level),
            )
            info["casterLevel"] = caster_level
        else:
            outcome = opposed_contest(effect_rank, immunity.rank)
        rule = "RANK-4" if outcome.rule == "RANK-4" else "RANK-5"
        info["effectRank"] = effect_rank.value
        info["blocked"] = outcome.winner == "shield"
        if outcome.winner == "shield":
            steps.append(
                Step(
                    rule=rule,
                    text=f"{immunity.describe()} immunity blocks {what} ({effect_rank.label}) "
                    f"- {outcome.reason}",
                    data=info,
                    key=f"{rule}.blocks",
                )
            )
            return ImmunityCheck(True, immunity, tuple(steps))
        steps.append(
            Step(
                rule=rule,
                text=f"{immunity.describe()} immunity does not stop {what} ({effect_rank.label}) "
                f"- {outcome.reason}",
                data=info,
                key=f"{rule}.unstopped",
            )
        )
    return ImmunityCheck(False, None, tuple(steps))


# --- RANK-11: 8-again / 9-again immunity -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EffectiveAgain:
    """RANK-11: the again an attacker rolls against a target (the one asked for, or 10-again when an
    again immunity stops it) and the step saying so (none when nothing changed)."""

    again: int
    steps: tuple[Step, ...]


def effective_again(again: int, immunities: Sequence[Immunity]) -> EffectiveAgain:
    """RANK-11: the again an attacker rolls against a target with these immunities.

    Immune to 8-again: the attacker's 8-again does not apply, and the target counts as immune to
    9-again too for that attack, so it becomes 10-again. Immune to 9-again: 9-again becomes 10-again.
    """
    kinds = {immunity.kind for immunity in immunities}
    if again == 8 and ImmunityKindId.EIGHT_AGAIN in kinds:
        step = Step(
            rule="RANK-11",
            text="target immune to 8-again (and so to 9-again for this attack): the attacker rolls 10-again",
            data={"again": 8, "effectiveAgain": 10},
            key="RANK-11.again",
        )
        return EffectiveAgain(10, (step,))
    if again == 9 and ImmunityKindId.NINE_AGAIN in kinds:
        step = Step(
            rule="RANK-11",
            text="target immune to 9-again: the attacker rolls 10-again",
            data={"again": 9, "effectiveAgain": 10},
            key="RANK-11.again",
        )
        return EffectiveAgain(10, (step,))
    return EffectiveAgain(again, ())


# --- RANK-13: gaining an immunity again --------------------------------------------------------------

REPEAT_BONUS_SAVES: dict[ImmunityKindId, Literal["reflex", "fortitude", "will"]] = {
    ImmunityKindId.FLAT_FOOTED: "reflex",
    ImmunityKindId.TOUCH_ATTACKS: "fortitude",
    ImmunityKindId.MIND_AFFECTING: "will",
}
"""RANK-13: flat-footed -> Reflex, touch attacks -> Fortitude, mind-affecting -> Will."""


@dataclass(frozen=True, slots=True)
class ImmunityGain:
    """The immunities and save bonuses after gaining an immunity, and the steps explaining it."""

    immunities: tuple[Immunity, ...]
    save_bonuses: SaveBonuses
    steps: tuple[Step, ...]


def gain_immunity(held: Sequence[Immunity], bonuses: SaveBonuses, new: Immunity) -> ImmunityGain:
    """RANK-13: gaining flat-footed / touch-attack / mind-affecting immunity from an entirely
    different source (a different `source` string; both given) while holding it at the same or a
    lower Rank: the new one replaces the old and the matching save gets a perfect bonus of
    2 x the replaced Rank's number. From the same source it replaces the old one with no bonus.
    Any other immunity is added unless the very same one is held.
    """
    current = tuple(held)
    if new in current:
        step = Step(
            rule="RANK-9",
            text=f"already immune to {new.describe()}: nothing changes",
            data={"immunity": new.model_dump(mode="json", exclude_none=True), "already": True},
            key="RANK-9.already",
        )
        return ImmunityGain(current, bonuses, (step,))
    save = REPEAT_BONUS_SAVES.get(new.kind)
    if save is not None:
        replaceable = [
            immunity
            for immunity in current
            if immunity.kind is new.kind and immunity.subject == new.subject and immunity.rank <= new.rank
        ]
        if replaceable:
            old = max(replaceable, key=lambda immunity: immunity.rank.number)
            kept = tuple(immunity for immunity in current if immunity is not old)
            different = old.source is not None and new.source is not None and old.source != new.source
            if not different:
                step = Step(
                    rule="RANK-13",
                    text=f"{new.describe()} replaces {old.describe()} from the same (or an unnamed) "
                    "source: no bonus",
                    data={
                        "replaced": old.model_dump(mode="json", exclude_none=True),
                        "immunity": new.model_dump(mode="json", exclude_none=True),
                    },
                    key="RANK-13.sameSource",
                )
                return ImmunityGain((*kept, new), bonuses, (step,))
            bonus = 2 * old.rank.number
            updated = bonuses.model_copy(update={save: getattr(bonuses, save) + bonus})
            step = Step(
                rule="RANK-13",
                text=f"{new.describe()} from {new.source!r} replaces {old.describe()} from "
                f"{old.source!r}: +{bonus} DP perfect bonus on {save.capitalize()} saves "
                f"(2 x {old.rank} = {old.rank.number})",
                data={
                    "replaced": old.model_dump(mode="json", exclude_none=True),
                    "immunity": new.model_dump(mode="json", exclude_none=True),
                    "save": save,
                    "bonus": bonus,
                    "total": getattr(updated, save),
                },
                key="RANK-13.bonus",
            )
            return ImmunityGain((*kept, new), updated, (step,))
    rule = new.catalogue.rule
    step = Step(
        rule=rule,
        text=f"gains immunity to {new.describe()}",
        data={"immunity": new.model_dump(mode="json", exclude_none=True), "gained": True},
        key=f"{rule}.gains",
    )
    return ImmunityGain((*current, new), bonuses, (step,))
