"""Detection actions (DET-1..10): the scene's visibility matrix, `move`, `contest`, the round's
stage-three contests, and the `explain` / `attackCheck` queries.

The matrix `WorldState.visibility[observer][target]` holds a `LocateState` for every ordered pair of
distinct tokens. It is derived: `recompute_visibility` builds it from scratch, `refresh_visibility`
recomputes only the pairs a change can touch and keeps every unchanged row the very same dict.
Standing stage-three wins live in `WorldState.contests` (server-written, DET-8).

Speed: observers with the same senses share one `ObserverProfile`; a profile answers per target
anti-detection with a step function of distance (`Reach`), so most rows are a copy of a shared
template. Profiles are memoised by actor identity (a cache only: results never depend on it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import Field

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.document.models import (
    Actor,
    Id,
    NotFound,
    Scene,
    Token,
    Unapplied,
    WorldState,
    edited_keys,
    pending_cells,
    replaced,
    settled,
)
from vtt_bridge.rules.common import Count, RuleModel, RuleViolation, Step
from vtt_bridge.rules.detection import (
    STATES,
    AntiKey,
    AttackConsequence,
    ContestOutcome,
    ContestWin,
    LocateState,
    ObserverProfile,
    Reach,
    SpellKind,
    anti_key,
    attack_consequence,
    contest,
    contest_modifiers,
    distance_squared,
    explain_locate,
    raise_one_step,
)
from vtt_bridge.rules.dice import Roll, Roller, SuppliedDice
from vtt_bridge.rules.energy import Attribute

TokenId = Id
"""A document id (`models.Id`)."""
Coordinate = Annotated[float, Field(strict=True, ge=-1e9, le=1e9, allow_inf_nan=False)]
D10 = Annotated[int, Field(strict=True, ge=1, le=10)]

Visibility = dict[str, dict[str, LocateState]]
Contests = dict[str, dict[str, ContestWin]]

_DEFAULT_SCENE = Scene(id="default")

# --- per-actor summaries ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Summary:
    actor: Actor
    profile: ObserverProfile
    key: AntiKey


_SUMMARIES: dict[int, _Summary] = {}
_PROFILES: dict[tuple[Any, ...], ObserverProfile] = {}
_CACHE_LIMIT = 20_000


def _summary(actor: Actor) -> _Summary:
    """The actor's detection profile and anti-detection key, memoised by identity (a cache)."""
    found = _SUMMARIES.get(id(actor))
    if found is not None and found.actor is actor:
        return found
    if len(_SUMMARIES) > _CACHE_LIMIT:
        _SUMMARIES.clear()
    if len(_PROFILES) > _CACHE_LIMIT:
        _PROFILES.clear()
    blinded = actor.conditions.get("blinded", False)
    deafened = actor.conditions.get("deafened", False)
    shape = (actor.detection, actor.humanoid, blinded, deafened)
    profile = _PROFILES.get(shape)
    if profile is None:
        profile = ObserverProfile(
            actor.detection, humanoid=actor.humanoid, blinded=blinded, deafened=deafened
        )
        _PROFILES[shape] = profile
    found = _Summary(actor=actor, profile=profile, key=anti_key(actor.anti_detection))
    _SUMMARIES[id(actor)] = found
    return found


def _scale_squared(scene: Scene | None) -> float:
    """(gridDistance / gridSize)²: canvas pixels² to scene units²."""
    scene = scene or _DEFAULT_SCENE
    scale = scene.grid_distance / scene.grid_size
    return scale * scale


def _token_actor(state: WorldState, token_id: str, token: Token) -> Actor:
    actor = state.actors.get(token.actor)
    if actor is None:
        raise NotFound(("tokens", token_id, "actor"), f"token {token_id!r} shows no actor ({token.actor!r})")
    return actor


def _pair_distance2(a: Token, b: Token, scale2: float) -> float:
    return distance_squared(a.x - b.x, a.y - b.y, a.elevation - b.elevation, scale2)


def _final_level(
    summary: _Summary, key: AntiKey, distance2: float, win: ContestWin | None
) -> tuple[int, bool]:
    """One pair: (level, whether a standing win is stale). DET-6/7 stage one/two, then DET-8."""
    reach = summary.profile.reach(key)
    level = reach.at(distance2) if reach.steps else reach.beyond
    if win is None:
        return level, False
    if not key or win.stage_two is not STATES[level]:
        return level, True
    if not win.won:
        return level, False
    return raise_one_step(level, summary.profile.capability.at(distance2)), False


# --- the matrix ---------------------------------------------------------------------------------------


