"""The rolls, Ranks and IWR family of the step catalogue (DICE-1..7, RANK-3..13, IWR-1..8): each key
with its rule id, summary, subjects and data fields.
"""

from __future__ import annotations

from typing import Any

from vtt_bridge.rules.catalogue.fields import (
    ACTOR,
    BOOL,
    DICE,
    GRADE,
    IMMUNITY,
    INT,
    LIST,
    N_INT,
    N_TEXT,
    RANK,
    TEXT,
    StepSpec,
    nullable,
    spec,
)

_CHECK: dict[str, dict[str, Any]] = {
    "immunity": IMMUNITY,
    "blocked": BOOL,
    "what": {"enum": ["points", "condition", "effect", "damage", None]},
    "kind": N_TEXT,
    "condition": N_TEXT,
    "amount": N_INT,
    "index": N_INT,
    "type": N_TEXT,
    "before": N_INT,
    "after": N_INT,
    "effectRank": nullable(RANK),
    "casterLevel": N_INT,
}
"""An immunity check (RANK-4/5/9): what it is about (points of a kind, a condition, the effect, an
instance's damage), the Ranks and caster level contested; null where it does not apply."""
_INSTANCE: dict[str, dict[str, Any]] = {"index": INT, "type": TEXT}
_BLOCKED: dict[str, dict[str, Any]] = {**_INSTANCE, "before": INT, "after": INT}

