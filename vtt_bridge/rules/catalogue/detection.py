"""The detection family of the step catalogue (DET-1..10, the stage-three verdicts of DICE-5, the
GM's pins): each key with its rule id, summary, subjects and data fields.
"""

from __future__ import annotations

from typing import Any

from vtt_bridge.rules.catalogue.fields import (
    ANY,
    ATTACK,
    BOOL,
    DICE,
    EVERY,
    INT,
    LIST,
    LOCATE,
    N_TEXT,
    NUMBER,
    PAIR,
    RANK_NUMBER,
    TEXT,
    StepSpec,
    spec,
)

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
_STANDING_LOST: dict[str, dict[str, Any]] = {"lostIn": INT, "result": LOCATE, "thisRound": BOOL}
_MEANS_RESULT: dict[str, dict[str, Any]] = {"means": TEXT, "result": LOCATE}
_BEST: dict[str, dict[str, Any]] = {"result": LOCATE, "means": N_TEXT}
_VERSUS: dict[str, dict[str, Any]] = {
    "means": TEXT,
    "effectiveRank": RANK_NUMBER,
    "antiRank": RANK_NUMBER,
    "result": LOCATE,
}

DETECTION: dict[str, StepSpec] = {
    "DET-9.modifier": spec(
        "DET-9",
        "a circumstance modifier of one side's contest pool",
        PAIR,
        side={"enum": ["observer", "hider"]},
        dp=INT,
        reason=TEXT,
    ),
    "DET-8.contest": spec(
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
    "DICE-5.spotted": spec(
        "DICE-5",
        "the observer wins a stage-three contest; the pair's new state",
        PAIR,
        observerWins=BOOL,
        tie=BOOL,
        before=LOCATE,
        result=LOCATE,
    ),
    "DICE-5.tie": spec(
        "DICE-5",
        "a tied stage-three contest goes to the observer (the detecting side); the pair's new state",
        PAIR,
        observerWins=BOOL,
        tie=BOOL,
        before=LOCATE,
        result=LOCATE,
    ),
    "DICE-5.hidden": spec(
        "DICE-5",
        "the hider wins a stage-three contest; the pair's new state",
        PAIR,
        observerWins=BOOL,
        tie=BOOL,
        before=LOCATE,
        result=LOCATE,
    ),
    "DET-8.round": spec(
        "DET-8",
        "how many contests a round ran, changed and details",
        (),
        round=INT,
        contests=INT,
        changed=INT,
        detailed=INT,
    ),
    "DET-8.lapsed": spec("DET-8", "earlier results that lapse this round", (), lapsed=INT),
    "DET-5.distance": spec("DET-5", "the 3D distance of a pair", PAIR, distance=NUMBER, units=TEXT),
    "DET-4.summary": spec(
        "DET-4",
        "the one-line answer first: how the observer locates the target, by which means and rule",
        PAIR,
        result=LOCATE,
        means={"type": ["string", "null"]},
        decidedBy=TEXT,
    ),
    "DET-4.locate": spec(
        "DET-4",
        "how the observer locates the target, and by which means",
        PAIR,
        result=LOCATE,
        means={"type": ["string", "null"]},
    ),
    "DET-4.area": spec(
        "DET-4",
        "the area an approximately located target is known to be in, and where it came from",
        PAIR,
        x=NUMBER,
        y=NUMBER,
        r=NUMBER,
        squares=INT,
        holds=BOOL,
    ),
    "DET-8.held": spec(
        "DET-8",
        "a reveal held until the GM accepts or refuses it",
        PAIR,
        held=BOOL,
        shown=LOCATE,
    ),
    "DET-8.accepted": spec("DET-8", "the GM accepted a held reveal", PAIR, accepted=BOOL),
    "DET-8.refused": spec(
        "DET-8", "the GM refused a held reveal: the contest counts as lost", PAIR, accepted=BOOL
    ),
    "PIN.pinned": spec(
        "PIN",
        "the GM pins how an observer (null: every observer) locates a target until a moment",
        PAIR,
        observer=EVERY,
        state=LOCATE,
        until=ANY,
        by=TEXT,
    ),
    "PIN.released": spec(
        "PIN",
        "a pin is released: the pair gets the rules' state back",
        PAIR,
        observer=EVERY,
        released=BOOL,
    ),
    "PIN.explain": spec(
        "PIN",
        "explain: the pair is pinned; the pinned state and the rules' own",
        PAIR,
        result=LOCATE,
        rules=LOCATE,
        by=TEXT,
        until=ANY,
    ),
    "DET-4.attack": spec(
        "DET-4", "how an attacker locates the attack's target now (DET-10)", ATTACK, locate=LOCATE
    ),
    "DET-10.guessRight": spec(
        "DET-10", "the guessed square is right: as against an approximate target", ATTACK, **_GUESS
    ),
    "DET-10.guessWrong": spec("DET-10", "the guessed square is wrong: a miss", ATTACK, **_GUESS),
    "DET-10.noGuess": spec("DET-10", "unlocated and no square guessed: a miss", ATTACK, **_GUESS),
    "DET-10.noTarget": spec("DET-10", "nobody stands at the guessed square: a miss", ("attacker",), **_GUESS),
    "DET-10.full": spec("DET-10", "the attack counts in full", ATTACK, **_ATTACK_COUNTS),
    "DET-10.halved": spec(
        "DET-10",
        "the attack's successes, extra successes and effect points halved",
        ATTACK,
        **_ATTACK_COUNTS,
    ),
    "DET-10.guessed": spec(
        "DET-10",
        "halved, and only at a guessed position (a right guess counts as approximate)",
        ATTACK,
        **_ATTACK_COUNTS,
    ),
    "DET-10.spell": spec("DET-10", "a spell at the target works with a chance", ATTACK, **_ATTACK_COUNTS),
    "DET-10.noSpell": spec("DET-10", "a spell is not allowed at the target", ATTACK, **_ATTACK_COUNTS),
    "DET-10.damageHalved": spec(
        "DET-10",
        "each damage instance of a halved attack counts half (round down)",
        ATTACK,
        before={"type": "array", "items": INT},
        after={"type": "array", "items": INT},
    ),
    "DET-1.anti": spec(
        "DET-1", "stage one: the target's anti-detection", PAIR, anti=LIST, antiDetection=LIST
    ),
    "DET-6.exposed": spec("DET-6", "stage one: no anti-detection, the target is exposed", PAIR, exposed=BOOL),
    "DET-5.unusable": spec(
        "DET-5",
        "a means the observer's condition makes unusable",
        PAIR,
        means=TEXT,
        unusable={"enum": ["blinded", "deafened"]},
    ),
    "DET-5.outOfRange": spec(
        "DET-5", "a means out of range", PAIR, means=TEXT, distance=NUMBER, range=NUMBER
    ),
    "DET-5.moved": spec("DET-5", "a token moved; how many pairs changed", ("token",), changedPairs=INT),
    "DET-3.humanoid": spec("DET-3", "a human-based observer pinpoints only by sight", PAIR, means=TEXT),
    "DET-2.versus": spec(
        "DET-2", "Essences differ: a means counts one Rank higher against anti-detection", PAIR, **_VERSUS
    ),
    "DET-7.versus": spec("DET-7", "a means' Rank against anti-detection of one Essence", PAIR, **_VERSUS),
    "DET-7.worst": spec("DET-7", "the anti-detection worst for a means decides it", PAIR, **_MEANS_RESULT),
    "DET-7.best": spec("DET-7", "stage two: the best over usable means", PAIR, **_BEST),
    "DET-6.means": spec("DET-6", "stage one: a means at its capability", PAIR, **_MEANS_RESULT),
    "DET-6.best": spec("DET-6", "stage one: the best over usable means", PAIR, **_BEST),
    "DET-8.won": spec("DET-8", "stage three: a standing win of the pair", PAIR, round=INT, result=LOCATE),
    "DET-8.lost": spec("DET-8", "stage three: a kept loss of the pair", PAIR, **_STANDING_LOST),
    "DET-8.lostThisRound": spec(
        "DET-8", "stage three: lost this round, no other contest this round", PAIR, **_STANDING_LOST
    ),
    "DET-8.noWin": spec("DET-8", "stage three: no standing win this round", PAIR, win=BOOL),
    "PIN.restart": spec(
        "PIN",
        "a restart of the round count ends a pin until a round of the old count",
        ("target",),
        observer={"type": ["string", "null"], "description": "the observer token (null: every one)"},
        untilRound=INT,
    ),
}
"""Detection's step keys: the contest, the answer, the GM's word, attacks, stages one to three."""
