"""The `roll` action: a dice pool on its own (DICE-1..7), with Willpower (WP-2), the wound penalty
(HEALTH-7), and an optional opponent: an opposed roll (DICE-5) or a target whose 8-again / 9-again
immunity turns the roller's rerolls off (RANK-11).

The handler builds each side's pool from the actor's traits, pays Willpower (temporary first, WP-4)
and rolls with the engine's dice or the VTT's (DICE-6). The Willpower paid is the only change to the
state; the dice and successes are in the result's `rolls` (the roller's first, then the opponent's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, PlainValidator
from pydantic_core import PydanticCustomError

from vtt_bridge.actions import Context, Handler, Ruling, told_of
from vtt_bridge.document.derive import is_unconscious
from vtt_bridge.document.models import Actor, Id, WorldState, get_actor, with_actor
from vtt_bridge.rules import health as h
from vtt_bridge.rules import willpower as wp
from vtt_bridge.rules.common import Flag, RuleModel, RuleViolation, Slug, Step
from vtt_bridge.rules.dice import (
    MAX_POOL,
    NO_AGAIN,
    PERFECT,
    Bonus,
    Roll,
    Roller,
    add_willpower,
    check_opponent,
    check_pool_size,
    dice_pool,
    opposed_step,
    pool_traits,
    result_step,
    roll_pool,
    roll_steps,
    roll_supplied,
    with_extra_successes,
)
from vtt_bridge.rules.energy import Attribute
from vtt_bridge.rules.immunities import effective_again

Trait = Annotated[str, Field(strict=True, min_length=1, max_length=64)]
"""An Attribute (`DEX`) or one of the actor's Skills (`stealth`)."""
PoolSize = Annotated[int, Field(strict=True, ge=0, le=MAX_POOL)]
ModifierValue = Annotated[int, Field(strict=True, ge=-MAX_POOL, le=MAX_POOL)]
D10 = Annotated[int, Field(strict=True, ge=1, le=10)]
"""One die the VTT rolled (DICE-6)."""
ExtraSuccesses = Annotated[int, Field(strict=True, ge=0, le=100)]
MAX_SUPPLIED = 10_000
"""The most dice a VTT may supply for one roll (a pool of MAX_POOL with its rerolls fits)."""

ATTRIBUTES: tuple[str, ...] = tuple(attribute.value for attribute in Attribute)
MAX_TRAITS = 10

POOL_FORMS = f"a number of dice (0..{MAX_POOL}) or 1 to {MAX_TRAITS} traits such as ['DEX', 'stealth']"


def _pool(value: Any) -> tuple[str, ...] | int:
    """A pool as given: a number of dice or a list of trait names (each checked against the actor
    later, DICE-1). One error at the field itself, saying what is allowed."""
    if type(value) is int:
        if 0 <= value <= MAX_POOL:
            return value
        raise PydanticCustomError(
            "pool", "a pool of {value} dice: allowed: {forms}", {"value": value, "forms": POOL_FORMS}
        )
    if isinstance(value, list | tuple) and 1 <= len(value) <= MAX_TRAITS:
        for item in value:
            if not isinstance(item, str) or not 1 <= len(item) <= 64:
                raise PydanticCustomError(
                    "pool",
                    "a trait is a name of 1 to 64 characters, not {item}: allowed: {forms}",
                    {"item": repr(item)[:70], "forms": POOL_FORMS},
                )
        return tuple(value)
    raise PydanticCustomError("pool", "not a pool: allowed: {forms}", {"forms": POOL_FORMS})


Traits = Annotated[tuple[Trait, ...], Field(min_length=1, max_length=MAX_TRAITS)]
Pool = Annotated[
    tuple[Trait, ...] | int,
    PlainValidator(
        _pool,
        json_schema_input_type=Annotated[tuple[Trait, ...], Field(min_length=1, max_length=MAX_TRAITS)]
        | PoolSize,
    ),
]
"""DICE-1: traits (`["DEX", "stealth"]`) or a number of dice."""


class Modifier(RuleModel):
    """A bonus (positive) or penalty (negative) in dice, of a type; perfect ones stack with all (DICE-4)."""

    type: Slug
    value: ModifierValue
    perfect: Flag = False


class RollSide(RuleModel):
    """What one side rolls: its pool, again, Willpower, modifiers, extra successes, supplied dice."""

    pool: Pool
    """Traits whose dots add up (`["DEX", "stealth"]`: an Attribute by its upper-case abbreviation, a
    skill by its key; 1 to 10, each once) or a number of dice (0..1000)."""
    again: Literal[8, 9, 10] | None = 10
    """DICE-2: 10-again by default; 9 or 8; null: no rerolls."""
    willpower: Flag = False
    """WP-2 / DICE-7: pay 1 Willpower (temporary first) for a +3 DP perfect bonus."""
    extended: Flag = False
    """WP-2: an extended roll takes no Willpower."""
    modifiers: tuple[Modifier, ...] = Field(default=(), max_length=50)
    extra_successes: ExtraSuccesses = 0
    """DICE-3: added only when the roll has at least one success."""
    dice: tuple[D10, ...] | None = Field(default=None, max_length=MAX_SUPPLIED)
    """DICE-6: the dice the VTT rolled, in order (the pool, then one die per reroll); exactly as
    many as the roll uses. Absent: the engine rolls."""


class OpposedRoll(RollSide):
    """DICE-5: the opponent's roll of an opposed roll; its successes are the roller's DC."""


