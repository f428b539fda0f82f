"""Stages one and two (DET-5..7) over all of an observer's means: the best level as a step function
of distance (`Reach`), an observer's senses summarised once (`ObserverProfile`), and a pair's state
explained step by step (`explain_locate`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from vtt_bridge.rules.common import Step, counted
from vtt_bridge.rules.detection.means import (
    APPROXIMATE,
    STATES,
    UNLOCATED,
    AntiDetectionMeans,
    AntiKey,
    Capability,
    DetectionMeans,
    LocateState,
    Sense,
    anti_key,
    capability_level,
    condition_allows,
    effective_rank,
    in_range,
    means_level,
    range_squared,
    versus_level,
)


@dataclass(frozen=True, slots=True)
class Reach:
    """The best level over an observer's usable means as a step function of distance².

    `limits` are the ranges² of the steps, ascending; `levels` the level of each step, descending,
    and last the level beyond every step (what the unlimited means give). The level at d² is that
    of the first step whose range² is at least d²: `levels[bisect_left(limits, d²)]`, the one lookup
    the index's fast paths use too.
    """

    limits: tuple[float, ...]
    levels: tuple[int, ...]

    @property
    def beyond(self) -> int:
        """The level past every finite range."""
        return self.levels[-1]

    @property
    def varies(self) -> bool:
        """Whether the level depends on distance at all."""
        return bool(self.limits)

    def at(self, distance2: float) -> int:
        """The level at this distance²."""
        return self.levels[bisect_left(self.limits, distance2)]


def build_reach(entries: Iterable[tuple[float, int]]) -> Reach:
    """DET-7 "best over all usable means": from (range², level) per means, the step function."""
    beyond = UNLOCATED
    finite: dict[float, int] = {}
    for limit, level in entries:
        if limit == math.inf:
            beyond = max(beyond, level)
        else:
            finite[limit] = max(finite.get(limit, UNLOCATED), level)
    steps: list[tuple[float, int]] = []
    best = beyond
    for limit in sorted(finite, reverse=True):
        best = max(best, finite[limit])
        if steps and steps[-1][1] == best:
            continue
        if best > beyond:
            steps.append((limit, best))
    steps.reverse()
    return Reach(limits=tuple(limit for limit, _ in steps), levels=(*(level for _, level in steps), beyond))


class ObserverProfile:
    """An observer's detection, summarised once and shared by every observer with the same senses:
    its usable means (DET-5) and, per target anti-detection, a `Reach` (memoised per instance)."""

    __slots__ = ("_reaches", "capability", "hearing", "humanoid", "smell", "usable")

    def __init__(
        self, detection: Sequence[DetectionMeans], *, humanoid: bool, blinded: bool, deafened: bool
    ) -> None:
        self.humanoid = humanoid
        self.usable = tuple(m for m in detection if condition_allows(m, blinded, deafened))
        self._reaches: dict[AntiKey, Reach] = {}
        self.capability = build_reach((range_squared(m), capability_level(m, humanoid)) for m in self.usable)
        """DET-3/8: the best a stage-three win can reach, by distance."""
        self.hearing = build_reach((range_squared(m), 1) for m in self.usable if m.sense is Sense.HEARING)
        """DET-9: 1 where the observer has usable hearing."""
        self.smell = build_reach((range_squared(m), 1) for m in self.usable if m.sense is Sense.SMELL)
        """DET-9: 1 where the observer has a usable sense of smell."""

    def reach(self, key: AntiKey) -> Reach:
        """DET-6/7: the best level over usable means against a target with this anti-detection."""
        reach = self._reaches.get(key)
        if reach is None:
            reach = build_reach((range_squared(m), means_level(m, key, self.humanoid)) for m in self.usable)
            self._reaches[key] = reach
        return reach


@dataclass(frozen=True, slots=True)
class LocateExplanation:
    """DET-5..7: the state stages one and two give a pair, and the steps that reach it, the last of
    which names that state."""

    state: LocateState
    steps: tuple[Step, ...]


def locate(
    detection: Sequence[DetectionMeans],
    anti_detection: Sequence[AntiDetectionMeans],
    *,
    humanoid: bool,
    blinded: bool = False,
    deafened: bool = False,
    distance2: float = 0.0,
) -> LocateState:
    """DET-5..7: how an observer locates a target by stages one and two (no stage-three win)."""
    return explain_locate(
        detection, anti_detection, humanoid=humanoid, blinded=blinded, deafened=deafened, distance2=distance2
    ).state


def explain_locate(
    detection: Sequence[DetectionMeans],
    anti_detection: Sequence[AntiDetectionMeans],
    *,
    humanoid: bool,
    blinded: bool = False,
    deafened: bool = False,
    distance2: float = 0.0,
) -> LocateExplanation:
    """DET-5..7 one means at a time, with a step per decision a GM may want to check."""
    steps: list[Step] = []
    key = anti_key(anti_detection)
    distance = math.sqrt(distance2)
    if key:
        names = ", ".join(f"{a.name} ({a.essence.value} {a.rank.value})" for a in anti_detection)
        steps.append(
            Step(
                rule="DET-1",
                text=f"stage one: the target has anti-detection: {names}",
                data={
                    "anti": [a.name for a in anti_detection],
                    "antiDetection": [
                        {"name": a.name, "essence": a.essence.value, "rank": a.rank.value}
                        for a in anti_detection
                    ],
                },
                key="DET-1.anti",
            )
        )
    else:
        steps.append(
            Step(
                rule="DET-6",
                text="stage one: the target has no anti-detection; it is exposed",
                data={"exposed": True},
                key="DET-6.exposed",
            )
        )
    best = UNLOCATED
    best_name: str | None = None
    for means in detection:
        label = f"{means.name} ({means.sense.value}, {means.essence.value} {means.rank.value})"
        if not condition_allows(means, blinded, deafened):
            why = "blinded" if means.sense is Sense.SIGHT else "deafened"
            steps.append(
                Step(
                    rule="DET-5",
                    text=f"{label}: unusable, the observer is {why}",
                    data={"means": means.name, "unusable": why},
                    key="DET-5.unusable",
                )
            )
            continue
        if not in_range(means, distance2):
            steps.append(
                Step(
                    rule="DET-5",
                    text=f"{label}: out of range ({distance:.2f} > {means.range})",
                    data={"means": means.name, "distance": distance, "range": means.range},
                    key="DET-5.outOfRange",
                )
            )
            continue
        cap = capability_level(means, humanoid)
        if means.capability is Capability.PINPOINT and cap == APPROXIMATE:
            steps.append(
                Step(
                    rule="DET-3",
                    text=f"{label}: a human-based observer pinpoints only by sight",
                    data={"means": means.name},
                    key="DET-3.humanoid",
                )
            )
        level = means_level(means, key, humanoid)
        if key:
            for essence, rank in key:
                effective = effective_rank(means.essence, means.rank.number, essence)
                versus = versus_level(means, essence, rank, humanoid)
                bump = " (Essences differ: one Rank higher)" if effective != means.rank.number else ""
                if effective > rank and versus == APPROXIMATE:
                    bump += " (capped at approximate by its capability, DET-3)"
                steps.append(
                    Step(
                        rule="DET-2" if effective != means.rank.number else "DET-7",
                        text=(
                            f"{label} counts as Rank {effective}{bump} vs {essence.value} anti-detection "
                            f"Rank {rank}: {STATES[versus].value}"
                        ),
                        data={
                            "means": means.name,
                            "effectiveRank": effective,
                            "antiRank": rank,
                            "result": STATES[versus].value,
                        },
                        key="DET-2.versus" if effective != means.rank.number else "DET-7.versus",
                    )
                )
            worst = STATES[level].value
            steps.append(
                Step(
                    rule="DET-7",
                    text=f"{label}: the anti-detection worst for it gives {worst}",
                    data={"means": means.name, "result": worst},
                    key="DET-7.worst",
                )
            )
        else:
            steps.append(
                Step(
                    rule="DET-6",
                    text=f"{label}: at its capability: {STATES[level].value}",
                    data={"means": means.name, "result": STATES[level].value},
                    key="DET-6.means",
                )
            )
        if best_name is None or level > best:
            best, best_name = level, means.name
    steps.append(
        Step(
            rule="DET-7" if key else "DET-6",
            text=f"best over usable means: {STATES[best].value}" + (f" ({best_name})" if best_name else ""),
            data={"result": STATES[best].value, "means": best_name if best else None},
            key="DET-7.best" if key else "DET-6.best",
        )
    )
    return LocateExplanation(STATES[best], tuple(steps))


def moved_step(token: str, x: float, y: float, elevation: float, changed: int) -> Step:
    """DET-5: a token moved to (x, y, elevation); the pairs whose locate state the move changed,
    `changed`, counted (the visibility index finds them)."""
    return Step(
        rule="DET-5",
        text=f"{token} moved to ({x}, {y}, elevation {elevation}); {counted(changed, 'pair')} changed",
        data={"token": token, "changedPairs": changed},
        key="DET-5.moved",
    )
