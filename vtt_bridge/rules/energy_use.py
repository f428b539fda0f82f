"""Using Energy Pools (EP-5..8): paying for an ability (reduced costs, substitution, choosing a
pool), recovering energy, and changes to a pool's maximum (temporary changes, attacks on pools,
enhancements).

Willpower is not an Energy Pool (WP-1): nothing here reads or writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vtt_bridge.rules.common import RuleViolation, Step
from vtt_bridge.rules.energy import EnergyPool, PoolCategory, pool_classes

# ---------------------------------------------------------------- EP-5 temporary max changes


@dataclass(frozen=True, slots=True)
class MaxChange:
    """EP-5: a maximum after a change, the current value after it, and what was lost for good."""

    max: int
    current: int
    lost: int


def change_max(maximum: int, current: int, delta: int) -> MaxChange:
    """EP-5/EP-9: a gain adds empty maximum; a loss drops anything above the new max, for good."""
    if maximum + delta < 0:
        raise RuleViolation("EP-5", f"a maximum of {maximum} cannot drop by {-delta}", ("delta",))
    new_max = maximum + delta
    new_current = min(current, new_max)
    return MaxChange(max=new_max, current=new_current, lost=current - new_current)


# ---------------------------------------------------------------- EP-6 reduced costs


@dataclass(frozen=True, slots=True)
class Payment:
    """EP-6: what leaves the pool (`paid`) and the cost the effect is worked out from."""

    paid: int
    effect_cost: int
    reduction_applied: int


def payment(cost: int, reduction: int, spend_all: bool, current: int) -> Payment:
    """EP-6: a reduced cost keeps the original cost's effect; a spend-all ability gets no reduction."""
    if spend_all:
        return Payment(paid=current, effect_cost=current, reduction_applied=0)
    paid = max(0, cost - reduction)
    return Payment(paid=paid, effect_cost=cost, reduction_applied=cost - paid)


# ---------------------------------------------------------------- EP-7 substitution, EP-8 choosing


def can_pay_for(payer_id: str, payer: EnergyPool, target_id: str) -> bool:
    """EP-7: a pool pays for itself; a variant pays for its original (never the reverse); and a
    pool pays for those a resource lists in its `paysFor`."""
    return payer_id == target_id or payer.variant_of == target_id or target_id in payer.pays_for


def blocked_by_immunity(pool_id: str, pool: EnergyPool, immune_class: str) -> bool:
    """EP-7: immunity to a class of energy is judged on the pool actually spent."""
    return immune_class in pool_classes(pool_id, pool)


def choice_refusal(pool_id: str, pool: EnergyPool, required_class: str | None) -> str | None:
    """EP-8 and "choose an Energy Pool": why this pool cannot be chosen, or None if it can.

    Only general pools can be chosen (not Hamon, not Calories); never one that doesn't count as an
    Energy Pool; and it must be of the class the ability asks for, if any.
    """
    if not pool.counts_as_pool:
        return f"{pool.name} doesn't count as an Energy Pool, so it cannot be chosen (EP-8)"
    if pool.category is not PoolCategory.GENERAL:
        return f"{pool.name} is a special Energy Pool; only a general Energy Pool can be chosen"
    if required_class is not None and required_class not in pool_classes(pool_id, pool):
        return f"{pool.name} is not a {required_class} Energy Pool"
    return None


def pool_summary(pool_id: str, pool: EnergyPool) -> dict[str, Any]:
    """Step data naming a pool and the classes it answers to (for immunity judgements, EP-7)."""
    return {"pool": pool_id, "classes": sorted(pool_classes(pool_id, pool))}


@dataclass(frozen=True, slots=True)
class Spent:
    """EP-6..8: the pool that paid, after paying (the same object when it paid nothing), what it
    paid, and why."""

    pool: EnergyPool
    payment: Payment
    steps: tuple[Step, ...]