class RollAction(RollSide):
    """`roll`: a dice pool on its own or against an opponent (DICE-1..7, WP-2, HEALTH-7, RANK-11).

    With `opponent` (an actor id), its 8-again / 9-again immunity applies (RANK-11); with `opposed`
    too (the opponent's roll), it is an opposed roll (DICE-5)."""

    kind: Literal["roll"]
    actor: Id
    opponent: Id | None = None
    """The target or opponent (an actor id): its 8-again / 9-again immunity applies (RANK-11)."""
    opposed: OpposedRoll | None = None


@dataclass(frozen=True)
class _Side:
    actor: Actor
    roll: Roll
    successes: int
    steps: tuple[Step, ...]


def _traits(actor: Actor, pool: tuple[str, ...] | int, path: tuple[str | int, ...]) -> list[tuple[str, int]]:
    """DICE-1: each trait's dots; an unknown trait or one named twice is refused."""
    if isinstance(pool, int):
        return [("dice", pool)]
    attributes = {name: actor.attributes.get(Attribute(name), 0) for name in ATTRIBUTES}
    return pool_traits(pool, attributes, actor.skills, path)


def _bonuses(side: RollSide, path: tuple[str | int, ...]) -> list[Bonus]:
    """DICE-4: the modifiers as bonuses (a perfect one as the perfect type, named by its own)."""
    out = []
    for index, modifier in enumerate(side.modifiers):
        wp.check_not_a_modifier(modifier.type, (*path, "modifiers", index, "type"))
        kind = PERFECT if modifier.perfect else modifier.type
        out.append(Bonus(value=modifier.value, type=kind, source=modifier.type))
    return out


def _pay_willpower(
    state: WorldState, actor: Actor, side: RollSide, path: tuple[str | int, ...]
) -> tuple[Actor, tuple[Step, ...]]:
    """WP-2: 1 Willpower (temporary first, WP-4) on this one-roll action; refused at 0, on an
    extended roll, while not self-aware, and for the dead (HEALTH-5)."""
    dead = h.is_dead(actor.health, actor.second_health, annihilated=bool(actor.conditions.get("annihilated")))
    wp.check_spender_alive(dead, (*path, "willpower"))
    try:
        spent = wp.spend(
            actor.willpower,
            wp.WillpowerUse.ROLL,
            self_aware=not is_unconscious(actor, state.settings),
            injured_unconscious=False,
            extended=side.extended,
            scene=state.scene.id if state.scene is not None else "",
        )
    except RuleViolation as refused:
        field = "extended" if refused.path == ("extended",) else "willpower"
        raise RuleViolation(refused.rule, refused.message, (*path, field)) from None
    return actor.model_copy(update={"willpower": spent.willpower}), spent.steps


def _roll_side(
    state: WorldState,
    actor_id: str,
    side: RollSide,
    against: Actor | None,
    roller: Roller,
    path: tuple[str | int, ...],
) -> _Side:
    actor = state.actors[actor_id]
    traits = _traits(actor, side.pool, path)
    bonuses = _bonuses(side, path)
    steps: list[Step] = []
    if side.willpower:
        actor, paid = _pay_willpower(state, actor, side, path)
        steps.extend(paid)
        bonuses = list(add_willpower(bonuses))
    wound = h.wound_penalty(actor.health, state.settings.wound_penalty)
    dp = dice_pool(traits, bonuses, wound)
    pool = dp.pool
    check_pool_size(pool, path)
    steps[:0] = dp.steps[:1]
    steps.extend(dp.steps[1:])
    again = NO_AGAIN if side.again is None else side.again
    if against is not None:
        effective = effective_again(again, against.immunities)
        again = effective.again
        steps.extend(effective.steps)
    if side.dice is None:
        roll = roll_pool(pool, roller, again)
    else:
        roll = roll_supplied(pool, side.dice, again, (*path, "dice"))
    steps.extend(roll_steps(roll, supplied=side.dice is not None, extra=side.extra_successes))
    successes = with_extra_successes(roll, side.extra_successes)
    return _Side(actor=actor, roll=roll, successes=successes, steps=told_of(steps, actor_id, actor))


def roll(state: WorldState, action: RollAction, ctx: Context) -> Ruling:
    """DICE-1..7, WP-2, HEALTH-7, RANK-11; with `opposed`, DICE-5 (the DC is the opponent's
    successes; the roller needs at least one and at least the DC)."""
    get_actor(state, action.actor, ("actor",))
    opponent = None if action.opponent is None else get_actor(state, action.opponent, ("opponent",))
    check_opponent(action.actor, action.opponent, opposed=action.opposed is not None)
    mine = _roll_side(state, action.actor, action, opponent, ctx.roller, ())
    after = state if mine.actor is state.actors[action.actor] else with_actor(state, action.actor, mine.actor)
    log = list(mine.steps)
    rolls = [mine.roll.of(action.actor, "roll")]
    if action.opposed is not None and action.opponent is not None:
        theirs = _roll_side(after, action.opponent, action.opposed, mine.actor, ctx.roller, ("opposed",))
        if theirs.actor is not after.actors[action.opponent]:
            after = with_actor(after, action.opponent, theirs.actor)
        log.extend(theirs.steps)
        rolls.append(theirs.roll.of(action.opponent, "oppose"))
        log.append(opposed_step(action.actor, action.opponent, mine.successes, theirs.successes))
    else:
        log.append(result_step(action.actor, mine.successes))
    return Ruling(state=after, log=tuple(log), rolls=tuple(rolls))


ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {"roll": (RollAction, roll)}
