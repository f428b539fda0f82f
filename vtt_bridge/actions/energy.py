"""Energy Pool and Gauge actions (EP-1..9): gain, spend, restore, change max, anchor.

Every handler leaves Willpower alone (WP-1) and keeps untouched pools as the very same objects.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from vtt_bridge.actions import Context, Handler, Ruling, naming_actor
from vtt_bridge.document.models import Actor, Id, NotFound, WorldState, get_actor, with_actor
from vtt_bridge.rules.common import Count, Flag, RuleModel, SignedInt, Slug, Step
from vtt_bridge.rules.energy import (
    Conflict,
    EnergyName,
    EnergyPool,
    Gauge,
    NewGauge,
    NewPool,
    anchor_cannot_gain_again,
    annihilation_step,
    check_not_annihilated,
    gain_pool,
)
from vtt_bridge.rules.energy_use import change_pool_max_by, restore_pool, spend_energy_from
from vtt_bridge.rules.gauges import change_gauge_max_by, gain_new_gauge, restore_gauge_by, spend_from_gauge


class GainEnergyPoolAction(RuleModel):
    """EP-1..4: gain a pool (or open it again); `max` is derived from the key Attributes."""

    kind: Literal["gainEnergyPool"]
    actor: Id
    pool: NewPool


class SpendEnergyAction(RuleModel):
    """EP-6..8: spend `cost` for an ability that calls for `pool`.

    `reduction`: cost reductions that apply; `spendAll`: the ability spends all energy (no reduction,
    `cost` ignored); `substituteFrom`: the pool actually spent in place of `pool`; `chosen`: the
    ability lets the player choose a pool (optionally of `chosenClass`, e.g. "physical").
    """

    kind: Literal["spendEnergy"]
    actor: Id
    pool: Slug
    cost: Count | None = None
    reduction: Count = 0
    spend_all: Flag = False
    substitute_from: Slug | None = None
    chosen: Flag = False
    chosen_class: Slug | None = None

    @model_validator(mode="after")
    def _cost_given(self) -> SpendEnergyAction:
        if self.cost is None and not self.spend_all:
            raise ValueError("cost is required unless spendAll is true")
        return self


class RestoreEnergyAction(RuleModel):
    """Recover `amount` energy, up to the maximum."""

    kind: Literal["restoreEnergy"]
    actor: Id
    pool: Slug
    amount: Count


class MaxChangeReason(StrEnum):
    """Why a maximum changes: a temporary change (EP-5), an enhancement, an attack on the pool (EP-8)."""

    TEMPORARY = "temporary"
    ENHANCEMENT = "enhancement"
    ATTACK = "attack"


class ChangePoolMaxAction(RuleModel):
    """EP-5/EP-8: change a pool's maximum by `delta`."""

    kind: Literal["changePoolMax"]
    actor: Id
    pool: Slug
    delta: SignedInt
    reason: MaxChangeReason = MaxChangeReason.TEMPORARY


class CannotGainAgainAction(RuleModel):
    """EP-3: from now on the actor cannot gain pools of `class` (except `participants` via `source`)."""

    kind: Literal["cannotGainAgain"]
    actor: Id
    class_: Slug = Field(alias="class")
    source: EnergyName
    participants: tuple[Slug, ...] = ()


class GainGaugeAction(RuleModel):
    """EP-9: gain a Gauge."""

    kind: Literal["gainGauge"]
    actor: Id
    gauge: NewGauge


class SpendGaugeAction(RuleModel):
    """EP-9: spend `amount` of a Gauge."""

    kind: Literal["spendGauge"]
    actor: Id
    gauge: Slug
    amount: Count


class RestoreGaugeAction(RuleModel):
    """EP-9: raise a Gauge by `amount`, up to its maximum if it has one."""

    kind: Literal["restoreGauge"]
    actor: Id
    gauge: Slug
    amount: Count


class ChangeGaugeMaxAction(RuleModel):
    """EP-9: a temporary change to a Gauge's maximum (empty max on a gain, loss for good)."""

    kind: Literal["changeGaugeMax"]
    actor: Id
    gauge: Slug
    delta: SignedInt


