"""The detection tests' cast and scenes (tests/actions and tests/document use them), and the
reference computations the fast paths are checked against: an index with empty caches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtt_bridge.actions import Context
from vtt_bridge.document.models import Actor, Scene, Token, WorldState
from vtt_bridge.document.visibility import Contests, Pairs, Visibility, VisibilityIndex
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.rules.detection import ORDINARY_SENSES, LocateState


def recompute_visibility(state: WorldState) -> Visibility:
    """The reference: the whole matrix from scratch, by an index with empty caches."""
    return VisibilityIndex().recompute_visibility(state)


def recompute_contests(state: WorldState) -> Contests:
    """The reference: the standing results that still hold, from scratch."""
    return VisibilityIndex().recompute_contests(state)


def refresh_visibility(before: WorldState, after: WorldState) -> WorldState:
    return VisibilityIndex().refresh(before, after)


def refresh_changes(before: WorldState, after: WorldState) -> tuple[WorldState, Pairs | None]:
    return VisibilityIndex().refresh_changes(before, after)


P, A, U = LocateState.PINPOINTED, LocateState.APPROXIMATE, LocateState.UNLOCATED
SQUARE = 100.0
"""One grid square: 100 px = 1.5 m."""


def actor(**fields: Any) -> Actor:
    return Actor.model_validate({"name": "x", **fields})


GUARD = actor(attributes={"PER": 3}, skills={"investigation": 2})
ASSASSIN = actor(
    attributes={"DEX": 2},
    skills={"stealth": 1},
    antiDetection=[{"name": "invisibility", "essence": "magical", "rank": "C"}],
)
WIZARD = actor(
    detection=[
        *[m.model_dump() for m in ORDINARY_SENSES],
        {"name": "see invisibility", "sense": "sight", "essence": "magical", "rank": "B"},
    ]
)
DOG = actor(
    humanoid=False,
    detection=[
        {"name": "sight", "sense": "sight", "range": 30},
        {"name": "hearing", "sense": "hearing", "rank": "C", "capability": "approximate", "range": 15},
    ],
)


def world(cast: Mapping[str, tuple[Actor, float]], **scene: Any) -> WorldState:
    """One token per actor, `tN` showing `aN`, placed along x (in squares)."""
    state = WorldState(
        scene=Scene.model_validate({"id": "s", **scene}),
        actors={f"a-{name}": who for name, (who, _) in cast.items()},
        tokens={name: Token(actor=f"a-{name}", x=at * SQUARE) for name, (_, at) in cast.items()},
    )
    return refresh_visibility(WorldState(), state)


def ctx(seed: int = 1) -> Context:
    return Context(roller=SeededRoller(seed))


def scene_tavern() -> WorldState:
    return world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2), "wizard": (WIZARD, 4), "dog": (DOG, 6)})


INVISIBLE_HIDER = {
    "name": "Hider",
    "attributes": {"DEX": 2},
    "skills": {"stealth": 1},
    "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
}
"""An invisible actor (DEX 2, Stealth 1, invisibility of Rank C) as a sync's JSON names it."""


def guard_among_hiders(names: list[str] | tuple[str, ...], first_x: int, spacing: int) -> dict[str, Any]:
    """A sync's `state` in combat round 1: a guard (PER 3, Investigation 2) at x 0 and one
    `INVISIBLE_HIDER` per name, from `first_x` on every `spacing` pixels: each contested each round."""
    return {
        "scene": {"id": "s", "round": 1},
        "actors": {
            "guard": {"name": "Guard", "attributes": {"PER": 3}, "skills": {"investigation": 2}},
            **{name: {**INVISIBLE_HIDER, "name": name} for name in names},
        },
        "tokens": {
            "guard": {"actor": "guard", "x": 0},
            **{name: {"actor": name, "x": first_x + spacing * i} for i, name in enumerate(names)},
        },
    }
