"""The round's stage-three contests (DET-8/9): every pair that can contest does, at once, and results
of earlier rounds lapse. Which pairs contest, at which step of distance, is the visibility index's
`ContestGeometry` (`document.geometry`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from operator import add, is_, is_not, itemgetter, not_
from typing import cast

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.document.circumstances import (
    circumstance_args,
    hider_base,
    hider_circumstances,
    modifiers_of,
    observer_base,
)
from vtt_bridge.document.geometry import ContestStep, near
from vtt_bridge.document.models import (
    Unapplied,
    WorldState,
    pending_cells,
)
from vtt_bridge.document.visibility import (
    Contests,
    Pairs,
    Visibility,
    VisibilityIndex,
    scale_squared,
    token_actor,
)
from vtt_bridge.rules.detection import (
    STATES,
    AntiKey,
    ContestModifier,
    ContestWin,
    LocateState,
    details_every_contest,
    keeps_result,
    lapses,
    modifier_dice,
    pair_contest_steps,
    round_steps,
    spots_nothing,
)
from vtt_bridge.rules.dice import Roll, active_wins, active_wins_each, roll_pools

_CODE_SHIFT = 16
"""A contest's DET-9 code is `hider class << _CODE_SHIFT | 2 * entry | unlocated`; the entries are
distinct `ContestStep` values (at most 3 * 3 * 16 * 3 * 3 of them), so `2 * entry + 1` stays below it."""

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
        entries: list[ContestStep],
    ) -> None:
        super().__init__()
        self.base, self.wound, self.noisy, self.classes, self.entries = base, wound, noisy, classes, entries

    def __missing__(self, code: int) -> _Found:
        part, hide_base = self.classes[code >> _CODE_SHIFT]
        step = self.entries[(code & ((1 << _CODE_SHIFT) - 1)) >> 1]
        mods = modifiers_of(circumstance_args(bool(code & 1), self.noisy, near(step[2]), self.wound, part))
        observer_dp, hider_dp = modifier_dice(mods)
        found = self[code] = (self.base + observer_dp, hide_base + hider_dp, mods)
        return found


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
            kind = (hider_circumstances(hidden.actor), hider_base(hidden.actor))
            class_codes.append(class_ids.setdefault(kind, len(class_ids)) << _CODE_SHIFT)
    geometry = index.round_geometry
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
        spot_base = observer_base(observer_actor)
        pools_of = tables.get((spot_base, wound))
        if pools_of is None:
            pools_of = tables[(spot_base, wound)] = _Pools(spot_base, wound, noisy, classes, geometry.entries)
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
    shown = (
        [
            (o, i, code)
            for (o, first, end), (_, codes, _) in zip(observers, theirs, strict=True)
            for i, code in zip(range(first, end), codes, strict=True)
        ]
        if details_every_contest(ran)
        else changed
    )
    log = round_steps(round_number, ran, changed_count, len(shown), lapsed)
    rolls: list[Roll] = []
    if ran:
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
