"""The Health and Willpower family of the step catalogue (HEALTH-2..13, WP-1..6): each key with its
rule id, summary, subjects and data fields.
"""

from __future__ import annotations

from typing import Any

from vtt_bridge.rules.catalogue.fields import (
    ACTOR,
    ANY,
    BOOL,
    BOXES,
    GRADE,
    INT,
    N_TEXT,
    OBJECT,
    TEXT,
    TRACK,
    StepSpec,
    spec,
)

_WP_SPEND: dict[str, dict[str, Any]] = {
    "use": {"enum": ["roll", "defense", "stayConscious", "hunger"]},
    "paidFrom": {"enum": ["temporary", "current"]},
    "bonus": INT,
    "current": INT,
    "temporary": INT,
}
_HEAL: dict[str, dict[str, Any]] = {"source": TEXT, "points": ANY}
_HEALED: dict[str, dict[str, Any]] = {"healed": OBJECT, **BOXES}

HEALTH_WILLPOWER: dict[str, StepSpec] = {
    "HEALTH-2.damage": spec(
        "HEALTH-2",
        "damage of one grade marked on a Health track",
        ACTOR,
        track=TRACK,
        grade=GRADE,
        amount=INT,
        healthyTo=INT,
        bashingUp=INT,
        lethalUp=INT,
        leftOver=INT,
        **BOXES,
    ),
    "HEALTH-2.wasted": spec("HEALTH-2", "damage no track can take", ACTOR, wasted={"type": "object"}),
    "HEALTH-2.none": spec("HEALTH-2", "no damage reaches the Health track", ACTOR, amount=INT),
    "HEALTH-13.overflow": spec(
        "HEALTH-13",
        "an all-A first track passes damage to the second",
        ACTOR,
        overflow={"type": "object"},
    ),
    "HEALTH-13.worsening": spec(
        "HEALTH-13",
        "injuries worsen on the second Health track at the round's end",
        ACTOR,
        track=TRACK,
        grade=GRADE,
        **{"from": GRADE},
        **BOXES,
    ),
    "HEALTH-4.worsening": spec(
        "HEALTH-4",
        "injuries worsen on the first Health track at the round's end",
        ACTOR,
        track=TRACK,
        grade=GRADE,
        **{"from": GRADE},
        **BOXES,
    ),
    "HEALTH-6.status": spec(
        "HEALTH-6", "the actor's Health status and conditions", ACTOR, status=TEXT, conditions=ANY
    ),
    "HEALTH-7.penalty": spec("HEALTH-7", "the wound penalty of a roll", ACTOR, penalty=INT),
    "HEALTH-7.change": spec("HEALTH-7", "the actor's wound penalty changed", ACTOR, before=INT, after=INT),
    "HEALTH-11.absorb": spec(
        "HEALTH-11",
        "temporary HP absorbs damage, highest grade first",
        ACTOR,
        absorbed=OBJECT,
        tempHpBefore=INT,
        tempHp=INT,
    ),
    "HEALTH-11.noStack": spec("HEALTH-11", "temporary HP does not stack", ACTOR, tempHp=INT, offered=INT),
    "HEALTH-11.gain": spec(
        "HEALTH-11", "temporary HP gained: the higher stays", ACTOR, tempHp=INT, before=INT
    ),
    "HEALTH-11.unavoidable": spec(
        "HEALTH-11", "temporary HP does not work against unavoidable damage", ACTOR, unavoidable=OBJECT
    ),
    "HEALTH-8.source": spec("HEALTH-8", "natural recovery or rest: what it heals", ACTOR, **_HEAL),
    "HEALTH-9.source": spec("HEALTH-9", "the Overseer's healing: what it heals", ACTOR, **_HEAL),
    "HEALTH-10.source": spec("HEALTH-10", "fast healing or regeneration: what it heals", ACTOR, **_HEAL),
    "HEALTH-8.healed": spec("HEALTH-8", "boxes healed on the first track", ACTOR, **_HEALED),
    "HEALTH-9.healed": spec("HEALTH-9", "boxes the Overseer healed", ACTOR, **_HEALED),
    "HEALTH-10.healed": spec("HEALTH-10", "boxes fast healing or regeneration healed", ACTOR, **_HEALED),
    "HEALTH-13.healed": spec("HEALTH-13", "boxes healed on the second track first", ACTOR, **_HEALED),
    "HEALTH-8.nothing": spec("HEALTH-8", "nothing this source can heal", ACTOR, healed=OBJECT),
    "HEALTH-9.nothing": spec("HEALTH-9", "nothing the Overseer can heal", ACTOR, healed=OBJECT),
    "HEALTH-10.nothing": spec("HEALTH-10", "nothing fast healing can heal", ACTOR, healed=OBJECT),
    "HEALTH-9.cost": spec("HEALTH-9", "the Overseer's cost for A boxes", ACTOR, cost=INT, aggravated=INT),
    "HEALTH-4.stabilized": spec("HEALTH-4", "worsening stops until new damage", ACTOR, stabilized=BOOL),
    "HEALTH-4.recheck": spec("HEALTH-4", "new damage: worsening is checked again", ACTOR, recheck=BOOL),
    "HEALTH-8.restCarried": spec(
        "HEALTH-8",
        "rest that carries toward the next box",
        ACTOR,
        restHours=INT,
        grade=GRADE,
        periodHours=INT,
    ),
    "HEALTH-8.longRest": spec("HEALTH-8", "long rests restore Willpower", ACTOR, longRests=INT),
    "HEALTH-12.change": spec(
        "HEALTH-12",
        "max Health changes",
        ACTOR,
        delta=INT,
        effect=N_TEXT,
        removed=OBJECT,
        **BOXES,
    ),
    "HEALTH-12.ends": spec(
        "HEALTH-12",
        "a temporary max Health change ends and is reversed",
        ACTOR,
        effect=TEXT,
        reversed=INT,
    ),
    "HEALTH-13.new": spec("HEALTH-13", "a second Health track set up", ACTOR, max=INT),
    "HEALTH-13.replaced": spec("HEALTH-13", "the earlier second track is replaced", ACTOR, replaced=BOOL),
    "HEALTH-3.woken": spec("HEALTH-3", "recovering Willpower wakes the injured", ACTOR, woken=BOOL),
    "HEALTH-5.notReturned": spec(
        "HEALTH-5",
        "the dead stay dead: the max Health taken is not given back",
        ACTOR,
        effect=TEXT,
        notReturned=INT,
    ),
    "WP-2.roll": spec("WP-2", "1 Willpower for +3 dice on a roll", ACTOR, **_WP_SPEND),
    "WP-2.defense": spec("WP-2", "1 Willpower for +3 defense", ACTOR, **_WP_SPEND),
    "WP-3.stayConscious": spec("WP-3", "1 Willpower to stay conscious this round", ACTOR, **_WP_SPEND),
    "WP-3.hunger": spec("WP-3", "1 Willpower to stay conscious despite hunger", ACTOR, **_WP_SPEND),
    "WP-3.blow": spec("WP-3", "a new blow: staying conscious must be paid again", ACTOR, lapse=TEXT),
    "WP-3.round": spec("WP-3", "a new round: staying conscious must be paid again", ACTOR, lapse=TEXT),
    "WP-4.noStack": spec("WP-4", "temporary Willpower does not stack", ACTOR, temporary=INT),
    "WP-4.temporary": spec("WP-4", "temporary Willpower gained", ACTOR, temporary=INT),
    "WP-4.lose": spec(
        "WP-4", "Willpower lost, temporary first", ACTOR, fromTemporary=INT, fromCurrent=INT, current=INT
    ),
    "WP-1.full": spec("WP-1", "Willpower already at max", ACTOR, recovered=INT),
    "WP-1.recover": spec("WP-1", "Willpower recovered", ACTOR, recovered=INT, current=INT),
    "WP-5.unconscious": spec("WP-5", "at 0 Willpower: unconscious", ACTOR, unconscious=BOOL),
    "WP-5.awake": spec("WP-5", "above 0 Willpower again: awake", ACTOR, unconscious=BOOL),
    "WP-6.change": spec("WP-6", "Will changes max Willpower", ACTOR, max=INT, current=INT, lost=INT),
}
"""The step keys of damage, healing and the Health tracks, and of Willpower."""
