"""Detection actions (DET-1..9): `move`, `contest`, the round's stage-three contests, the GM's pins
and reveals, and the `explain` query; `attackCheck` (DET-10) is `attack.py`'s, registered here. The
decisions are `rules.detection`'s; the matrix and its caches are the world's
`document.visibility.VisibilityIndex` (`Context.visibility`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import add, ge, is_, is_not, itemgetter, not_
from typing import Annotated, Any, Literal, cast

from pydantic import Field

from vtt_bridge.actions import Context, Handler, QueryHandler, Ruling
from vtt_bridge.actions.attack import AttackCheckQuery, attack_check
from vtt_bridge.document.areas import area_steps
from vtt_bridge.document.models import (
    Actor,
    Id,
    LocatePin,
    NotFound,
    PinUntil,
    Scene,
    TargetPins,
    Unapplied,
    UntilRound,
    WorldState,
    pending_cells,
    replaced,
)
from vtt_bridge.document.pins import pin_for
from vtt_bridge.document.visibility import (
    Contests,
    Pair,
    Pairs,
    Visibility,
    VisibilityIndex,
    scale_squared,
    token_actor,
)
from vtt_bridge.rules.common import Flag, RuleModel, RuleViolation, Step, about, counted
from vtt_bridge.rules.detection import (
    STATES,
    AntiKey,
    ContestModifier,
    ContestWin,
    LocateState,
    ObserverProfile,
    Reach,
    StageThreeContest,
    contest,
    contest_level,
    contest_modifiers,
    contest_steps,
    contestable,
    contested_this_round,
    explain_locate,
    keeps_result,
    lapses,
    modifier_dice,
    pair_contest_steps,
    spots_nothing,
    standing_steps,
)
from vtt_bridge.rules.dice import Roll, Roller, SuppliedDice, active_wins, active_wins_each, roll_pools
from vtt_bridge.rules.energy import Attribute

TokenId = Id
"""A document id (`document.models.Id`)."""
Coordinate = Annotated[float, Field(strict=True, ge=-1e9, le=1e9, allow_inf_nan=False)]
D10 = Annotated[int, Field(strict=True, ge=1, le=10)]

_DEFAULT_SCENE = Scene(id="default")


def explain(state: WorldState, observer: str, target: str, index: VisibilityIndex) -> list[Step]:
    """How the observer token locates the target token, rule by rule, with the numbers."""
    pair = index.pair(state, observer, target, ("observer", "target"))
    conditions = pair.observer.conditions
    stages = explain_locate(
        pair.observer.detection,
        pair.target.anti_detection,
        humanoid=pair.observer.humanoid,
        blinded=conditions.get("blinded", False),
        deafened=conditions.get("deafened", False),
        distance2=pair.distance2,
    )
    distance = math.sqrt(pair.distance2)
    units = (state.scene or _DEFAULT_SCENE).grid_units
    result = state.contests.get(observer, {}).get(target)
    now = pair.standing(result)
    round_number = state.scene.round if state.scene is not None else 0
    located = STATES[now.level].value
    best_means = (stages.steps[-1].data or {}).get("means") if stages.steps else None
    decided = (
        "DET-8" if now.level != stages.state.level else (stages.steps[-1].rule if stages.steps else "DET-6")
    )
    summary = {"observer": observer, "target": target, "result": located, "means": best_means}
    out = [
        Step(
            rule="DET-4",
            text=f"{observer} locates {target} {located}"
            + (f": {best_means}, {decided}" if best_means else f": {decided}"),
            data={**summary, "decidedBy": decided},
            key="DET-4.summary",
        ),
        Step(
            rule="DET-5",
            text=f"{observer} → {target}: distance {distance:.2f} {units} (3D, elevation included)",
            data={"observer": observer, "target": target, "distance": distance, "units": units},
            key="DET-5.distance",
        ),
        *about(
            (*stages.steps, *standing_steps(result, now, round_number, bool(pair.key), stages.state.level)),
            observer=observer,
            target=target,
        ),
        Step(
            rule="DET-4",
            text=f"{observer} locates {target}: {located}",
            data=summary,
            key="DET-4.locate",
        ),
    ]
    pin = pin_for(state.pins.get(target), observer)
    if pin is not None:
        until = pin.until if isinstance(pin.until, str) else pin.until.model_dump(mode="json")
        out.append(
            Step(
                rule="PIN",
                text=f"pinned by {pin.by or 'the GM'}: {observer} locates {target}: {pin.state.value}",
                data={
                    "observer": observer,
                    "target": target,
                    "result": pin.state.value,
                    "rules": located,
                    "by": pin.by,
                    "until": until,
                },
                key="PIN.explain",
            )
        )
    return out


def _within(limit: float | None, distance2: float) -> bool:
    return limit is not None and distance2 <= limit * limit


def _distance_circumstances(
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


def _hider_circumstances(target: Actor) -> tuple[bool | int, ...]:
    """DET-9's circumstances that depend on the hider alone (its last turn, its smell, its wounds)."""
    last = target.last_turn
    return (
        last.attacked,
        last.made_sound,
        target.unusual_smell,
        last.moved_over_half_speed,
        target.wound_penalty,
    )


