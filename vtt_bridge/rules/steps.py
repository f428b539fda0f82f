"""The declared vocabulary of explanation steps: each key (`<rule id>.<what>`, chosen by the rule that
writes it) with the fields its `data` always carries. The module words each key in its language
files; `vtt-bridge schema` exports this catalogue (`$defs.StepCatalogue`), and the module's tests
check their sentences against that export.

A subject field (`SUBJECT`) holds an actor uuid or a token id; readers show its name.

Each field also says how it is worded (`Wording`, and for a count the word it counts): the export
carries it as `x-wording` / `x-counts`, and the module's card code words every field by it from a
generated copy (`foundry_module/scripts/core/step-fields.mjs`, `step_fields_module`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
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
                    "properties": {
                        name: {**schema, **wording_schema(WORDING[key][name])}
                        for name, schema in self.fields.items()
                    },
                    "required": sorted(self.fields),
                },
            },
            "required": ["key", "rule", "text", "data"],
            "x-subjects": list(self.subjects),
        }


def _spec(rule: str, summary: str, subjects: tuple[str, ...], **fields: dict[str, Any]) -> StepSpec:
    for subject in subjects:
        fields.setdefault(subject, SUBJECT)
    return StepSpec(rule, MappingProxyType(fields), subjects, summary)


PAIR = ("observer", "target")
ACTOR = ("actor",)
ATTACK = ("attacker", "target")
_ATTACK_COUNTS: dict[str, dict[str, Any]] = {
    "successes": INT,
    "extraSuccesses": INT,
    "effectPoints": INT,
    "halved": BOOL,
    "guessedPositionOnly": BOOL,
    "spell": {"enum": ["targeted", "area", None]},
    "spellAllowed": BOOL,
    "spellChance": NUMBER,
}
_GUESS: dict[str, dict[str, Any]] = {"guessed": BOOL, "right": BOOL}
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
_WP_SPEND: dict[str, dict[str, Any]] = {
    "use": {"enum": ["roll", "defense", "stayConscious", "hunger"]},
    "paidFrom": {"enum": ["temporary", "current"]},
    "bonus": INT,
    "current": INT,
    "temporary": INT,
}
_HEAL: dict[str, dict[str, Any]] = {"source": TEXT, "points": ANY}
_HEALED: dict[str, dict[str, Any]] = {"healed": OBJECT, **BOXES}
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
_STANDING_LOST: dict[str, dict[str, Any]] = {"lostIn": INT, "result": LOCATE, "thisRound": BOOL}
_MEANS_RESULT: dict[str, dict[str, Any]] = {"means": TEXT, "result": LOCATE}
_BEST: dict[str, dict[str, Any]] = {"result": LOCATE, "means": N_TEXT}
_VERSUS: dict[str, dict[str, Any]] = {
    "means": TEXT,
    "effectiveRank": RANK_NUMBER,
    "antiRank": RANK_NUMBER,
    "result": LOCATE,
}

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
        "DET-4.area": _spec(
            "DET-4",
            "the area an approximately located target is known to be in, and where it came from",
            PAIR,
            x=NUMBER,
            y=NUMBER,
            r=NUMBER,
            squares=INT,
            holds=BOOL,
        ),
        # the GM's word on a stage-three reveal (DET-8, `settings.approveReveals`)
        "DET-8.held": _spec(
            "DET-8",
            "a reveal held until the GM accepts or refuses it",
            PAIR,
            held=BOOL,
            shown=LOCATE,
        ),
        "DET-8.accepted": _spec("DET-8", "the GM accepted a held reveal", PAIR, accepted=BOOL),
        "DET-8.refused": _spec(
            "DET-8", "the GM refused a held reveal: the contest counts as lost", PAIR, accepted=BOOL
        ),
        # the GM's pins (document/pins.py, rules/pins.py)
        "PIN.pinned": _spec(
            "PIN",
            "the GM pins how an observer (null: every observer) locates a target until a moment",
            PAIR,
            observer=EVERY,
            state=LOCATE,
            until=ANY,
            by=TEXT,
        ),
        "PIN.released": _spec(
            "PIN",
            "a pin is released: the pair gets the rules' state back",
            PAIR,
            observer=EVERY,
            released=BOOL,
        ),
        "PIN.explain": _spec(
            "PIN",
            "explain: the pair is pinned; the pinned state and the rules' own",
            PAIR,
            result=LOCATE,
            rules=LOCATE,
            by=TEXT,
            until=ANY,
        ),
        # attacking what one cannot pinpoint (DET-10): attacker and target tokens
        "DET-4.attack": _spec(
            "DET-4", "how an attacker locates the attack's target now (DET-10)", ATTACK, locate=LOCATE
        ),
        "DET-10.guessRight": _spec(
            "DET-10", "the guessed square is right: as against an approximate target", ATTACK, **_GUESS
        ),
        "DET-10.guessWrong": _spec("DET-10", "the guessed square is wrong: a miss", ATTACK, **_GUESS),
        "DET-10.noGuess": _spec("DET-10", "unlocated and no square guessed: a miss", ATTACK, **_GUESS),
        "DET-10.noTarget": _spec(
            "DET-10", "nobody stands at the guessed square: a miss", ("attacker",), **_GUESS
        ),
        "DET-10.full": _spec("DET-10", "the attack counts in full", ATTACK, **_ATTACK_COUNTS),
        "DET-10.halved": _spec(
            "DET-10",
            "the attack's successes, extra successes and effect points halved",
            ATTACK,
            **_ATTACK_COUNTS,
        ),
        "DET-10.guessed": _spec(
            "DET-10",
            "halved, and only at a guessed position (a right guess counts as approximate)",
            ATTACK,
            **_ATTACK_COUNTS,
        ),
        "DET-10.spell": _spec(
            "DET-10", "a spell at the target works with a chance", ATTACK, **_ATTACK_COUNTS
        ),
        "DET-10.noSpell": _spec("DET-10", "a spell is not allowed at the target", ATTACK, **_ATTACK_COUNTS),
        "DET-10.damageHalved": _spec(
            "DET-10",
            "each damage instance of a halved attack counts half (round down)",
            ATTACK,
            before={"type": "array", "items": INT},
            after={"type": "array", "items": INT},
        ),
        # health (HEALTH-2/4/6/7/13): the actor and the track
        "HEALTH-2.damage": _spec(
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
        "HEALTH-2.wasted": _spec("HEALTH-2", "damage no track can take", ACTOR, wasted={"type": "object"}),
        "HEALTH-2.none": _spec("HEALTH-2", "no damage reaches the Health track", ACTOR, amount=INT),
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
            **{"from": GRADE},
            **BOXES,
        ),
        "HEALTH-4.worsening": _spec(
            "HEALTH-4",
            "injuries worsen on the first Health track at the round's end",
            ACTOR,
            track=TRACK,
            grade=GRADE,
            **{"from": GRADE},
            **BOXES,
        ),
        "HEALTH-6.status": _spec(
            "HEALTH-6", "the actor's Health status and conditions", ACTOR, status=TEXT, conditions=ANY
        ),
        "HEALTH-7.penalty": _spec("HEALTH-7", "the wound penalty of a roll", ACTOR, penalty=INT),
        "HEALTH-7.change": _spec(
            "HEALTH-7", "the actor's wound penalty changed", ACTOR, before=INT, after=INT
        ),
        # detection stages one and two, as explain walks them (DET-1..7): observer and target
        "DET-1.anti": _spec(
            "DET-1", "stage one: the target's anti-detection", PAIR, anti=LIST, antiDetection=LIST
        ),
        "DET-6.exposed": _spec(
            "DET-6", "stage one: no anti-detection, the target is exposed", PAIR, exposed=BOOL
        ),
        "DET-5.unusable": _spec(
            "DET-5",
            "a means the observer's condition makes unusable",
            PAIR,
            means=TEXT,
            unusable={"enum": ["blinded", "deafened"]},
        ),
        "DET-5.outOfRange": _spec(
            "DET-5", "a means out of range", PAIR, means=TEXT, distance=NUMBER, range=NUMBER
        ),
        "DET-5.moved": _spec("DET-5", "a token moved; how many pairs changed", ("token",), changedPairs=INT),
        "DET-3.humanoid": _spec("DET-3", "a human-based observer pinpoints only by sight", PAIR, means=TEXT),
        "DET-2.versus": _spec(
            "DET-2", "Essences differ: a means counts one Rank higher against anti-detection", PAIR, **_VERSUS
        ),
        "DET-7.versus": _spec(
            "DET-7", "a means' Rank against anti-detection of one Essence", PAIR, **_VERSUS
        ),
        "DET-7.worst": _spec(
            "DET-7", "the anti-detection worst for a means decides it", PAIR, **_MEANS_RESULT
        ),
        "DET-7.best": _spec("DET-7", "stage two: the best over usable means", PAIR, **_BEST),
        "DET-6.means": _spec("DET-6", "stage one: a means at its capability", PAIR, **_MEANS_RESULT),
        "DET-6.best": _spec("DET-6", "stage one: the best over usable means", PAIR, **_BEST),
        "DET-8.won": _spec(
            "DET-8", "stage three: a standing win of the pair", PAIR, round=INT, result=LOCATE
        ),
        "DET-8.lost": _spec("DET-8", "stage three: a kept loss of the pair", PAIR, **_STANDING_LOST),
        "DET-8.lostThisRound": _spec(
            "DET-8", "stage three: lost this round, no other contest this round", PAIR, **_STANDING_LOST
        ),
        "DET-8.noWin": _spec("DET-8", "stage three: no standing win this round", PAIR, win=BOOL),
        # a roll (DICE-1..7, RANK-11): whose roll
        "DICE-1.pool": _spec(
            "DICE-1",
            "the dice pool: traits and their dots",
            ACTOR,
            traits={"type": "array", "items": {"type": "object", "required": ["trait", "value"]}},
            base=INT,
        ),
        "DICE-4.modifiers": _spec(
            "DICE-4",
            "the modifiers that count (same-type bonuses do not stack)",
            ACTOR,
            modifiers=LIST,
            total=INT,
        ),
        "DICE-7.bonus": _spec("DICE-7", "Willpower's perfect bonus", ACTOR, bonus=INT),
        "DICE-1.toRoll": _spec("DICE-1", "the dice to roll after modifiers", ACTOR, pool=INT),
        "DICE-2.again": _spec("DICE-2", "n-again and its rerolls", ACTOR, again=INT, rerolls=INT),
        "DICE-2.noAgain": _spec("DICE-2", "no rerolls", ACTOR, again={"type": "null"}, rerolls=INT),
        "DICE-1.rolled": _spec(
            "DICE-1", "the engine's dice and their successes", ACTOR, dice=DICE, successes=INT, supplied=BOOL
        ),
        "DICE-6.rolled": _spec(
            "DICE-6", "the VTT's dice and their successes", ACTOR, dice=DICE, successes=INT, supplied=BOOL
        ),
        "DICE-3.extra": _spec("DICE-3", "extra successes added", ACTOR, extra=INT, counted=BOOL, total=INT),
        "DICE-3.noExtra": _spec(
            "DICE-3",
            "extra successes do not count on a roll without success",
            ACTOR,
            extra=INT,
            counted=BOOL,
            total=INT,
        ),
        "RANK-11.again": _spec(
            "RANK-11",
            "the target's again immunity: the roller's n-again",
            ACTOR,
            again=INT,
            effectiveAgain=INT,
        ),
        # immunities (RANK-3..13): the actor
        "RANK-9.blocks": _spec("RANK-9", "an uncontested immunity blocks something", ACTOR, **_CHECK),
        "RANK-5.blocks": _spec("RANK-5", "a Rank-contested immunity blocks something", ACTOR, **_CHECK),
        "RANK-5.unstopped": _spec(
            "RANK-5", "a Rank-contested immunity does not stop a higher Rank", ACTOR, **_CHECK
        ),
        "RANK-4.blocks": _spec(
            "RANK-4", "a spell's immunity blocks a spell (Rank, then caster level)", ACTOR, **_CHECK
        ),
        "RANK-4.unstopped": _spec(
            "RANK-4", "a spell's immunity does not stop a spell (Rank, then caster level)", ACTOR, **_CHECK
        ),
        "RANK-9.already": _spec(
            "RANK-9", "the immunity is already held", ACTOR, immunity=IMMUNITY, already=BOOL
        ),
        "RANK-9.gains": _spec(
            "RANK-9", "an uncontested immunity gained", ACTOR, immunity=IMMUNITY, gained=BOOL
        ),
        "RANK-10.gains": _spec(
            "RANK-10", "a Rank-contested immunity gained", ACTOR, immunity=IMMUNITY, gained=BOOL
        ),
        "RANK-13.sameSource": _spec(
            "RANK-13",
            "the same immunity from the same source replaces the old one: no bonus",
            ACTOR,
            immunity=IMMUNITY,
            replaced=IMMUNITY,
        ),
        "RANK-13.bonus": _spec(
            "RANK-13",
            "the same immunity from another source: a perfect save bonus",
            ACTOR,
            immunity=IMMUNITY,
            replaced=IMMUNITY,
            save={"enum": ["reflex", "fortitude", "will"]},
            bonus=INT,
            total=INT,
        ),
        "RANK-3.rank": _spec("RANK-3", "an effect's Rank: the higher of used and gained", ACTOR, rank=RANK),
        "RANK-5.condition": _spec("RANK-5", "the actor becomes a condition", ACTOR, condition=TEXT),
        "RANK-5.points": _spec(
            "RANK-5", "the actor gains emotion points", ACTOR, kind=TEXT, points=INT, total=INT
        ),
        "RANK-12.points": _spec(
            "RANK-12", "the actor gains condition points", ACTOR, kind=TEXT, points=INT, total=INT
        ),
        # immunities, weaknesses, resistances of a hit (IWR-1..8): the actor, each instance
        "IWR-8.instance": _spec(
            "IWR-8", "one damage instance of a hit", ACTOR, **_INSTANCE, amount=INT, grade=GRADE, rank=RANK
        ),
        "IWR-8.deals": _spec("IWR-8", "what one instance deals", ACTOR, **_INSTANCE, amount=INT),
        "IWR-3.immune": _spec("IWR-3", "immune to critical hits: not doubled", ACTOR, **_BLOCKED),
        "IWR-3.doubled": _spec("IWR-3", "a critical hit doubles an instance", ACTOR, **_BLOCKED),
        "IWR-1.exception": _spec(
            "IWR-1", "an immunity's exception applies", ACTOR, **_INSTANCE, immunity=TEXT, exception=TEXT
        ),
        "IWR-1.blocked": _spec(
            "IWR-1", "a damage immunity ignores an instance", ACTOR, **_BLOCKED, immunity=TEXT
        ),
        "IWR-2.blocked": _spec(
            "IWR-2", "an effect immunity: the whole effect does nothing", ACTOR, **_BLOCKED, immunity=TEXT
        ),
        "IWR-4.blocked": _spec(
            "IWR-4", "immune to nonlethal attacks: an instance ignored", ACTOR, **_BLOCKED, immunity=TEXT
        ),
        "IWR-5.blocked": _spec(
            "IWR-5", "a temporary immunity: an instance does nothing", ACTOR, **_BLOCKED, effect=TEXT
        ),
        "IWR-6.weakness": _spec(
            "IWR-6", "a weakness adds to an instance", ACTOR, **_BLOCKED, weakness=TEXT, value=INT
        ),
        "IWR-7.resistance": _spec(
            "IWR-7", "a resistance takes from an instance", ACTOR, **_BLOCKED, resistance=TEXT, value=INT
        ),
        "IWR-7.unavoidable": _spec(
            "IWR-7", "unavoidable damage: resistances do not reduce it", ACTOR, **_INSTANCE
        ),
        "IWR-2.condition": _spec("IWR-2", "immune to a condition: it does not apply", ACTOR, condition=TEXT),
        "IWR-2.trait": _spec(
            "IWR-2", "immune to an effect's trait: the effect does nothing", ACTOR, immunity=TEXT, trait=TEXT
        ),
        "IWR-5.temporary": _spec(
            "IWR-5", "temporarily immune to an effect: it does nothing", ACTOR, effect=TEXT, untilRound=N_INT
        ),
        "IWR-5.ended": _spec(
            "IWR-5", "a temporary immunity ends with its round", ACTOR, ended=TEXT, untilRound=INT
        ),
        # health (HEALTH-3..13) and healing: the actor
        "HEALTH-11.absorb": _spec(
            "HEALTH-11",
            "temporary HP absorbs damage, highest grade first",
            ACTOR,
            absorbed=OBJECT,
            tempHpBefore=INT,
            tempHp=INT,
        ),
        "HEALTH-11.noStack": _spec(
            "HEALTH-11", "temporary HP does not stack", ACTOR, tempHp=INT, offered=INT
        ),
        "HEALTH-11.gain": _spec(
            "HEALTH-11", "temporary HP gained: the higher stays", ACTOR, tempHp=INT, before=INT
        ),
        "HEALTH-11.unavoidable": _spec(
            "HEALTH-11", "temporary HP does not work against unavoidable damage", ACTOR, unavoidable=OBJECT
        ),
        "HEALTH-8.source": _spec("HEALTH-8", "natural recovery or rest: what it heals", ACTOR, **_HEAL),
        "HEALTH-9.source": _spec("HEALTH-9", "the Overseer's healing: what it heals", ACTOR, **_HEAL),
        "HEALTH-10.source": _spec("HEALTH-10", "fast healing or regeneration: what it heals", ACTOR, **_HEAL),
        "HEALTH-8.healed": _spec("HEALTH-8", "boxes healed on the first track", ACTOR, **_HEALED),
        "HEALTH-9.healed": _spec("HEALTH-9", "boxes the Overseer healed", ACTOR, **_HEALED),
        "HEALTH-10.healed": _spec("HEALTH-10", "boxes fast healing or regeneration healed", ACTOR, **_HEALED),
        "HEALTH-13.healed": _spec("HEALTH-13", "boxes healed on the second track first", ACTOR, **_HEALED),
        "HEALTH-8.nothing": _spec("HEALTH-8", "nothing this source can heal", ACTOR, healed=OBJECT),
        "HEALTH-9.nothing": _spec("HEALTH-9", "nothing the Overseer can heal", ACTOR, healed=OBJECT),
        "HEALTH-10.nothing": _spec("HEALTH-10", "nothing fast healing can heal", ACTOR, healed=OBJECT),
        "HEALTH-9.cost": _spec(
            "HEALTH-9", "the Overseer's cost for A boxes", ACTOR, cost=INT, aggravated=INT
        ),
        "HEALTH-4.stabilized": _spec("HEALTH-4", "worsening stops until new damage", ACTOR, stabilized=BOOL),
        "HEALTH-4.recheck": _spec("HEALTH-4", "new damage: worsening is checked again", ACTOR, recheck=BOOL),
        "HEALTH-8.restCarried": _spec(
            "HEALTH-8",
            "rest that carries toward the next box",
            ACTOR,
            restHours=INT,
            grade=GRADE,
            periodHours=INT,
        ),
        "HEALTH-8.longRest": _spec("HEALTH-8", "long rests restore Willpower", ACTOR, longRests=INT),
        "HEALTH-12.change": _spec(
            "HEALTH-12",
            "max Health changes",
            ACTOR,
            delta=INT,
            effect=N_TEXT,
            removed=OBJECT,
            **BOXES,
        ),
        "HEALTH-12.ends": _spec(
            "HEALTH-12",
            "a temporary max Health change ends and is reversed",
            ACTOR,
            effect=TEXT,
            reversed=INT,
        ),
        "HEALTH-13.new": _spec("HEALTH-13", "a second Health track set up", ACTOR, max=INT),
        "HEALTH-13.replaced": _spec(
            "HEALTH-13", "the earlier second track is replaced", ACTOR, replaced=BOOL
        ),
        "HEALTH-3.woken": _spec("HEALTH-3", "recovering Willpower wakes the injured", ACTOR, woken=BOOL),
        "HEALTH-5.notReturned": _spec(
            "HEALTH-5",
            "the dead stay dead: the max Health taken is not given back",
            ACTOR,
            effect=TEXT,
            notReturned=INT,
        ),
        # Willpower (WP-1..6): the actor
        "WP-2.roll": _spec("WP-2", "1 Willpower for +3 dice on a roll", ACTOR, **_WP_SPEND),
        "WP-2.defense": _spec("WP-2", "1 Willpower for +3 defense", ACTOR, **_WP_SPEND),
        "WP-3.stayConscious": _spec("WP-3", "1 Willpower to stay conscious this round", ACTOR, **_WP_SPEND),
        "WP-3.hunger": _spec("WP-3", "1 Willpower to stay conscious despite hunger", ACTOR, **_WP_SPEND),
        "WP-3.blow": _spec("WP-3", "a new blow: staying conscious must be paid again", ACTOR, lapse=TEXT),
        "WP-3.round": _spec("WP-3", "a new round: staying conscious must be paid again", ACTOR, lapse=TEXT),
        "WP-4.noStack": _spec("WP-4", "temporary Willpower does not stack", ACTOR, temporary=INT),
        "WP-4.temporary": _spec("WP-4", "temporary Willpower gained", ACTOR, temporary=INT),
        "WP-4.lose": _spec(
            "WP-4", "Willpower lost, temporary first", ACTOR, fromTemporary=INT, fromCurrent=INT, current=INT
        ),
        "WP-1.full": _spec("WP-1", "Willpower already at max", ACTOR, recovered=INT),
        "WP-1.recover": _spec("WP-1", "Willpower recovered", ACTOR, recovered=INT, current=INT),
        "WP-5.unconscious": _spec("WP-5", "at 0 Willpower: unconscious", ACTOR, unconscious=BOOL),
        "WP-5.awake": _spec("WP-5", "above 0 Willpower again: awake", ACTOR, unconscious=BOOL),
        "WP-6.change": _spec("WP-6", "Will changes max Willpower", ACTOR, max=INT, current=INT, lost=INT),
        # Energy Pools and Gauges (EP-1..9): the actor
        "EP-1.gained": _spec(
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
        "EP-2.annihilated": _spec(
            "EP-2", "conflicting pools or Gauges meet: annihilated", ACTOR, conflicts=LIST
        ),
        "EP-2.rejects": _spec("EP-2", "a held pool rejects the new one: annihilated", ACTOR, **_CONFLICT),
        "EP-9.rejects": _spec("EP-9", "a held Gauge rejects the new one: annihilated", ACTOR, **_CONFLICT),
        "EP-3.anchor": _spec(
            "EP-3",
            "a pool of a class the actor cannot gain again: annihilated",
            ACTOR,
            anchorSource=TEXT,
            name=TEXT,
            **{"class": TEXT},
        ),
        "EP-3.anchored": _spec("EP-3", "from now on gaining a class annihilates", ACTOR, **_ANCHORED),
        "EP-3.anchoredWith": _spec(
            "EP-3", "from now on gaining a class annihilates, but for the participants", ACTOR, **_ANCHORED
        ),
        "EP-4.reopened": _spec("EP-4", "a pool opened again: its bonus", ACTOR, **_REOPEN),
        "EP-4.noBonus": _spec("EP-4", "a pool opened again: no further bonus", ACTOR, **_REOPEN),
        "EP-5.restore": _spec("EP-5", "energy restored", ACTOR, pool=TEXT, restored=INT, current=INT),
        "EP-5.max": _spec("EP-5", "a pool's max changes", ACTOR, pool=TEXT, max=INT, current=INT, lost=INT),
        "EP-6.spendAll": _spec("EP-6", "the ability spends all energy", ACTOR, spendAll=BOOL, paid=INT),
        "EP-6.reduced": _spec("EP-6", "a cost reduced", ACTOR, cost=INT, reduction=INT, paid=INT),
        "EP-6.paid": _spec(
            "EP-6",
            "energy paid, and the effect's cost",
            ACTOR,
            pool=TEXT,
            classes=LIST,
            paid=INT,
            effectCost=INT,
            current=INT,
        ),
        "EP-7.substitute": _spec(
            "EP-7",
            "a pool spent in place of another",
            ACTOR,
            pool=TEXT,
            classes=LIST,
            name=TEXT,
            inPlaceOf=TEXT,
        ),
        "EP-7.variant": _spec(
            "EP-7", "a variant of a pool: a separate pool", ACTOR, name=TEXT, variantOf=TEXT
        ),
        "EP-8.untouched": _spec(
            "EP-8",
            "not an Energy Pool: attacks on pools do not touch it",
            ACTOR,
            pool=TEXT,
            name=TEXT,
            attack=BOOL,
        ),
        "EP-9.gained": _spec("EP-9", "a Gauge gained", ACTOR, gauge=TEXT, current=INT, max=INT),
        "EP-9.gauge": _spec("EP-9", "a Gauge spent or restored", ACTOR, gauge=TEXT, current=INT),
        "EP-9.max": _spec("EP-9", "a Gauge's max changes", ACTOR, gauge=TEXT, max=INT, current=INT, lost=INT),
        # bookkeeping
        "UNDO.undone": _spec("UNDO", "a ruling undone", (), action=TEXT, kind=TEXT, rev=INT, key=TEXT),
        "UNDO.redone": _spec(
            "UNDO", "an undone ruling redone", (), action=TEXT, kind=TEXT, rev=INT, key=TEXT
        ),
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
            target={
                "type": ["string", "null"],
                "description": "the damaged actor (null: nobody), or a pin's target token",
            },
        ),
        "SYNC.synced": _spec("SYNC", "the world was synced from the VTT", (), actors=INT, tokens=INT),
        "UPSERT.set": _spec("UPSERT", "the VTT set one value", (), path=TEXT, old=ANY, new=ANY),
    }
)
"""Every step key, once."""


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
    **{
        name: (Wording.SUBJECT, None)
        for name in ("observer", "target", "actor", "opponent", "attacker", "token")
    },
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


def _wording(key: str, spec: StepSpec) -> MappingProxyType[str, FieldWording]:
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


WORDING: MappingProxyType[str, MappingProxyType[str, FieldWording]] = MappingProxyType(
    {key: _wording(key, spec) for key, spec in STEPS.items()}
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
        "oneOf": [spec.schema(key) for key, spec in STEPS.items()],
    }