RANKS_DICE_IWR: dict[str, StepSpec] = {
    "DICE-5.opposed": spec(
        "DICE-5",
        "an opposed roll: the roller's successes against the opponent's (the DC)",
        ("actor", "opponent"),
        successes=INT,
        dc=INT,
        wins=BOOL,
    ),
    "DICE-1.result": spec("DICE-1", "a roll's successes", ACTOR, successes=INT, wins=BOOL),
    "DICE-1.pool": spec(
        "DICE-1",
        "the dice pool: traits and their dots",
        ACTOR,
        traits={"type": "array", "items": {"type": "object", "required": ["trait", "value"]}},
        base=INT,
    ),
    "DICE-4.modifiers": spec(
        "DICE-4",
        "the modifiers that count (same-type bonuses do not stack)",
        ACTOR,
        modifiers=LIST,
        total=INT,
    ),
    "DICE-7.bonus": spec("DICE-7", "Willpower's perfect bonus", ACTOR, bonus=INT),
    "DICE-1.toRoll": spec("DICE-1", "the dice to roll after modifiers", ACTOR, pool=INT),
    "DICE-2.again": spec("DICE-2", "n-again and its rerolls", ACTOR, again=INT, rerolls=INT),
    "DICE-2.noAgain": spec("DICE-2", "no rerolls", ACTOR, again={"type": "null"}, rerolls=INT),
    "DICE-1.rolled": spec(
        "DICE-1", "the engine's dice and their successes", ACTOR, dice=DICE, successes=INT, supplied=BOOL
    ),
    "DICE-6.rolled": spec(
        "DICE-6", "the VTT's dice and their successes", ACTOR, dice=DICE, successes=INT, supplied=BOOL
    ),
    "DICE-3.extra": spec("DICE-3", "extra successes added", ACTOR, extra=INT, counted=BOOL, total=INT),
    "DICE-3.noExtra": spec(
        "DICE-3",
        "extra successes do not count on a roll without success",
        ACTOR,
        extra=INT,
        counted=BOOL,
        total=INT,
    ),
    "RANK-11.again": spec(
        "RANK-11",
        "the target's again immunity: the roller's n-again",
        ACTOR,
        again=INT,
        effectiveAgain=INT,
    ),
    "RANK-9.blocks": spec("RANK-9", "an uncontested immunity blocks something", ACTOR, **_CHECK),
    "RANK-5.blocks": spec("RANK-5", "a Rank-contested immunity blocks something", ACTOR, **_CHECK),
    "RANK-5.unstopped": spec(
        "RANK-5", "a Rank-contested immunity does not stop a higher Rank", ACTOR, **_CHECK
    ),
    "RANK-4.blocks": spec(
        "RANK-4", "a spell's immunity blocks a spell (Rank, then caster level)", ACTOR, **_CHECK
    ),
    "RANK-4.unstopped": spec(
        "RANK-4", "a spell's immunity does not stop a spell (Rank, then caster level)", ACTOR, **_CHECK
    ),
    "RANK-9.already": spec("RANK-9", "the immunity is already held", ACTOR, immunity=IMMUNITY, already=BOOL),
    "RANK-9.gains": spec("RANK-9", "an uncontested immunity gained", ACTOR, immunity=IMMUNITY, gained=BOOL),
    "RANK-10.gains": spec(
        "RANK-10", "a Rank-contested immunity gained", ACTOR, immunity=IMMUNITY, gained=BOOL
    ),
    "RANK-13.sameSource": spec(
        "RANK-13",
        "the same immunity from the same source replaces the old one: no bonus",
        ACTOR,
        immunity=IMMUNITY,
        replaced=IMMUNITY,
    ),
    "RANK-13.bonus": spec(
        "RANK-13",
        "the same immunity from another source: a perfect save bonus",
        ACTOR,
        immunity=IMMUNITY,
        replaced=IMMUNITY,
        save={"enum": ["reflex", "fortitude", "will"]},
        bonus=INT,
        total=INT,
    ),
    "RANK-3.rank": spec("RANK-3", "an effect's Rank: the higher of used and gained", ACTOR, rank=RANK),
    "RANK-5.condition": spec("RANK-5", "the actor becomes a condition", ACTOR, condition=TEXT),
    "RANK-5.points": spec(
        "RANK-5", "the actor gains emotion points", ACTOR, kind=TEXT, points=INT, total=INT
    ),
    "RANK-12.points": spec(
        "RANK-12", "the actor gains condition points", ACTOR, kind=TEXT, points=INT, total=INT
    ),
    "IWR-8.instance": spec(
        "IWR-8", "one damage instance of a hit", ACTOR, **_INSTANCE, amount=INT, grade=GRADE, rank=RANK
    ),
    "IWR-8.deals": spec("IWR-8", "what one instance deals", ACTOR, **_INSTANCE, amount=INT),
    "IWR-3.immune": spec("IWR-3", "immune to critical hits: not doubled", ACTOR, **_BLOCKED),
    "IWR-3.doubled": spec("IWR-3", "a critical hit doubles an instance", ACTOR, **_BLOCKED),
    "IWR-1.exception": spec(
        "IWR-1", "an immunity's exception applies", ACTOR, **_INSTANCE, immunity=TEXT, exception=TEXT
    ),
    "IWR-1.blocked": spec("IWR-1", "a damage immunity ignores an instance", ACTOR, **_BLOCKED, immunity=TEXT),
    "IWR-2.blocked": spec(
        "IWR-2", "an effect immunity: the whole effect does nothing", ACTOR, **_BLOCKED, immunity=TEXT
    ),
    "IWR-4.blocked": spec(
        "IWR-4", "immune to nonlethal attacks: an instance ignored", ACTOR, **_BLOCKED, immunity=TEXT
    ),
    "IWR-5.blocked": spec(
        "IWR-5", "a temporary immunity: an instance does nothing", ACTOR, **_BLOCKED, effect=TEXT
    ),
    "IWR-6.weakness": spec(
        "IWR-6", "a weakness adds to an instance", ACTOR, **_BLOCKED, weakness=TEXT, value=INT
    ),
    "IWR-7.resistance": spec(
        "IWR-7", "a resistance takes from an instance", ACTOR, **_BLOCKED, resistance=TEXT, value=INT
    ),
    "IWR-7.unavoidable": spec(
        "IWR-7", "unavoidable damage: resistances do not reduce it", ACTOR, **_INSTANCE
    ),
    "IWR-2.condition": spec("IWR-2", "immune to a condition: it does not apply", ACTOR, condition=TEXT),
    "IWR-2.trait": spec(
        "IWR-2", "immune to an effect's trait: the effect does nothing", ACTOR, immunity=TEXT, trait=TEXT
    ),
    "IWR-5.temporary": spec(
        "IWR-5", "temporarily immune to an effect: it does nothing", ACTOR, effect=TEXT, untilRound=N_INT
    ),
    "IWR-5.ended": spec(
        "IWR-5", "a temporary immunity ends with its round", ACTOR, ended=TEXT, untilRound=INT
    ),
}
"""The step keys of a roll, of immunities and of a hit's immunities, weaknesses and resistances."""
