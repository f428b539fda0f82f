"""Action handlers: each takes the world's state and one validated action, calls the pure rules and
returns a `Ruling` (the new state, the explanation, the dice). They do no I/O; `engine/world.py` runs them,
derives the server-written fields, builds the patch and hands it to the store.

A handler raises `NotFound` for an unknown actor or token and `RuleViolation` for an action the rules
forbid; either way nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from vtt_bridge.document.models import NONE_WRITTEN, Actor, WorldState, Written
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.rules.common import Step, about
from vtt_bridge.rules.dice import Roll, Roller


@dataclass(frozen=True)
class Context:
    """What a handler may use besides the state: the dice (DICE-6), the world's visibility index,
    and how the world takes the visibility matrix."""

    roller: Roller
    visibility: VisibilityIndex = field(default_factory=VisibilityIndex)
    """The world's visibility index (one per world; a new one, with empty caches, by default)."""
    unapplied_cells: bool = False
    """Whether the handler may leave changed visibility cells unapplied (`document.models.Unapplied`)
    for the world to write into the rows when it commits; False gives plain states."""


@dataclass(frozen=True)
class Ruling:
    """A handler's outcome: the new state (rev not yet bumped), the steps that explain it, the dice rolled."""

    state: WorldState
    log: tuple[Step, ...] = ()
    rolls: tuple[Roll, ...] = field(default=())
    derived: frozenset[str] = frozenset()
    """Actors the handler already derived (HEALTH-3..7) under the state's settings; the world skips them."""
    written: Written = field(default_factory=lambda: NONE_WRITTEN)
    """Actor id -> the fields of that actor the handler may have replaced: every other field of it
    is the very same object as in the state the handler was given. Said only where the handler made
    the actor from that state's actor by replacing those fields (`actions.health`); the world reads
    it only while its map of actors is the very map `state` holds (`World._finish`)."""

    def __init__(
        self,
        state: WorldState,
        log: tuple[Step, ...] = (),
        rolls: tuple[Roll, ...] = (),
        derived: frozenset[str] = frozenset(),
        written: Written = NONE_WRITTEN,
    ) -> None:
        # every action makes one: its fields written at once, not through one `object.__setattr__`
        # call each (the frozen dataclass' own `__init__`)
        vars(self).update(state=state, log=log, rolls=rolls, derived=derived, written=written)


Handler = Callable[[WorldState, Any, Context], Ruling]
"""An action handler: the state and a validated payload in, a ruling out."""

QueryHandler = Callable[[WorldState, Any, VisibilityIndex], dict[str, Any]]
"""A query handler: the state, a validated payload and the world's visibility index in, the answer's
data out (no state change)."""


def naming_actor(handler: Handler) -> Handler:
    """The handler, its ruling's steps naming the action's `actor` where their key declares the field
    (the rules a handler calls do not know whose pools, points or immunities they rule on)."""

    def named(state: WorldState, action: Any, ctx: Context) -> Ruling:
        ruling = handler(state, action, ctx)
        return replace(ruling, log=tuple(about(ruling.log, actor=action.actor)))

    named.__doc__ = handler.__doc__
    return named


def told_of(steps: Iterable[Step], actor_id: str, actor: Actor) -> tuple[Step, ...]:
    """Steps about one of several actors a ruling touches: each text led by the actor's name (its id
    without one), each `data` naming it as `actor`."""
    who = actor.name or actor_id
    return tuple(replace(s, text=f"{who}: {s.text}", data={**s.data, "actor": actor_id}) for s in steps)
