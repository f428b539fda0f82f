"""The derived fields of the state document (HEALTH-3..7, WP-5): status, wound penalty and the
derived conditions, from an actor's tracks and the world's settings."""

from __future__ import annotations

import pytest

from vtt_bridge.document.derive import derive_actor
from vtt_bridge.document.models import Actor, Settings
from vtt_bridge.rules.healing import HealSource, heal
from vtt_bridge.rules.health import (
    Grade,
    HealthStatus,
    HealthTrack,
    apply_damage,
    unconscious_from_injuries,
    wound_penalty,
)
from vtt_bridge.rules.willpower import Willpower

B, L, A = Grade.BASHING, Grade.LETHAL, Grade.AGGRAVATED


def track(max: int, b: int = 0, lethal: int = 0, a: int = 0, **extra: object) -> HealthTrack:
    return HealthTrack.model_validate({"max": max, "bashing": b, "lethal": lethal, "aggravated": a, **extra})


def _actor(t: HealthTrack, **extra: object) -> Actor:
    return Actor.model_validate({"health": t.model_dump(by_alias=True), **extra})


def test_HEALTH_3_five_lethal_on_five_health_is_unconscious_not_worsening() -> None:
    t = apply_damage(track(5), {L: 5}).track
    derived = derive_actor(_actor(t), Settings())
    assert derived.conditions["unconscious"] is True
    assert derived.conditions["worsening"] is False
    assert derived.conditions["dead"] is False


def test_HEALTH_3_a_healthy_box_wakes_them() -> None:
    t = track(5, 0, 5)
    out = heal(t, None, amount=1, grade="L", source=HealSource.MAGIC)
    assert not unconscious_from_injuries(out.health)
    assert derive_actor(_actor(out.health), Settings()).conditions["unconscious"] is False


def test_HEALTH_3_woken_flag_keeps_them_awake() -> None:
    t = track(5, 0, 5, woken=True)
    assert unconscious_from_injuries(t)
    assert derive_actor(_actor(t), Settings()).conditions["unconscious"] is False


def test_HEALTH_5_derive_actor_dead_and_annihilated() -> None:
    dead = derive_actor(_actor(track(3, 0, 0, 3)), Settings())
    assert dead.status is HealthStatus.DEAD
    assert dead.conditions == {"unconscious": False, "worsening": False, "dying": False, "dead": True}
    annihilated = derive_actor(_actor(track(3), conditions={"annihilated": True}), Settings())
    assert annihilated.conditions["dead"] is True and annihilated.status is HealthStatus.DEAD


def test_HEALTH_6_derive_actor_returns_the_same_object_when_nothing_changes() -> None:
    once = derive_actor(_actor(track(5, 1)), Settings())
    assert once.status is HealthStatus.LIGHTLY
    assert derive_actor(once, Settings()) is once


@pytest.mark.parametrize("enabled", [True, False])
def test_HEALTH_7_wound_penalty_is_derived_onto_the_actor_only_with_the_setting(enabled: bool) -> None:
    hurt = Actor(name="Hero", health=track(7, 0, 2, 3))
    derived = derive_actor(hurt, Settings(wound_penalty=enabled))
    assert derived.wound_penalty == (wound_penalty(hurt.health, True) if enabled else 0)
    assert derived.wound_penalty == (1 if enabled else 0)
    assert derive_actor(derived, Settings(wound_penalty=enabled)) is derived


def test_WP_3_kept_conscious_overrides_injury_unconsciousness_in_derive() -> None:
    t = track(5, 0, 5)
    kept = Actor(health=t, willpower=Willpower(max=2, current=1, kept_conscious=True))
    assert derive_actor(kept, Settings()).conditions["unconscious"] is False
    # ... but not worsening: the 6L example worsens while kept conscious
    kept_worse = Actor(health=track(5, 0, 4, 1), willpower=Willpower(max=2, current=1, kept_conscious=True))
    assert derive_actor(kept_worse, Settings()).conditions["worsening"] is True


def test_WP_5_optional_unconscious_at_zero_willpower() -> None:
    drained = Actor(health=track(5), willpower=Willpower(max=2, current=0))
    assert derive_actor(drained, Settings()).conditions["unconscious"] is False
    assert (
        derive_actor(drained, Settings(unconscious_at_zero_willpower=True)).conditions["unconscious"] is True
    )
    with_temp = Actor(health=track(5), willpower=Willpower(max=2, current=0, temporary=1))
    assert (
        derive_actor(with_temp, Settings(unconscious_at_zero_willpower=True)).conditions["unconscious"]
        is False
    )
