"""Attack resolution (DET-10): what an attack or a targeted spell counts for, from how the attacker
locates the target now (stages one to three, or the GM's pin), with a guessed square for an
unlocated target. Shared by `damage` (the attack the damage comes from), `batch` and the
`attackCheck` query; the decisions are `rules.detection`'s.
"""

from __future__ import annotations

from typing import Any, Literal

from vtt_bridge.document.models import Coordinate, Id, NotFound, Scene, WorldState
from vtt_bridge.document.pins import pin_for
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.rules.common import Count, RuleModel, RuleViolation, Step, payloads
from vtt_bridge.rules.detection import (
    STATES,
    AttackConsequence,
    LocateState,
    SpellKind,
    attack_consequence,
    attack_on_guess,
    check_guess_on_scene,
    check_two_tokens,
    guess_is_right,
    guess_step,
    guessed_square,
    locate_step,
    verdict_step,
)

TokenId = Id
"""A document id (`document.models.Id`)."""

_DEFAULT_SCENE = Scene(id="default")


class Guess(RuleModel):
    """A guessed position `{x, y}` in canvas pixels (DET-10: the square it falls in)."""

    x: Coordinate
    y: Coordinate


AttackView = Literal["gm", "attacker"]
"""Whose answer an `attackCheck` is: the GM's (everything), or the attacker's (only what the attacker
may know: never the target's locate state beyond the verdict, never whether a guessed square is right)."""

AttackVerdict = Literal["full", "halved", "guessed", "notPossible", "halfChance"]
"""DET-10 as the attacker knows it: counts in full, halved (approximate), at a guessed square (a right
guess counts as approximate, a wrong one misses), not possible (a targeted spell on an unlocated
target, or an attack on one that names no square), a targeted spell's half chance."""


class AttackCheckQuery(RuleModel):
    """`query` `{kind: "attackCheck", attacker, target?, successes, extraSuccesses?, effectPoints?,
    spell?, guess?, view?}` (DET-10); `guess` the square an attack on an unlocated target goes at;
    `view: "attacker"` answers only what the attacker may know (the answer a player gets), and may
    leave out `target` with a `guess` (an attack at a square: the attacker does not know who is there)."""

    kind: Literal["attackCheck"]
    attacker: TokenId
    target: TokenId | None = None
    successes: Count
    extra_successes: Count = 0
    effect_points: Count = 0
    spell: SpellKind | None = None
    guess: Guess | None = None
    view: AttackView = "gm"


class Attack(RuleModel):
    """`damage.attack` `{attacker, token, successes, extraSuccesses?, effectPoints?, guess?}`: the
    attack the damage comes from (DET-10): the attacker's token, the target's token (showing the
    damaged actor), the attack's successes, and for an unlocated target the guessed square."""

    attacker: TokenId
    token: TokenId | None = None
    """None: whoever stands at the guessed square (an attack at a square, the target unknown)."""
    successes: Count
    extra_successes: Count = 0
    effect_points: Count = 0
    guess: Guess | None = None


def token_at_guess(state: WorldState, attack: Attack) -> str | None:
    """DET-10: the token an attack at a guessed square (no `token` named) lands on: the first other
    token standing in that square, or None (nobody there: a miss). A guess off the scene is refused."""
    guess = guessed_square(attack.guess, ("attack", "guess"))
    scene = state.scene or _DEFAULT_SCENE
    _check_on_scene(scene, guess, ("attack", "guess"))
    for token_id, token in state.tokens.items():
        if token_id != attack.attacker and guess_is_right(
            token.x, token.y, scene.grid_size, guess.x, guess.y
        ):
            return token_id
    return None


def locate_now(
    state: WorldState, attacker: str, target: str, index: VisibilityIndex, paths: tuple[str, str]
) -> LocateState:
    """How the attacker locates the target now: the GM's pin if one holds, else stages one to three."""
    pair = index.pair(state, attacker, target, paths)
    pin = pin_for(state.pins.get(target), attacker)
    if pin is not None:
        return pin.state
    win = state.contests.get(attacker, {}).get(target)
    return STATES[pair.standing(win).level]


def _check_on_scene(scene: Scene, guess: Guess, path: tuple[str | int, ...]) -> None:
    check_guess_on_scene(guess.x, guess.y, scene.width, scene.height, path)


def _guess_right(
    state: WorldState, target: str, guess: Guess | None, path: tuple[str | int, ...]
) -> bool | None:
    """Whether the guessed square is the target's (None: no guess); a guess off the scene is refused."""
    if guess is None:
        return None
    scene = state.scene or _DEFAULT_SCENE
    _check_on_scene(scene, guess, path)
    token = state.tokens[target]
    return guess_is_right(token.x, token.y, scene.grid_size, guess.x, guess.y)


