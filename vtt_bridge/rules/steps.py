"""The declared vocabulary of explanation steps: each key (`<rule id>.<what>`, chosen by the rule that
writes it) with the fields its `data` always carries. The module words each key in its language
files; `vtt-bridge schema` exports this catalogue (`$defs.StepCatalogue`), and the module's tests
check their sentences against that export.

A subject field (`SUBJECT`) holds an actor uuid or a token id; readers show its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

SUBJECT: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "an actor uuid or token id: shown by its name",
}
INT: dict[str, Any] = {"type": "integer"}
NUMBER: dict[str, Any] = {"type": "number"}
BOOL: dict[str, Any] = {"type": "boolean"}
TEXT: dict[str, Any] = {"type": "string"}
DICE: dict[str, Any] = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 10}}
LOCATE: dict[str, Any] = {"enum": ["unlocated", "approximate", "pinpointed"]}
GRADE: dict[str, Any] = {"enum": ["B", "L", "A"]}
TRACK: dict[str, Any] = {"enum": ["first", "second"], "description": "which Health track (HEALTH-13)"}
BOXES: dict[str, dict[str, Any]] = {
    "max": INT,
    "healthy": INT,
    "bashing": INT,
    "lethal": INT,
    "aggravated": INT,
}
ANY: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class StepSpec:
    """One key of the vocabulary: its rule id, its data fields (JSON Schema of each) and which of
    them name the step's subjects."""

    rule: str
    fields: MappingProxyType[str, dict[str, Any]]
    subjects: tuple[str, ...]
    summary: str

    def schema(self, key: str) -> dict[str, Any]:
        """The JSON Schema of a step of this key (its data may carry more than the declared fields)."""
        return {
            "type": "object",
            "description": self.summary,
            "properties": {
                "key": {"const": key},
                "rule": {"const": self.rule},
                "text": {"type": "string"},
                "data": {
                    "type": "object",
                    "properties": dict(self.fields),
                    "required": sorted(self.fields),
                },
            },
            "required": ["key", "rule", "text", "data"],
            "x-subjects": list(self.subjects),
        }


def _spec(rule: str, summary: str, subjects: tuple[str, ...], **fields: dict[str, Any]) -> StepSpec:
    for subject in subjects:
        fields[subject] = SUBJECT
    return StepSpec(rule, MappingProxyType(fields), subjects, summary)


PAIR = ("observer", "target")
ACTOR = ("actor",)