def _compute(state: WorldState) -> tuple[Visibility, Contests]:
    """The whole matrix from scratch, and the standing wins that still hold."""
    tokens = state.tokens
    scale2 = _scale_squared(state.scene)
    ids = list(tokens)
    summaries = [_summary(_token_actor(state, tid, tok)) for tid, tok in tokens.items()]
    keys = [s.key for s in summaries]
    xs = [tok.x for tok in tokens.values()]
    ys = [tok.y for tok in tokens.values()]
    zs = [tok.elevation for tok in tokens.values()]
    distinct_keys = list(dict.fromkeys(keys))
    by_profile: dict[int, list[int]] = {}
    profiles: dict[int, ObserverProfile] = {}
    for index, summary in enumerate(summaries):
        by_profile.setdefault(id(summary.profile), []).append(index)
        profiles[id(summary.profile)] = summary.profile
    visibility: Visibility = {}
    for pid, observers in by_profile.items():
        profile = profiles[pid]
        reaches = {key: profile.reach(key) for key in distinct_keys}
        template_values: list[LocateState] = []
        varying: list[tuple[int, tuple[tuple[float, int], ...], int]] = []
        for j, key in enumerate(keys):
            reach = reaches[key]
            template_values.append(STATES[reach.beyond])
            if reach.steps:
                varying.append((j, reach.steps, reach.beyond))
        if not varying:
            template = dict(zip(ids, template_values, strict=True))
            for i in observers:
                row = template.copy()
                del row[ids[i]]
                visibility[ids[i]] = row
            continue
        for i in observers:
            values = template_values.copy()
            x, y, z = xs[i], ys[i], zs[i]
            for j, steps, beyond in varying:
                dx, dy, dz = x - xs[j], y - ys[j], z - zs[j]
                d2 = (dx * dx + dy * dy) * scale2 + dz * dz
                level = beyond
                for limit, step_level in steps:
                    if d2 <= limit:
                        level = step_level
                        break
                values[j] = STATES[level]
            row = dict(zip(ids, values, strict=True))
            del row[ids[i]]
            visibility[ids[i]] = row
    visibility = {tid: visibility[tid] for tid in ids}
    contests: Contests = {}
    for observer, wins in state.contests.items():
        kept: dict[str, ContestWin] = {}
        for target, win in wins.items():
            if observer == target or observer not in tokens or target not in tokens:
                continue
            o_tok, t_tok = tokens[observer], tokens[target]
            o_sum = _summary(_token_actor(state, observer, o_tok))
            t_key = _summary(_token_actor(state, target, t_tok)).key
            level, stale = _final_level(o_sum, t_key, _pair_distance2(o_tok, t_tok, scale2), win)
            if stale:
                continue
            kept[target] = win
            visibility[observer][target] = STATES[level]
        if kept:
            contests[observer] = kept if kept != wins else wins
    return visibility, contests


def recompute_visibility(state: WorldState) -> Visibility:
    """The whole matrix from scratch: `visibility[observer][target]` for every ordered pair of
    distinct tokens (DET-4..8). Raises `NotFound` for a token whose actor is missing."""
    return _compute(state)[0]


def recompute_contests(state: WorldState) -> Contests:
    """The standing stage-three results that still hold, from scratch (DET-8: those whose stage two
    changed are dropped). Raises `NotFound` for a token whose actor is missing."""
    return _compute(state)[1]


Pairs = list[tuple[str, str]]

_FRESH: dict[int, tuple[WorldState, WorldState | None, Pairs | None]] = {}
"""States this module produced (self-consistent matrices), with the state they were computed from
and the cells that changed; a cache only, so the world's refresh after a handler is free."""


_COMPLETE: dict[int, tuple[Visibility, dict[str, Token]]] = {}
"""Matrices this module produced, with the tokens dict they have a row (and column) for each of; a
cache only, which spares a 500-key comparison (10 µs) on every refresh."""


def _mark_fresh(
    state: WorldState, before: WorldState | None = None, pairs: Pairs | None = None
) -> WorldState:
    if len(_FRESH) > 8:
        _FRESH.clear()
        _COMPLETE.clear()
    _FRESH[id(state)] = (state, before, pairs)
    _COMPLETE[id(state.visibility)] = (state.visibility, state.tokens)
    return state


def _complete(state: WorldState) -> bool:
    """Whether the matrix has a row for exactly the scene's tokens (DET-4: every ordered pair)."""
    known = _COMPLETE.get(id(state.visibility))
    if known is not None and known[0] is state.visibility and known[1] is state.tokens:
        return True
    return state.visibility.keys() == state.tokens.keys()


def _full(state: WorldState) -> tuple[WorldState, Pairs | None]:
    visibility, contests = _compute(state)
    contests_out = state.contests if contests == state.contests else contests
    return _mark_fresh(state.model_copy(update={"visibility": visibility, "contests": contests_out})), None


def _senses_changed(before: Actor | None, after: Actor) -> bool:
    if before is after:
        return False
    if before is None:
        return True
    if before.humanoid != after.humanoid:
        return True
    if before.detection is not after.detection and before.detection != after.detection:
        return True
    if before.anti_detection is not after.anti_detection and before.anti_detection != after.anti_detection:
        return True
    if before.conditions is after.conditions:
        return False
    return before.conditions.get("blinded", False) != after.conditions.get(
        "blinded", False
    ) or before.conditions.get("deafened", False) != after.conditions.get("deafened", False)


def _moved(before: Token | None, after: Token) -> bool:
    if before is after:
        return False
    if before is None:
        return True
    return (before.x, before.y, before.elevation, before.actor) != (
        after.x,
        after.y,
        after.elevation,
        after.actor,
    )


def refresh_visibility(before: WorldState, after: WorldState) -> WorldState:
    """`after` with its matrix brought up to date from `before`'s, recomputing only the pairs whose
    observer or target token moved (or was added) or whose actor's senses, anti-detection,
    blinded/deafened or humanoid changed, and the pairs whose standing win changed. Unchanged rows
    stay the very same dicts. Stale wins (stage two changed, DET-8) are dropped."""
    return refresh_changes(before, after)[0]


def refresh_changes(
    before: WorldState, after: WorldState, unapplied_cells: bool = False
) -> tuple[WorldState, Pairs | None]:
    """`refresh_visibility` plus the (observer, target) cells whose state changed from `before`'s
    matrix (None: a full recompute; diff the rows). The world layer calls it after every ruling, with
    `unapplied_cells`: the changed cells of kept rows are then left in a `models.Unapplied` matrix,
    and the pairs name only the other changed cells."""
    if (
        after.visibility is before.visibility
        and after.tokens is before.tokens
        and after.scene is before.scene
        and after.contests is before.contests
    ):
        # Most rulings (damage, healing, Willpower) touch a few actors and nothing of the scene:
        # then only a change of those actors' senses can move the matrix.
        b_actors, a_actors = before.actors, after.actors
        edited = edited_keys(b_actors, a_actors) if a_actors is not b_actors else set()
        if edited is not None and all(
            aid in a_actors and not _senses_changed(b_actors.get(aid), a_actors[aid]) for aid in edited
        ):
            return after, []
    return _refresh(before, after, None, unapplied_cells)


