"""The derived fields of the state document (HEALTH-3..7, WP-5): `status`, `woundPenalty` and the
derived conditions (`rules.conditions.DERIVED`), computed from an actor's tracks and the world's
settings after every ruling. A client never sets them.
"""

from __future__ import annotations

from vtt_bridge.document.models import Actor, Edited, Settings, WorldState, edited_keys
from vtt_bridge.rules.conditions import Condition
from vtt_bridge.rules.health import HealthStatus, read_tracks, unconscious_from_injuries


def is_unconscious(actor: Actor, settings: Settings, from_injuries: bool | None = None) -> bool:
    """HEALTH-3/4 unless kept conscious (WP-3) or woken; WP-5 (optional) at 0 Willpower.
    `from_injuries`: HEALTH-3/4 read off the tracks already (`read_tracks`)."""
    if from_injuries is None:
        from_injuries = unconscious_from_injuries(actor.health, actor.second_health)
    injured = from_injuries and not actor.willpower.kept_conscious and not actor.health.woken
    drained = settings.__dict__["unconscious_at_zero_willpower"] and (
        actor.willpower.current + actor.willpower.temporary == 0 or actor.willpower.drained
    )
    return injured or drained


_ANNIHILATED, _UNCONSCIOUS, _WORSENING, _DYING, _DEAD = (
    c.value
    for c in (
        Condition.ANNIHILATED,
        Condition.UNCONSCIOUS,
        Condition.WORSENING,
        Condition.DYING,
        Condition.DEAD,
    )
)


DERIVED_FIELDS: frozenset[str] = frozenset(("status", "wound_penalty", "conditions"))
"""The Actor fields `derive_actor` writes (every other field of the actor it gives back is the very
same object)."""


def derive_actor(actor: Actor, settings: Settings) -> Actor:
    """Server-written fields: `status` (HEALTH-6), `woundPenalty` (HEALTH-7, 0 when the optional rule is
    off) and conditions unconscious, worsening, dying, dead.

    Annihilation (EP-2) keeps `dead`. The same object comes back when nothing changes.
    """
    fields = actor.__dict__  # each field read once, not through the model's `__getattr__` hook
    conditions = fields["conditions"]
    reading = read_tracks(fields["health"], fields["second_health"], settings.__dict__["wound_penalty"])
    status = reading.status
    annihilated = bool(conditions.get(_ANNIHILATED, False))
    if annihilated:
        status = HealthStatus.DEAD
    dead = status is HealthStatus.DEAD
    derived = {
        _UNCONSCIOUS: not dead and is_unconscious(actor, settings, reading.out_from_injuries),
        _WORSENING: not dead and reading.worsening,
        _DYING: status is HealthStatus.DYING,
        _DEAD: dead,
    }
    penalty = reading.wound_penalty
    unchanged = derived.items() <= conditions.items()  # each derived condition holds its value
    if unchanged and status == fields["status"] and penalty == fields["wound_penalty"]:
        return actor
    return actor.model_copy(
        update={"status": status, "wound_penalty": penalty, "conditions": {**conditions, **derived}}
    )


def derive(before: WorldState, after: WorldState, done: frozenset[str] = frozenset()) -> WorldState:
    """HEALTH-3..7, WP-5: rederive `status`, `woundPenalty` and the derived conditions of every actor
    that changed (but those in `done`, which the handler derived already)."""
    old, new = before.__dict__, after.__dict__  # the parts, not each read through `__getattr__`
    every = old["settings"] is not new["settings"]
    old_actors, new_actors = old["actors"], new["actors"]
    if not every and old_actors is new_actors:
        return after
    old_get = old_actors.get
    edited = None if every else edited_keys(old_actors, new_actors)
    if edited is not None and edited <= done:
        return after  # the handler derived every actor it replaced
    members = (
        new_actors.items()
        if edited is None
        else [(actor_id, new_actors[actor_id]) for actor_id in edited if actor_id in new_actors]
    )
    updates = {
        actor_id: derived
        for actor_id, actor in members
        if (every or (old_get(actor_id) is not actor and actor_id not in done))
        and (derived := derive_actor(actor, after.settings)) is not actor
    }
    if not updates:
        return after
    actors = Edited(after.actors, frozenset(updates))
    actors.update(updates)
    return after.model_copy(update={"actors": actors})
