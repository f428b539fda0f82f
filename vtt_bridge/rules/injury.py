"""Taking damage (HEALTH-2, 4, 11, 13; WP-3): what the damage IWR-8 lets through does to a
character's Health tracks and Willpower, in the rulebook's order: temporary HP first (HEALTH-11,
never against unavoidable damage), then the track and its overflow into a second one (HEALTH-2,
HEALTH-13), then the re-checks a blow that got through starts (HEALTH-4, HEALTH-3, WP-3). And what
a new round does to the same tracks and Willpower (`round_passes`: HEALTH-4, WP-3, HEALTH-10).

Before all that, whom a damage hits and what an attack's damage counts for (DET-10, IWR-8): it names
its target, an attack also the target's token, unless it goes at a guessed square (where nobody
standing is a miss); an attack that counts half deals half of each instance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vtt_bridge.rules import health as h
from vtt_bridge.rules import willpower as wp
from vtt_bridge.rules.common import NO_SUBJECTS, RuleViolation, Step, quick_init
from vtt_bridge.rules.healing import round_start_healing
from vtt_bridge.rules.iwr import DamageInstance, DealtDamage


def at_guessed_square(target: str | None, attack: bool, token: str | None) -> bool:
    """IWR-8, DET-10: whether a damage goes at a guessed square (True: whoever stands there is hit).
    A damage names its `target`; from an `attack`, also the target's `token`. Only an attack naming
    neither goes at a square; any other mix is refused (`RuleViolation`)."""
    if target is not None:
        if attack and token is None:
            raise RuleViolation("DET-10", "name the target's token with the target", ("attack", "token"))
        return False
    if not attack or token is not None:
        raise RuleViolation(
            "IWR-8",
            "a damage names its target (only an attack at a guessed square may leave it out)",
            ("target",),
        )
    return True


def check_token_shows(token: str | None, shows: str | None, target: str | None) -> None:
    """DET-10: the attack's target token shows the damaged actor (`shows`: the actor the token shows,
    None when there is no such token); else `RuleViolation`."""
    if shows is not None and shows != target:
        raise RuleViolation(
            "DET-10",
            f"token {token!r} shows {shows!r}, not the damaged actor {target!r}",
            ("attack", "token"),
        )


def nobody_at_square(attacker: str) -> Step:
    """DET-10: an attack at a guessed square where nobody stands misses."""
    return Step(
        rule="DET-10",
        text="nobody stands at the guessed square: the attack misses",
        data={"attacker": attacker, "guessed": True, "right": False},
        key="DET-10.noTarget",
    )


@dataclass(frozen=True, slots=True)
class HalvedDamage:
    """DET-10: the instances an attack that counts half deals, and the step that says so."""

    instances: tuple[DamageInstance, ...]
    steps: tuple[Step, ...]


def halve_damage(instances: Sequence[DamageInstance], attacker: str, token: str | None) -> HalvedDamage:
    """DET-10: the damage of an attack that counts half (an approximate target, or a right guess at an
    unlocated one): each instance deals half its amount, rounded down."""
    halved = tuple(instance.model_copy(update={"amount": instance.amount // 2}) for instance in instances)
    step = Step(
        rule="DET-10",
        text="the damage counts half: "
        + ", ".join(f"{a.amount} → {b.amount}" for a, b in zip(instances, halved, strict=True)),
        data={
            "attacker": attacker,
            "target": token,
            "before": [i.amount for i in instances],
            "after": [i.amount for i in halved],
        },
        key="DET-10.damageHalved",
    )
    return HalvedDamage(halved, (step,))


@quick_init
@dataclass(frozen=True, slots=True)
class DamageTaken:
    """The tracks and Willpower after the damage (each the same object when unchanged), and why."""

    health: h.HealthTrack
    second_health: h.HealthTrack | None
    willpower: wp.Willpower
    steps: tuple[Step, ...]


def take_damage(
    dealt: Sequence[DealtDamage],
    health: h.HealthTrack,
    second: h.HealthTrack | None,
    willpower: wp.Willpower,
    subjects: Mapping[str, str] = NO_SUBJECTS,
) -> DamageTaken:
    """HEALTH-11, HEALTH-2/13, HEALTH-4, WP-3 for the damage each instance deals (`DealtDamage`, after
    immunities, weaknesses and resistances). A blow that reaches a track ends a stabilization and a
    waking (HEALTH-4, HEALTH-3) and staying conscious on Willpower (WP-3); none reaching it: HEALTH-2
    says so. `subjects` (the damaged actor: `{"actor": id}`) end the data of HEALTH-2's steps, as
    `about` would add them (`health.spill_damage`)."""
    steps: list[Step] = []
    avoidable: dict[h.Grade, int] = {}
    unavoidable: dict[h.Grade, int] = {}
    for part in dealt:
        into = unavoidable if part.unavoidable else avoidable
        into[part.grade] = into.get(part.grade, 0) + part.amount
    if health.__dict__["temp_hp"]:  # read once, not through the model's `__getattr__` hook
        absorbed = h.absorb_temp_hp(health, avoidable)
        health, avoidable = absorbed.track, absorbed.remaining
        steps.extend(absorbed.steps)
        if any(unavoidable.values()) and health.temp_hp:
            steps.append(
                Step(
                    rule="HEALTH-11",
                    text="temporary HP does not work against unavoidable damage",
                    data={
                        "unavoidable": {
                            g.value: unavoidable[g] for g in h.LIGHTEST_FIRST if unavoidable.get(g)
                        }
                    },
                    key="HEALTH-11.unavoidable",
                )
            )
    amounts = (
        {g: avoidable.get(g, 0) + unavoidable.get(g, 0) for g in h.LIGHTEST_FIRST}
        if unavoidable
        else avoidable
    )
    if not any(amounts.values()):
        steps.append(
            Step(
                rule="HEALTH-2",
                text="no damage reaches the Health track",
                data={"amount": 0},
                key="HEALTH-2.none",
            )
        )
        return DamageTaken(health, second, willpower, tuple(steps))
    taken = h.damage_tracks(health, second, amounts, subjects)
    health, second = taken.health, taken.second_health
    steps.extend(taken.steps)
    if health.__dict__["stabilized"] or (second is not None and second.stabilized):
        steps.append(
            Step(
                rule="HEALTH-4",
                text="new damage: worsening is checked again",
                data={"recheck": True},
                key="HEALTH-4.recheck",
            )
        )
    health = h.clear_after_damage(health)
    second = None if second is None else h.clear_after_damage(second)
    if willpower.__dict__["kept_conscious"]:
        steps.append(
            Step(
                rule="WP-3",
                text="a new blow: Willpower must be paid again to stay conscious",
                data={"lapse": "blow"},
                key="WP-3.blow",
            )
        )
    return DamageTaken(health, second, wp.after_blow(willpower), tuple(steps))


@dataclass(frozen=True, slots=True)
class RoundPassed:
    """The tracks and Willpower after a round (each the same object when unchanged), and why."""

    health: h.HealthTrack
    second_health: h.HealthTrack | None
    willpower: wp.Willpower
    steps: tuple[Step, ...]


def round_passes(
    health: h.HealthTrack,
    second: h.HealthTrack | None,
    willpower: wp.Willpower,
    fast_healing: Sequence[int],
    regeneration: Sequence[int],
    annihilated: bool = False,
) -> RoundPassed:
    """A character's tracks and Willpower after a round, in the rulebook's order: worsening for the
    round that ended (HEALTH-4), staying conscious lapses (WP-3), then fast healing and regeneration
    at the new round's start (HEALTH-10) unless the worsening killed it (HEALTH-6). A dead one
    (HEALTH-6, or annihilated: EP-2) passes the round as it is, the same objects and no steps."""
    if annihilated or h.health_status(health, second) is h.HealthStatus.DEAD:
        return RoundPassed(health, second, willpower, ())
    worsened = h.worsen_tracks(health, second)
    health, second = worsened.health, worsened.second_health
    steps = list(worsened.steps)
    renewed = wp.new_round(willpower)
    if renewed is not willpower:
        steps.append(
            Step(
                rule="WP-3",
                text="a new round: staying conscious must be paid again",
                data={"lapse": "round"},
                key="WP-3.round",
            )
        )
    alive = h.health_status(health, second) is not h.HealthStatus.DEAD
    if alive and (fast_healing or regeneration):
        out = round_start_healing(health, second, fast_healing, regeneration)
        health, second = out.health, out.second_health
        steps.extend(out.steps)
    return RoundPassed(health, second, renewed, tuple(steps))
