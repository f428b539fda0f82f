"""The visibility index (DET-4..8): every world's matrix of who locates whom, kept up to date.

The matrix `WorldState.visibility[observer][target]` holds a `LocateState` for every ordered pair of
distinct tokens. It is derived: `VisibilityIndex.compute` builds it from scratch, `refresh_changes`
recomputes only the pairs a change can touch and keeps every unchanged row the very same dict.
Standing stage-three results live in `WorldState.contests` (server-written, DET-8); what they mean
for a pair is `rules.detection.standing`.

Observers with the same senses share one `ObserverProfile`; a profile answers per target
anti-detection with a step function of distance (`Reach`), so most rows are a copy of a shared
template. Each world has its own `VisibilityIndex`, whose caches are its attributes: results never
depend on them, and two worlds never evict each other's.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from math import inf
from typing import Any

from vtt_bridge.document.geometry import ContestGeometry
from vtt_bridge.document.models import (
    Actor,
    NotFound,
    Scene,
    Token,
    Unapplied,
    WorldState,
    edited_keys,
    pending_cells,
    senses_changed,
    settled,
)
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.detection import (
    STATES,
    AntiKey,
    ContestWin,
    LocateState,
    ObserverProfile,
    Reach,
    Standing,
    anti_key,
    distance_squared,
    standing,
)

Visibility = dict[str, dict[str, LocateState]]


Contests = dict[str, dict[str, ContestWin]]


Pairs = list[tuple[str, str]]


_DEFAULT_SCENE = Scene(id="default")


@dataclass(frozen=True, slots=True)
class Senses:
    """An actor's detection profile and the key of its anti-detection (DET-1..7), for one actor object."""

    actor: Actor
    profile: ObserverProfile
    key: AntiKey


def scale_squared(scene: Scene | None) -> float:
    """(gridDistance / gridSize)²: canvas pixels² to scene units²."""
    scene = scene or _DEFAULT_SCENE
    scale = scene.grid_distance / scene.grid_size
    return scale * scale


def token_actor(state: WorldState, token_id: str, token: Token) -> Actor:
    """The actor a token shows, or `NotFound` naming the token's `actor` field."""
    actor = state.actors.get(token.actor)
    if actor is None:
        raise NotFound(("tokens", token_id, "actor"), f"token {token_id!r} shows no actor ({token.actor!r})")
    return actor


def _pair_distance2(a: Token, b: Token, scale2: float) -> float:
    return distance_squared(a.x - b.x, a.y - b.y, a.elevation - b.elevation, scale2)


def standing_of(senses: Senses, key: AntiKey, distance2: float, result: ContestWin | None) -> Standing:
    """DET-6..8 for one pair: its stage two by the observer's reach against the target's key, then its
    standing stage-three result (`rules.detection.standing`)."""
    profile = senses.profile
    return standing(profile.reach(key).at(distance2), profile.capability, distance2, bool(key), result)


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


@dataclass(frozen=True, slots=True)
class Pair:
    """An observer token and a target token, their actors, distance² and senses."""

    observer_id: str
    target_id: str
    observer: Actor
    target: Actor
    distance2: float
    senses: Senses
    key: AntiKey

    @property
    def stage_two(self) -> int:
        """DET-6/7: the pair's level by stages one and two."""
        return self.senses.profile.reach(self.key).at(self.distance2)

    @property
    def capability(self) -> int:
        """DET-3: the best the observer's usable means can do at this distance."""
        return self.senses.profile.capability.at(self.distance2)

    def standing(self, result: ContestWin | None) -> Standing:
        """DET-8: the pair's level with this standing result."""
        return standing_of(self.senses, self.key, self.distance2, result)


StateSteps = tuple[tuple[float, ...], tuple[LocateState, ...]]
"""A `Reach` in states: its limits, and the state of each step and beyond (`Reach.levels`)."""


