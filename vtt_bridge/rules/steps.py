"""The declared vocabulary of explanation steps: each key (`<rule id>.<what>`, chosen by the rule that
writes it) with the fields its `data` always carries. The module words each key in its language
files; `vtt-bridge schema` exports this catalogue (`$defs.StepCatalogue`), and the module's tests
check their sentences against that export.

The keys are declared by the rules' families in `rules/catalogue/` (detection, ranks dice iwr,
health willpower, energy, the shell's bookkeeping); this module joins them, each key once. Each field
also says how it is worded (`catalogue/wording.py`): the export carries it as `x-wording` /
`x-counts`, and the module's card code words every field by it from a generated copy
(`foundry_module/scripts/core/step-fields.mjs`, `step_fields_module`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from vtt_bridge.rules.catalogue.bookkeeping import BOOKKEEPING
from vtt_bridge.rules.catalogue.detection import DETECTION
from vtt_bridge.rules.catalogue.energy import ENERGY
from vtt_bridge.rules.catalogue.fields import StepSpec
from vtt_bridge.rules.catalogue.health_willpower import HEALTH_WILLPOWER
from vtt_bridge.rules.catalogue.ranks_dice_iwr import RANKS_DICE_IWR
from vtt_bridge.rules.catalogue.wording import FieldWording, field_wordings

FAMILIES: tuple[Mapping[str, StepSpec], ...] = (
    DETECTION,
    HEALTH_WILLPOWER,
    RANKS_DICE_IWR,
    ENERGY,
    BOOKKEEPING,
)
"""The catalogue's families, in the order the catalogue lists them."""


def _join(families: tuple[Mapping[str, StepSpec], ...]) -> dict[str, StepSpec]:
    """The families' keys in one mapping; a key declared by two families is an error."""
    joined: dict[str, StepSpec] = {}
    for family in families:
        for key, spec in family.items():
            if key in joined:
                raise ValueError(f"step key {key!r} is declared twice")
            joined[key] = spec
    return joined


STEPS: MappingProxyType[str, StepSpec] = MappingProxyType(_join(FAMILIES))
"""Every step key, once."""


WORDING: MappingProxyType[str, MappingProxyType[str, FieldWording]] = MappingProxyType(
    {key: field_wordings(key, spec) for key, spec in STEPS.items()}
)
"""How each declared field of each key is worded."""


def wording_schema(wording: FieldWording) -> dict[str, str]:
    """A field's wording as the schema's annotations (`x-wording`, and `x-counts` for a count)."""
    kind, counted = wording
    return {"x-wording": kind.value, **({"x-counts": counted.value} if counted else {})}


def wording_table() -> dict[str, dict[str, str]]:
    """The module's table: key → field → its wording (a count as `count:<word>`)."""
    return {
        key: {
            name: kind.value + (f":{counted.value}" if counted else "")
            for name, (kind, counted) in fields.items()
        }
        for key, fields in WORDING.items()
    }


def step_fields_module() -> str:
    """The text of the module's generated `scripts/core/step-fields.mjs`: `wording_table` as a frozen
    object, which the card code words each field by."""
    table = json.dumps(wording_table(), indent=2, sort_keys=True)
    return (
        "// Generated from vtt_bridge/rules/steps.py by `make docs` (`vtt-bridge schema --step-fields`):\n"
        "// do not edit. How each declared field of each step key is worded (`Wording` there);\n"
        "// a count names the word it counts (`count:<word>`, `VTTBRIDGE.Step.Count.<word>`).\n"
        "/** @type {Readonly<Record<string, Readonly<Record<string, string>>>>} */\n"
        f"export const STEP_FIELDS = Object.freeze({table});\n"
    )


def catalogue_schema() -> dict[str, Any]:
    """The catalogue as JSON Schema: one definition per key (`oneOf`), for `vtt-bridge schema`."""
    return {
        "description": "The declared step keys: a step with a `key` carries that key's data fields; "
        "fields named in `x-subjects` are actor uuids or token ids.",
        "oneOf": [
            spec.schema(key, {name: wording_schema(w) for name, w in WORDING[key].items()})
            for key, spec in STEPS.items()
        ],
    }