# ---------------------------------------------------------------- helpers


def _living(state: WorldState, actor_id: str) -> Actor:
    actor = get_actor(state, actor_id, ("actor",))
    check_not_annihilated(actor.name or actor_id, bool(actor.conditions.get("annihilated")))
    return actor


def _pool(actor: Actor, pool_id: str, path: tuple[str | int, ...]) -> EnergyPool:
    pool = actor.energy_pools.get(pool_id)
    if pool is None:
        raise NotFound(path, f"the actor has no Energy Pool {pool_id!r}")
    return pool


def _gauge(actor: Actor, gauge_id: str) -> Gauge:
    gauge = actor.gauges.get(gauge_id)
    if gauge is None:
        raise NotFound(("gauge",), f"the actor has no Gauge {gauge_id!r}")
    return gauge


def _with_pool(actor: Actor, pool_id: str, pool: EnergyPool) -> Actor:
    pools = dict(actor.energy_pools)
    pools[pool_id] = pool
    return actor.model_copy(update={"energy_pools": pools})


def _with_gauge(actor: Actor, gauge_id: str, gauge: Gauge) -> Actor:
    gauges = dict(actor.gauges)
    gauges[gauge_id] = gauge
    return actor.model_copy(update={"gauges": gauges})


def _annihilate(actor: Actor, conflicts: tuple[Conflict, ...] | list[Conflict]) -> tuple[Actor, list[Step]]:
    if not conflicts:
        return actor, []
    conditions = dict(actor.conditions)
    conditions["annihilated"] = True
    conditions["dead"] = True
    return actor.model_copy(update={"conditions": conditions}), [annihilation_step(conflicts)]


# ---------------------------------------------------------------- handlers


def gain_energy_pool(state: WorldState, action: GainEnergyPoolAction, ctx: Context) -> Ruling:
    """EP-1..4, EP-7, EP-8: gain a pool, or open it again; conflicts annihilate."""
    actor = _living(state, action.actor)
    gain = gain_pool(action.pool, actor.energy_pools, actor.gauges, actor.attributes, actor.cannot_gain_again)
    updated = actor.model_copy(update={"energy_pools": gain.pools})
    updated, steps = _annihilate(updated, gain.conflicts)
    return Ruling(state=with_actor(state, action.actor, updated), log=(*gain.steps, *steps))


def spend_energy(state: WorldState, action: SpendEnergyAction, ctx: Context) -> Ruling:
    """EP-6..8: pay for an ability, maybe from a substitute pool, maybe at a reduced cost."""
    actor = _living(state, action.actor)
    if action.substitute_from is None:
        payer_id, path = action.pool, ("pool",)
    else:
        payer_id, path = action.substitute_from, ("substituteFrom",)
    payer = _pool(actor, payer_id, path)
    spent = spend_energy_from(
        payer_id,
        payer,
        action.pool,
        actor.energy_pools.get(action.pool),
        substituted=action.substitute_from is not None,
        chosen=action.chosen,
        chosen_class=action.chosen_class,
        cost=0 if action.cost is None else action.cost,
        reduction=action.reduction,
        spend_all=action.spend_all,
    )
    if spent.payment.paid == 0:
        return Ruling(state=state, log=spent.steps)
    updated = _with_pool(actor, payer_id, spent.pool)
    return Ruling(state=with_actor(state, action.actor, updated), log=spent.steps)


def restore_energy(state: WorldState, action: RestoreEnergyAction, ctx: Context) -> Ruling:
    """Recover energy up to the maximum; what would go past it is lost."""
    actor = _living(state, action.actor)
    pool = _pool(actor, action.pool, ("pool",))
    restored = restore_pool(action.pool, pool, action.amount)
    if restored.pool is pool:
        return Ruling(state=state, log=(restored.step,))
    updated = _with_pool(actor, action.pool, restored.pool)
    return Ruling(state=with_actor(state, action.actor, updated), log=(restored.step,))


