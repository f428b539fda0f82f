"""Willpower (WP-1..6). Logic follows below the model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import Field, model_validator

from vtt_bridge.rules.common import Flag, RuleModel, RuleViolation, Step
from vtt_bridge.rules.health import MAX_HEALTH, Boxes, HealthTrack, unconscious_from_injuries


class Willpower(RuleModel):
    """WP-1: max Willpower (= Will = RES + COM plus changes), what is left, and temporary Willpower (WP-4)."""

    max: Boxes
    current: Boxes
    temporary: Boxes = 0
    kept_conscious: Flag = False
    drained: Flag = False
    """WP-5: Willpower fell to 0 and none has been recovered since (temporary Willpower is not
    recovery), so the optional 0-Willpower unconsciousness lasts (server-written by the rulings)."""
    hunger_scene: Annotated[str, Field(strict=True, max_length=200)] | None = None
    """WP-3: the scene (id; "" without a scene) in which Willpower last kept hunger or thirst at bay."""

    @model_validator(mode="after")
    def _current_fits(self) -> Willpower:
        if self.current > self.max:
            raise ValueError(f"current ({self.current}) exceeds max ({self.max})")
        return self


# --------------------------------------------------------------------------------------------------
# Logic: pure functions from a Willpower to an outcome, the new one with the steps that explain it.


@dataclass(frozen=True, slots=True)
class WillpowerOutcome:
    """Willpower after one WP rule (a spend, a loss, a change of Will) and the steps explaining it."""

    willpower: Willpower
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class WillpowerGain:
    """WP-1/WP-4: Willpower after a gain and the points actually recovered (WP-1, never above max);
    temporary Willpower is not recovery (WP-4), so `recovered` is 0 for it."""

    willpower: Willpower
    recovered: int
    steps: tuple[Step, ...]


PERFECT_BONUS = 3
"""WP-2: the perfect bonus one Willpower buys (DP on a one-roll action, or points of defense)."""


class WillpowerUse(StrEnum):
    """What a Willpower point is spent on (WP-2, WP-3)."""

    ROLL = "roll"
    DEFENSE = "defense"
    STAY_CONSCIOUS = "stayConscious"
    HUNGER = "hunger"


def will(attributes: Mapping[str, int]) -> int:
    """WP-1: Will = Resolve + Composure, the starting max Willpower."""
    return attributes.get("RES", 0) + attributes.get("COM", 0)


def total(willpower: Willpower) -> int:
    """WP-4: Willpower counts as 0 only when neither current nor temporary Willpower is left."""
    return willpower.current + willpower.temporary


def _pay(willpower: Willpower) -> tuple[Willpower, str]:
    """WP-4: temporary Willpower is spent first."""
    if willpower.temporary:
        return willpower.model_copy(update={"temporary": willpower.temporary - 1}), "temporary"
    return willpower.model_copy(update={"current": willpower.current - 1}), "current"


def spend(
    willpower: Willpower,
    use: WillpowerUse,
    *,
    self_aware: bool,
    injured_unconscious: bool,
    extended: bool = False,
    scene: str = "",
) -> WillpowerOutcome:
    """Spend 1 Willpower: WP-2 (+3 perfect bonus), WP-3 (stay conscious; hunger once per scene).

    `self_aware`: not unconscious (or kept conscious); `injured_unconscious`: HEALTH-3/4 holds.
    """
    rule = "WP-2" if use in (WillpowerUse.ROLL, WillpowerUse.DEFENSE) else "WP-3"
    if total(willpower) == 0:
        raise RuleViolation(rule, "no Willpower left to spend", ("use",))
    if use in (WillpowerUse.ROLL, WillpowerUse.DEFENSE):
        if extended:
            raise RuleViolation("WP-2", "Willpower cannot be spent on extended rolls", ("extended",))
        if not self_aware:
            raise RuleViolation("WP-2", "Willpower can only be used while self-aware", ("use",))
    if use is WillpowerUse.STAY_CONSCIOUS:
        if not injured_unconscious:
            raise RuleViolation(
                "WP-3", "only a character unconscious from injuries can pay to stay awake", ("use",)
            )
        if willpower.kept_conscious:
            raise RuleViolation("WP-3", "already kept conscious this round", ("use",))
    if use is WillpowerUse.HUNGER and willpower.hunger_scene == scene:
        raise RuleViolation("WP-3", "Willpower against hunger or thirst only once per scene", ("use",))
    paid, pool = _pay(willpower)
    if total(paid) == 0:
        paid = paid.model_copy(update={"drained": True})
    left = f"{paid.current} left" + (f" + {paid.temporary} temporary" if paid.temporary else "")
    if use is WillpowerUse.ROLL:
        text = f"1 {pool} Willpower: +{PERFECT_BONUS} DP perfect bonus on this one-roll action"
    elif use is WillpowerUse.DEFENSE:
        text = f"1 {pool} Willpower: +{PERFECT_BONUS} perfect bonus to defense against this attack"
    elif use is WillpowerUse.STAY_CONSCIOUS:
        paid = paid.model_copy(update={"kept_conscious": True})
        text = f"1 {pool} Willpower: stays conscious this round (1 hour out of combat)"
    else:
        paid = paid.model_copy(update={"hunger_scene": scene})
        text = f"1 {pool} Willpower: stays conscious 3 hours despite hunger or thirst, then faints anyway"
    step = Step(
        rule=rule,
        text=f"{text}; {left}",
        data={
            "use": use.value,
            "paidFrom": pool,
            "bonus": PERFECT_BONUS if rule == "WP-2" else 0,
            "current": paid.current,
            "temporary": paid.temporary,
        },
        key=f"{rule}.{use.value}",
    )
    return WillpowerOutcome(paid, (step,))


def gain(willpower: Willpower, amount: int, *, temporary: bool = False) -> WillpowerGain:
    """Recover Willpower up to max, or gain temporary Willpower (WP-4: does not stack, the higher stays,
    and is not recovery)."""
    if amount < 0:
        raise ValueError(f"amount must not be negative, got {amount}")
    if temporary:
        if amount > MAX_HEALTH:
            raise RuleViolation("WP-4", f"temporary Willpower {amount} exceeds {MAX_HEALTH}", ("amount",))
        if amount <= willpower.temporary:
            text = f"temporary Willpower does not stack: {willpower.temporary} already held"
            return WillpowerGain(
                willpower,
                0,
                (Step(rule="WP-4", text=text, data={"temporary": willpower.temporary}, key="WP-4.noStack"),),
            )
        new = willpower.model_copy(update={"temporary": amount})
        text = f"temporary Willpower {willpower.temporary} → {amount} (not recovery: wakes no one)"
        return WillpowerGain(
            new, 0, (Step(rule="WP-4", text=text, data={"temporary": amount}, key="WP-4.temporary"),)
        )
    recovered = min(amount, willpower.max - willpower.current)
    if not recovered:
        text = f"Willpower already at max ({willpower.max}): nothing recovered"
        return WillpowerGain(
            willpower, 0, (Step(rule="WP-1", text=text, data={"recovered": 0}, key="WP-1.full"),)
        )
    new = willpower.model_copy(update={"current": willpower.current + recovered, "drained": False})
    text = f"recovers {recovered} Willpower: {willpower.current} → {new.current} of {new.max}"
    return WillpowerGain(
        new,
        recovered,
        (
            Step(
                rule="WP-1",
                text=text,
                data={"recovered": recovered, "current": new.current},
                key="WP-1.recover",
            ),
        ),
    )


def lose(willpower: Willpower, amount: int, *, unconscious_at_zero: bool = False) -> WillpowerOutcome:
    """WP-4: Willpower lost to an ability goes from temporary Willpower first, then current (not below 0);
    WP-5 (`unconscious_at_zero`, the table's setting): at 0 in all the character is unconscious."""
    if amount < 0:
        raise ValueError(f"amount must not be negative, got {amount}")
    from_temporary = min(amount, willpower.temporary)
    from_current = min(amount - from_temporary, willpower.current)
    new = willpower.model_copy(
        update={
            "temporary": willpower.temporary - from_temporary,
            "current": willpower.current - from_current,
            "drained": willpower.drained
            or (total(willpower) == from_temporary + from_current and amount > 0),
        }
    )
    step = Step(
        rule="WP-4",
        text=(
            f"loses {from_temporary + from_current} Willpower ({from_temporary} temporary first, "
            f"{from_current} current); {new.current} + {new.temporary} temporary left"
        ),
        data={"fromTemporary": from_temporary, "fromCurrent": from_current, "current": new.current},
        key="WP-4.lose",
    )
    left = new if from_temporary or from_current else willpower
    if unconscious_at_zero and total(left) == 0:
        knocked_out = Step(
            rule="WP-5",
            text="Willpower is 0: unconscious until 1 is recovered",
            data={"unconscious": True},
            key="WP-5.unconscious",
        )
        return WillpowerOutcome(left, (step, knocked_out))
    return WillpowerOutcome(left, (step,))


def change_will(willpower: Willpower, delta: int) -> WillpowerOutcome:
    """WP-6: Will moves max Willpower; a rise is empty max, a fall drops current above max for good."""
    new_max = max(0, willpower.max + delta)
    if new_max > MAX_HEALTH:
        raise RuleViolation("WP-6", f"max Willpower {new_max} exceeds {MAX_HEALTH}", ("delta",))
    current = min(willpower.current, new_max)
    lost = willpower.current - current
    new = willpower.model_copy(update={"max": new_max, "current": current})
    if delta >= 0:
        text = f"Will {delta:+d}: max Willpower {willpower.max} → {new_max}, empty (no Willpower gained)"
    else:
        text = f"Will {delta:+d}: max Willpower {willpower.max} → {new_max}" + (
            f"; {lost} Willpower above the max is lost for good" if lost else ""
        )
    return WillpowerOutcome(
        new,
        (
            Step(
                rule="WP-6",
                text=text,
                data={"max": new_max, "current": current, "lost": lost},
                key="WP-6.change",
            ),
        ),
    )


def new_round(willpower: Willpower) -> Willpower:
    """WP-3: staying conscious lasts one round; at each new round it has to be paid again."""
    return willpower.model_copy(update={"kept_conscious": False}) if willpower.kept_conscious else willpower


def after_blow(willpower: Willpower) -> Willpower:
    """WP-3: a new blow that gets through knocks a kept-conscious character out unless they pay again."""
    return new_round(willpower)


@dataclass(frozen=True, slots=True)
class WillpowerRecovery:
    """WP-1 recovery and the waking it brings: Willpower after it, the first Health track (the same
    object unless it is woken), and why."""

    willpower: Willpower
    health: HealthTrack
    steps: tuple[Step, ...]


def recover(
    willpower: Willpower,
    amount: int,
    health: HealthTrack,
    second: HealthTrack | None,
    *,
    unconscious_at_zero: bool,
) -> WillpowerRecovery:
    """WP-1 recovery of `amount`. Recovering Willpower wakes a character unconscious from injuries
    (HEALTH-3: the track is marked woken), and one unconscious at 0 Willpower (WP-5, when the table
    plays that option) wakes once it is above 0 again."""
    was_zero = total(willpower) == 0 or willpower.drained
    gained = gain(willpower, amount)
    steps = list(gained.steps)
    if gained.recovered and unconscious_from_injuries(health, second) and not health.woken:
        health = health.model_copy(update={"woken": True})
        steps.append(
            Step(
                rule="HEALTH-3",
                text="recovering Willpower wakes them from their injuries",
                data={"woken": True},
                key="HEALTH-3.woken",
            )
        )
    if gained.recovered and was_zero and unconscious_at_zero:
        steps.append(
            Step(
                rule="WP-5",
                text="Willpower above 0 again: no longer unconscious from it",
                data={"unconscious": False},
                key="WP-5.awake",
            )
        )
    return WillpowerRecovery(gained.willpower, health, tuple(steps))


def check_spender_alive(dead: bool, path: tuple[str | int, ...]) -> None:
    """HEALTH-5 with WP-2: the dead (or annihilated: `dead`) spend no Willpower; refused at `path`."""
    if dead:
        raise RuleViolation("HEALTH-5", "a dead character spends no Willpower", path)


def check_not_a_modifier(modifier_type: str, path: tuple[str | int, ...]) -> None:
    """WP-2: Willpower's +3 DP is spent once per action (`willpower: true`), never given as a modifier
    of the type "willpower"; one is refused at `path`."""
    if modifier_type == "willpower":
        raise RuleViolation(
            "WP-2", "Willpower's +3 DP is `willpower: true`, once per action, not a modifier", path
        )