Varying = list[tuple[tuple[float, ...], tuple[LocateState, ...], list[str]]]
"""Tokens whose stage-two state against one observer profile (or one target key) depends on
distance, in groups that share one `Reach`: (limits, states, token ids), as in `Reach`: the state at
d² is `states[bisect_left(limits, d²)]`."""


@dataclass(slots=True)
class TokenGroups:
    """Per-token summaries grouped by observer profile and by target anti-detection key, and the
    token positions, valid for one actors dict, one token-to-actor assignment and one tokens dict."""

    actors: dict[str, Actor]
    tokens: dict[str, Token]
    summaries: dict[str, Senses]
    by_profile: list[tuple[ObserverProfile, list[str]]]
    by_key: list[tuple[AntiKey, list[str]]]
    positions: dict[str, tuple[float, float, float]]
    varying_targets: dict[int, Varying] = field(default_factory=dict)
    """Per observer profile (by id): the targets whose state depends on distance."""
    varying_observers: dict[AntiKey, Varying] = field(default_factory=dict)
    """Per target anti-detection key: the observers whose state depends on distance."""


def _in_order(pairs: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """`sorted(pairs)`, observer by observer: a sort per observer's targets, not one of every pair
    (one sort is one call, and a worker thread hands the interpreter to the event loop only between
    calls)."""
    by_observer: dict[str, list[str]] = {}
    for oid, t in pairs:
        targets = by_observer.get(oid)
        if targets is None:
            by_observer[oid] = [t]
        else:
            targets.append(t)
    for oid in sorted(by_observer):
        targets = by_observer[oid]
        targets.sort()
        for t in targets:
            yield oid, t


def _position(token: Token) -> tuple[float, float, float]:
    return token.x, token.y, token.elevation


def _state_steps(reach: Reach) -> StateSteps:
    return reach.limits, tuple(STATES[level] for level in reach.levels)


def _varying_targets(index: TokenGroups, profile: ObserverProfile) -> Varying:
    """DET-6/7: the targets an observer with this profile sees differently at different distances."""
    found = index.varying_targets.get(id(profile))
    if found is None:
        found = []
        for key, members in index.by_key:
            reach = profile.reach(key)
            if reach.varies:
                found.append((*_state_steps(reach), members))
        index.varying_targets[id(profile)] = found
    return found


def _varying_observers(index: TokenGroups, key: AntiKey) -> Varying:
    """DET-6/7: the observers that see a target with this anti-detection differently at different
    distances."""
    found = index.varying_observers.get(key)
    if found is None:
        found = []
        for profile, members in index.by_profile:
            reach = profile.reach(key)
            if reach.varies:
                found.append((*_state_steps(reach), members))
        index.varying_observers[key] = found
    return found


def _states_from(
    origin: tuple[float, float, float],
    members: list[str],
    limits: tuple[float, ...],
    states: tuple[LocateState, ...],
    positions: dict[str, tuple[float, float, float]],
    scale2: float,
) -> list[LocateState]:
    """DET-5..7: the stage-two state of each of a group's tokens paired with the token at `origin`."""
    x, y, z = origin
    out: list[LocateState] = []
    for tid in members:
        tx, ty, tz = positions[tid]
        out.append(states[bisect_left(limits, distance_squared(x - tx, y - ty, z - tz, scale2))])
    return out


def _beyond_by_dx(limit: float, scale2: float) -> float:
    """A bound on dx² past which a pair is beyond `limit` whatever its dy and dz: dx² above it puts
    (dx²)·scale², and so d² (never below it), above `limit` in floating point. The margin is far
    wider than the roundings between, and the floor keeps (dx²)·scale² clear of the range where a
    product loses its precision (subnormal); infinite (never past) for a scale out of bounds (zero,
    subnormal, huge or not finite)."""
    if not 1e-150 < scale2 < 1e150:
        return inf
    return max(limit / scale2 * (1 + 1e-9), 1e-150 / scale2)


def _column_changes(
    target: str,
    varying: Varying,
    positions: dict[str, tuple[float, float, float]],
    scale2: float,
    old_visibility: Visibility,
    changes: dict[str, dict[str, LocateState]],
) -> None:
    """DET-5..7: each varying observer against `target`, recorded in `changes` where the state
    differs from the old matrix (the target against itself included: drop it). A group of one limit
    (the usual reach) compares d² with it: `bisect_left`'s answer without its call. An observer
    whose dx alone puts it past the group's last limit is beyond it (`_beyond_by_dx`): its d² is
    not worked out. A row without the cell (the target's own) reads None, as `get` would."""
    x, y, z = positions[target]
    for limits, states, members in varying:
        one = len(limits) == 1
        near, far, last = states[0], states[-1], limits[-1]
        bound = _beyond_by_dx(last, scale2)
        for oid in members:
            ox, oy, oz = positions[oid]
            dx = ox - x
            if dx * dx > bound:
                state = far
            else:
                dy, dz = oy - y, oz - z
                d2 = (dx * dx + dy * dy) * scale2 + dz * dz
                state = (far if last < d2 else near) if one else states[bisect_left(limits, d2)]
            try:
                old = old_visibility[oid][target]
            except KeyError:
                old = None
            if old is not state:
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
    """DET-5..7: `observer` against each varying target, where the state differs from `old_row` (a
    group of one limit, a target past the last limit by its dx alone, and a missing cell, as in
    `_column_changes`)."""
    x, y, z = positions[observer]
    cells: dict[str, LocateState] = {}
    for limits, states, members in varying:
        one = len(limits) == 1
        near, far, last = states[0], states[-1], limits[-1]
        bound = _beyond_by_dx(last, scale2)
        for tid in members:
            tx, ty, tz = positions[tid]
            dx = x - tx
            if dx * dx > bound:
                state = far
            else:
                dy, dz = y - ty, z - tz
                d2 = (dx * dx + dy * dy) * scale2 + dz * dz
                state = (far if last < d2 else near) if one else states[bisect_left(limits, d2)]
            try:
                old = old_row[tid]
            except KeyError:
                old = None
            if old is not state:
                cells[tid] = state
    cells.pop(observer, None)
    return cells


def _full_row(index: TokenGroups, oid: str, scale2: float) -> dict[str, LocateState]:
    """DET-6/7: one observer against every other token."""
    positions = index.positions
    profile = index.summaries[oid].profile
    row: dict[str, LocateState] = {}
    for key, members in index.by_key:
        reach = profile.reach(key)
        if not reach.varies:
            row.update(dict.fromkeys(members, STATES[reach.beyond]))
    origin = positions[oid]
    for limits, states, members in _varying_targets(index, profile):
        row.update(
            zip(members, _states_from(origin, members, limits, states, positions, scale2), strict=True)
        )
    del row[oid]
    return row


class VisibilityIndex:
    """One world's visibility engine (DET-4..8) and its caches, each an attribute of its own.

    The caches only spare work: every answer is what a new index with empty ones would give (the
    differential tests check it). Each is bounded, and nothing is shared between two worlds.
    """

    def __init__(self, limit: int = 20_000) -> None:
        self._limit = limit
        self._senses: dict[int, Senses] = {}
        """Actor (by identity, checked) -> its senses."""
        self._profiles: dict[tuple[Any, ...], ObserverProfile] = {}
        """(detection, humanoid, blinded, deafened) -> the profile every such observer shares."""
        self._fresh: dict[int, tuple[WorldState, WorldState | None, Pairs | None]] = {}
        """States this index produced (self-consistent matrices), with the state they were computed
        from and the cells that changed; the world's refresh after a handler is then free."""
        self._complete_rows: dict[int, tuple[Visibility, dict[str, Token]]] = {}
        """Matrices this index produced, with the tokens dict they have a row (and column) for each of."""
        self._groups: TokenGroups | None = None
        """The last token groups, reused while only positions change."""
        self.result: Callable[[LocateState, int, bool], ContestWin] = lru_cache(maxsize=64)(self._new_result)
        """DET-8: `result(stage_two, round, won)`: the frozen result of these values, one object shared
        by every pair that has it (a round records one per contest, of a handful of values)."""
        self.round_geometry = ContestGeometry()
        """The last round's stage-three geometry (which pairs contest, at which step of distance),
        reused by the next round for the tokens that did not move."""

    def senses(self, actor: Actor) -> Senses:
        """The actor's detection profile and anti-detection key, memoised by identity (a cache)."""
        found = self._senses.get(id(actor))
        if found is not None and found.actor is actor:
            return found
        if len(self._senses) > self._limit:
            self._senses.clear()
        if len(self._profiles) > self._limit:
            self._profiles.clear()
        blinded = actor.conditions.get("blinded", False)
        deafened = actor.conditions.get("deafened", False)
        shape = (actor.detection, actor.humanoid, blinded, deafened)
        profile = self._profiles.get(shape)
        if profile is None:
            profile = ObserverProfile(
                actor.detection, humanoid=actor.humanoid, blinded=blinded, deafened=deafened
            )
            self._profiles[shape] = profile
        found = Senses(actor=actor, profile=profile, key=anti_key(actor.anti_detection))
        self._senses[id(actor)] = found
        return found

    def pair(self, state: WorldState, observer: str, target: str, paths: tuple[str, str]) -> Pair:
        """Two distinct tokens of the state as observer and target (`NotFound` naming `paths` for an
        unknown one; DET-4 for the same token twice)."""
        o_tok = state.tokens.get(observer)
        if o_tok is None:
            raise NotFound((paths[0],), f"no token {observer!r} on the scene")
        t_tok = state.tokens.get(target)
        if t_tok is None:
            raise NotFound((paths[1],), f"no token {target!r} on the scene")
        if observer == target:
            raise RuleViolation(
                "DET-4", "an observer and its target must be two different tokens", (paths[1],)
            )
        o_actor = token_actor(state, observer, o_tok)
        t_actor = token_actor(state, target, t_tok)
        summary = self.senses(o_actor)
        return Pair(
            observer_id=observer,
            target_id=target,
            observer=o_actor,
            target=t_actor,
            distance2=_pair_distance2(o_tok, t_tok, scale_squared(state.scene)),
            senses=summary,
            key=self.senses(t_actor).key,
        )

    def compute(self, state: WorldState) -> tuple[Visibility, Contests]:
        """The whole matrix from scratch, and the standing wins that still hold."""
        tokens = state.tokens
        scale2 = scale_squared(state.scene)
        ids = list(tokens)
        summaries = [self.senses(token_actor(state, tid, tok)) for tid, tok in tokens.items()]
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
            varying: list[tuple[int, tuple[float, ...], tuple[LocateState, ...]]] = []
            for j, key in enumerate(keys):
                reach = reaches[key]
                template_values.append(STATES[reach.beyond])
                if reach.varies:
                    varying.append((j, *_state_steps(reach)))
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
                for j, limits, states in varying:
                    dx, dy, dz = x - xs[j], y - ys[j], z - zs[j]
                    values[j] = states[bisect_left(limits, (dx * dx + dy * dy) * scale2 + dz * dz)]
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
                o_sum = self.senses(token_actor(state, observer, o_tok))
                t_key = self.senses(token_actor(state, target, t_tok)).key
                now = standing_of(o_sum, t_key, _pair_distance2(o_tok, t_tok, scale2), win)
                if now.stale:
                    continue
                kept[target] = win
                visibility[observer][target] = STATES[now.level]
            if kept:
                contests[observer] = kept if kept != wins else wins
        return visibility, contests

    def recompute_visibility(self, state: WorldState) -> Visibility:
        """The whole matrix from scratch: `visibility[observer][target]` for every ordered pair of
        distinct tokens (DET-4..8). Raises `NotFound` for a token whose actor is missing."""
        return self.compute(state)[0]

    def recompute_contests(self, state: WorldState) -> Contests:
        """The standing stage-three results that still hold, from scratch (DET-8: those whose stage two
        changed are dropped). Raises `NotFound` for a token whose actor is missing."""
        return self.compute(state)[1]

    def mark_fresh(
        self, state: WorldState, before: WorldState | None = None, pairs: Pairs | None = None
    ) -> WorldState:
        if len(self._fresh) > 8:
            self._fresh.clear()
            self._complete_rows.clear()
        self._fresh[id(state)] = (state, before, pairs)
        self._complete_rows[id(state.visibility)] = (state.visibility, state.tokens)
        return state

    def committed(self, state: WorldState) -> None:
        """`state` is the world's now: every state marked fresh is forgotten (the next ruling marks
        its own; a refresh of `state` against itself needs none), and so is every matrix known
        complete but `state`'s. Else a round's states, the states they came from and their changed
        cells (a round's contests rows and pairs: megabytes at 1,000 tokens) stayed alive for rulings
        after it, until the cache filled."""
        self._fresh.clear()
        known = self._complete_rows.get(id(state.visibility))
        self._complete_rows.clear()
        if known is not None and known[0] is state.visibility and known[1] is state.tokens:
            self._complete_rows[id(state.visibility)] = known

    def _complete(self, state: WorldState) -> bool:
        """Whether the matrix has a row for exactly the scene's tokens (DET-4: every ordered pair)."""
        known = self._complete_rows.get(id(state.visibility))
        if known is not None and known[0] is state.visibility and known[1] is state.tokens:
            return True
        return state.visibility.keys() == state.tokens.keys()

    def _full(self, state: WorldState) -> tuple[WorldState, Pairs | None]:
        visibility, contests = self.compute(state)
        contests_out = state.contests if contests == state.contests else contests
        return self.mark_fresh(
            state.model_copy(update={"visibility": visibility, "contests": contests_out})
        ), None

    def refresh(self, before: WorldState, after: WorldState) -> WorldState:
        """`after` with its matrix brought up to date from `before`'s, recomputing only the pairs whose
        observer or target token moved (or was added) or whose actor's senses, anti-detection,
        blinded/deafened or humanoid changed, and the pairs whose standing win changed. Unchanged rows
        stay the very same dicts. Stale wins (stage two changed, DET-8) are dropped."""
        return self.refresh_changes(before, after)[0]

    def refresh_changes(
        self, before: WorldState, after: WorldState, unapplied_cells: bool = False
    ) -> tuple[WorldState, Pairs | None]:
        """`refresh` plus the (observer, target) cells whose state changed from `before`'s matrix
        (None: a full recompute; diff the rows). The world calls it after every ruling, with
        `unapplied_cells`: the changed cells of kept rows are then left in an `Unapplied` matrix, and
        the pairs name only the other changed cells."""
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
                aid in a_actors and not senses_changed(b_actors.get(aid), a_actors[aid]) for aid in edited
            ):
                return after, []
        return self.refresh_tokens(before, after, None, unapplied_cells)

    def refresh_tokens(
        self, before: WorldState, after: WorldState, candidates: Collection[str] | None, unapplied_cells: bool
    ) -> tuple[WorldState, Pairs | None]:
        """`refresh_changes`. `candidates`, when given, are the only tokens that may differ between the
        two tokens dicts (none added or removed), so the dicts need not be scanned."""
        if pending_cells(before.visibility):
            before = settled(before)  # a handler's own unapplied state, refreshed again: read it plainly
        fresh = self._fresh.get(id(after))
        if fresh is not None and fresh[0] is after:
            if fresh[1] is before or (
                fresh[1] is not None and fresh[2] is not None and fresh[1].visibility is before.visibility
            ):
                # cells named against the very matrix `before` has (a round's phases share it)
                return after, fresh[2]
            if before.visibility is after.visibility:
                return after, []
            return after, None
        if not self._complete(before) or scale_squared(before.scene) != scale_squared(after.scene):
            return self._full(after)
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
                changed = {aid for aid, actor in a_actors.items() if senses_changed(b_actors.get(aid), actor)}
                changed.update(aid for aid in b_actors if aid not in a_actors)
            else:
                changed = {
                    aid
                    for aid in edited_actors
                    if aid not in a_actors or senses_changed(b_actors.get(aid), a_actors[aid])
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
            return self._full(after)
        if not dirty and not removed and not pairs:
            if after.visibility is before.visibility:
                return self.mark_fresh(after, before, []), []
            return self.mark_fresh(after.model_copy(update={"visibility": before.visibility}), before, []), []
        # A token that only moved keeps its actor and senses: only its pairs whose stage two depends on
        # distance can change (DET-5), besides standing wins (DET-8).
        only_moved = {
            tid for tid in moved - sensed if tid in b_tokens and b_tokens[tid].actor == a_tokens[tid].actor
        }
        state, changed_pairs = self._incremental(
            before, after, dirty, only_moved, removed, pairs, unapplied_cells
        )
        return self.mark_fresh(state, before, changed_pairs), changed_pairs

    def _build_groups(self, state: WorldState) -> TokenGroups:
        summaries = {tid: self.senses(token_actor(state, tid, tok)) for tid, tok in state.tokens.items()}
        profiles: dict[int, tuple[ObserverProfile, list[str]]] = {}
        keys: dict[AntiKey, list[str]] = {}
        for tid, summary in summaries.items():
            profiles.setdefault(id(summary.profile), (summary.profile, []))[1].append(tid)
            keys.setdefault(summary.key, []).append(tid)
        positions = {tid: _position(tok) for tid, tok in state.tokens.items()}
        return TokenGroups(
            state.actors, state.tokens, summaries, list(profiles.values()), list(keys.items()), positions
        )

    def _groups_for(
        self, before: WorldState, after: WorldState, dirty: set[str], removed: list[str]
    ) -> TokenGroups:
        """The cached index when only positions changed since it was built, else a new one."""
        index = self._groups
        if index is not None and (
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
        index = self._build_groups(after)
        self._groups = index
        return index

    def _incremental(
        self,
        before: WorldState,
        after: WorldState,
        dirty: set[str],
        only_moved: set[str],
        removed: list[str],
        pairs: set[tuple[str, str]],
        unapplied_cells: bool,
    ) -> tuple[WorldState, Pairs]:
        tokens = after.tokens
        scale2 = scale_squared(after.scene)
        contests = after.contests
        index = self._groups_for(before, after, dirty, removed)
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
                    reach = profile.reach(key)
                    if reach.varies:
                        varying.append((*_state_steps(reach), members))
                        continue
                    for oid in members:
                        beyond = STATES[reach.beyond]
                        if oid not in rows and old_visibility[oid].get(tid) is not beyond:
                            changes.setdefault(oid, {})[tid] = beyond
            if rows:
                varying = [
                    (limits, states, [oid for oid in members if oid not in rows])
                    for limits, states, members in varying
                ]
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
        for oid, t in _in_order(touched):
            if oid == t or oid not in tokens or t not in tokens:
                continue
            win = contests.get(oid, {}).get(t)
            now = standing_of(
                summaries[oid], summaries[t].key, _pair_distance2(tokens[oid], tokens[t], scale2), win
            )
            level = now.level
            if now.stale:
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
        if unapplied_cells and not rows and not removed_set:
            # every row is the committed one (no row recomputed, none removed): each changed row's
            # cells are written into it at commit, as the loop below would leave them
            unapplied = {oid: updates for oid, updates in changes.items() if updates}
            changes = {}
        for oid, updates in changes.items():
            if not updates or oid in rows:
                continue
            new_row = visibility[oid]
            if new_row is old_visibility[oid]:
                if unapplied_cells:
                    unapplied[oid] = updates  # written into the shared row at commit (`Unapplied`)
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

    @staticmethod
    def _new_result(stage_two: LocateState, round_number: int, won: bool) -> ContestWin:
        return ContestWin(stage_two=stage_two, round=round_number, won=won)
