"""The pieces of the step catalogue: the JSON Schema of each kind of data field, and `StepSpec`, one
key's declaration. A subject field (`SUBJECT`) holds an actor uuid or a token id; readers show its
name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

SUBJECT: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "description": "an actor uuid or token id: shown by its name",
}
SUBJECT_FIELDS: tuple[str, ...] = ("actor", "target", "observer", "opponent", "token", "attacker")
"""The data fields that name a step's subjects (an actor uuid or token id, `SUBJECT`): worded by
name, and what a ruling is about."""
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
OBJECT: dict[str, Any] = {"type": "object"}
LIST: dict[str, Any] = {"type": "array"}
RANK: dict[str, Any] = {"enum": ["unranked", "D", "C", "B", "A", "S"], "description": "a Rank (RANK-1)"}
RANK_NUMBER: dict[str, Any] = {
    "type": "integer",
    "minimum": 0,
    "maximum": 6,
    "description": "a Rank's number (unranked 0, D 1 ... S 5; S+1 = 6, DET-2): shown as its letter",
}
IMMUNITY: dict[str, Any] = {
    "type": "object",
    "required": ["kind"],
    "description": "an immunity (RANK-9): kind, subject, rank, source",
}
EVERY: dict[str, Any] = {
    "type": ["string", "null"],
    "minLength": 1,
    "description": "an actor uuid or token id: shown by its name; null: every observer",
}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """A field that may be null (not applicable to this step)."""
    return {"anyOf": [schema, {"type": "null"}]}


N_INT = nullable(INT)
N_TEXT = nullable(TEXT)


@dataclass(frozen=True, slots=True)
class StepSpec:
    """One key of the vocabulary: its rule id, its data fields (JSON Schema of each) and which of
    them name the step's subjects."""

    rule: str
    fields: MappingProxyType[str, dict[str, Any]]
    subjects: tuple[str, ...]
    summary: str

    def schema(self, key: str, annotations: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        """The JSON Schema of a step of this key (its data may carry more than the declared fields),
        each field with its `annotations` (how it is worded)."""
        return {
            "type": "object",
            "description": self.summary,
            "properties": {
                "key": {"const": key},
                "rule": {"const": self.rule},
                "text": {"type": "string"},
                "data": {
                    "type": "object",
                    "properties": {
                        name: {**schema, **annotations[name]} for name, schema in self.fields.items()
                    },
                    "required": sorted(self.fields),
                },
            },
            "required": ["key", "rule", "text", "data"],
            "x-subjects": list(self.subjects),
        }


def spec(rule: str, summary: str, subjects: tuple[str, ...], **fields: dict[str, Any]) -> StepSpec:
    """A key's spec; each subject field not given is a `SUBJECT`."""
    for subject in subjects:
        fields.setdefault(subject, SUBJECT)
    return StepSpec(rule, MappingProxyType(fields), subjects, summary)


PAIR = ("observer", "target")
"""The subjects of a pair's step: its observer and target tokens."""
ACTOR = ("actor",)
"""The subject of an actor's step."""
ATTACK = ("attacker", "target")
"""The subjects of an attack's step (DET-10): attacker and target tokens."""