def _args_of(
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


def _modifier_args(
    observer: Actor, target: Actor, profile: ObserverProfile, distance2: float, unlocated: bool, noisy: bool
) -> tuple[bool | int, ...]:
    """DET-9's circumstances of one pair, in `contest_modifiers`' order."""
    near = _distance_circumstances(observer, profile, distance2)
    return _args_of(unlocated, noisy, near, observer.wound_penalty, _hider_circumstances(target))


def _modifiers(args: tuple[bool | int, ...]) -> tuple[ContestModifier, ...]:
    """`contest_modifiers` of `_modifier_args`."""
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


def _observer_base(observer: Actor) -> int:
    """DET-8: PER + Investigation."""
    return observer.attributes.get(Attribute.PER, 0) + observer.skills.get("investigation", 0)


def _hider_base(target: Actor) -> int:
    """DET-8: DEX + Stealth."""
    return target.attributes.get(Attribute.DEX, 0) + target.skills.get("stealth", 0)


def _bases(observer: Actor, target: Actor) -> tuple[int, int]:
    """DET-8: PER + Investigation against DEX + Stealth."""
    return _observer_base(observer), _hider_base(target)


_Step = tuple[int, int, int, int, int]
"""One step of `_pair_steps`: stage two, capability, the distance circumstances as bits (hearing 8,
smell 4, approximate range 2, sensory range 1), the level after a lost and after a won contest."""


def _pair_steps(
    observer: Actor, profile: ObserverProfile, reach: Reach
) -> tuple[list[float], list[_Step | None]]:
    """DET-6..9 of an observer against every target of one anti-detection as one step function of
    distance²: per step, what `_run_contest` looks up per pair (stage two, capability, the distance
    circumstances, the level a loss and a win leave), or None where no contest applies
    (`contestable`). The level at d² is `steps[bisect_left(limits, d²)]`. Each lookup merged here is
    constant between two of the merged limits and closed at the upper one, as `Reach.at` and
    `_within` are, so its value at a step's upper limit is its value on the whole step."""
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
    steps: list[_Step | None] = []
    for at in (*limits, math.inf):
        stage_two, capability = reach.at(at), profile.capability.at(at)
        if not contestable(stage_two, capability, True):
            steps.append(None)
            continue
        hearing, smell, approximate, sensory = _distance_circumstances(observer, profile, at)
        bits = hearing << 3 | smell << 2 | approximate << 1 | sensory
        lost, won = contest_level(stage_two, capability, False), contest_level(stage_two, capability, True)
        steps.append((stage_two, capability, bits, lost, won))
    return limits, steps


def _near(bits: int) -> tuple[bool, bool, bool, bool]:
    """The distance circumstances of `_Step`'s bits."""
    return bool(bits & 8), bool(bits & 4), bool(bits & 2), bool(bits & 1)


_Shape = tuple[ObserverProfile, float | None, float | None]
"""What an observer's steps against one anti-detection depend on: its profile and its approximate
and sensory ranges (`_pair_steps`)."""

_NO_CONTEST = -1
"""A `ContestGeometry` column's value where no contest applies (or the hider is the observer)."""

_GEOMETRY_LIMIT = 4096
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
    shape: _Shape
    version: int
    at: list[int]
    targets: list[str]
    codes: list[int]


class ContestGeometry:
    """DET-6..9's geometry of a round's stage-three contests, kept from round to round: per observer,
    the hiders it contests and the step of `_pair_steps` at their distance (an index into `entries`,
    which holds each distinct `_Step` once). A row holds for its observer's position and shape and
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
        self.entries: list[_Step] = []
        self.entry_ids: dict[_Step, int] = {}
        self.tables: dict[tuple[_Shape, AntiKey], tuple[list[float], list[int]]] = {}
        """`_pair_steps` of a shape against an anti-detection: its limits, its steps as doubled
        entry ids (`_NO_CONTEST` where none)."""
        self.hiders: list[tuple[str, AntiKey]] = []
        self.ids: list[str] = []
        self.positions: list[tuple[float, float, float]] = []
        self.self_at: dict[str, int] = {}
        self.scale2 = math.nan
        self.shapes: dict[_Shape, list[_HiderSteps]] = {}
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
        if len(self.tables) > _GEOMETRY_LIMIT:
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

    def _table(self, shape: _Shape, key: AntiKey, observer: Actor) -> tuple[list[float], list[int]]:
        found = self.tables.get((shape, key))
        if found is None:
            profile = shape[0]
            limits, steps = _pair_steps(observer, profile, profile.reach(key))
            codes = []
            for step in steps:
                entry = None if step is None else self.entry_ids.get(step)
                if step is not None and entry is None:
                    entry = self.entry_ids[step] = len(self.entries)
                    self.entries.append(step)
                codes.append(_NO_CONTEST if entry is None else 2 * entry)
            found = self.tables[(shape, key)] = (limits, codes)
        return found

    def _hiders_for(self, shape: _Shape, observer: Actor) -> list[_HiderSteps]:
        found = self.shapes.get(shape)
        if found is None:
            found = []
            for (x, y, z), (_, key) in zip(self.positions, self.hiders, strict=True):
                limits, codes = self._table(shape, key, observer)
                found.append((x, y, z, limits, codes, limits[-1] if limits else -math.inf, codes[-1]))
            self.shapes[shape] = found
        return found

    def row(self, observer: str, position: tuple[float, float, float], shape: _Shape, actor: Actor) -> _Row:
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
                column[own] = _NO_CONTEST
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


_CODE_SHIFT = 16
"""A contest's DET-9 code is `hider class << _CODE_SHIFT | 2 * entry | unlocated`; the entries are
distinct `_Step` values (at most 3 * 3 * 16 * 3 * 3 of them), so `2 * entry + 1` stays below it."""

_Found = tuple[int, int, tuple[ContestModifier, ...]]


class _Pools(dict[int, _Found]):
    """DET-8/9 for observers of one pool base and wound penalty: a contest's code -> the observer's
    pool, the hider's pool and the modifiers, computed the first time a code comes."""

    __slots__ = ("base", "classes", "entries", "noisy", "wound")

    def __init__(
        self,
        base: int,
        wound: int,
        noisy: bool,
        classes: list[tuple[tuple[bool | int, ...], int]],
        entries: list[_Step],
    ) -> None:
        super().__init__()
        self.base, self.wound, self.noisy, self.classes, self.entries = base, wound, noisy, classes, entries

    def __missing__(self, code: int) -> _Found:
        part, hider_base = self.classes[code >> _CODE_SHIFT]
        step = self.entries[(code & ((1 << _CODE_SHIFT) - 1)) >> 1]
        mods = _modifiers(_args_of(bool(code & 1), self.noisy, _near(step[2]), self.wound, part))
        observer_dp, hider_dp = modifier_dice(mods)
        found = self[code] = (self.base + observer_dp, hider_base + hider_dp, mods)
        return found


def _run_contest(
    state: WorldState,
    pair: Pair,
    current: LocateState,
    observer_roller: Roller,
    hider_roller: Roller,
) -> StageThreeContest:
    """DET-8/9 for one pair: pools, modifiers, rolls."""
    noisy = state.scene.noisy if state.scene is not None else False
    unlocated = current is LocateState.UNLOCATED
    args = _modifier_args(pair.observer, pair.target, pair.senses.profile, pair.distance2, unlocated, noisy)
    observer_base, hider_base = _bases(pair.observer, pair.target)
    return contest(observer_base, hider_base, _modifiers(args), observer_roller, hider_roller)


def _record(
    index: VisibilityIndex,
    visibility: Visibility,
    contests: Contests,
    pair: Pair,
    stage_two: int,
    capability: int,
    won: bool,
    round_number: int,
) -> LocateState:
    """DET-8: write a contest's result and the pair's new state into the matrix being built."""
    level = contest_level(stage_two, capability, won)
    wins = dict(contests.get(pair.observer_id, {}))
    if keeps_result(won, round_number):
        wins[pair.target_id] = index.result(STATES[stage_two], round_number, won)
    else:
        wins.pop(pair.target_id, None)
    if wins:
        contests[pair.observer_id] = wins
    else:
        contests.pop(pair.observer_id, None)
    row = visibility.get(pair.observer_id, {})
    if row.get(pair.target_id) is not STATES[level]:
        row = dict(row)
        row[pair.target_id] = STATES[level]
        visibility[pair.observer_id] = row
    return STATES[level]


class MoveAction(RuleModel):
    """`move` `{token, x, y, elevation?}`: canvas pixels; elevation in scene units."""

    kind: Literal["move"]
    token: TokenId
    x: Coordinate
    y: Coordinate
    elevation: Coordinate | None = None


def move(state: WorldState, action: MoveAction, ctx: Context) -> Ruling:
    """Move a token; recompute only the pairs that involve it (DET-5..8)."""
    token = state.tokens.get(action.token)
    if token is None:
        raise NotFound(("token",), f"no token {action.token!r} on the scene")
    elevation = token.elevation if action.elevation is None else action.elevation
    moved = token.model_copy(update={"x": action.x, "y": action.y, "elevation": elevation})
    tokens = replaced(state.tokens, action.token, moved)
    after, cells = ctx.visibility.refresh_tokens(
        state, state.model_copy(update={"tokens": tokens}), (action.token,), ctx.unapplied_cells
    )
    if cells is None:
        cells = [
            (observer, target)
            for observer, row in after.visibility.items()
            for target, located in row.items()
            if state.visibility.get(observer, {}).get(target) is not located
        ]
    changed = len(cells) + sum(len(row) for row in pending_cells(after.visibility).values())
    log = (
        Step(
            rule="DET-5",
            text=(
                f"{action.token} moved to ({action.x}, {action.y}, elevation {elevation}); "
                f"{counted(changed, 'pair')} changed"
            ),
            data={"token": action.token, "changedPairs": changed},
            key="DET-5.moved",
        ),
    )
    return Ruling(state=after, log=log)


class ContestDice(RuleModel):
    """DICE-6: the VTT's dice for both sides, in rolling order (10-again rerolls included)."""

    observer: tuple[D10, ...]
    target: tuple[D10, ...]


class ContestAction(RuleModel):
    """`contest` `{observer, target, dice?}`: one stage-three contest now (DET-8), once a round a pair.

    In a combat round a pair that has had its contest of the round, won or lost, is refused.
    """

    kind: Literal["contest"]
    observer: TokenId
    target: TokenId
    dice: ContestDice | None = None


def contest_action(state: WorldState, action: ContestAction, ctx: Context) -> Ruling:
    """DET-8/9: one stage-three contest between two tokens, with engine dice or the VTT's."""
    index = ctx.visibility
    base = index.refresh(state, state)
    pair = index.pair(base, action.observer, action.target, ("observer", "target"))
    if spots_nothing(pair.observer.conditions):
        raise RuleViolation(
            "DET-8", f"{action.observer} is unconscious or dead: it spots nothing", ("observer",)
        )
    if not pair.key:
        raise RuleViolation(
            "DET-6", f"{action.target} has no anti-detection: no contest is needed", ("target",)
        )
    stage_two, capability = pair.stage_two, pair.capability
    if not contestable(stage_two, capability, bool(pair.key)):
        raise RuleViolation(
            "DET-8",
            f"{action.observer} already locates {action.target} as well as its means allow",
            ("observer",),
        )
    round_number = base.scene.round if base.scene is not None else 0
    if contested_this_round(base.contests.get(action.observer, {}).get(action.target), round_number):
        raise RuleViolation(
            "DET-8",
            f"{action.observer} already contested {action.target} in round {round_number}: once per round",
            ("target",),
        )
    current = base.visibility[action.observer][action.target]
    if action.dice is None:
        outcome = _run_contest(base, pair, current, ctx.roller, ctx.roller)
    else:
        observer_dice = SuppliedDice(action.dice.observer, ("dice", "observer"))
        hider_dice = SuppliedDice(action.dice.target, ("dice", "target"))
        outcome = _run_contest(base, pair, current, observer_dice, hider_dice)
        observer_dice.used_up(outcome.observer_roll)
        hider_dice.used_up(outcome.hider_roll)
    visibility = dict(base.visibility)
    contests = dict(base.contests)
    result = _record(
        index, visibility, contests, pair, stage_two, capability, outcome.observer_wins, round_number
    )
    cells: Pairs | None = None
    if base is state:
        cells = [(action.observer, action.target)] if result is not current else []
    after = index.mark_fresh(
        base.model_copy(update={"visibility": visibility, "contests": contests}), state, cells
    )
    log = contest_steps(action.observer, action.target, outcome, stage_two, result)
    return Ruling(state=after, log=tuple(log), rolls=_named_rolls(action.observer, action.target, outcome))


ROUND_DETAIL_LIMIT = 20
"""A round with more stage-three contests than this details only those that changed a pair's state
(a 500-token scene runs thousands each round); the GM can `explain` any other pair."""


def round_contests(state: WorldState, ctx: Context) -> Ruling:
    """DET-8: the new round's stage-three contests, for every pair whose target has anti-detection and
    whose observer (awake and alive) has not pinpointed it in stage two but could; each replaces the
    last result, and in a combat round a loss is kept as the pair's contest of the round. The log
    counts them and details each (dice included) while there are few, else those that changed.

    A pair whose reveal is held for the GM (`settings.approveReveals`) runs no contest: the GM was
    asked once, and the held win stands until the answer (not re-rolled, re-asked or dropped).

    Pairs run observer by observer, targets in token order, the observer's roll before the hider's
    (the dice are drawn in that order). In three passes over columns (one entry per contest): every
    pair's contest is found and its pools summed; all the round's dice are rolled at once
    (`roll_pools`); the results are written. Which pairs contest, at which step of distance, is the
    world's `ContestGeometry` (recomputed only for tokens that moved); the DET-9 modifiers of a pair
    follow from its step, its hider's class (own circumstances and pool base), whether it is
    unlocated and its observer's pool base and wound penalty, one lookup per pair (`_Pools`)."""
    index = ctx.visibility
    base = index.refresh(state, state)
    old_visibility = base.visibility
    visibility: Visibility = dict(old_visibility)
    unapplied: dict[str, dict[str, LocateState]] | None = None
    """The changed cells, when the world asks for them unapplied (`Unapplied`: the rows stay shared,
    the world writes the cells into them at commit); else rows are copied as they change."""
    if ctx.unapplied_cells and base is state and not pending_cells(old_visibility):
        unapplied = {}
        visibility = Unapplied(old_visibility, unapplied)
        visibility.keys_of = old_visibility
    contests = dict(base.contests)
    round_number = base.scene.round if base.scene is not None else 0
    noisy = base.scene.noisy if base.scene is not None else False
    unlocated = LocateState.UNLOCATED
    senses = {tid: index.senses(token_actor(base, tid, tok)) for tid, tok in base.tokens.items()}
    hiders: list[tuple[str, AntiKey]] = []
    positions: list[tuple[float, float, float]] = []
    class_ids: dict[tuple[tuple[bool | int, ...], int], int] = {}
    class_codes: list[int] = []
    """Per hider: its class (its own DET-9 circumstances and pool base) << `_CODE_SHIFT`."""
    for tid, tok in base.tokens.items():
        hidden = senses[tid]
        if hidden.key:
            hiders.append((tid, hidden.key))
            positions.append((tok.x, tok.y, tok.elevation))
            kind = (_hider_circumstances(hidden.actor), _hider_base(hidden.actor))
            class_codes.append(class_ids.setdefault(kind, len(class_ids)) << _CODE_SHIFT)
    geometry = index.round_geometry
    if not isinstance(geometry, ContestGeometry):
        geometry = index.round_geometry = ContestGeometry()
    geometry.begin(hiders, positions, scale_squared(base.scene), base.tokens)
    classes = list(class_ids)
    one_class = len(classes) == 1
    """Every hider of one class (its code 0): the codes need no class added."""
    held: dict[str, set[str]] = {}
    """Observer -> the targets whose reveal to it is held for the GM: its win waits for the answer."""
    for target, asked in base.reveals.items():
        for observer in asked:
            held.setdefault(observer, set()).add(target)
    # pass 1: every contest of the round, in columns
    tables: dict[tuple[int, int], _Pools] = {}
    targets: list[str] = []
    found_mods: list[_Found] = []
    observers: list[tuple[str, int, int]] = []
    """Each observer that contests and the range of its contests in the columns."""
    theirs: list[tuple[list[str], Sequence[int], list[LocateState]]] = []
    """Per entry of `observers`: its targets, codes and current states."""
    for observer, token in base.tokens.items() if hiders else ():
        seen = senses[observer]
        observer_actor = seen.actor
        if spots_nothing(observer_actor.conditions):
            continue
        shape = (seen.profile, observer_actor.approximate_range, observer_actor.sensory_range)
        cells_of = geometry.row(observer, (token.x, token.y, token.elevation), shape, observer_actor)
        at: Sequence[int] = cells_of.at
        their_codes: Sequence[int] = cells_of.codes
        their_targets = cells_of.targets
        waiting = held.get(observer)
        if waiting:
            keep = [target not in waiting for target in their_targets]
            at, their_targets = list(compress(at, keep)), list(compress(their_targets, keep))
            their_codes = list(compress(their_codes, keep))
        if not their_targets:
            continue
        currents = list(map(old_visibility[observer].__getitem__, their_targets))
        wound = observer_actor.wound_penalty
        observer_base = _observer_base(observer_actor)
        pools_of = tables.get((observer_base, wound))
        if pools_of is None:
            pools_of = tables[(observer_base, wound)] = _Pools(
                observer_base, wound, noisy, classes, geometry.entries
            )
        classed = their_codes if one_class else map(add, map(class_codes.__getitem__, at), their_codes)
        pair_codes = map(add, classed, map(is_, currents, repeat(unlocated)))
        first = len(targets)
        found_mods += map(pools_of.__getitem__, pair_codes)
        targets += their_targets
        observers.append((observer, first, len(targets)))
        theirs.append((their_targets, their_codes, currents))
    pools = [0] * (2 * len(found_mods))
    pools[0::2] = map(itemgetter(0), found_mods)
    pools[1::2] = map(itemgetter(1), found_mods)
    # pass 2: the round's dice
    rolled = roll_pools(pools, ctx.roller)
    successes = rolled.successes
    # pass 3: the results
    won = active_wins_each(successes)
    """Per contest, 1 where the observer won (bytes: nothing for the cycle collector to walk)."""
    leaves: list[LocateState] = []
    """Per doubled entry id plus won: the pair's state after the contest."""
    kept: list[ContestWin | None] = []
    """Per doubled entry id plus won: the result the pair keeps, or None."""
    for step in geometry.entries:
        for wins_it in (False, True):
            leaves.append(STATES[step[4] if wins_it else step[3]])
            keeps = keeps_result(wins_it, round_number)
            kept.append(index.result(STATES[step[0]], round_number, wins_it) if keeps else None)
    keep_all = keeps_result(True, round_number) and keeps_result(False, round_number)
    cells: Pairs = []
    changed: list[tuple[str, int, int]] = []
    """The contests that changed a pair's state: observer, column index and the pair's code (its
    step's doubled entry id: each step is looked up for the detailed contests alone)."""
    fresh: dict[str, int] = {}
    """Observer -> how many of its results this round wrote."""
    for (observer, first, end), (their_targets, their_codes, currents) in zip(observers, theirs, strict=True):
        slots = list(map(add, their_codes, won[first:end]))
        old_wins = contests.get(observer)
        wins = dict(old_wins) if old_wins else {}
        if keep_all:
            kept_all = cast(list[ContestWin], kept)
            wins.update(zip(their_targets, [kept_all[slot] for slot in slots], strict=True))
            fresh[observer] = len(slots)
        else:
            results = list(map(kept.__getitem__, slots))
            keep = list(map(is_not, results, repeat(None)))
            wins.update(
                zip(
                    compress(their_targets, keep),
                    compress(cast(list[ContestWin], results), keep),
                    strict=True,
                )
            )
            for target in compress(their_targets, map(not_, keep)):
                wins.pop(target, None)
            fresh[observer] = keep.count(True)
        if wins:
            contests[observer] = wins
        else:
            contests.pop(observer, None)
        now = [leaves[slot] for slot in slots]
        moved = list(map(is_not, now, currents))
        if True in moved:
            moved_targets = list(compress(their_targets, moved))
            if unapplied is not None:
                unapplied[observer] = dict(zip(moved_targets, compress(now, moved), strict=True))
            else:
                row_now = visibility[observer] = dict(old_visibility[observer])
                row_now.update(zip(moved_targets, compress(now, moved), strict=True))
                cells.extend(zip(repeat(observer), moved_targets))
            changed.extend(
                zip(repeat(observer), compress(range(first, end), moved), compress(their_codes, moved))
            )
    ran = len(targets)
    lapsed = _lapse_old_results(index, base, visibility, contests, round_number, cells, unapplied, fresh)
    changed_count = len(cells) + sum(map(len, unapplied.values())) if unapplied is not None else len(cells)
    log: list[Step] = []
    rolls: list[Roll] = []
    if lapsed:
        log.append(
            Step(
                rule="DET-8",
                text=f"{lapsed} stage-three results of earlier rounds lapse: no contest of theirs this round",
                data={"lapsed": lapsed},
                key="DET-8.lapsed",
            )
        )
    if ran:
        every = ran <= ROUND_DETAIL_LIMIT
        shown = (
            [
                (o, i, code)
                for (o, first, end), (_, codes, _) in zip(observers, theirs, strict=True)
                for i, code in zip(range(first, end), codes, strict=True)
            ]
            if every
            else changed
        )
        log.append(
            Step(
                rule="DET-8",
                text=f"stage three, round {round_number}: {counted(ran, 'contest')}, {changed_count} changed "
                f"a pair's state" + ("" if every else f"; the {len(shown)} that changed are detailed"),
                data={
                    "round": round_number,
                    "contests": ran,
                    "changed": changed_count,
                    "detailed": len(shown),
                },
                key="DET-8.round",
            )
        )
        named = rolled.named
        entries = geometry.entries
        for observer, i, code in shown:
            step = entries[code >> 1]
            target = targets[i]
            observer_roll = named(2 * i, observer, "spot")
            hider_roll = named(2 * i + 1, target, "hide")
            level = step[4] if active_wins(observer_roll.successes, hider_roll.successes) else step[3]
            log += pair_contest_steps(
                observer,
                target,
                pools[2 * i],
                pools[2 * i + 1],
                found_mods[i][2],
                observer_roll,
                hider_roll,
                step[0],
                level,
            )
            rolls += (observer_roll, hider_roll)
    after = index.mark_fresh(
        base.model_copy(update={"visibility": visibility, "contests": contests}),
        state,
        cells if base is state else None,
    )
    return Ruling(state=after, log=tuple(log), rolls=tuple(rolls))


def _named_rolls(observer: str, target: str, outcome: StageThreeContest) -> tuple[Roll, Roll]:
    """DET-8: the contest's two rolls, each named: the observer's to spot, the hider's to hide."""
    return outcome.observer_roll.of(observer, "spot"), outcome.hider_roll.of(target, "hide")


def _lapse_old_results(
    index: VisibilityIndex,
    base: WorldState,
    visibility: Visibility,
    contests: Contests,
    round_number: int,
    cells: Pairs,
    unapplied: dict[str, dict[str, LocateState]] | None = None,
    fresh: Mapping[str, int] | None = None,
) -> int:
    """DET-8: a result holds until the next round's contest. The round's contests have replaced the
    results of the pairs they ran; a win of another round whose pair ran no contest now (its observer
    out of range, out cold) lapses too, and the pair is back at its stage two. A win whose reveal is
    held for the GM (`reveals`) waits for the answer instead. Returns how many lapsed. With
    `unapplied` (the round's cells not yet written, `Unapplied`), its changed cells go there. An
    observer all of whose results `fresh` counts as this round's has none to lapse."""
    lapsed = 0
    held = base.reveals
    fresh = fresh or {}
    for observer, wins in list(contests.items()):
        if fresh.get(observer) == len(wins):
            continue
        old = [
            target
            for target, win in wins.items()
            if lapses(win, round_number) and not (held and observer in held.get(target, ()))
        ]
        if not old:
            continue
        kept = {target: win for target, win in wins.items() if target not in old}
        if kept:
            contests[observer] = kept
        else:
            del contests[observer]
        for target in old:
            lapsed += 1
            if observer not in base.tokens or target not in base.tokens:
                continue
            level = index.pair(base, observer, target, ("observer", "target")).stage_two
            row = visibility[observer]
            if unapplied is not None:
                if row.get(target) is not STATES[level]:
                    unapplied.setdefault(observer, {})[target] = STATES[level]
                continue
            if row.get(target) is not STATES[level]:
                row = visibility[observer] = dict(row)
                row[target] = STATES[level]
                cells.append((observer, target))
    return lapsed


class ExplainQuery(RuleModel):
    """`query` `{kind: "explain", observer, target}`."""

    kind: Literal["explain"]
    observer: TokenId
    target: TokenId


def explain_query(state: WorldState, query: ExplainQuery, index: VisibilityIndex) -> dict[str, Any]:
    """`explain`: how the observer locates the target, rule by rule: `{observer, target, locate, log}`."""
    steps = explain(state, query.observer, query.target, index)
    final = steps[-1].data or {}
    steps.extend(area_steps(state, query.observer, query.target))
    return {
        "observer": query.observer,
        "target": query.target,
        "locate": final["result"],
        "log": [step.payload() for step in steps],
    }


class PinLocateAction(RuleModel):
    """`pinLocate` `{observer?, target, state, until, by?}`: the GM pins how a token locates another.

    No `observer`: every observer. The pin is laid over the rules' state until `until` (`"scene"`,
    `{"round": N}`: released when round N+1 begins, `"move"`: when either token moves). `by` names
    who set it."""

    kind: Literal["pinLocate"]
    observer: TokenId | None = None
    target: TokenId
    state: LocateState
    until: PinUntil
    by: Annotated[str, Field(strict=True, max_length=200)] = ""


class ReleaseLocateAction(RuleModel):
    """`releaseLocate` `{observer?, target}`: end a pin (no `observer`: the one for every observer)."""

    kind: Literal["releaseLocate"]
    observer: TokenId | None = None
    target: TokenId


def _pin_tokens(state: WorldState, observer: str | None, target: str) -> None:
    if target not in state.tokens:
        raise NotFound(("target",), f"no token {target!r} on the scene")
    if observer is not None:
        if observer not in state.tokens:
            raise NotFound(("observer",), f"no token {observer!r} on the scene")
        if observer == target:
            raise RuleViolation(
                "DET-4", "an observer and its target must be two different tokens", ("target",)
            )


def _who(observer: str | None) -> str:
    return "every observer" if observer is None else observer


def pin_locate(state: WorldState, action: PinLocateAction, ctx: Context) -> Ruling:
    """Pin a pair (or a target against every observer) to a state; the world lays it over the matrix
    (`document.pins`). A round already past is refused."""
    _pin_tokens(state, action.observer, action.target)
    round_number = state.scene.round if state.scene is not None else 0
    until = action.until
    if isinstance(until, UntilRound) and until.round < round_number:
        raise RuleViolation(
            "PIN", f"round {until.round} is past: the scene is in round {round_number}", ("until", "round")
        )
    pin = LocatePin(state=action.state, until=until, by=action.by)
    old = state.pins.get(action.target, TargetPins())
    pins = (
        TargetPins(every=pin, observers=old.observers)
        if action.observer is None
        else TargetPins(every=old.every, observers={**old.observers, action.observer: pin})
    )
    shown = until if isinstance(until, str) else f"the end of round {until.round}"
    step = Step(
        rule="PIN",
        text=f"{action.by or 'the GM'} pins how {_who(action.observer)} locates {action.target}: "
        f"{action.state.value} until {shown}",
        data={
            "observer": action.observer,
            "target": action.target,
            "state": action.state.value,
            "until": until if isinstance(until, str) else until.model_dump(mode="json"),
            "by": action.by,
        },
        key="PIN.pinned",
    )
    return Ruling(state=state.model_copy(update={"pins": {**state.pins, action.target: pins}}), log=(step,))


def release_locate(state: WorldState, action: ReleaseLocateAction, ctx: Context) -> Ruling:
    """Release a pin; the pair gets the rules' state back. A pin that is not there is refused."""
    _pin_tokens(state, action.observer, action.target)
    old = state.pins.get(action.target)
    held = (
        None
        if old is None
        else (old.every if action.observer is None else old.observers.get(action.observer))
    )
    if old is None or held is None:
        raise RuleViolation(
            "PIN", f"no pin on how {_who(action.observer)} locates {action.target}", ("target",)
        )
    if action.observer is None:
        left = TargetPins(observers=old.observers)
    else:
        left = TargetPins(
            every=old.every, observers={o: p for o, p in old.observers.items() if o != action.observer}
        )
    pins = dict(state.pins)
    if left.every is None and not left.observers:
        del pins[action.target]
    else:
        pins[action.target] = left
    step = Step(
        rule="PIN",
        text=f"the pin on how {_who(action.observer)} locates {action.target} is released",
        data={"observer": action.observer, "target": action.target, "released": True},
        key="PIN.released",
    )
    return Ruling(state=state.model_copy(update={"pins": pins}), log=(step,))


class ApproveRevealAction(RuleModel):
    """`approveReveal` `{observer, target, accept}`: the GM's answer to a reveal held for approval.

    Accepted, the observer pinpoints the target as the contest said (DET-8); refused, the contest
    counts as lost (kept as the pair's contest of the round in a combat round)."""

    kind: Literal["approveReveal"]
    observer: TokenId
    target: TokenId
    accept: Flag


def approve_reveal(state: WorldState, action: ApproveRevealAction, ctx: Context) -> Ruling:
    """Release a held reveal (`settings.approveReveals`): accepted or refused. None held: refused."""
    _pin_tokens(state, action.observer, action.target)
    row = state.reveals.get(action.target, {})
    if action.observer not in row:
        raise RuleViolation(
            "DET-8", f"no reveal of {action.target} to {action.observer} waits for approval", ("target",)
        )
    reveals = dict(state.reveals)
    left = {o: shown for o, shown in row.items() if o != action.observer}
    if left:
        reveals[action.target] = left
    else:
        del reveals[action.target]
    update: dict[str, Any] = {"reveals": reveals}
    if not action.accept:
        contests = dict(state.contests)
        wins = dict(contests.get(action.observer, {}))
        win = wins.pop(action.target, None)
        round_number = state.scene.round if state.scene is not None else 0
        if win is not None and keeps_result(False, round_number):
            wins[action.target] = ctx.visibility.result(win.stage_two, win.round, False)
        if wins:
            contests[action.observer] = wins
        else:
            contests.pop(action.observer, None)
        update["contests"] = contests
    verdict = "accepted" if action.accept else "refused: the contest counts as lost"
    step = Step(
        rule="DET-8",
        text=f"the GM {verdict} ({action.observer} → {action.target})",
        data={"observer": action.observer, "target": action.target, "accepted": action.accept},
        key="DET-8.accepted" if action.accept else "DET-8.refused",
    )
    return Ruling(state=state.model_copy(update=update), log=(step,))


ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "approveReveal": (ApproveRevealAction, approve_reveal),
    "move": (MoveAction, move),
    "contest": (ContestAction, contest_action),
    "pinLocate": (PinLocateAction, pin_locate),
    "releaseLocate": (ReleaseLocateAction, release_locate),
}
"""Action kind -> (payload model, handler). `round` is shared: the round handler calls `round_contests`."""


QUERIES: dict[str, tuple[type[RuleModel], QueryHandler]] = {
    "explain": (ExplainQuery, explain_query),
    "attackCheck": (AttackCheckQuery, attack_check),
}
"""Query kind -> (payload model, handler returning the `result` body as a model)."""
