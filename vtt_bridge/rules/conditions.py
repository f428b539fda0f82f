"""Tables of conditions, condition point kinds and emotion point kinds (RANK-9, RANK-10, RANK-12).

Each table is a StrEnum: the value is the stable id on the wire, `english` its English name, which
the VTT module may localize by id. Declared once here; everything else refers to these.
"""

from __future__ import annotations

from enum import StrEnum


class Condition(StrEnum):
    """Conditions an actor can be in (the `conditions` map). RANK-9 lists the immunizable ones."""

    FROZEN = "frozen"
    NAUSEATED = "nauseated"
    PETRIFIED = "petrified"
    INFATUATED = "infatuated"
    EXHAUSTED = "exhausted"
    BLINDED = "blinded"
    DEAFENED = "deafened"
    ASLEEP = "asleep"
    FLAT_FOOTED = "flat-footed"
    GRAPPLED = "grappled"
    PRONE = "prone"
    CHARMED = "charmed"
    CONTROLLED = "controlled"
    INTIMIDATED = "intimidated"
    POSSESSED = "possessed"
    TRANSFORMED = "transformed"
    SILENCED = "silenced"
    SEALED = "sealed"
    IMPRISONED = "imprisoned"
    BANISHED = "banished"
    CURSED = "cursed"
    POISONED = "poisoned"
    DISEASED = "diseased"
    SUFFOCATING = "suffocating"
    HALLUCINATING = "hallucinating"
    UNCONSCIOUS = "unconscious"
    WORSENING = "worsening"
    DYING = "dying"
    DEAD = "dead"
    ANNIHILATED = "annihilated"

    @property
    def english(self) -> str:
        """The English name."""
        return _CONDITION_NAMES[self]

    @property
    def derived(self) -> bool:
        """Derived from the actor's tracks (HEALTH-3..5, WP-5): no effect and no edit sets it."""
        return self in DERIVED

    @property
    def server_written(self) -> bool:
        """Written by the server only (the derived ones and EP-2's annihilation): no effect sets it."""
        return self in SERVER_WRITTEN


DERIVED: frozenset[Condition] = frozenset(
    {Condition.UNCONSCIOUS, Condition.WORSENING, Condition.DYING, Condition.DEAD}
)
"""HEALTH-3..5, WP-5: the conditions derived after every ruling (`document.derive`); declared here once
(the schema marks them `readOnly`, and the module's copy is tested against it)."""

SERVER_WRITTEN: frozenset[Condition] = DERIVED | {Condition.ANNIHILATED}
"""The derived conditions and annihilation (EP-2, written by the Energy rules)."""

_CONDITION_NAMES: dict[Condition, str] = {
    Condition.FROZEN: "Frozen",
    Condition.NAUSEATED: "Nauseated",
    Condition.PETRIFIED: "Petrified",
    Condition.INFATUATED: "Infatuated",
    Condition.EXHAUSTED: "Exhausted",
    Condition.BLINDED: "Blinded",
    Condition.DEAFENED: "Deafened",
    Condition.ASLEEP: "Asleep",
    Condition.FLAT_FOOTED: "Flat-footed",
    Condition.GRAPPLED: "Grappled",
    Condition.PRONE: "Prone",
    Condition.CHARMED: "Charmed",
    Condition.CONTROLLED: "Controlled",
    Condition.INTIMIDATED: "Intimidated",
    Condition.POSSESSED: "Possessed",
    Condition.TRANSFORMED: "Transformed",
    Condition.SILENCED: "Silenced",
    Condition.SEALED: "Sealed",
    Condition.IMPRISONED: "Imprisoned",
    Condition.BANISHED: "Banished",
    Condition.CURSED: "Cursed",
    Condition.POISONED: "Poisoned",
    Condition.DISEASED: "Diseased",
    Condition.SUFFOCATING: "Suffocating",
    Condition.HALLUCINATING: "Hallucinating",
    Condition.UNCONSCIOUS: "Unconscious",
    Condition.WORSENING: "Worsening",
    Condition.DYING: "Dying",
    Condition.DEAD: "Dead",
    Condition.ANNIHILATED: "Annihilated",
}


class ConditionPointKind(StrEnum):
    """RANK-9: the kinds of condition points (the `conditionPoints` map), each immunizable alone."""

    BURN = "burn"
    FREEZE = "freeze"
    PAIN = "pain"
    NAUSEA = "nausea"
    TINNITUS = "tinnitus"
    DAZZLE = "dazzle"
    CRYSTALLIZATION = "crystallization"
    MENTAL_BIND = "mental-bind"
    ENTANGLE = "entangle"
    PARALYSIS = "paralysis"
    STUN = "stun"
    CHARM = "charm"
    BLEED = "bleed"
    FATIGUE = "fatigue"
    STALL = "stall"
    DROWSINESS = "drowsiness"
    LIMB_IMPAIRMENT = "limb-impairment"

    @property
    def english(self) -> str:
        """The English name."""
        return _POINT_NAMES[self]


_POINT_NAMES: dict[ConditionPointKind, str] = {
    ConditionPointKind.BURN: "Burn points",
    ConditionPointKind.FREEZE: "Freeze points",
    ConditionPointKind.PAIN: "Pain points",
    ConditionPointKind.NAUSEA: "Nausea points",
    ConditionPointKind.TINNITUS: "Tinnitus points",
    ConditionPointKind.DAZZLE: "Dazzle points",
    ConditionPointKind.CRYSTALLIZATION: "Crystallization points",
    ConditionPointKind.MENTAL_BIND: "Mental bind points",
    ConditionPointKind.ENTANGLE: "Entangle points",
    ConditionPointKind.PARALYSIS: "Paralysis points",
    ConditionPointKind.STUN: "Stun points",
    ConditionPointKind.CHARM: "Charm points",
    ConditionPointKind.BLEED: "Bleed points",
    ConditionPointKind.FATIGUE: "Fatigue points",
    ConditionPointKind.STALL: "Stall points",
    ConditionPointKind.DROWSINESS: "Drowsiness points",
    ConditionPointKind.LIMB_IMPAIRMENT: "Limb impairment points",
}


class EmotionPointKind(StrEnum):
    """RANK-9: the kinds of emotion points (the `emotionPoints` map)."""

    DEJECTION = "dejection"
    ELATION = "elation"
    FEAR = "fear"

    @property
    def english(self) -> str:
        """The English name."""
        return _EMOTION_NAMES[self]


_EMOTION_NAMES: dict[EmotionPointKind, str] = {
    EmotionPointKind.DEJECTION: "Dejection points",
    EmotionPointKind.ELATION: "Elation points",
    EmotionPointKind.FEAR: "Fear points",
}
