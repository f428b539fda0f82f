"""The Energy Pool and Gauge family of the step catalogue (EP-1..9): each key with its rule id,
summary, subjects and data fields.
"""

from __future__ import annotations

from typing import Any

from vtt_bridge.rules.catalogue.fields import ACTOR, BOOL, INT, LIST, N_TEXT, OBJECT, TEXT, StepSpec, spec

_CONFLICT: dict[str, dict[str, Any]] = {"class": TEXT, "holder": TEXT, "mode": TEXT, "other": TEXT}
_REOPEN: dict[str, dict[str, Any]] = {
    "reopening": INT,
    "bonus": INT,
    "max": INT,
    "name": TEXT,
    "gainedFrom": TEXT,
    "before": INT,
}
_ANCHORED: dict[str, dict[str, Any]] = {"class": TEXT, "participants": LIST, "anchorSource": TEXT}

ENERGY: dict[str, StepSpec] = {
    "EP-1.gained": spec(
        "EP-1",
        "an Energy Pool gained",
        ACTOR,
        name=TEXT,
        keyAttributes=OBJECT,
        max=INT,
        category=TEXT,
        region=N_TEXT,
        traits=LIST,
    ),
    "EP-2.annihilated": spec("EP-2", "conflicting pools or Gauges meet: annihilated", ACTOR, conflicts=LIST),
    "EP-2.rejects": spec("EP-2", "a held pool rejects the new one: annihilated", ACTOR, **_CONFLICT),
    "EP-9.rejects": spec("EP-9", "a held Gauge rejects the new one: annihilated", ACTOR, **_CONFLICT),
    "EP-3.anchor": spec(
        "EP-3",
        "a pool of a class the actor cannot gain again: annihilated",
        ACTOR,
        anchorSource=TEXT,
        name=TEXT,
        **{"class": TEXT},
    ),
    "EP-3.anchored": spec("EP-3", "from now on gaining a class annihilates", ACTOR, **_ANCHORED),
    "EP-3.anchoredWith": spec(
        "EP-3", "from now on gaining a class annihilates, but for the participants", ACTOR, **_ANCHORED
    ),
    "EP-4.reopened": spec("EP-4", "a pool opened again: its bonus", ACTOR, **_REOPEN),
    "EP-4.noBonus": spec("EP-4", "a pool opened again: no further bonus", ACTOR, **_REOPEN),
    "EP-5.restore": spec("EP-5", "energy restored", ACTOR, pool=TEXT, restored=INT, current=INT),
    "EP-5.max": spec("EP-5", "a pool's max changes", ACTOR, pool=TEXT, max=INT, current=INT, lost=INT),
    "EP-6.spendAll": spec("EP-6", "the ability spends all energy", ACTOR, spendAll=BOOL, paid=INT),
    "EP-6.reduced": spec("EP-6", "a cost reduced", ACTOR, cost=INT, reduction=INT, paid=INT),
    "EP-6.paid": spec(
        "EP-6",
        "energy paid, and the effect's cost",
        ACTOR,
        pool=TEXT,
        classes=LIST,
        paid=INT,
        effectCost=INT,
        current=INT,
    ),
    "EP-7.substitute": spec(
        "EP-7",
        "a pool spent in place of another",
        ACTOR,
        pool=TEXT,
        classes=LIST,
        name=TEXT,
        inPlaceOf=TEXT,
    ),
    "EP-7.variant": spec("EP-7", "a variant of a pool: a separate pool", ACTOR, name=TEXT, variantOf=TEXT),
    "EP-8.untouched": spec(
        "EP-8",
        "not an Energy Pool: attacks on pools do not touch it",
        ACTOR,
        pool=TEXT,
        name=TEXT,
        attack=BOOL,
    ),
    "EP-9.gained": spec("EP-9", "a Gauge gained", ACTOR, gauge=TEXT, current=INT, max=INT),
    "EP-9.gauge": spec("EP-9", "a Gauge spent or restored", ACTOR, gauge=TEXT, current=INT),
    "EP-9.max": spec("EP-9", "a Gauge's max changes", ACTOR, gauge=TEXT, max=INT, current=INT, lost=INT),
}
"""The step keys of Energy Pools and Gauges."""
