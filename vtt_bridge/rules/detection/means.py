"""Detection's vocabulary (DET-1..7): the means and anti-detection, the locate states and their
levels, and what one means does against one anti-detection.

Levels: a locate state is also a number, unlocated 0 < approximate 1 < pinpointed 2 (DET-4), so
"best over means" is `max` and "worst for the observer" is `min`. Distances are compared squared
(scene units²) everywhere, so the matrix fast path and the explanation never disagree at a boundary.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.common import Distance, RuleViolation
from vtt_bridge.rules.ranks import Priced, PricedRank, Rank

MeansName = Annotated[str, Field(strict=True, min_length=1, max_length=100)]


class Essence(StrEnum):
    """DET-1: the four Essences of a means of detection or anti-detection."""

    NATURAL = "natural"
    TECHNOLOGICAL = "technological"
    MAGICAL = "magical"
    ANOMALOUS = "anomalous"


class Sense(StrEnum):
    """The sense a means of detection works through (DET-5 blinds sight, deafens hearing)."""

    SIGHT = "sight"
    HEARING = "hearing"
    SMELL = "smell"
    TOUCH = "touch"
    OTHER = "other"


class Capability(StrEnum):
    """DET-3: the best a means can do."""

    PINPOINT = "pinpoint"
    APPROXIMATE = "approximate"


class LocateState(StrEnum):
    """DET-4: locate states, ordered unlocated < approximate < pinpointed (better for the observer
    is greater). The value is the wire form."""

    PINPOINTED = "pinpointed"
    """The observer knows exactly where the target is."""
    APPROXIMATE = "approximate"
    """The observer knows roughly where: attacks on it are halved (DET-10)."""
    UNLOCATED = "unlocated"
    """The observer does not know where it is."""

    @property
    def level(self) -> int:
        """DET-4: unlocated 0, approximate 1, pinpointed 2 (higher is better for the observer)."""
        return _LEVELS[self]

    @classmethod
    def from_level(cls, level: int) -> LocateState:
        """The state of a level 0..2."""
        return STATES[level]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] < _LEVELS[other]

    def __le__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] <= _LEVELS[other]

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] > _LEVELS[other]

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] >= _LEVELS[other]


class DetectionMeans(Priced):
    """DET-1/3: a means of detection; `name` is the table's own word for it (only `sense`, `essence`,
    `rank`, `capability` and `range` decide); `range` in scene units, None for unlimited; `rank` also
    takes a price (RANK-2)."""

    name: MeansName
    sense: Sense
    essence: Essence = Essence.NATURAL
    rank: PricedRank = Rank.UNRANKED
    capability: Capability = Capability.PINPOINT
    range: Distance | None = None


class AntiDetectionMeans(Priced):
    """DET-1: a means of anti-detection `{name, essence, rank}`; `name` is the table's own word for it
    ("invisibility"): only `essence` and `rank` decide; `rank` also takes a price (RANK-2)."""

    name: MeansName
    essence: Essence = Essence.NATURAL
    rank: PricedRank = Rank.UNRANKED


ORDINARY_SENSES: tuple[DetectionMeans, ...] = (
    DetectionMeans(name="sight", sense=Sense.SIGHT, capability=Capability.PINPOINT),
    DetectionMeans(name="hearing", sense=Sense.HEARING, capability=Capability.APPROXIMATE),
)
"""DET-5: an ordinary eye (natural unranked sight, pinpoint) and ear (hearing, approximate)."""

UNLOCATED = 0
APPROXIMATE = 1
PINPOINTED = 2

STATES: tuple[LocateState, LocateState, LocateState] = (
    LocateState.UNLOCATED,
    LocateState.APPROXIMATE,
    LocateState.PINPOINTED,
)
"""DET-4: the locate state of each level, indexed by level."""

_LEVELS = {state: level for level, state in enumerate(STATES)}

AntiKey = tuple[tuple[Essence, int], ...]
"""A target's anti-detection reduced to what matters: sorted distinct (Essence, Rank number) pairs.
Empty: the target has no anti-detection (stage one)."""


# --- DET-1..7: one means against one anti-detection ------------------------------------------------


def anti_key(anti_detection: Iterable[AntiDetectionMeans]) -> AntiKey:
    """DET-1: the target's anti-detection means as sorted distinct (Essence, Rank number) pairs."""
    return tuple(sorted({(anti.essence, anti.rank.number) for anti in anti_detection}))


def effective_rank(means_essence: Essence, means_rank: int, anti_essence: Essence) -> int:
    """DET-2: the detecting means counts one Rank higher when the Essences differ (S+1 = 6 beats S)."""
    return means_rank + (1 if means_essence is not anti_essence else 0)


def capability_level(means: DetectionMeans, humanoid: bool) -> int:
    """DET-3: the best a means can do; a human-based observer pinpoints only by sight."""
    if means.capability is Capability.PINPOINT and (not humanoid or means.sense is Sense.SIGHT):
        return PINPOINTED
    return APPROXIMATE


def versus_level(means: DetectionMeans, essence: Essence, rank: int, humanoid: bool) -> int:
    """DET-7: one means against one anti-detection: higher → pinpointed (capped, DET-3), equal →
    approximate, lower → unlocated."""
    effective = effective_rank(means.essence, means.rank.number, essence)
    if effective > rank:
        return capability_level(means, humanoid)
    if effective == rank:
        return APPROXIMATE
    return UNLOCATED


def means_level(means: DetectionMeans, key: AntiKey, humanoid: bool) -> int:
    """DET-6/7: a usable means against a target: at its capability without anti-detection (stage
    one), else against the anti-detection means worst for the observer."""
    if not key:
        return capability_level(means, humanoid)
    return min(versus_level(means, essence, rank, humanoid) for essence, rank in key)


def condition_allows(means: DetectionMeans, blinded: bool, deafened: bool) -> bool:
    """DET-5: blinded loses sight-based means, deafened loses hearing-based means."""
    if blinded and means.sense is Sense.SIGHT:
        return False
    return not (deafened and means.sense is Sense.HEARING)


def range_squared(means: DetectionMeans) -> float:
    """A means' range squared, in scene units²; unlimited is infinity."""
    return math.inf if means.range is None else means.range * means.range


def distance_squared(dx: float, dy: float, dz: float, scale_squared: float) -> float:
    """Token distance squared in scene units²: canvas pixels (dx, dy) times (gridDistance /
    gridSize)², plus the elevation difference dz (scene units) squared: 3D Euclidean."""
    return (dx * dx + dy * dy) * scale_squared + dz * dz


def in_range(means: DetectionMeans, distance2: float) -> bool:
    """DET-5 reading: a means reaches a target at a distance not above its range."""
    return distance2 <= range_squared(means)


def check_two_tokens(role: str, token: str, target: str, path: tuple[str | int, ...]) -> None:
    """DET-4: locating is between two tokens: an observer (an attacker, ...: `role`) and a target
    that is another token; one token as both is refused at `path`."""
    if token == target:
        raise RuleViolation("DET-4", f"an {role} and its target must be two different tokens", path)
