"""Gauges (EP-9): spending and raising one, changes to its maximum (as EP-5), and gaining one
beside the pools and Gauges already held (its conflicts annihilate, EP-2). The Gauge model and the
compatibility rules it shares with the pools are `rules.energy`'s."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vtt_bridge.rules.common import RuleViolation, Step
from vtt_bridge.rules.energy import CONFLICT_KEYS, Conflict, EnergyPool, Gauge, NewGauge, gauge_conflicts
from vtt_bridge.rules.energy_use import change_max


@dataclass(frozen=True, slots=True)
class GaugeChange:
    """A Gauge after a change, and why (EP-9)."""

    gauge: Gauge
    step: Step


def _with_current(gauge_id: str, gauge: Gauge, current: int, sum_text: str) -> GaugeChange:
    """EP-9: the Gauge holding `current` now, and the step saying so (`sum_text`: how it came)."""
    step = Step(
        rule="EP-9",
        text=f"{gauge.name}: {sum_text} = {current}",
        data={"gauge": gauge_id, "current": current},
        key="EP-9.gauge",
    )
    return GaugeChange(gauge.model_copy(update={"current": current}), step)


def spend_from_gauge(gauge_id: str, gauge: Gauge, amount: int) -> GaugeChange:
    """EP-9: spend from a Gauge; never more than it holds (`RuleViolation`)."""
    if amount > gauge.current:
        raise RuleViolation(
            "EP-9",
            f"spending {amount} needs more than the {gauge.current} {gauge.name} holds",
            ("amount",),
        )
    return _with_current(gauge_id, gauge, gauge.current - amount, f"{gauge.current} - {amount}")


def restore_gauge_by(gauge_id: str, gauge: Gauge, amount: int) -> GaugeChange:
    """EP-9: raise a Gauge, up to its maximum if it has one."""
    current = gauge.current + amount
    if gauge.max is not None:
        current = min(current, gauge.max)
    return _with_current(gauge_id, gauge, current, f"{gauge.current} + {amount}")


def change_gauge_max_by(gauge_id: str, gauge: Gauge, delta: int) -> GaugeChange:
    """EP-9 (as EP-5): a gain adds empty maximum; a loss drops the excess for good. A Gauge without a
    maximum has none to change (`RuleViolation`)."""
    if gauge.max is None:
        raise RuleViolation("EP-9", f"{gauge.name} has no maximum to change", ("gauge",))
    change = change_max(gauge.max, gauge.current, delta)
    step = Step(
        rule="EP-9",
        text=f"{gauge.name}: max {gauge.max} -> {change.max}, current {change.current}"
        + (f" ({change.lost} lost for good)" if change.lost else ""),
        data={"gauge": gauge_id, "max": change.max, "current": change.current, "lost": change.lost},
        key="EP-9.max",
    )
    return GaugeChange(gauge.model_copy(update={"max": change.max, "current": change.current}), step)


@dataclass(frozen=True, slots=True)
class GaugeGain:
    """EP-9: the Gauge gained, its steps (the gain, then each conflict) and the conflicts (EP-2
    annihilates when there are any)."""

    gauge: Gauge
    steps: tuple[Step, ...]
    conflicts: tuple[Conflict, ...]


def gain_new_gauge(new: NewGauge, pools: Mapping[str, EnergyPool], gauges: Mapping[str, Gauge]) -> GaugeGain:
    """EP-9: gain Gauge `new` beside the held `pools` and `gauges`. An id already held is refused;
    same-named Gauges under other ids stay separate; `current` defaults to full (0 without a max)."""
    if new.id in gauges:
        raise RuleViolation(
            "EP-9",
            f"the actor already has Gauge {new.id!r} (from {gauges[new.id].source}); "
            "a Gauge from another upgrade needs its own id",
            ("gauge", "id"),
        )
    current = new.current if new.current is not None else (new.max if new.max is not None else 0)
    gauge = Gauge(
        name=new.name,
        max=new.max,
        current=current,
        source=new.source,
        nature=new.nature,
        compatibility=new.compatibility,
    )
    same_name = sorted(gid for gid, g in gauges.items() if g.name == new.name)
    gained = Step(
        rule="EP-9",
        text=f"{new.name} from {new.source}: {current}"
        + (f"/{new.max}" if new.max is not None else " (no maximum)")
        + (f"; separate from {', '.join(same_name)}" if same_name else ""),
        data={"gauge": new.id, "current": current, "max": new.max},
        key="EP-9.gained",
    )
    conflicts = tuple(gauge_conflicts(new.id, gauge, pools, gauges))
    steps = (
        gained,
        *(
            Step(rule=c.rule, text=f"{c.text}: annihilated", data=c.data, key=CONFLICT_KEYS[c.rule])
            for c in conflicts
        ),
    )
    return GaugeGain(gauge, steps, conflicts)
