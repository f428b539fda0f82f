"""How each field of a step is worded (`Wording`, and for a count the word it counts): the module's
card code words every field by it from a generated copy (`foundry_module/scripts/core/step-fields.mjs`).
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType
from typing import Any

from vtt_bridge.rules.catalogue.fields import DICE, EVERY, IMMUNITY, LOCATE, SUBJECT, SUBJECT_FIELDS, StepSpec


class Wording(StrEnum):
    """How a reader's client words a field's value (the module's card code, by this name)."""

    SUBJECT = "subject"  # an actor or token by its name; null: every observer
    NUMBER = "number"  # as written (a fraction to two places)
    TEXT = "text"  # free text, as written (names users gave, ids)
    FLAG = "flag"  # true / false, as written
    DICE = "dice"  # a list of faces
    PLAIN = "plain"  # a list or an object as written ("1 B + 2 L")
    COUNT = "count"  # a count with its word's plural form (`counts`)
    SIGNED_COUNT = "signed-count"  # a count with its sign ("+1 die")
    SIGNED = "signed"  # a number with its sign ("+2")
    NEGATED = "negated"  # a wound penalty as the dice it takes (HEALTH-7)
    PERCENT = "percent"  # a chance 0..1 as a percentage
    ORDINAL = "ordinal"  # a 0-based index counted from 1
    LOCATE = "locate"  # a locate state (DET-4)
    GRADE = "grade"  # a damage grade (HEALTH-1)
    TRACK = "track"  # which Health track (HEALTH-13)
    RANK = "rank"  # a Rank's letter, unranked in words (RANK-1)
    RANK_NAME = "rank-name"  # a Rank in words ("C-Rank")
    RANK_NUMBER = "rank-number"  # a Rank's number as its letter (DET-2)
    DAMAGE_TYPE = "damage-type"
    IWR_NAME = "iwr-name"  # an IWR entry (IWR-1..4): a damage type or group, or a category, or as written
    SENSE = "sense"  # a means of detection: an ordinary sense in words, a named one as written
    SENSE_LEAD = "sense-lead"  # a means as the lead of the summary ("by sight, "); null: nothing
    HEALTH_STATUS = "health-status"  # HEALTH-6
    CONDITION = "condition"
    CONDITIONS = "conditions"  # a list of conditions after the status ("; prone, blinded")
    POINT_KIND = "point-kind"  # a condition or emotion point kind (RANK-9)
    RULING_KIND = "ruling-kind"  # an action kind ("damage")
    SIDE = "side"
    REASON = "reason"
    SPELL = "spell"
    WINS = "wins"
    USER = "user"  # a user's name; empty: the GM
    UNTIL = "until"  # when a pin ends
    JSON = "json"  # a value the VTT set; null: nothing
    HEAL_SOURCE = "heal-source"
    PAID_FROM = "paid-from"  # which Willpower pays (WP-2)
    SAVE = "save"
    IMMUNITY = "immunity"  # an immunity by its kind, subject and Rank (RANK-9)
    IMMUNITY_WHAT = (
        "immunity-what"  # what an immunity check is about, from `kind`/`condition`/`amount`/`type`
    )
    ATTRIBUTES = "attributes"  # Attributes and their dots
    POOL_KIND = "pool-kind"  # a pool's kind: its region, else its category (EP-1)
    POOL_CLASS = "pool-class"
    POOL_CLASSES = "pool-classes"
    MODE = "mode"  # a compatibility mode, with the step's `class`
    ROLL_TRAITS = "roll-traits"  # a pool's traits and their dots (DICE-1)
    MODIFIERS = "modifiers"  # modifiers, each perfect or not stacked (DICE-4)
    ANTI_DETECTION = "anti-detection"  # anti-detection by name, Essence and Rank, from `antiDetection`


class Counted(StrEnum):
    """The word a count counts (`VTTBRIDGE.Step.Count.<word>` in the module's languages)."""

    SUCCESS = "success"
    DIE = "die"
    DIE_WITH = "dieWith"
    CONTEST = "contest"
    PAIR = "pair"
    RESULT = "result"
    ACTOR = "actor"
    TOKEN = "token"
    EXTRA = "extra"
    EFFECT_POINT = "effectPoint"
    REROLL = "reroll"
    HOUR = "hour"
    LONG_REST = "longRest"
    POINT = "point"
    AGGRAVATED_BOX = "aggravatedBox"
    HEALTHY_BOX_WITH = "healthyBoxWith"


FieldWording = tuple[Wording, Counted | None]
"""A field's wording, and the word it counts when it is a count."""


def _count(word: Counted, signed: bool = False) -> FieldWording:
    return (Wording.SIGNED_COUNT if signed else Wording.COUNT, word)


_BY_NAME: dict[str, FieldWording] = {
    **{name: (Wording.SUBJECT, None) for name in SUBJECT_FIELDS},
    **{name: _count(Counted.SUCCESS) for name in ("successes", "observerSuccesses", "hiderSuccesses")},
    "observerPool": _count(Counted.DIE_WITH),
    "hiderPool": _count(Counted.DIE_WITH),
    "penalty": _count(Counted.DIE),
    "contests": _count(Counted.CONTEST),
    "changed": _count(Counted.PAIR),
    "changedPairs": _count(Counted.PAIR),
    "lapsed": _count(Counted.RESULT),
    "actors": _count(Counted.ACTOR),
    "tokens": _count(Counted.TOKEN),
    "extraSuccesses": _count(Counted.EXTRA),
    "effectPoints": _count(Counted.EFFECT_POINT),
    "rerolls": _count(Counted.REROLL),
    "restHours": _count(Counted.HOUR),
    "periodHours": _count(Counted.HOUR),
    "longRests": _count(Counted.LONG_REST),
    "spell": (Wording.SPELL, None),
    "spellChance": (Wording.PERCENT, None),
    "by": (Wording.USER, None),
    "until": (Wording.UNTIL, None),
    "side": (Wording.SIDE, None),
    "reason": (Wording.REASON, None),
    "status": (Wording.HEALTH_STATUS, None),
    "track": (Wording.TRACK, None),
    "grade": (Wording.GRADE, None),
    "wins": (Wording.WINS, None),
    "dp": (Wording.SIGNED, None),
    "delta": (Wording.SIGNED, None),
    "conditions": (Wording.CONDITIONS, None),
    "means": (Wording.SENSE, None),
    "old": (Wording.JSON, None),
    "new": (Wording.JSON, None),
    "effectiveRank": (Wording.RANK_NUMBER, None),
    "antiRank": (Wording.RANK_NUMBER, None),
    "condition": (Wording.CONDITION, None),
    "unusable": (Wording.CONDITION, None),
    "kind": (Wording.POINT_KIND, None),
    "paidFrom": (Wording.PAID_FROM, None),
    "rank": (Wording.RANK, None),
    "trait": (Wording.DAMAGE_TYPE, None),
    "effectRank": (Wording.RANK_NAME, None),
    "save": (Wording.SAVE, None),
    "what": (Wording.IMMUNITY_WHAT, None),
    "keyAttributes": (Wording.ATTRIBUTES, None),
    "category": (Wording.POOL_KIND, None),
    "classes": (Wording.POOL_CLASSES, None),
    "class": (Wording.POOL_CLASS, None),
    "mode": (Wording.MODE, None),
    "modifiers": (Wording.MODIFIERS, None),
    "anti": (Wording.ANTI_DETECTION, None),
    "source": (Wording.HEAL_SOURCE, None),
}
"""A field's wording by its name, wherever it is declared (unless `_BY_KEY` or `_IWR` says otherwise)."""

_BY_KEY: dict[str, dict[str, FieldWording]] = {
    "HEALTH-7.change": {"before": (Wording.NEGATED, None), "after": (Wording.NEGATED, None)},
    "DICE-3.extra": {"extra": _count(Counted.EXTRA), "total": _count(Counted.SUCCESS)},
    "DICE-3.noExtra": {"extra": _count(Counted.EXTRA)},
    "DICE-1.pool": {"base": _count(Counted.DIE), "traits": (Wording.ROLL_TRAITS, None)},
    "DICE-1.toRoll": {"pool": _count(Counted.DIE)},
    "DICE-4.modifiers": {"total": _count(Counted.DIE, signed=True)},
    "DICE-7.bonus": {"bonus": _count(Counted.DIE)},
    "WP-2.roll": {"bonus": _count(Counted.DIE)},
    "RANK-13.bonus": {"bonus": _count(Counted.DIE)},
    "RANK-5.points": {"points": _count(Counted.POINT)},
    "RANK-12.points": {"points": _count(Counted.POINT)},
    "HEALTH-9.cost": {"aggravated": _count(Counted.AGGRAVATED_BOX), "cost": _count(Counted.POINT)},
    "HEALTH-13.new": {"max": _count(Counted.HEALTHY_BOX_WITH)},
    "DET-4.summary": {"means": (Wording.SENSE_LEAD, None)},
    "UNDO.undone": {"kind": (Wording.RULING_KIND, None)},
    "UNDO.redone": {"kind": (Wording.RULING_KIND, None)},
    "BATCH.item": {"kind": (Wording.RULING_KIND, None)},
    "EP-1.gained": {"traits": (Wording.POOL_CLASSES, None)},
}
"""Fields of one key worded otherwise than their name says."""

_IWR: dict[str, FieldWording] = {
    "index": (Wording.ORDINAL, None),
    "type": (Wording.DAMAGE_TYPE, None),
    "resistance": (Wording.DAMAGE_TYPE, None),
    "weakness": (Wording.DAMAGE_TYPE, None),
    "immunity": (Wording.IWR_NAME, None),
    "exception": (Wording.IWR_NAME, None),
}
"""Fields of the IWR steps (IWR-1..8): a damage instance's place and the damage types it meets."""


def _by_schema(schema: dict[str, Any]) -> FieldWording:
    """The wording a field's schema alone implies: a subject, a locate state, dice, or as written."""
    if schema is SUBJECT or schema is EVERY:
        return (Wording.SUBJECT, None)
    if schema is LOCATE:
        return (Wording.LOCATE, None)
    if schema is DICE:
        return (Wording.DICE, None)
    if schema is IMMUNITY:
        return (Wording.IMMUNITY, None)
    plain = schema.get("anyOf", [schema])[0]
    kind = plain.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "boolean":
        return (Wording.FLAG, None)
    if kind in ("integer", "number"):
        return (Wording.NUMBER, None)
    if kind == "string" or "enum" in plain:
        return (Wording.TEXT, None)
    return (Wording.PLAIN, None)


def field_wordings(key: str, spec: StepSpec) -> MappingProxyType[str, FieldWording]:
    """How each declared field of this key is worded: as its key says, else as an IWR field, else
    as its schema says of a subject, locate state or immunity, else by its name or its schema."""
    out: dict[str, FieldWording] = {}
    for name, schema in spec.fields.items():
        by_schema = _by_schema(schema)
        if name in _BY_KEY.get(key, {}):
            out[name] = _BY_KEY[key][name]
        elif spec.rule.startswith("IWR-") and name in _IWR:
            out[name] = _IWR[name]
        elif by_schema[0] in (Wording.SUBJECT, Wording.LOCATE, Wording.IMMUNITY):
            out[name] = by_schema
        else:
            out[name] = _BY_NAME.get(name, by_schema)
    return MappingProxyType(out)
