"""Effects on actors: condition points, emotion points and conditions (`affect`), and gaining an
immunity (`gainImmunity`), with the immunities that block them (RANK-3/5/9/10/12/13, IWR-2/5).
"""

from __future__ import annotations

from typing import Literal

from vtt_bridge.actions import Context, Handler, Ruling, naming_actor
from vtt_bridge.document.models import Id, WorldState, get_actor, with_actor
from vtt_bridge.rules.common import RuleModel
from vtt_bridge.rules.effects import Effect, affect_actor
from vtt_bridge.rules.immunities import Immunity, gain_immunity

ActorId = Id
"""A document id (`document.models.Id`)."""


class AffectAction(RuleModel):
    """`affect {actor, effect}`: apply an effect's points and conditions to an actor."""

    kind: Literal["affect"]
    actor: ActorId
    effect: Effect


class GainImmunityAction(RuleModel):
    """`gainImmunity {actor, immunity}`: the actor gains a Ranks-rules immunity (RANK-13 bonus)."""

    kind: Literal["gainImmunity"]
    actor: ActorId
    immunity: Immunity


def affect(state: WorldState, action: AffectAction, ctx: Context) -> Ruling:
    """Apply an effect (`rules.effects.affect_actor`); only what changed is written."""
    actor = get_actor(state, action.actor, ("actor",))
    affected = affect_actor(actor, action.effect, state.scene.round if state.scene else 0)
    update: dict[str, object] = {}
    if affected.condition_points != actor.condition_points:
        update["condition_points"] = affected.condition_points
    if affected.emotion_points != actor.emotion_points:
        update["emotion_points"] = affected.emotion_points
    if affected.conditions != actor.conditions:
        update["conditions"] = affected.conditions
    if not update:
        return Ruling(state=state, log=affected.steps)
    updated = actor.model_copy(update=update)
    return Ruling(state=with_actor(state, action.actor, updated), log=affected.steps)


def gain_immunity_action(state: WorldState, action: GainImmunityAction, ctx: Context) -> Ruling:
    """`gainImmunity`: RANK-13 replaces a same-or-lower flat-footed / touch-attack / mind-affecting
    immunity from a different source and adds the perfect save bonus; otherwise adds the immunity.
    """
    actor = get_actor(state, action.actor, ("actor",))
    gain = gain_immunity(actor.immunities, actor.save_bonuses, action.immunity)
    update: dict[str, object] = {}
    if gain.immunities != actor.immunities:
        update["immunities"] = gain.immunities
    if gain.save_bonuses is not actor.save_bonuses:
        update["save_bonuses"] = gain.save_bonuses
    if not update:
        return Ruling(state=state, log=gain.steps)
    return Ruling(state=with_actor(state, action.actor, actor.model_copy(update=update)), log=gain.steps)


ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "affect": (AffectAction, naming_actor(affect)),
    "gainImmunity": (GainImmunityAction, naming_actor(gain_immunity_action)),
}