STEPS: MappingProxyType[str, StepSpec] = MappingProxyType(
    {
        # detection: the stage-three contest (DET-8/9, DICE-5) and the answer (DET-4)
        "DET-9.modifier": _spec(
            "DET-9",
            "a circumstance modifier of one side's contest pool",
            PAIR,
            side={"enum": ["observer", "hider"]},
            dp=INT,
            reason=TEXT,
        ),
        "DET-8.contest": _spec(
            "DET-8",
            "both pools of a stage-three contest and their successes",
            PAIR,
            observerPool=INT,
            observerDice=DICE,
            observerSuccesses=INT,
            hiderPool=INT,
            hiderDice=DICE,
            hiderSuccesses=INT,
        ),
        "DICE-5.spotted": _spec(
            "DICE-5",
            "the observer wins a stage-three contest; the pair's new state",
            PAIR,
            observerWins=BOOL,
            tie=BOOL,
            before=LOCATE,
            result=LOCATE,
        ),
        "DICE-5.tie": _spec(
            "DICE-5",
            "a tied stage-three contest goes to the observer (the detecting side); the pair's new state",
            PAIR,
            observerWins=BOOL,
            tie=BOOL,
            before=LOCATE,
            result=LOCATE,
        ),
        "DICE-5.hidden": _spec(
            "DICE-5",
            "the hider wins a stage-three contest; the pair's new state",
            PAIR,
            observerWins=BOOL,
            tie=BOOL,
            before=LOCATE,
            result=LOCATE,
        ),
        "DICE-5.opposed": _spec(
            "DICE-5",
            "an opposed roll: the roller's successes against the opponent's (the DC)",
            ("actor", "opponent"),
            successes=INT,
            dc=INT,
            wins=BOOL,
        ),
        "DICE-1.result": _spec("DICE-1", "a roll's successes", ACTOR, successes=INT, wins=BOOL),
        "DET-8.round": _spec(
            "DET-8",
            "how many contests a round ran, changed and details",
            (),
            round=INT,
            contests=INT,
            changed=INT,
            detailed=INT,
        ),
        "DET-8.lapsed": _spec("DET-8", "earlier results that lapse this round", (), lapsed=INT),
        "DET-5.distance": _spec("DET-5", "the 3D distance of a pair", PAIR, distance=NUMBER, units=TEXT),
        "DET-4.summary": _spec(
            "DET-4",
            "the one-line answer first: how the observer locates the target, by which means and rule",
            PAIR,
            result=LOCATE,
            means={"type": ["string", "null"]},
            decidedBy=TEXT,
        ),
        "DET-4.locate": _spec(
            "DET-4",
            "how the observer locates the target, and by which means",
            PAIR,
            result=LOCATE,
            means={"type": ["string", "null"]},
        ),
        # health (HEALTH-2/4/6/7/13): the actor and the track
        "HEALTH-2.damage": _spec(
            "HEALTH-2",
            "damage of one grade marked on a Health track",
            ACTOR,
            track=TRACK,
            grade=GRADE,
            amount=INT,
            **BOXES,
        ),
        "HEALTH-2.wasted": _spec("HEALTH-2", "damage no track can take", ACTOR, wasted={"type": "object"}),
        "HEALTH-2.none": _spec("HEALTH-2", "no damage reaches the Health track", ACTOR),
        "HEALTH-13.overflow": _spec(
            "HEALTH-13",
            "an all-A first track passes damage to the second",
            ACTOR,
            overflow={"type": "object"},
        ),
        "HEALTH-13.worsening": _spec(
            "HEALTH-13",
            "injuries worsen on the second Health track at the round's end",
            ACTOR,
            track=TRACK,
            grade=GRADE,
            **BOXES,
        ),
        "HEALTH-4.worsening": _spec(
            "HEALTH-4",
            "injuries worsen on the first Health track at the round's end",
            ACTOR,
            track=TRACK,
            grade=GRADE,
            **BOXES,
        ),
        "HEALTH-6.status": _spec(
            "HEALTH-6", "the actor's Health status and conditions", ACTOR, status=TEXT, conditions=ANY
        ),
        "HEALTH-7.penalty": _spec("HEALTH-7", "the wound penalty of a roll", ACTOR, penalty=INT),
        "HEALTH-7.change": _spec(
            "HEALTH-7", "the actor's wound penalty changed", ACTOR, before=INT, after=INT
        ),
        # bookkeeping
        "UNDO.undone": _spec("UNDO", "a ruling undone", (), action=TEXT, kind=TEXT, rev=INT),
        "UNDO.redone": _spec("UNDO", "an undone ruling redone", (), action=TEXT, kind=TEXT, rev=INT),
        "ROUND.begins": _spec("ROUND", "a combat round begins", (), round=INT),
        "PIN.restart": _spec(
            "PIN",
            "a restart of the round count ends a pin until a round of the old count",
            ("target",),
            observer={"type": ["string", "null"], "description": "the observer token (null: every one)"},
            untilRound=INT,
        ),
        "BATCH.item": _spec(
            "BATCH",
            "one item of a batch begins: the steps after it, up to the next, are its own",
            (),
            index=INT,
            number={"type": "integer", "description": "index + 1, as people count"},
            count=INT,
            kind=TEXT,
            target={"type": ["string", "null"], "description": "the damaged actor (null: nobody)"},
        ),
        "SYNC.synced": _spec("SYNC", "the world was synced from the VTT", (), actors=INT, tokens=INT),
        "UPSERT.set": _spec("UPSERT", "the VTT set one value", (), path=TEXT, old=ANY, new=ANY),
    }
)
"""Every step key, once."""


def catalogue_schema() -> dict[str, Any]:
    """The catalogue as JSON Schema: one definition per key (`oneOf`), for `vtt-bridge schema`."""
    return {
        "description": "The declared step keys: a step with a `key` carries that key's data fields; "
        "fields named in `x-subjects` are actor uuids or token ids.",
        "oneOf": [spec.schema(key) for key, spec in STEPS.items()],
    }
