"""Health and Willpower actions (HEALTH-1..13, WP-1..6): damage, healing, Willpower, max changes, and
the per-round upkeep `round_health` that the world's `round` action runs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from vtt_bridge.actions import Context, Handler, Ruling, naming_actor, told_of
from vtt_bridge.actions.attack import Attack, rule_attack, token_at_guess
from vtt_bridge.document.derive import DERIVED_FIELDS, derive_actor, is_unconscious
from vtt_bridge.document.models import Actor, Id, NotFound, Settings, WorldState, get_actor, with_actor
from vtt_bridge.rules import healing
from vtt_bridge.rules import health as h
from vtt_bridge.rules import willpower as wp
from vtt_bridge.rules.common import Flag, RuleModel, Step, about
from vtt_bridge.rules.healing import HealGrade, HealSource
from vtt_bridge.rules.health import Boxes, EffectId, MaxHealthChange
from vtt_bridge.rules.injury import (
    at_guessed_square,
    check_token_shows,
    halve_damage,
    nobody_at_square,
    round_passes,
    take_damage,
)
from vtt_bridge.rules.iwr import Amount, DamageInstance, resolve_damage

PositiveBoxes = Annotated[int, Field(strict=True, ge=1, le=h.MAX_HEALTH)]


# ---- payloads ---------------------------------------------------------------------------------------


class DamageAction(RuleModel):
    """`damage`: one hit of one or more damage instances (IWR-8, HEALTH-11, HEALTH-2, HEALTH-13)."""

    kind: Literal["damage"]
    target: Id | None = None
    """The damaged actor; None only for an attack at a guessed square that names no token (DET-10:
    whoever stands there is hit, as an approximate target; nobody: a miss)."""
    instances: tuple[DamageInstance, ...] = Field(min_length=1, max_length=100)
    attack: Attack | None = None
    """The attack the damage comes from (DET-10): on an approximate target (or a right guess at an
    unlocated one) each instance counts half, round down; a wrong guess deals nothing."""


def _resolved_target(state: WorldState, action: DamageAction) -> DamageAction | None:
    """The action with its target named: an attack at a square (no `target`, no `attack.token`) lands
    on the token standing there (None: nobody is there)."""
    attack = action.attack
    at_square = at_guessed_square(action.target, attack is not None, None if attack is None else attack.token)
    if attack is None or not at_square:  # only an attack goes at a square
        return action
    if attack.attacker not in state.tokens:
        raise NotFound(("attack", "attacker"), f"no token {attack.attacker!r} on the scene")
    token = token_at_guess(state, attack)
    if token is None:
        return None
    return action.model_copy(
        update={"target": state.tokens[token].actor, "attack": attack.model_copy(update={"token": token})}
    )


def _attack_instances(
    state: WorldState, action: DamageAction, ctx: Context
) -> tuple[tuple[DamageInstance, ...] | None, list[Step]]:
    """DET-10: the instances an attack's damage deals (None: it missed), and why. The instances are
    what the attack deals at full count; its successes, extra successes and effect points counting
    half halves what each instance deals (round down)."""
    attack = action.attack
    if attack is None:
        return action.instances, []
    token = None if attack.token is None else state.tokens.get(attack.token)
    check_token_shows(attack.token, None if token is None else token.actor, action.target)
    consequence, steps = rule_attack(state, attack, ctx.visibility)
    if consequence is None:
        return None, steps
    if not consequence.halved:
        return action.instances, steps
    halved = halve_damage(action.instances, attack.attacker, attack.token)
    steps.extend(halved.steps)
    return halved.instances, steps


class HealAction(RuleModel):
    """`heal`: `amount` boxes, points, rests or days depending on `source` (see `rules.healing.heal`)."""

    kind: Literal["heal"]
    target: Id
    amount: Amount
    grade: HealGrade = "any"
    source: HealSource
    double: Flag = False
    """HEALTH-8: the character has double natural recovery speed (rest sources only)."""


class SpendWillpowerAction(RuleModel):
    """`spendWillpower`: 1 Willpower on a roll or defense (WP-2), to stay awake or against hunger (WP-3)."""

    kind: Literal["spendWillpower"]
    actor: Id
    use: wp.WillpowerUse
    extended: Flag = False


class GainWillpowerAction(RuleModel):
    """`gainWillpower`: recover Willpower, or gain temporary Willpower (WP-4)."""

    kind: Literal["gainWillpower"]
    actor: Id
    amount: Boxes
    temporary: Flag = False


class LoseWillpowerAction(RuleModel):
    """`loseWillpower`: an ability drains Willpower (WP-4: temporary first)."""

    kind: Literal["loseWillpower"]
    actor: Id
    amount: Amount


class ChangeWillAction(RuleModel):
    """`changeWill`: Will (and so max Willpower) changes (WP-6)."""

    kind: Literal["changeWill"]
    actor: Id
    delta: MaxHealthChange


class ChangeMaxHealthAction(RuleModel):
    """`changeMaxHealth`: max Health changes; with `effect`, temporarily (HEALTH-12)."""

    kind: Literal["changeMaxHealth"]
    actor: Id
    delta: MaxHealthChange
    effect: EffectId | None = None


class EndTemporaryMaxAction(RuleModel):
    """`endTemporaryMax`: a temporary max Health change ends and is reversed (HEALTH-12)."""

    kind: Literal["endTemporaryMax"]
    actor: Id
    effect: EffectId


class GainSecondHealthAction(RuleModel):
    """`gainSecondHealth`: an ability sets up a second Health track of `max` boxes (HEALTH-13)."""

    kind: Literal["gainSecondHealth"]
    actor: Id
    max: PositiveBoxes


class GainTempHpAction(RuleModel):
    """`gainTempHp`: temporary HP; does not stack, the higher stays (HEALTH-11)."""

    kind: Literal["gainTempHp"]
    actor: Id
    amount: Boxes


# ---- helpers ----------------------------------------------------------------------------------------


def _updated(actor: Actor, fields: Mapping[str, Any]) -> Actor:
    """The actor with only the fields that really changed replaced (unchanged ones stay the same objects)."""
    current = actor.__dict__  # read once (each attribute of a model passes its `__getattr__` hook)
    update = {k: v for k, v in fields.items() if current[k] is not v}
    return actor.model_copy(update=update) if update else actor


def _annihilated(actor: Actor) -> bool:
    return bool(actor.conditions.get("annihilated"))


def _is_dead(actor: Actor) -> bool:
    return h.is_dead(actor.health, actor.second_health, annihilated=_annihilated(actor))


def _summary(actor_id: str, actor: Actor, before: Actor, settings: Settings) -> tuple[Step, ...]:
    """HEALTH-6 (after HEALTH-7 when the wound penalty changed): what the ruling leaves the character
    as (the world layer writes these fields)."""
    return _derived(actor_id, actor, before, settings)[1]


def _derived(
    actor_id: str, actor: Actor, before: Actor, settings: Settings
) -> tuple[Actor, tuple[Step, ...]]:
    """`_summary` and the derived actor itself (see `_summarized`)."""
    derived = derive_actor(actor, settings)
    fields = derived.__dict__  # each read once, not through the model's `__getattr__` hook
    steps = h.status_steps(
        actor_id,
        fields["status"],
        fields["conditions"],
        before.__dict__["wound_penalty"],
        fields["wound_penalty"],
    )
    return derived, steps


def _summarized(
    state: WorldState, actor_id: str, actor: Actor, steps: Iterable[Step], **fields: Any
) -> Ruling:
    """The ruling that puts the state's `actor` (`actor_id`'s) with `fields` replaced (`_updated`) in
    the state already derived (HEALTH-3..7), `steps` ended by its HEALTH-6 summary; `Ruling.derived`
    names it, so the world does not derive it twice, and `Ruling.written` the fields it may have
    replaced (those and the derived ones: `document.derive.DERIVED_FIELDS`)."""
    new_actor = _updated(actor, fields)
    derived, summary = _derived(actor_id, new_actor, actor, state.__dict__["settings"])
    written = frozenset(fields) if derived is new_actor else DERIVED_FIELDS.union(fields)
    return Ruling(
        state=with_actor(state, actor_id, derived),
        log=(*about(steps, actor=actor_id), *summary),
        derived=frozenset((actor_id,)),
        written={actor_id: written},
    )


def _replaced(state: WorldState, actor_id: str, actor: Actor, steps: Iterable[Step], **fields: Any) -> Ruling:
    """The ruling that puts the state's `actor` (`actor_id`'s) with `fields` replaced (`_updated`) in
    the state, not derived (the world derives it); `Ruling.written` names those fields."""
    return Ruling(
        state=with_actor(state, actor_id, _updated(actor, fields)),
        log=tuple(steps),
        written={actor_id: frozenset(fields)},
    )


def _recover_willpower(actor: Actor, amount: int, settings: Settings) -> wp.WillpowerRecovery:
    """WP-1 recovery and its waking (HEALTH-3, WP-5): `rules.willpower.recover` on the actor."""
    return wp.recover(
        actor.willpower,
        amount,
        actor.health,
        actor.second_health,
        unconscious_at_zero=settings.unconscious_at_zero_willpower,
    )


# ---- handlers ---------------------------------------------------------------------------------------


def damage(state: WorldState, action: DamageAction, ctx: Context) -> Ruling:
    """IWR-8 (immunities, weaknesses, resistances), then HEALTH-11 temporary HP, then HEALTH-2 on the
    track, overflowing an all-A track into the second one (HEALTH-13). A blow that gets through ends
    a stabilization (HEALTH-4), a waking (HEALTH-3) and staying conscious (WP-3)."""
    given = action.__dict__  # each read once, not through the model's `__getattr__` hook
    target = given["target"]
    if given["attack"] is None and target is not None:  # most damage: a named target, no attack
        actor = get_actor(state, target, ("target",))
        instances: tuple[DamageInstance, ...] | None = given["instances"]
        attack_steps: list[Step] = []
    else:
        resolved = _resolved_target(state, action)
        if resolved is None:
            attacker = action.attack.attacker if action.attack is not None else ""
            step = nobody_at_square(attacker)
            return Ruling(state=state, log=(step,))
        action = resolved
        target = action.target or ""
        actor = get_actor(state, target, ("target",))
        instances, attack_steps = _attack_instances(state, action, ctx)
    if instances is None:
        return Ruling(state=state, log=tuple(attack_steps))
    subjects = {"actor": target}  # the rules write it into their steps, not `about` again
    fields = actor.__dict__
    scene = state.__dict__["scene"]
    resolution = resolve_damage(
        instances,
        iwr=fields["iwr"],
        immunities=fields["immunities"],
        temporary_immunities=fields["temporary_immunities"],
        round=scene.__dict__["round"] if scene is not None else 0,
        subjects=subjects,
    )
    taken = take_damage(
        resolution.dealt, fields["health"], fields["second_health"], fields["willpower"], subjects
    )
    steps = (*attack_steps, *resolution.steps, *taken.steps)
    return _summarized(
        state,
        target,
        actor,
        steps,
        health=taken.health,
        second_health=taken.second_health,
        willpower=taken.willpower,
    )


def heal(state: WorldState, action: HealAction, ctx: Context) -> Ruling:
    """HEALTH-8..10, HEALTH-13; a long rest also restores 1 Willpower per day (HEALTH-8). The dead
    (HEALTH-5) are not healed: bringing them back is a revival, the Overseer's (`source: overseer`),
    and the annihilated (EP-2) are beyond any."""
    actor = get_actor(state, action.target, ("target",))
    out = healing.heal_character(
        actor.health,
        actor.second_health,
        actor.willpower,
        amount=action.amount,
        grade=action.grade,
        source=action.source,
        double=action.double,
        unconscious_at_zero=state.settings.unconscious_at_zero_willpower,
        annihilated=_annihilated(actor),
    )
    return _summarized(
        state,
        action.target,
        actor,
        out.steps,
        health=out.health,
        second_health=out.second_health,
        willpower=out.willpower,
    )


def spend_willpower(state: WorldState, action: SpendWillpowerAction, ctx: Context) -> Ruling:
    """WP-2, WP-3: pay 1 Willpower (temporary first, WP-4)."""
    actor = get_actor(state, action.actor, ("actor",))
    injured = h.unconscious_from_injuries(actor.health, actor.second_health) and not actor.health.woken
    spent = wp.spend(
        actor.willpower,
        action.use,
        self_aware=not is_unconscious(actor, state.settings),
        injured_unconscious=injured,
        extended=action.extended,
        scene=state.scene.id if state.scene is not None else "",
        dead=_is_dead(actor),
    )
    return _replaced(state, action.actor, actor, spent.steps, willpower=spent.willpower)


def gain_willpower(state: WorldState, action: GainWillpowerAction, ctx: Context) -> Ruling:
    """WP-1 recovery (wakes the injured, HEALTH-3) or WP-4 temporary Willpower (wakes no one)."""
    actor = get_actor(state, action.actor, ("actor",))
    if action.temporary:
        gained = wp.gain(actor.willpower, action.amount, temporary=True)
        return _replaced(state, action.actor, actor, gained.steps, willpower=gained.willpower)
    recovery = _recover_willpower(actor, action.amount, state.settings)
    return _replaced(
        state, action.actor, actor, recovery.steps, willpower=recovery.willpower, health=recovery.health
    )


def lose_willpower(state: WorldState, action: LoseWillpowerAction, ctx: Context) -> Ruling:
    """WP-4: temporary Willpower is lost first; WP-5 may knock the character out at 0."""
    actor = get_actor(state, action.actor, ("actor",))
    lost = wp.lose(
        actor.willpower, action.amount, unconscious_at_zero=state.settings.unconscious_at_zero_willpower
    )
    return _replaced(state, action.actor, actor, lost.steps, willpower=lost.willpower)


def change_will(state: WorldState, action: ChangeWillAction, ctx: Context) -> Ruling:
    """WP-6."""
    actor = get_actor(state, action.actor, ("actor",))
    changed = wp.change_will(actor.willpower, action.delta)
    return _replaced(state, action.actor, actor, changed.steps, willpower=changed.willpower)


def change_max_health(state: WorldState, action: ChangeMaxHealthAction, ctx: Context) -> Ruling:
    """HEALTH-12; the dead gain no Health (HEALTH-5: a revival is the Overseer's)."""
    actor = get_actor(state, action.actor, ("actor",))
    changed = h.change_max(actor.health, action.delta, action.effect, dead=_is_dead(actor))
    return _summarized(state, action.actor, actor, changed.steps, health=changed.track)


def end_temporary_max(state: WorldState, action: EndTemporaryMaxAction, ctx: Context) -> Ruling:
    """HEALTH-12: the effect ends; its change is reversed, later changes stay. The dead stay dead
    (HEALTH-5): a loss that ends gives them no Health back."""
    actor = get_actor(state, action.actor, ("actor",))
    ended = h.end_temporary_max(actor.health, action.effect, dead=_is_dead(actor))
    return _summarized(state, action.actor, actor, ended.steps, health=ended.track)


def gain_second_health(state: WorldState, action: GainSecondHealthAction, ctx: Context) -> Ruling:
    """HEALTH-13: a new second track (an existing one is replaced)."""
    actor = get_actor(state, action.actor, ("actor",))
    gained = h.gain_second_health(action.max, replacing=actor.second_health is not None)
    return _summarized(state, action.actor, actor, gained.steps, second_health=gained.track)


def gain_temp_hp(state: WorldState, action: GainTempHpAction, ctx: Context) -> Ruling:
    """HEALTH-11."""
    actor = get_actor(state, action.actor, ("actor",))
    gained = h.gain_temp_hp(actor.health, action.amount)
    return _replaced(state, action.actor, actor, gained.steps, health=gained.track)


# ---- the round --------------------------------------------------------------------------------------


def round_health(state: WorldState, ctx: Context) -> Ruling:
    """For every living actor: worsening for the round that ended (HEALTH-4), staying conscious lapses
    (WP-3), then fast healing and regeneration at the new round's start (HEALTH-10)."""
    state_out = state
    log: list[Step] = []
    for actor_id in sorted(state.actors):
        actor = state.actors[actor_id]
        passed = round_passes(
            actor.health,
            actor.second_health,
            actor.willpower,
            actor.healing.fast_healing,
            actor.healing.regeneration,
            annihilated=bool(actor.conditions.get("annihilated")),
        )
        first, second, willpower = passed.health, passed.second_health, passed.willpower
        steps = list(passed.steps)
        new_actor = _updated(actor, {"health": first, "second_health": second, "willpower": willpower})
        if new_actor is not actor:
            if first is not actor.health or second is not actor.second_health:
                steps.extend(_summary(actor_id, new_actor, actor, state.settings))
            state_out = with_actor(state_out, actor_id, new_actor)
            log.extend(told_of(steps, actor_id, actor))
    return Ruling(state=state_out, log=tuple(log))


ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "damage": (DamageAction, damage),
    "heal": (HealAction, heal),
    "spendWillpower": (SpendWillpowerAction, naming_actor(spend_willpower)),
    "gainWillpower": (GainWillpowerAction, naming_actor(gain_willpower)),
    "loseWillpower": (LoseWillpowerAction, naming_actor(lose_willpower)),
    "changeWill": (ChangeWillAction, naming_actor(change_will)),
    "changeMaxHealth": (ChangeMaxHealthAction, change_max_health),
    "endTemporaryMax": (EndTemporaryMaxAction, end_temporary_max),
    "gainSecondHealth": (GainSecondHealthAction, gain_second_health),
    "gainTempHp": (GainTempHpAction, naming_actor(gain_temp_hp)),
}

__all__ = ["ACTIONS", "round_health"]