def _refresh(
    before: WorldState, after: WorldState, candidates: Collection[str] | None, unapplied_cells: bool
) -> tuple[WorldState, Pairs | None]:
    """`refresh_changes`. `candidates`, when given, are the only tokens that may differ between the
    two tokens dicts (none added or removed), so the dicts need not be scanned."""
    if pending_cells(before.visibility):
        before = settled(before)  # a handler's own unapplied state, refreshed again: read it plainly
    fresh = _FRESH.get(id(after))
    if fresh is not None and fresh[0] is after:
        if fresh[1] is before:
            return after, fresh[2]
        if before.visibility is after.visibility:
            return after, []
        return after, None
    if not _complete(before) or _scale_squared(before.scene) != _scale_squared(after.scene):
        return _full(after)
    b_tokens, a_tokens = before.tokens, after.tokens
    moved: set[str] = set()
    removed: list[str] = []
    if b_tokens is not a_tokens:
        if candidates is None:
            edited = edited_keys(b_tokens, a_tokens)
            if edited is None:
                candidates = [tid for tid, tok in a_tokens.items() if b_tokens.get(tid) is not tok]
                removed = [tid for tid in b_tokens if tid not in a_tokens]
            else:
                candidates = [tid for tid in edited if tid in a_tokens]
                removed = [tid for tid in edited if tid not in a_tokens and tid in b_tokens]
        moved = {tid for tid in candidates if _moved(b_tokens.get(tid), a_tokens[tid])}
    sensed: set[str] = set()
    if before.actors is not after.actors:
        b_actors, a_actors = before.actors, after.actors
        edited_actors = edited_keys(b_actors, a_actors)
        if edited_actors is None:
            changed = {aid for aid, actor in a_actors.items() if _senses_changed(b_actors.get(aid), actor)}
            changed.update(aid for aid in b_actors if aid not in a_actors)
        else:
            changed = {
                aid
                for aid in edited_actors
                if aid not in a_actors or _senses_changed(b_actors.get(aid), a_actors[aid])
            }
        if changed:
            sensed = {tid for tid, tok in a_tokens.items() if tok.actor in changed}
    dirty = moved | sensed
    pairs: set[tuple[str, str]] = set()
    if before.contests is not after.contests:
        for observer in before.contests.keys() | after.contests.keys():
            b_wins, a_wins = before.contests.get(observer, {}), after.contests.get(observer, {})
            if b_wins is a_wins:
                continue
            pairs.update(
                (observer, target)
                for target in b_wins.keys() | a_wins.keys()
                if b_wins.get(target) != a_wins.get(target)
            )
    if len(dirty) + len(removed) > max(8, len(a_tokens) // 8):
        return _full(after)
    if not dirty and not removed and not pairs:
        if after.visibility is before.visibility:
            return _mark_fresh(after, before, []), []
        return _mark_fresh(after.model_copy(update={"visibility": before.visibility}), before, []), []
    # A token that only moved keeps its actor and senses: only its pairs whose stage two depends on
    # distance can change (DET-5), besides standing wins (DET-8).
    only_moved = {
        tid for tid in moved - sensed if tid in b_tokens and b_tokens[tid].actor == a_tokens[tid].actor
    }
    state, changed_pairs = _incremental(before, after, dirty, only_moved, removed, pairs, unapplied_cells)
    return _mark_fresh(state, before, changed_pairs), changed_pairs


StateSteps = tuple[tuple[float, LocateState], ...]
Varying = list[tuple[str, StateSteps, LocateState]]
"""Tokens whose stage-two state against one observer profile (or one target key) depends on
distance: (token id, (range², state) steps, state beyond every step), as in `Reach`."""


@dataclass(slots=True)
class _Index:
    """Per-token summaries grouped by observer profile and by target anti-detection key, and the
    token positions, valid for one actors dict, one token-to-actor assignment and one tokens dict."""

    actors: dict[str, Actor]
    tokens: dict[str, Token]
    summaries: dict[str, _Summary]
    by_profile: list[tuple[ObserverProfile, list[str]]]
    by_key: list[tuple[AntiKey, list[str]]]
    positions: dict[str, tuple[float, float, float]]
    varying_targets: dict[int, Varying] = field(default_factory=dict)
    """Per observer profile (by id): the targets whose state depends on distance."""
    varying_observers: dict[AntiKey, Varying] = field(default_factory=dict)
    """Per target anti-detection key: the observers whose state depends on distance."""


_INDEX: list[_Index] = []


def _position(token: Token) -> tuple[float, float, float]:
    return token.x, token.y, token.elevation


def _build_index(state: WorldState) -> _Index:
    summaries = {tid: _summary(_token_actor(state, tid, tok)) for tid, tok in state.tokens.items()}
    profiles: dict[int, tuple[ObserverProfile, list[str]]] = {}
    keys: dict[AntiKey, list[str]] = {}
    for tid, summary in summaries.items():
        profiles.setdefault(id(summary.profile), (summary.profile, []))[1].append(tid)
        keys.setdefault(summary.key, []).append(tid)
    positions = {tid: _position(tok) for tid, tok in state.tokens.items()}
    return _Index(
        state.actors, state.tokens, summaries, list(profiles.values()), list(keys.items()), positions
    )


def _index_for(before: WorldState, after: WorldState, dirty: set[str], removed: list[str]) -> _Index:
    """The cached index when only positions changed since it was built, else a new one."""
    if _INDEX:
        index = _INDEX[0]
        if (
            index.actors is after.actors
            and index.tokens is before.tokens
            and not removed
            and all(
                tid in before.tokens and before.tokens[tid].actor == after.tokens[tid].actor for tid in dirty
            )
        ):
            index.tokens = after.tokens
            for tid in dirty:
                index.positions[tid] = _position(after.tokens[tid])
            return index
    index = _build_index(after)
    _INDEX[:] = [index]
    return index


def _state_steps(reach: Reach) -> tuple[StateSteps, LocateState]:
    return tuple((limit, STATES[level]) for limit, level in reach.steps), STATES[reach.beyond]


def _varying_targets(index: _Index, profile: ObserverProfile) -> Varying:
    """DET-6/7: the targets an observer with this profile sees differently at different distances."""
    found = index.varying_targets.get(id(profile))
    if found is None:
        found = []
        for key, members in index.by_key:
            reach = profile.reach(key)
            if reach.steps:
                steps, beyond = _state_steps(reach)
                found.extend((tid, steps, beyond) for tid in members)
        index.varying_targets[id(profile)] = found
    return found


def _varying_observers(index: _Index, key: AntiKey) -> Varying:
    """DET-6/7: the observers that see a target with this anti-detection differently at different
    distances."""
    found = index.varying_observers.get(key)
    if found is None:
        found = []
        for profile, members in index.by_profile:
            reach = profile.reach(key)
            if reach.steps:
                steps, beyond = _state_steps(reach)
                found.extend((oid, steps, beyond) for oid in members)
        index.varying_observers[key] = found
    return found


def _state_at(steps: StateSteps, beyond: LocateState, distance2: float) -> LocateState:
    for limit, state in steps:
        if distance2 <= limit:
            return state
    return beyond


def _states_from(
    origin: tuple[float, float, float],
    varying: Varying,
    positions: dict[str, tuple[float, float, float]],
    scale2: float,
) -> list[LocateState]:
    """DET-5..7: the stage-two state of each varying token paired with the token at `origin`."""
    x, y, z = origin
    out: list[LocateState] = []
    for tid, steps, beyond in varying:
        tx, ty, tz = positions[tid]
        out.append(_state_at(steps, beyond, distance_squared(x - tx, y - ty, z - tz, scale2)))
    return out


# The two loops below are the hot path of a move: `distance_squared` and `_state_at` are inlined.


def _column_changes(
    target: str,
    varying: Varying,
    positions: dict[str, tuple[float, float, float]],
    scale2: float,
    old_visibility: Visibility,
    changes: dict[str, dict[str, LocateState]],
) -> None:
    """DET-5..7: each varying observer against `target`, recorded in `changes` where the state
    differs from the old matrix (the target against itself included: drop it)."""
    x, y, z = positions[target]
    for oid, steps, beyond in varying:
        ox, oy, oz = positions[oid]
        dx, dy, dz = ox - x, oy - y, oz - z
        distance2 = (dx * dx + dy * dy) * scale2 + dz * dz
        state = beyond
        for limit, step_state in steps:
            if distance2 <= limit:
                state = step_state
                break
        if old_visibility[oid].get(target) is not state:
            cells = changes.get(oid)
            if cells is None:
                changes[oid] = {target: state}
            else:
                cells[target] = state


def _row_changes(
    observer: str,
    varying: Varying,
    positions: dict[str, tuple[float, float, float]],
    scale2: float,
    old_row: dict[str, LocateState],
) -> dict[str, LocateState]:
    """DET-5..7: `observer` against each varying target, where the state differs from `old_row`."""
    x, y, z = positions[observer]
    old_get = old_row.get
    cells: dict[str, LocateState] = {}
    for tid, steps, beyond in varying:
        tx, ty, tz = positions[tid]
        dx, dy, dz = x - tx, y - ty, z - tz
        distance2 = (dx * dx + dy * dy) * scale2 + dz * dz
        state = beyond
        for limit, step_state in steps:
            if distance2 <= limit:
                state = step_state
                break
        if old_get(tid) is not state:
            cells[tid] = state
    cells.pop(observer, None)
    return cells


def _full_row(index: _Index, oid: str, scale2: float) -> dict[str, LocateState]:
    """DET-6/7: one observer against every other token."""
    positions = index.positions
    profile = index.summaries[oid].profile
    row: dict[str, LocateState] = {}
    for key, members in index.by_key:
        reach = profile.reach(key)
        if not reach.steps:
            row.update(dict.fromkeys(members, STATES[reach.beyond]))
    varying = _varying_targets(index, profile)
    states = _states_from(positions[oid], varying, positions, scale2)
    row.update(zip((tid for tid, _, _ in varying), states, strict=True))
    del row[oid]
    return row


def _incremental(
    before: WorldState,
    after: WorldState,
    dirty: set[str],
    only_moved: set[str],
    removed: list[str],
    pairs: set[tuple[str, str]],
    unapplied_cells: bool,
) -> tuple[WorldState, Pairs]:
    tokens = after.tokens
    scale2 = _scale_squared(after.scene)
    contests = after.contests
    index = _index_for(before, after, dirty, removed)
    summaries = index.summaries
    positions = index.positions
    old_visibility = before.visibility
    removed_set = set(removed)
    dirty_ids = sorted(dirty)
    rows: dict[str, dict[str, LocateState]] = {}
    """Rows recomputed whole: observers whose senses changed or that are new."""
    changes: dict[str, dict[str, LocateState]] = {}
    """Every other observer: the cells whose state changed."""
    for oid in dirty_ids:
        if oid not in only_moved:
            rows[oid] = _full_row(index, oid, scale2)
    # columns: every other observer against each dirty target
    for tid in dirty_ids:
        key = summaries[tid].key
        if tid in only_moved:
            varying = _varying_observers(index, key)
        else:
            varying = []
            for profile, members in index.by_profile:
                steps, beyond = _state_steps(profile.reach(key))
                if steps:
                    varying.extend((oid, steps, beyond) for oid in members)
                    continue
                for oid in members:
                    if oid not in rows and old_visibility[oid].get(tid) is not beyond:
                        changes.setdefault(oid, {})[tid] = beyond
        if rows:
            varying = [entry for entry in varying if entry[0] not in rows]
        _column_changes(tid, varying, positions, scale2, old_visibility, changes)
        changes.get(tid, {}).pop(tid, None)
    # rows of moved observers: only the targets whose state depends on distance
    for oid in dirty_ids:
        if oid in only_moved:
            varying = _varying_targets(index, summaries[oid].profile)
            cells = _row_changes(oid, varying, positions, scale2, old_visibility[oid])
            if cells:
                changes.setdefault(oid, {}).update(cells)
    # DET-8: the standing results on the touched pairs, and the pairs whose result changed. A kept
    # loss raises nothing: where only moves touch it, its cell is its stage two, which the passes
    # above have already worked out, and it is stale exactly when that cell changed; it needs no
    # look of its own.
    new_contests: dict[str, dict[str, ContestWin]] = {}
    touched = set(pairs)

    def moved_loss(oid: str, t: str, win: ContestWin) -> bool:
        """A kept loss on a pair the caller did not name, whose tokens at most moved (neither
        changed its senses or anti-detection): the passes above have its stage two."""
        return (
            not win.won
            and (oid not in dirty or oid in only_moved)
            and (t not in dirty or t in only_moved)
            and (oid, t) not in pairs
        )

    if dirty and contests:
        for tid in dirty:
            own = contests.get(tid, {})
            touched.update([(tid, t) for t, win in own.items() if not moved_loss(tid, t, win)])
            if tid in only_moved and not summaries[tid].key:
                continue  # no result stands against a target without anti-detection
            touched.update(
                [
                    (oid, tid)
                    for oid, wins in contests.items()
                    if (win := wins.get(tid)) is not None and not moved_loss(oid, tid, win)
                ]
            )
        for oid, cells in changes.items():
            wins = contests.get(oid)
            if wins:
                for t in cells:
                    win = wins.get(t)
                    if win is not None and moved_loss(oid, t, win):
                        new_contests.setdefault(oid, dict(wins)).pop(t, None)
    for oid, t in sorted(touched):
        if oid == t or oid not in tokens or t not in tokens:
            continue
        win = contests.get(oid, {}).get(t)
        level, stale = _final_level(
            summaries[oid], summaries[t].key, _pair_distance2(tokens[oid], tokens[t], scale2), win
        )
        if stale:
            wins_now = new_contests.setdefault(oid, dict(contests[oid]))
            wins_now.pop(t, None)
        if oid in rows:
            rows[oid][t] = STATES[level]
        elif old_visibility[oid].get(t) is not STATES[level]:
            changes.setdefault(oid, {})[t] = STATES[level]
        elif oid in changes:
            changes[oid].pop(t, None)
    visibility: Visibility = Unapplied(old_visibility, {}) if unapplied_cells else old_visibility.copy()
    changed: Pairs = []
    if removed_set:
        for tid in removed:
            visibility.pop(tid, None)
        for oid, row in list(visibility.items()):
            if oid in rows or removed_set.isdisjoint(row):
                continue
            new_row = row.copy()
            for tid in removed:
                if new_row.pop(tid, None) is not None:
                    changed.append((oid, tid))
            visibility[oid] = new_row
    unapplied: dict[str, dict[str, LocateState]] = {}
    for oid, updates in changes.items():
        if not updates or oid in rows:
            continue
        new_row = visibility[oid]
        if new_row is old_visibility[oid]:
            if unapplied_cells:
                unapplied[oid] = updates  # written into the shared row at commit (`models.Unapplied`)
                continue
            new_row = visibility[oid] = new_row.copy()
        new_row.update(updates)
        changed.extend([(oid, tid) for tid in updates])
    for oid, row in rows.items():
        old_row = old_visibility.get(oid)
        if old_row is not None and old_row == row:
            visibility[oid] = old_row
            continue
        visibility[oid] = row
        if old_row is not None:
            changed.extend((oid, tid) for tid, located in row.items() if old_row.get(tid) is not located)
            changed.extend((oid, tid) for tid in old_row if tid not in row)
    if len(visibility) != len(tokens) or any(t not in old_visibility for t in dirty):
        visibility = {tid: visibility[tid] for tid in tokens}
    if type(visibility) is Unapplied:
        visibility.cells = unapplied
        if not removed_set:  # every dirty token had a row: the same rows, by the same keys
            visibility.keys_of = old_visibility
    elif unapplied:
        visibility = Unapplied(visibility, unapplied)
    update: dict[str, Any] = {"visibility": visibility}
    if new_contests or (
        removed_set
        and (
            removed_set & contests.keys()
            or any(not removed_set.isdisjoint(wins) for wins in contests.values())
        )
    ):
        out: Contests = {}
        for oid, wins in contests.items():
            if oid in removed_set:
                continue
            kept = new_contests.get(oid, wins)
            if removed_set and not removed_set.isdisjoint(kept):
                kept = {t: w for t, w in kept.items() if t not in removed_set}
            if kept:
                out[oid] = kept
        update["contests"] = out
    return after.model_copy(update=update), changed


# --- explain and stage three for one pair ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Pair:
    observer_id: str
    target_id: str
    observer: Actor
    target: Actor
    distance2: float
    summary: _Summary
    key: AntiKey


def _pair(state: WorldState, observer: str, target: str, paths: tuple[str, str]) -> _Pair:
    o_tok = state.tokens.get(observer)
    if o_tok is None:
        raise NotFound((paths[0],), f"no token {observer!r} on the scene")
    t_tok = state.tokens.get(target)
    if t_tok is None:
        raise NotFound((paths[1],), f"no token {target!r} on the scene")
    if observer == target:
        raise RuleViolation("DET-4", "an observer and its target must be two different tokens", (paths[1],))
    o_actor = _token_actor(state, observer, o_tok)
    t_actor = _token_actor(state, target, t_tok)
    summary = _summary(o_actor)
    return _Pair(
        observer_id=observer,
        target_id=target,
        observer=o_actor,
        target=t_actor,
        distance2=_pair_distance2(o_tok, t_tok, _scale_squared(state.scene)),
        summary=summary,
        key=_summary(t_actor).key,
    )


def _stage_two(pair: _Pair) -> int:
    reach = pair.summary.profile.reach(pair.key)
    return reach.at(pair.distance2)


def explain(state: WorldState, observer: str, target: str) -> list[Step]:
    """How the observer token locates the target token, rule by rule, with the numbers."""
    pair = _pair(state, observer, target, ("observer", "target"))
    conditions = pair.observer.conditions
    result, steps = explain_locate(
        pair.observer.detection,
        pair.target.anti_detection,
        humanoid=pair.observer.humanoid,
        blinded=conditions.get("blinded", False),
        deafened=conditions.get("deafened", False),
        distance2=pair.distance2,
    )
    distance = math.sqrt(pair.distance2)
    units = (state.scene or _DEFAULT_SCENE).grid_units
    out = [
        Step(
            rule="DET-5",
            text=f"{observer} → {target}: distance {distance:.2f} {units} (3D, elevation included)",
            data={"distance": distance},
        ),
        *steps,
    ]
    win = state.contests.get(observer, {}).get(target)
    level, stale = _final_level(pair.summary, pair.key, pair.distance2, win)
    if win is not None and not stale and win.won:
        out.append(
            Step(
                rule="DET-8",
                text=(
                    f"stage three: won in round {win.round} against {win.stage_two.value}: "
                    f"{STATES[level].value}"
                ),
                data={"round": win.round, "result": STATES[level].value},
            )
        )
    elif win is not None and not stale:
        now = state.scene.round if state.scene is not None else 0
        this_round = now >= 1 and win.round == now
        out.append(
            Step(
                rule="DET-8",
                text=f"stage three: lost in round {win.round}: {STATES[level].value}"
                + ("; no other contest this round" if this_round else ""),
                data={"lostIn": win.round, "result": STATES[level].value, "thisRound": this_round},
            )
        )
    elif pair.key and result is not LocateState.PINPOINTED:
        out.append(Step(rule="DET-8", text="stage three: no standing win this round", data={"win": False}))
    out.append(
        Step(
            rule="DET-4",
            text=f"{observer} locates {target}: {STATES[level].value}",
            data={"result": STATES[level].value},
        )
    )
    return out


def _within(limit: float | None, distance2: float) -> bool:
    return limit is not None and distance2 <= limit * limit


def _run_contest(
    state: WorldState,
    pair: _Pair,
    current: LocateState,
    observer_roller: Roller,
    hider_roller: Roller,
) -> ContestOutcome:
    """DET-8/9 for one pair: pools, modifiers, rolls."""
    profile = pair.summary.profile
    noisy = state.scene.noisy if state.scene is not None else False
    last = pair.target.last_turn
    modifiers = contest_modifiers(
        unlocated=current is LocateState.UNLOCATED,
        noisy=noisy,
        hearing=profile.hearing.at(pair.distance2) > 0,
        # a human has a nose though smell is none of its means of detection (DET-3); other creatures
        # smell with a means of theirs
        smell=profile.humanoid or profile.smell.at(pair.distance2) > 0,
        attacked=last.attacked,
        made_sound=last.made_sound,
        unusual_smell=pair.target.unusual_smell,
        moved_over_half_speed=last.moved_over_half_speed,
        within_approximate_range=_within(pair.observer.approximate_range, pair.distance2),
        within_sensory_range=_within(pair.observer.sensory_range, pair.distance2),
        observer_wound_penalty=pair.observer.wound_penalty,
        hider_wound_penalty=pair.target.wound_penalty,
    )
    observer_base = pair.observer.attributes.get(Attribute.PER, 0) + pair.observer.skills.get(
        "investigation", 0
    )
    hider_base = pair.target.attributes.get(Attribute.DEX, 0) + pair.target.skills.get("stealth", 0)
    return contest(observer_base, hider_base, modifiers, observer_roller, hider_roller)


def _contest_steps(pair: _Pair, outcome: ContestOutcome, stage_two: int, result: LocateState) -> list[Step]:
    steps = [
        Step(
            rule="DET-9",
            text=f"{m.side} {m.dp:+d} DP: {m.text}",
            data={"side": m.side, "dp": m.dp, "reason": m.reason},
        )
        for m in outcome.modifiers
    ]
    o_roll, h_roll = outcome.observer_roll, outcome.hider_roll
    steps.append(
        Step(
            rule="DET-8",
            text=(
                f"{pair.observer_id} PER + Investigation {outcome.observer_pool} DP: "
                f"{o_roll.successes} successes vs {pair.target_id} DEX + Stealth {outcome.hider_pool} DP: "
                f"{h_roll.successes} successes"
            ),
            data={
                "observerPool": outcome.observer_pool,
                "observerDice": list(o_roll.dice),
                "observerSuccesses": o_roll.successes,
                "hiderPool": outcome.hider_pool,
                "hiderDice": list(h_roll.dice),
                "hiderSuccesses": h_roll.successes,
            },
        )
    )
    verdict = (
        "the observer wins (ties go to the detecting side)" if outcome.observer_wins else "the hider wins"
    )
    steps.append(
        Step(
            rule="DICE-5",
            text=f"{verdict}: {STATES[stage_two].value} → {result.value}",
            data={"observerWins": outcome.observer_wins, "result": result.value},
        )
    )
    return steps


def _out_cold(actor: Actor) -> bool:
    """HEALTH-3/HEALTH-5: an unconscious or dead observer spots nothing; it makes no contest (DET-8).
    Its stage one and two stand: they describe its means, not its attention."""
    return bool(actor.conditions.get("unconscious") or actor.conditions.get("dead"))


def _contestable(pair: _Pair) -> tuple[int, int] | None:
    """(stage two, capability) when stage three applies to the pair (DET-6/8), else None."""
    if not pair.key:
        return None
    stage_two = _stage_two(pair)
    capability = pair.summary.profile.capability.at(pair.distance2)
    if stage_two >= capability:
        return None
    return stage_two, capability


@lru_cache(maxsize=64)
def _result(stage_two: LocateState, round_number: int, won: bool) -> ContestWin:
    """One frozen result per value, shared by every pair that has it: a 500-token round records
    about 25,000, of a handful of values."""
    return ContestWin(stage_two=stage_two, round=round_number, won=won)


def _apply_result(
    visibility: Visibility,
    contests: Contests,
    pair: _Pair,
    stage_two: int,
    won: bool,
    round_number: int,
) -> LocateState:
    """DET-8: record a contest's result and the pair's state. A loss is kept in a combat round (round
    1 or more), so the pair waits for the next round's contest; out of combat it is not."""
    capability = pair.summary.profile.capability.at(pair.distance2)
    level = raise_one_step(stage_two, capability) if won else stage_two
    wins = dict(contests.get(pair.observer_id, {}))
    if won or round_number >= 1:
        wins[pair.target_id] = _result(STATES[stage_two], round_number, won)
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


# --- actions ----------------------------------------------------------------------------------------


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
    after, cells = _refresh(
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
                f"{changed} pairs changed"
            ),
            data={"token": action.token, "changedPairs": changed},
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
    base = refresh_visibility(state, state)
    pair = _pair(base, action.observer, action.target, ("observer", "target"))
    if _out_cold(pair.observer):
        raise RuleViolation(
            "DET-8", f"{action.observer} is unconscious or dead: it spots nothing", ("observer",)
        )
    if not pair.key:
        raise RuleViolation(
            "DET-6", f"{action.target} has no anti-detection: no contest is needed", ("target",)
        )
    stages = _contestable(pair)
    if stages is None:
        raise RuleViolation(
            "DET-8",
            f"{action.observer} already locates {action.target} as well as its means allow",
            ("observer",),
        )
    stage_two, _ = stages
    round_number = base.scene.round if base.scene is not None else 0
    last = base.contests.get(action.observer, {}).get(action.target)
    if round_number >= 1 and last is not None and last.round == round_number:
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
    result = _apply_result(visibility, contests, pair, stage_two, outcome.observer_wins, round_number)
    cells: Pairs | None = None
    if base is state:
        cells = [(action.observer, action.target)] if result is not current else []
    after = _mark_fresh(
        base.model_copy(update={"visibility": visibility, "contests": contests}), state, cells
    )
    log = _contest_steps(pair, outcome, stage_two, result)
    return Ruling(state=after, log=tuple(log), rolls=(outcome.observer_roll, outcome.hider_roll))


ROUND_DETAIL_LIMIT = 20
"""A round with more stage-three contests than this details only those that changed a pair's state
(a 500-token scene runs thousands each round); the GM can `explain` any other pair."""


def round_contests(state: WorldState, ctx: Context) -> Ruling:
    """DET-8: the new round's stage-three contests, for every pair whose target has anti-detection and
    whose observer (awake and alive) has not pinpointed it in stage two but could; each replaces the
    last result, and in a combat round a loss is kept as the pair's contest of the round. The log
    counts them and details each (dice included) while there are few, else those that changed."""
    base = refresh_visibility(state, state)
    visibility = dict(base.visibility)
    contests = dict(base.contests)
    round_number = base.scene.round if base.scene is not None else 0
    cells: Pairs = []
    held: list[tuple[_Pair, ContestOutcome, int, LocateState, bool]] = []
    hiders = [tid for tid, tok in base.tokens.items() if _summary(_token_actor(base, tid, tok)).key]
    if hiders:
        for observer, token in base.tokens.items():
            if _out_cold(_token_actor(base, observer, token)):
                continue
            for target in hiders:
                if target == observer:
                    continue
                pair = _pair(base, observer, target, ("observer", "target"))
                stages = _contestable(pair)
                if stages is None:
                    continue
                stage_two, _ = stages
                current = base.visibility[observer][target]
                outcome = _run_contest(base, pair, current, ctx.roller, ctx.roller)
                result = _apply_result(
                    visibility, contests, pair, stage_two, outcome.observer_wins, round_number
                )
                if result is not current:
                    cells.append((observer, target))
                held.append((pair, outcome, stage_two, result, result is not current))
    lapsed = _lapse_old_wins(base, visibility, contests, round_number, cells)
    log: list[Step] = []
    rolls: list[Roll] = []
    if lapsed:
        log.append(
            Step(
                rule="DET-8",
                text=f"{lapsed} stage-three results of earlier rounds lapse: no contest of theirs this round",
                data={"lapsed": lapsed},
            )
        )
    if held:
        every = len(held) <= ROUND_DETAIL_LIMIT
        shown = [entry for entry in held if every or entry[4]]
        log.append(
            Step(
                rule="DET-8",
                text=f"stage three, round {round_number}: {len(held)} contests, {len(cells)} changed "
                f"a pair's state" + ("" if every else f"; the {len(shown)} that changed are detailed"),
                data={"contests": len(held), "changed": len(cells), "detailed": len(shown)},
            )
        )
        for pair, outcome, stage_two, result, _ in shown:
            log.extend(_contest_steps(pair, outcome, stage_two, result))
            rolls.extend((outcome.observer_roll, outcome.hider_roll))
    after = _mark_fresh(
        base.model_copy(update={"visibility": visibility, "contests": contests}),
        state,
        cells if base is state else None,
    )
    return Ruling(state=after, log=tuple(log), rolls=tuple(rolls))


def _lapse_old_wins(
    base: WorldState, visibility: Visibility, contests: Contests, round_number: int, cells: Pairs
) -> int:
    """DET-8: a result holds until the next round's contest. The round's contests have replaced the
    results of the pairs they ran; a win of another round whose pair ran no contest now (its observer
    out of range, out cold) lapses too, and the pair is back at its stage two. Returns how many."""
    lapsed = 0
    for observer, wins in list(contests.items()):
        old = [target for target, win in wins.items() if win.round != round_number]
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
            pair = _pair(base, observer, target, ("observer", "target"))
            level, _ = _final_level(pair.summary, pair.key, pair.distance2, None)
            row = visibility[observer]
            if row.get(target) is not STATES[level]:
                row = visibility[observer] = dict(row)
                row[target] = STATES[level]
                cells.append((observer, target))
    return lapsed


# --- queries ----------------------------------------------------------------------------------------


class ExplainQuery(RuleModel):
    """`query` `{kind: "explain", observer, target}`."""

    kind: Literal["explain"]
    observer: TokenId
    target: TokenId


def explain_query(state: WorldState, query: ExplainQuery) -> dict[str, Any]:
    """`explain`: how the observer locates the target, rule by rule: `{observer, target, locate, log}`."""
    steps = explain(state, query.observer, query.target)
    final = steps[-1].data or {}
    return {
        "observer": query.observer,
        "target": query.target,
        "locate": final["result"],
        "log": [step.payload() for step in steps],
    }


class AttackCheckQuery(RuleModel):
    """`query` `{kind: "attackCheck", attacker, target, successes, extraSuccesses?, effectPoints?,
    spell?}` (DET-10)."""

    kind: Literal["attackCheck"]
    attacker: TokenId
    target: TokenId
    successes: Count
    extra_successes: Count = 0
    effect_points: Count = 0
    spell: SpellKind | None = None


def attack_check(state: WorldState, query: AttackCheckQuery) -> dict[str, Any]:
    """DET-10: what the attack or spell counts for, from how the attacker locates the target now.
    The answer is an `AttackConsequence` plus a `log` of steps."""
    consequence = check_attack(state, query)
    located = consequence.locate.value
    if consequence.spell is not None:
        chance = f"works with a {consequence.spell_chance:.0%} chance"
        verdict = f"{consequence.spell.value} spell: " + (
            chance if consequence.spell_allowed else "not allowed"
        )
    elif consequence.halved:
        verdict = "attack: successes, extra successes and effect points halved (round down)"
        if consequence.guessed_position_only:
            verdict += ", only at a guessed position (a right guess counts as approximate)"
    else:
        verdict = "attack: counts in full"
    log = [
        Step(
            rule="DET-4", text=f"{query.attacker} locates {query.target}: {located}", data={"locate": located}
        ),
        Step(
            rule="DET-10",
            text=verdict,
            data={
                "successes": consequence.successes,
                "extraSuccesses": consequence.extra_successes,
                "effectPoints": consequence.effect_points,
                "halved": consequence.halved,
                "guessedPositionOnly": consequence.guessed_position_only,
                "spell": None if consequence.spell is None else consequence.spell.value,
                "spellAllowed": consequence.spell_allowed,
                "spellChance": consequence.spell_chance,
            },
        ),
    ]
    return {**consequence.model_dump(mode="json"), "log": [step.payload() for step in log]}


def check_attack(state: WorldState, query: AttackCheckQuery) -> AttackConsequence:
    """DET-10 as a model: the attacker's current locate state (stages one to three) applied."""
    pair = _pair(state, query.attacker, query.target, ("attacker", "target"))
    win = state.contests.get(query.attacker, {}).get(query.target)
    level, _ = _final_level(pair.summary, pair.key, pair.distance2, win)
    return attack_consequence(
        STATES[level], query.successes, query.extra_successes, query.effect_points, query.spell
    )


Handler = Callable[[WorldState, Any, Context], Ruling]
QueryHandler = Callable[[WorldState, Any], dict[str, Any]]

ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "move": (MoveAction, move),
    "contest": (ContestAction, contest_action),
}
"""Action kind -> (payload model, handler). `round` is shared: the round handler calls `round_contests`."""

QUERIES: dict[str, tuple[type[RuleModel], QueryHandler]] = {
    "explain": (ExplainQuery, explain_query),
    "attackCheck": (AttackCheckQuery, attack_check),
}
"""Query kind -> (payload model, handler returning the `result` body as a model)."""

__all__ = [
    "ACTIONS",
    "QUERIES",
    "AttackCheckQuery",
    "ContestAction",
    "ContestDice",
    "ExplainQuery",
    "MoveAction",
    "attack_check",
    "check_attack",
    "contest_action",
    "explain",
    "explain_query",
    "move",
    "recompute_visibility",
    "refresh_changes",
    "refresh_visibility",
    "round_contests",
]
