"""Attacking what one cannot pinpoint (DET-10): what an attack or a spell on a target counts for,
given how the attacker locates it, a guessed square, and the steps an attack's ruling writes.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, TypeVar

from pydantic import Field

from vtt_bridge.rules.common import Count, Flag, RuleModel, RuleViolation, Step
from vtt_bridge.rules.detection.means import LocateState
from vtt_bridge.rules.dice import kept_extra_successes

G = TypeVar("G")
"""A guessed square, as the caller models it."""


class SpellKind(StrEnum):
    """DET-10: a spell that targets ("target X targets") or covers an area ("each target within")."""

    TARGETED = "targeted"
    AREA = "area"


class AttackConsequence(RuleModel):
    """DET-10: what an attack or spell on a target counts for, given how the attacker locates it."""

    locate: LocateState
    guessed_position_only: Flag
    """Unlocated: the attack goes at a guessed position; a right guess counts as approximate."""
    halved: Flag
    successes: Count
    extra_successes: Count
    effect_points: Count
    spell: SpellKind | None = None
    spell_allowed: Flag = True
    spell_chance: Annotated[float, Field(ge=0, le=1)] = 1.0


def attack_consequence(
    locate: LocateState,
    successes: int,
    extra_successes: int = 0,
    effect_points: int = 0,
    spell: SpellKind | None = None,
) -> AttackConsequence:
    """DET-10: approximate halves an attack's successes, extra successes and effect points (round
    down); a targeted spell on it works with a 50% chance; unlocated: attack only at a guessed
    position (a right guess counts as approximate), never a spell's target; area spells work.
    Extra successes add only to a roll left with a success (DICE-3)."""
    unlocated = locate is LocateState.UNLOCATED
    halved = spell is None and locate is not LocateState.PINPOINTED
    divisor = 2 if halved else 1
    allowed = True
    chance = 1.0
    if spell is SpellKind.TARGETED and locate is LocateState.APPROXIMATE:
        chance = 0.5
    elif spell is SpellKind.TARGETED and unlocated:
        allowed, chance = False, 0.0
    return AttackConsequence(
        locate=locate,
        guessed_position_only=unlocated and spell is None,
        halved=halved,
        successes=successes // divisor,
        extra_successes=kept_extra_successes(successes // divisor, extra_successes // divisor),
        effect_points=effect_points // divisor,
        spell=spell,
        spell_allowed=allowed,
        spell_chance=chance,
    )


def guess_is_right(target_x: float, target_y: float, square: float, guess_x: float, guess_y: float) -> bool:
    """DET-10: a guessed position is right when it falls in the square the target stands on (the
    target's top-left corner at `target_x`, `target_y`; `square` the grid size, same units)."""
    return target_x <= guess_x < target_x + square and target_y <= guess_y < target_y + square


def attack_on_guess(
    locate: LocateState,
    right: bool | None,
    successes: int,
    extra_successes: int = 0,
    effect_points: int = 0,
) -> AttackConsequence | None:
    """DET-10 for an attack (no spell) that may name a guessed square: an unlocated target is hit only
    where the guess is right (`right`; None: no guess), and then counts as approximate; a wrong or
    missing guess on an unlocated target is a miss (None). Any other target: `attack_consequence`."""
    if locate is not LocateState.UNLOCATED:
        return attack_consequence(locate, successes, extra_successes, effect_points)
    if not right:
        return None
    return attack_consequence(LocateState.APPROXIMATE, successes, extra_successes, effect_points)


# DET-10: the steps an attack's ruling writes


def locate_step(attacker: str, target: str, located: LocateState) -> Step:
    """DET-4: how the attacker locates the target as the attack is made."""
    return Step(
        rule="DET-4",
        text=f"{attacker} locates {target}: {located.value}",
        data={"attacker": attacker, "target": target, "locate": located.value},
        key="DET-4.attack",
    )


_GUESS_STEPS = {
    None: ("DET-10.noGuess", "unlocated and no square guessed: the attack misses"),
    True: (
        "DET-10.guessRight",
        "the guessed square is right: the attack counts as against an approximate target",
    ),
    False: ("DET-10.guessWrong", "the guessed square is wrong: the attack misses"),
}


def guess_step(attacker: str, target: str, right: bool | None) -> Step:
    """An attack at a guessed square on an unlocated target: right, wrong, or no square guessed."""
    key, text = _GUESS_STEPS[right]
    return Step(
        rule="DET-10",
        text=text,
        data={"attacker": attacker, "target": target, "guessed": right is not None, "right": bool(right)},
        key=key,
    )


def verdict_step(attacker: str, target: str, consequence: AttackConsequence) -> Step:
    """DET-10: what the attack or the targeted spell counts for (`attack_consequence`)."""
    if consequence.spell is not None:
        chance = f"works with a {consequence.spell_chance:.0%} chance"
        verdict = f"{consequence.spell.value} spell: " + (
            chance if consequence.spell_allowed else "not allowed"
        )
        key = "DET-10.spell" if consequence.spell_allowed else "DET-10.noSpell"
    elif consequence.halved:
        verdict = "attack: successes, extra successes and effect points halved (round down)"
        key = "DET-10.halved"
        if consequence.guessed_position_only:
            verdict += ", only at a guessed position (a right guess counts as approximate)"
            key = "DET-10.guessed"
    else:
        verdict = "attack: counts in full"
        key = "DET-10.full"
    return Step(
        rule="DET-10",
        text=verdict,
        data={
            "attacker": attacker,
            "target": target,
            "successes": consequence.successes,
            "extraSuccesses": consequence.extra_successes,
            "effectPoints": consequence.effect_points,
            "halved": consequence.halved,
            "guessedPositionOnly": consequence.guessed_position_only,
            "spell": None if consequence.spell is None else consequence.spell.value,
            "spellAllowed": consequence.spell_allowed,
            "spellChance": consequence.spell_chance,
        },
        key=key,
    )


def guessed_square(guess: G | None, path: tuple[str | int, ...]) -> G:
    """DET-10: an attack that names no target token goes at a guessed square, `guess`; without one
    (None) it is refused at `path`."""
    if guess is None:
        raise RuleViolation("DET-10", "an attack that names no target token needs a guessed square", path)
    return guess


def check_guess_on_scene(
    x: float, y: float, width: float | None, height: float | None, path: tuple[str | int, ...]
) -> None:
    """DET-10: a guessed position is a point of the scene: not left of or above its top-left corner,
    not at or past its `width` and `height` where the scene has them (None: unbounded); a guess
    outside is refused at `path`."""
    outside = x < 0 or y < 0 or (width is not None and x >= width) or (height is not None and y >= height)
    if outside:
        raise RuleViolation("DET-10", f"the guessed position ({x}, {y}) is outside the scene", path)
