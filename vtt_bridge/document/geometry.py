"""DET-6..9's geometry of a round's stage-three contests: per observer, which hiders it contests and at
which step of distance (`ContestGeometry`), kept from round to round by the world's visibility index
(`document.visibility.VisibilityIndex.round_geometry`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Collection
from dataclasses import dataclass
from itertools import compress, repeat
from operator import ge

from vtt_bridge.document.circumstances import distance_circumstances
from vtt_bridge.document.models import Actor
from vtt_bridge.rules.detection import (
    AntiKey,
    ObserverProfile,
    Reach,
    contest_level,
    contestable,
)

ContestStep = tuple[int, int, int, int, int]
"""One step of `pair_steps`: stage two, capability, the distance circumstances as bits (hearing 8,
smell 4, approximate range 2, sensory range 1), the level after a lost and after a won contest."""


def pair_steps(
    observer: Actor, profile: ObserverProfile, reach: Reach
) -> tuple[list[float], list[ContestStep | None]]:
    """DET-6..9 of an observer against every target of one anti-detection as one step function of
    distance²: per step, what a contest looks up per pair (stage two, capability, the distance
    circumstances, the level a loss and a win leave), or None where no contest applies
    (`contestable`). The level at d² is `steps[bisect_left(limits, d²)]`. Each lookup merged here is
    constant between two of the merged limits and closed at the upper one, as `Reach.at` and
    `distance_circumstances` are, so its value at a step's upper limit is its value on the whole
    step."""
    ranges = (observer.approximate_range, observer.sensory_range)
    limits = sorted(
        {
            *reach.limits,
            *profile.capability.limits,
            *profile.hearing.limits,
            *profile.smell.limits,
            *(r * r for r in ranges if r is not None),
        }
    )
    steps: list[ContestStep | None] = []
    for at in (*limits, math.inf):
        stage_two, capability = reach.at(at), profile.capability.at(at)
        if not contestable(stage_two, capability, True):
            steps.append(None)
            continue
        hearing, smell, approximate, sensory = distance_circumstances(observer, profile, at)
        bits = hearing << 3 | smell << 2 | approximate << 1 | sensory
        lost, won = contest_level(stage_two, capability, False), contest_level(stage_two, capability, True)
        steps.append((stage_two, capability, bits, lost, won))
    return limits, steps


def near(bits: int) -> tuple[bool, bool, bool, bool]:
    """The distance circumstances of `ContestStep`'s bits."""
    return bool(bits & 8), bool(bits & 4), bool(bits & 2), bool(bits & 1)


Shape = tuple[ObserverProfile, float | None, float | None]
"""What an observer's steps against one anti-detection depend on: its profile and its approximate
and sensory ranges (`pair_steps`)."""

NO_CONTEST = -1
"""A `ContestGeometry` column's value where no contest applies (or the hider is the observer)."""

GEOMETRY_LIMIT = 4096
"""At most this many step tables in a `ContestGeometry`; past it, it starts afresh."""

_HiderSteps = tuple[float, float, float, list[float], list[int], float, int]
"""A hider's position and a shape's step table against it (`ContestGeometry.tables`), with the table's
last limit and its step past every limit."""


@dataclass(slots=True)
class _Row:
    """One observer's contests in a `ContestGeometry`, for one position and shape and the hider
    positions of `version`: the hider indices (ascending), token ids and doubled entry ids of the
    hiders it contests."""

    position: tuple[float, float, float]
    shape: Shape
    version: int
    at: list[int]
    targets: list[str]
    codes: list[int]