def change_pool_max(state: WorldState, action: ChangePoolMaxAction, ctx: Context) -> Ruling:
    """EP-5: gains add empty max, losses drop the excess for good; EP-8: non-pools resist attacks and
    cannot be enhanced; enhancements work on general pools only."""
    actor = _living(state, action.actor)
    pool = _pool(actor, action.pool, ("pool",))
    changed = change_pool_max_by(
        action.pool,
        pool,
        action.delta,
        attack=action.reason is MaxChangeReason.ATTACK,
        enhancement=action.reason is MaxChangeReason.ENHANCEMENT,
    )
    if changed.pool is pool:
        return Ruling(state=state, log=(changed.step,))
    updated = _with_pool(actor, action.pool, changed.pool)
    return Ruling(state=with_actor(state, action.actor, updated), log=(changed.step,))


def cannot_gain_again(state: WorldState, action: CannotGainAgainAction, ctx: Context) -> Ruling:
    """EP-3: anchor "cannot gain <class> Energy Pools again" now."""
    actor = _living(state, action.actor)
    for index, participant in enumerate(action.participants):
        _pool(actor, participant, ("participants", index))
    anchored = anchor_cannot_gain_again(action.class_, action.source, action.participants)
    updated = actor.model_copy(update={"cannot_gain_again": (*actor.cannot_gain_again, anchored.anchor)})
    return Ruling(state=with_actor(state, action.actor, updated), log=(anchored.step,))


def gain_gauge(state: WorldState, action: GainGaugeAction, ctx: Context) -> Ruling:
    """EP-9: gain a Gauge from a resource; same-named Gauges under other ids stay separate."""
    actor = _living(state, action.actor)
    gained = gain_new_gauge(action.gauge, actor.energy_pools, actor.gauges)
    updated, more = _annihilate(_with_gauge(actor, action.gauge.id, gained.gauge), gained.conflicts)
    return Ruling(state=with_actor(state, action.actor, updated), log=(*gained.steps, *more))


def spend_gauge(state: WorldState, action: SpendGaugeAction, ctx: Context) -> Ruling:
    """EP-9: spend from a Gauge; never more than it holds."""
    actor = _living(state, action.actor)
    changed = spend_from_gauge(action.gauge, _gauge(actor, action.gauge), action.amount)
    updated = _with_gauge(actor, action.gauge, changed.gauge)
    return Ruling(state=with_actor(state, action.actor, updated), log=(changed.step,))


def restore_gauge(state: WorldState, action: RestoreGaugeAction, ctx: Context) -> Ruling:
    """EP-9: raise a Gauge, up to its maximum if it has one."""
    actor = _living(state, action.actor)
    changed = restore_gauge_by(action.gauge, _gauge(actor, action.gauge), action.amount)
    updated = _with_gauge(actor, action.gauge, changed.gauge)
    return Ruling(state=with_actor(state, action.actor, updated), log=(changed.step,))


def change_gauge_max(state: WorldState, action: ChangeGaugeMaxAction, ctx: Context) -> Ruling:
    """EP-9 (as EP-5): a gain adds empty maximum; a loss drops the excess for good."""
    actor = _living(state, action.actor)
    changed = change_gauge_max_by(action.gauge, _gauge(actor, action.gauge), action.delta)
    updated = _with_gauge(actor, action.gauge, changed.gauge)
    return Ruling(state=with_actor(state, action.actor, updated), log=(changed.step,))


ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "gainEnergyPool": (GainEnergyPoolAction, naming_actor(gain_energy_pool)),
    "spendEnergy": (SpendEnergyAction, naming_actor(spend_energy)),
    "restoreEnergy": (RestoreEnergyAction, naming_actor(restore_energy)),
    "changePoolMax": (ChangePoolMaxAction, naming_actor(change_pool_max)),
    "cannotGainAgain": (CannotGainAgainAction, naming_actor(cannot_gain_again)),
    "gainGauge": (GainGaugeAction, naming_actor(gain_gauge)),
    "spendGauge": (SpendGaugeAction, naming_actor(spend_gauge)),
    "restoreGauge": (RestoreGaugeAction, naming_actor(restore_gauge)),
    "changeGaugeMax": (ChangeGaugeMaxAction, naming_actor(change_gauge_max)),
}