def spend_energy_from(
    payer_id: str,
    payer: EnergyPool,
    pool_id: str,
    target: EnergyPool | None,
    *,
    substituted: bool,
    chosen: bool,
    chosen_class: str | None,
    cost: int,
    reduction: int,
    spend_all: bool,
) -> Spent:
    """EP-6..8: `payer` pays `cost` (less `reduction`, or all it holds: `spend_all`) for an ability
    that calls for `pool_id` (`target`: the actor's pool of that id, if any). `substituted`: the
    payer stands in for it (EP-7: only a pool that can pay for it); `chosen`: the ability lets the
    actor choose the pool (EP-8), of `chosen_class` when it names one. `RuleViolation` (EP-6, 7, 8)
    when it cannot pay; its path names the field that chose the payer."""
    steps: list[Step] = []
    if substituted:
        if not can_pay_for(payer_id, payer, pool_id):
            if target is not None and target.variant_of == payer_id:
                message = (
                    f"{payer.name} is the original of {target.name}: "
                    "the original cannot be spent in place of its variant"
                )
            else:
                message = f"{payer.name} cannot be spent in place of {pool_id!r}"
            raise RuleViolation("EP-7", message, ("substituteFrom",))
        if payer_id != pool_id:
            steps.append(
                Step(
                    rule="EP-7",
                    text=f"{payer.name} spent in place of {pool_id}; immunity is judged on {payer.name}",
                    data={**pool_summary(payer_id, payer), "name": payer.name, "inPlaceOf": pool_id},
                    key="EP-7.substitute",
                )
            )
    if chosen:
        refusal = choice_refusal(payer_id, payer, chosen_class)
        if refusal is not None:
            path = ("substituteFrom",) if substituted else ("pool",)
            raise RuleViolation("EP-8", refusal, path)
    pay = payment(cost, reduction, spend_all, payer.current)
    if spend_all:
        steps.append(
            Step(
                rule="EP-6",
                text=f"the ability spends all energy: {pay.paid}"
                + ("; no cost reduction applies" if reduction else ""),
                data={"spendAll": True, "paid": pay.paid},
                key="EP-6.spendAll",
            )
        )
    elif pay.reduction_applied:
        steps.append(
            Step(
                rule="EP-6",
                text=(
                    f"cost {cost} reduced by {pay.reduction_applied} to {pay.paid}; "
                    f"the effect is worked out from the original cost {cost}"
                ),
                data={"cost": cost, "reduction": pay.reduction_applied, "paid": pay.paid},
                key="EP-6.reduced",
            )
        )
    if pay.paid > payer.current:
        raise RuleViolation(
            "EP-6",
            f"paying {pay.paid} needs more than the {payer.current} {payer.name} holds",
            ("cost",),
        )
    spent = payer.model_copy(update={"current": payer.current - pay.paid})
    steps.append(
        Step(
            rule="EP-6",
            text=(
                f"{payer.name}: {payer.current} - {pay.paid} = {spent.current}; effect cost {pay.effect_cost}"
            ),
            data={
                **pool_summary(payer_id, payer),
                "paid": pay.paid,
                "effectCost": pay.effect_cost,
                "current": spent.current,
            },
            key="EP-6.paid",
        )
    )
    return Spent(spent if pay.paid else payer, pay, tuple(steps))


@dataclass(frozen=True, slots=True)
class PoolChange:
    """A pool after a change (the same object when the change leaves it untouched), and why."""

    pool: EnergyPool
    step: Step


def restore_pool(pool_id: str, pool: EnergyPool, amount: int) -> PoolChange:
    """EP-5: energy recovered up to the maximum; what would go past it is lost."""
    current = min(pool.max, pool.current + amount)
    step = Step(
        rule="EP-5",
        text=f"{pool.name}: {pool.current} + {amount} = {current} (max {pool.max})",
        data={"pool": pool_id, "restored": current - pool.current, "current": current},
        key="EP-5.restore",
    )
    return PoolChange(pool if current == pool.current else pool.model_copy(update={"current": current}), step)


def change_pool_max_by(
    pool_id: str, pool: EnergyPool, delta: int, *, attack: bool, enhancement: bool
) -> PoolChange:
    """EP-5: a gain adds empty maximum, a loss drops the excess for good; EP-8: a pool that does not
    count as one is untouched by an attack on pools (`attack`) and cannot be enhanced
    (`enhancement`: general pools only). `RuleViolation` (EP-8) for an enhancement it cannot take."""
    if attack and not pool.counts_as_pool:
        step = Step(
            rule="EP-8",
            text=(
                f"{pool.name} doesn't count as an Energy Pool: "
                "effects that attack Energy Pools don't touch it"
            ),
            data={"pool": pool_id, "name": pool.name, "attack": True},
            key="EP-8.untouched",
        )
        return PoolChange(pool, step)
    if enhancement:
        if not pool.counts_as_pool:
            raise RuleViolation(
                "EP-8", f"{pool.name} doesn't count as an Energy Pool: it cannot be enhanced", ("pool",)
            )
        if pool.category is not PoolCategory.GENERAL:
            raise RuleViolation(
                "EP-8", f"{pool.name} is special: Energy Pool Enhancement raises general pools", ("pool",)
            )
    change = change_max(pool.max, pool.current, delta)
    text = f"{pool.name}: max {pool.max} -> {change.max}"
    if delta > 0:
        text += f"; {delta} empty maximum, current stays {change.current}"
    elif change.lost:
        text += f"; {change.lost} energy above the new max is lost for good"
    step = Step(
        rule="EP-5",
        text=text,
        data={"pool": pool_id, "max": change.max, "current": change.current, "lost": change.lost},
        key="EP-5.max",
    )
    return PoolChange(pool.model_copy(update={"max": change.max, "current": change.current}), step)
