"""DET-8/9's inputs read off the actors of a pair: the circumstances that set a stage-three contest's
modifiers (DET-9), in `contest_modifiers`' order, and the pools' bases (DET-8, `rules.detection`).
"""

from __future__ import annotations

from vtt_bridge.document.models import Actor
from vtt_bridge.rules.detection import (
    ContestModifier,
    ObserverProfile,
    contest_modifiers,
    hide_pool_base,
    spot_pool_base,
)
from vtt_bridge.rules.energy import Attribute


def _within(limit: float | None, distance2: float) -> bool:
    return limit is not None and distance2 <= limit * limit


def distance_circumstances(
    observer: Actor, profile: ObserverProfile, distance2: float
) -> tuple[bool, bool, bool, bool]:
    """DET-9's circumstances of a pair that depend on its distance: the observer hears the hider,
    smells it, has it within its approximate range, within its sensory range."""
    return (
        profile.hearing.at(distance2) > 0,
        # a human has a nose though smell is none of its means of detection (DET-3); other creatures
        # smell with a means of theirs
        profile.humanoid or profile.smell.at(distance2) > 0,
        _within(observer.approximate_range, distance2),
        _within(observer.sensory_range, distance2),
    )


def hider_circumstances(target: Actor) -> tuple[bool | int, ...]:
    """DET-9's circumstances that depend on the hider alone (its last turn, its smell, its wounds)."""
    last = target.last_turn
    return (
        last.attacked,
        last.made_sound,
        target.unusual_smell,
        last.moved_over_half_speed,
        target.wound_penalty,
    )


def circumstance_args(
    unlocated: bool,
    noisy: bool,
    near: tuple[bool, bool, bool, bool],
    observer_wound: int,
    hider: tuple[bool | int, ...],
) -> tuple[bool | int, ...]:
    """DET-9's circumstances of one pair from its parts, in `contest_modifiers`' order (a key: pairs
    with the same ones share one modifiers tuple)."""
    hearing, smell, approximate, sensory = near
    attacked, sound, smelly, moved, hider_wound = hider
    return (
        unlocated,
        noisy,
        hearing,
        smell,
        attacked,
        sound,
        smelly,
        moved,
        approximate,
        sensory,
        observer_wound,
        hider_wound,
    )


def modifier_args(
    observer: Actor, target: Actor, profile: ObserverProfile, distance2: float, unlocated: bool, noisy: bool
) -> tuple[bool | int, ...]:
    """DET-9's circumstances of one pair, in `contest_modifiers`' order."""
    near = distance_circumstances(observer, profile, distance2)
    return circumstance_args(unlocated, noisy, near, observer.wound_penalty, hider_circumstances(target))


def modifiers_of(args: tuple[bool | int, ...]) -> tuple[ContestModifier, ...]:
    """`contest_modifiers` of `modifier_args`."""
    unlocated, noisy, hearing, smell, attacked, sound, smelly, moved, approx, sensory, o_wound, h_wound = args
    return contest_modifiers(
        unlocated=bool(unlocated),
        noisy=bool(noisy),
        hearing=bool(hearing),
        smell=bool(smell),
        attacked=bool(attacked),
        made_sound=bool(sound),
        unusual_smell=bool(smelly),
        moved_over_half_speed=bool(moved),
        within_approximate_range=bool(approx),
        within_sensory_range=bool(sensory),
        observer_wound_penalty=int(o_wound),
        hider_wound_penalty=int(h_wound),
    )


def observer_base(observer: Actor) -> int:
    """DET-8: the observer's pool base (`spot_pool_base`) of its sheet."""
    return spot_pool_base(observer.attributes.get(Attribute.PER, 0), observer.skills.get("investigation", 0))


def hider_base(target: Actor) -> int:
    """DET-8: the hider's pool base (`hide_pool_base`) of its sheet."""
    return hide_pool_base(target.attributes.get(Attribute.DEX, 0), target.skills.get("stealth", 0))


def pool_bases(observer: Actor, target: Actor) -> tuple[int, int]:
    """DET-8: PER + Investigation against DEX + Stealth."""
    return observer_base(observer), hider_base(target)