def rule_attack(
    state: WorldState, attack: Attack, index: VisibilityIndex
) -> tuple[AttackConsequence | None, list[Step]]:
    """DET-10 for the attack a damage comes from: what it counts for (None: a miss, a wrong or missing
    guess at an unlocated target), with the steps that say why."""
    if attack.token is None:
        raise RuleViolation("DET-10", "name the target's token", ("attack", "token"))
    for field, token in (("attacker", attack.attacker), ("token", attack.token)):
        if token not in state.tokens:
            raise NotFound(("attack", field), f"no token {token!r} on the scene")
    check_two_tokens("attacker", attack.attacker, attack.token, ("attack", "token"))
    located = locate_now(state, attack.attacker, attack.token, index, ("attacker", "token"))
    right = _guess_right(state, attack.token, attack.guess, ("attack", "guess"))
    consequence = attack_on_guess(
        located, right, attack.successes, attack.extra_successes, attack.effect_points
    )
    steps = [locate_step(attack.attacker, attack.token, located)]
    if located is LocateState.UNLOCATED:
        steps.append(guess_step(attack.attacker, attack.token, right))
    if consequence is not None:
        steps.append(verdict_step(attack.attacker, attack.token, consequence))
    return consequence, steps


def attack_check(state: WorldState, query: AttackCheckQuery, index: VisibilityIndex) -> dict[str, Any]:
    """DET-10: what the attack or spell counts for, from how the attacker locates the target now (the
    GM's pin included). The GM's answer is an `AttackConsequence` plus `hit` (false: a wrong or missing
    guess at an unlocated target) and a `log` of steps; the attacker's is `attacker_view`."""
    if query.view == "attacker":
        return attacker_view(state, query, index)
    if query.target is None:
        raise RuleViolation("DET-10", "name the target's token (or ask with view: attacker)", ("target",))
    consequence = check_attack(state, query, index)
    located = consequence.locate
    log = [locate_step(query.attacker, query.target, located)]
    hit = True
    if query.spell is None and located is LocateState.UNLOCATED and query.guess is not None:
        right = _guess_right(state, query.target, query.guess, ("guess",))
        log.append(guess_step(query.attacker, query.target, right))
        guessed = attack_on_guess(located, right, query.successes, query.extra_successes, query.effect_points)
        hit = guessed is not None
        if guessed is not None:
            consequence = guessed.model_copy(update={"locate": located, "guessed_position_only": True})
    log.append(verdict_step(query.attacker, query.target, consequence))
    return {**consequence.model_dump(mode="json"), "hit": hit, "log": payloads(log)}


def attacker_view(state: WorldState, query: AttackCheckQuery, index: VisibilityIndex) -> dict[str, Any]:
    """DET-10 as the attacker may know it: `{view, verdict, successes, extraSuccesses, effectPoints,
    halved, spell, spellAllowed, spellChance}`, no log, no `locate`, no `hit`. At a guessed square
    the answer is the rule for a guess (a right one counts as approximate, a wrong one misses), the
    same whoever stands there or nobody: it never says whether the guess is right, nor who is there.
    A named target (one the attacker can target: seen or a silhouette) gives its verdict."""
    if query.attacker not in state.tokens:
        raise NotFound(("attacker",), f"no token {query.attacker!r} on the scene")
    if query.guess is not None:
        _check_on_scene(state.scene or _DEFAULT_SCENE, query.guess, ("guess",))
        level = LocateState.UNLOCATED if query.spell is not None else LocateState.APPROXIMATE
        consequence = attack_consequence(
            level, query.successes, query.extra_successes, query.effect_points, query.spell
        )
        verdict: AttackVerdict = "guessed" if query.spell is None else _spell_verdict(consequence)
    elif query.target is None:
        raise RuleViolation("DET-10", "name the target's token or a guessed square", ("target",))
    else:
        if query.target not in state.tokens:
            raise NotFound(("target",), f"no token {query.target!r} on the scene")
        consequence = check_attack(state, query, index)
        if query.spell is not None:
            verdict = _spell_verdict(consequence)
        elif consequence.guessed_position_only:
            verdict = "notPossible"
        else:
            verdict = "halved" if consequence.halved else "full"
    data = consequence.model_dump(mode="json", exclude={"locate", "guessed_position_only"})
    return {"view": "attacker", "verdict": verdict, **data}


def _spell_verdict(consequence: AttackConsequence) -> AttackVerdict:
    if not consequence.spell_allowed:
        return "notPossible"
    return "halfChance" if consequence.spell_chance < 1 else "full"


def check_attack(state: WorldState, query: AttackCheckQuery, index: VisibilityIndex) -> AttackConsequence:
    """DET-10 as a model: the attacker's current locate state (stages one to three, or the GM's pin)."""
    if query.target is None:
        raise RuleViolation("DET-10", "name the target's token", ("target",))
    level = locate_now(state, query.attacker, query.target, index, ("attacker", "target"))
    return attack_consequence(level, query.successes, query.extra_successes, query.effect_points, query.spell)