class ContestGeometry:
    """DET-6..9's geometry of a round's stage-three contests, kept from round to round: per observer,
    the hiders it contests and the step of `pair_steps` at their distance (an index into `entries`,
    which holds each distinct `ContestStep` once). A row holds for its observer's position and shape and
    for the hiders' ids, anti-detection and positions it was computed with: `begin` and `row`
    recompute what changed (a moved hider: its cell in every row; a moved observer: its row), so a
    row is always what computing it afresh gives."""

    __slots__ = (
        "entries",
        "entry_ids",
        "hiders",
        "ids",
        "moved",
        "positions",
        "rows",
        "scale2",
        "self_at",
        "shapes",
        "tables",
        "version",
    )

    def __init__(self) -> None:
        self.entries: list[ContestStep] = []
        self.entry_ids: dict[ContestStep, int] = {}
        self.tables: dict[tuple[Shape, AntiKey], tuple[list[float], list[int]]] = {}
        """`pair_steps` of a shape against an anti-detection: its limits, its steps as doubled
        entry ids (`NO_CONTEST` where none)."""
        self.hiders: list[tuple[str, AntiKey]] = []
        self.ids: list[str] = []
        self.positions: list[tuple[float, float, float]] = []
        self.self_at: dict[str, int] = {}
        self.scale2 = math.nan
        self.shapes: dict[Shape, list[_HiderSteps]] = {}
        """Per shape, each hider's position and table, in hider order."""
        self.rows: dict[str, _Row] = {}
        self.version = 0
        """Counts the hider positions; a row of the last but one `version` is patched by `moved`."""
        self.moved: list[int] = []
        """The hiders whose position changed from the last `version` but one to the last."""

    def begin(
        self,
        hiders: list[tuple[str, AntiKey]],
        positions: list[tuple[float, float, float]],
        scale2: float,
        tokens: Collection[str],
    ) -> None:
        """Take the round's hiders (token order) and their positions. Other hiders or another scale:
        every row is computed afresh; moved hiders: a new `version`."""
        if len(self.tables) > GEOMETRY_LIMIT:
            self.entries, self.entry_ids, self.tables = [], {}, {}
            self.rows.clear()
            self.shapes.clear()
        if hiders != self.hiders or scale2 != self.scale2:
            self.rows.clear()
            self.hiders, self.scale2 = hiders, scale2
            self.ids = [tid for tid, _ in hiders]
            self.self_at = {tid: j for j, tid in enumerate(self.ids)}
            self.shapes.clear()
        elif positions != self.positions:
            moved = zip(self.positions, positions, strict=True)
            self.moved = [j for j, (was, now) in enumerate(moved) if was != now]
            self.version += 1
            self.shapes.clear()
        self.positions = positions
        if len(self.rows) > len(tokens) or not all(map(tokens.__contains__, self.rows)):
            self.rows = {oid: row for oid, row in self.rows.items() if oid in tokens}

    def _table(self, shape: Shape, key: AntiKey, observer: Actor) -> tuple[list[float], list[int]]:
        found = self.tables.get((shape, key))
        if found is None:
            profile = shape[0]
            limits, steps = pair_steps(observer, profile, profile.reach(key))
            codes = []
            for step in steps:
                entry = None if step is None else self.entry_ids.get(step)
                if step is not None and entry is None:
                    entry = self.entry_ids[step] = len(self.entries)
                    self.entries.append(step)
                codes.append(NO_CONTEST if entry is None else 2 * entry)
            found = self.tables[(shape, key)] = (limits, codes)
        return found

    def _hiders_for(self, shape: Shape, observer: Actor) -> list[_HiderSteps]:
        found = self.shapes.get(shape)
        if found is None:
            found = []
            for (x, y, z), (_, key) in zip(self.positions, self.hiders, strict=True):
                limits, codes = self._table(shape, key, observer)
                found.append((x, y, z, limits, codes, limits[-1] if limits else -math.inf, codes[-1]))
            self.shapes[shape] = found
        return found

    def row(self, observer: str, position: tuple[float, float, float], shape: Shape, actor: Actor) -> _Row:
        """The observer's row for this position and shape (`actor` has them), recomputed where it
        does not hold. Distance² is `distance_squared`'s, observer minus hider, and a step that of
        `bisect_left` (past the last limit: the last step)."""
        row = self.rows.get(observer)
        ox, oy, oz = position
        s2 = self.scale2
        own = self.self_at.get(observer, -1)
        if row is None or row.position != position or row.shape != shape or row.version < self.version - 1:
            column = [
                last
                if (d2 := ((dx := ox - x) * dx + (dy := oy - y) * dy) * s2 + (dz := oz - z) * dz) > top
                else codes[bisect_left(limits, d2)]
                for x, y, z, limits, codes, top, last in self._hiders_for(shape, actor)
            ]
            if own >= 0:
                column[own] = NO_CONTEST
            mask = list(map(ge, column, repeat(0)))
            at = list(compress(range(len(mask)), mask))
            row = _Row(
                position,
                shape,
                self.version,
                at,
                list(compress(self.ids, mask)),
                list(compress(column, mask)),
            )
            self.rows[observer] = row
        elif row.version < self.version:
            hiders = self._hiders_for(shape, actor)
            at, targets, codes = row.at, row.targets, row.codes
            for j in self.moved:
                if j == own:
                    continue
                x, y, z, limits, steps, top, last = hiders[j]
                dx, dy, dz = ox - x, oy - y, oz - z
                d2 = (dx * dx + dy * dy) * s2 + dz * dz
                now = last if d2 > top else steps[bisect_left(limits, d2)]
                pos = bisect_left(at, j)
                if pos < len(at) and at[pos] == j:
                    if now >= 0:
                        codes[pos] = now
                    else:
                        del at[pos], targets[pos], codes[pos]
                elif now >= 0:
                    at.insert(pos, j)
                    targets.insert(pos, self.ids[j])
                    codes.insert(pos, now)
            row.version = self.version
        return row
