"""The areas of a world's approximate pairs (DET-4 on the map), kept up to date after every ruling.

`WorldState.areas[target][observer]` is `[x, y, r]` (`rules.areas`) for exactly the pairs the matrix
holds approximate, each holding its target's position, `r` the world's radius (`area_radius_of`).
A target's areas are one row, so a target that moves has its row looked at whole (its observers
are the row's keys), and a row whose every area changed is replaced whole (one op).
After a ruling `rule_areas` keeps every area that still stands for its pair, draws one for each
approximate pair without one (or whose target left it, or whose radius the world changed) and drops
those of pairs no longer approximate. A ruling copies no row that stays: the areas it changes in
such a row are held aside (`AreaMap.cells`) and written into the committed rows at commit (`seal`),
so the patch names only the areas that changed (`area_ops`) and a refused ruling leaves the rows as
they were; a row replaced whole is a new dict. The dice are drawn in a fixed order (targets, then
observers, sorted), so a world with seeded dice draws the same areas for the same rulings.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from itertools import islice
from typing import Any, cast

from vtt_bridge.document.models import (
    AreaCells,
    AreaMap,
    Scene,
    Token,
    WorldState,
    edited_keys,
    pending_areas,
    pending_cells,
    written_areas,
)
from vtt_bridge.rules.areas import Area, Pixel, area_radius, draw_runs, still_holds
from vtt_bridge.rules.common import Step
from vtt_bridge.rules.detection import LocateState
from vtt_bridge.rules.dice import Roller

Areas = dict[str, dict[str, Area]]
"""Target token -> observer token -> the observer's area of the target."""


_APPROXIMATE = LocateState.APPROXIMATE
_UNDRAWN: Area = (0, 0, 0)
"""The place of an area `rule_areas` draws once it knows every pair that needs one."""
_DEFAULT_SCENE = Scene(id="default")


def area_radius_of(state: WorldState) -> Pixel:
    """DET-4: the radius of every area of this world, `approximateSquares` times the scene's grid size."""
    return area_radius(state.settings.approximate_squares, (state.scene or _DEFAULT_SCENE).grid_size)


def _moved_tokens(before: WorldState, after: WorldState) -> set[str] | None:
    """The tokens whose position may differ (or that left); None when unknown (check every pair)."""
    if before.tokens is after.tokens:
        return set()
    edited = edited_keys(before.tokens, after.tokens)
    if edited is None:
        return None
    moved: set[str] = set()
    for tid in edited:
        old, new = before.tokens.get(tid), after.tokens.get(tid)
        if old is None or new is None:
            return None  # a token added or removed: rows appear or go
        if (old.x, old.y) != (new.x, new.y):
            moved.add(tid)
    return moved


def _every_pair(state: WorldState, dice: Roller) -> AreaMap:
    """Every approximate pair's area, each kept when it still stands, the others drawn at once in
    the order of the pairs (rows equal to the old ones are the old ones)."""
    radius = area_radius_of(state)
    reach = radius * radius
    where = {tid: (token.x, token.y) for tid, token in state.tokens.items()}
    old = written_areas(state.areas)
    pending = pending_cells(state.visibility)
    observers_of: dict[str, list[str]] = {}
    for observer, row in state.visibility.items():
        if observer not in where:
            continue
        cells = pending.get(observer)
        if cells:
            row = {**row, **cells}
        for target, located in row.items():
            if located is _APPROXIMATE and target in where:
                held = observers_of.get(target)
                if held is None:
                    observers_of[target] = [observer]
                else:
                    held.append(observer)
    plan: list[tuple[str, list[str], list[Area | None] | None]] = []
    runs: list[tuple[tuple[Pixel, Pixel], int]] = []
    for target in sorted(observers_of):
        observers = sorted(observers_of[target])
        point = where[target]
        old_row = old.get(target)
        if not old_row:
            plan.append((target, observers, None))
            runs.append((point, len(observers)))
            continue
        kept: list[Area | None] = []
        old_area = old_row.get
        x, y = point
        for observer in observers:
            area = old_area(observer)
            if area is not None and area[2] == radius:  # `still_holds`, inline
                dx, dy = x - area[0], y - area[1]
                if dx * dx + dy * dy <= reach:
                    kept.append(area)
                    continue
            kept.append(None)
        redrawn = kept.count(None)
        if redrawn:
            runs.append((point, redrawn))
        plan.append((target, observers, kept))
    drawn = iter(draw_runs(runs, radius, dice))
    out: dict[str, dict[str, Area]] = {}
    for target, observers, kept_areas in plan:
        if kept_areas is None:
            out[target] = dict(zip(observers, islice(drawn, len(observers)), strict=True))
            continue
        new_row = {o: next(drawn) if a is None else a for o, a in zip(observers, kept_areas, strict=True)}
        out[target] = old[target] if old[target] == new_row else new_row
    return AreaMap(out)


def _looked_at(
    pending: Mapping[str, Mapping[str, LocateState]],
    pairs: Iterable[tuple[str, str]],
    moved: Collection[str],
    areas: Mapping[str, Mapping[str, Area]],
    tokens: Mapping[str, Token],
) -> tuple[dict[str, dict[str, LocateState | None]], AreaCells, AreaCells, bool]:
    """The pairs whose area the ruling may change, in two parts. Looked at: target -> observer ->
    the pair's new state (None: to be read from the matrix), for a moved target (with a row it is
    named even with no pair: its row is looked at whole, and a pair of the row that is approximate
    still is left out, as the row's own) or one the ruling's own `pairs` name.
    Decided, for any other target: the matrix's unapplied cells whose area changes, observer ->
    `_UNDRAWN` (approximate now, no area yet: one is drawn), then those whose area is dropped
    (observer -> None: no longer approximate), each target's in a map of its own. An area of a
    target that did not move holds it still (the module's invariant), so an approximate cell that
    has one changes nothing; a cell that is neither approximate nor holds an area has none before
    or after. Last: whether `pairs` named any (only then may a state be None)."""
    looked: dict[str, dict[str, LocateState | None]] = {}
    for observer, target in pairs:
        named = looked.get(target)
        if named is None:
            looked[target] = {observer: None}
        else:
            named[observer] = None
    paired = bool(looked)
    drawing: AreaCells = {}
    dropping: AreaCells = {}
    no_row: Mapping[str, Area] = {}
    row_of, approximate = areas.get, _APPROXIMATE
    whole = {*moved, *looked}  # the targets looked at (a move's: one)
    for observer, cells in pending.items():
        for target, located in cells.items():
            if located is approximate:
                if observer in row_of(target, no_row):
                    continue  # approximate still: its area holds, or is looked at with its moved row
            elif observer not in row_of(target, no_row):
                continue  # no area before or after
            if target in whole:
                named = looked.get(target)
                if named is None:
                    looked[target] = {observer: located}
                else:
                    named[observer] = located  # the cell's state, not the matrix's (None)
                continue
            if located is approximate:
                if target not in tokens or observer not in tokens:
                    continue  # no area can be drawn
                changes = drawing.get(target)
                if changes is None:
                    drawing[target] = {observer: _UNDRAWN}
                else:
                    changes[observer] = _UNDRAWN
                continue
            changes = dropping.get(target)
            if changes is None:
                dropping[target] = {observer: None}
            else:
                changes[observer] = None
    for target in moved:
        if target not in looked and target in areas:
            looked[target] = {}
    return looked, drawing, dropping, paired


def _state_after(
    pending: Mapping[str, Mapping[str, LocateState]],
    visibility: Mapping[str, Mapping[str, LocateState]],
    observer: str,
    target: str,
) -> LocateState | None:
    """A pair's state after the ruling: its unapplied cell (`pending`) when it has one, else the
    matrix's (None: no such pair)."""
    unapplied = pending.get(observer)
    if unapplied is not None and target in unapplied:
        return unapplied[target]
    row = visibility.get(observer)
    return None if row is None else row.get(target)


def rule_areas(
    before: WorldState,
    after: WorldState,
    pairs: Iterable[tuple[str, str]] | None,
    dice: Roller,
    recheck: bool = False,
) -> WorldState:
    """`after` with its areas ruled (see the module): `pairs` are the cells whose state the ruling
    changed besides the matrix's unapplied cells (None: any may have); `recheck`: look at every pair
    (a world read back from a store written before areas were kept). A moved target's row is looked
    at whole: a pair of it the ruling did not change is approximate still (it holds an area, and
    the invariant held before the ruling), so its state is not read; a target that stayed has only
    its changed cells read, each decided alone (`_looked_at`). A row that appears, goes or
    whose every area changed is set whole in the ruling's map (`AreaMap.whole`), a new dict; the
    areas it changes in other rows are held aside (`AreaMap.cells`) and written at commit (`seal`)."""
    radius = area_radius_of(after)
    moved = _moved_tokens(before, after)
    if (
        recheck
        or pairs is None
        or moved is None
        or after.areas is not before.areas
        or (
            (after.settings is not before.settings or after.scene is not before.scene)
            and radius != area_radius_of(before)
        )
        or pending_areas(after.areas)
    ):
        every = _every_pair(after, dice)
        if not pending_areas(after.areas) and every == after.areas:
            return after
        return after.model_copy(update={"areas": every})
    pending = pending_cells(after.visibility)
    old_areas = after.areas
    tokens = after.tokens
    looked, decided, dropping, paired = _looked_at(pending, pairs, moved, old_areas, tokens)
    if not looked and not decided and not dropping:
        return after
    visibility = after.visibility
    reach = radius * radius
    areas: AreaMap | None = None
    mixed: set[str] = set()  # targets that stayed and both gain and lose areas
    if dropping:  # a target that stayed and only loses areas: in any order (no dice), held aside
        areas = AreaMap(old_areas, old_areas)
        for target, gone in dropping.items():
            cells = decided.get(target)
            if cells is not None:  # it gains areas too: with them, in the walk below
                cells.update(gone)
                mixed.add(target)
                continue
            if len(gone) > 1:
                gone = dict.fromkeys(sorted(gone))  # its observers in order (`AreaMap.cells`)
            kept_row = old_areas[target]
            if len(gone) < len(kept_row):
                assert areas.cells is not None
                areas.cells[target] = gone
            else:
                _note(areas, target, kept_row, gone, 0, len(gone))
    # each row's areas still to draw: the row (their places kept in it) and their observers, in order
    fills: list[tuple[dict[str, Area | None], list[str]]] = []
    runs: list[tuple[tuple[Pixel, Pixel], int]] = []
    old_get = old_areas.get
    no_row: Mapping[str, Area] = {}
    located: LocateState | None
    drawn: list[str]  # a row's observers whose areas are drawn, in order
    for target in sorted([*looked, *decided]) if decided else sorted(looked):
        cells = decided.get(target)
        if cells is not None:  # a target that stayed: its cells' areas drawn or dropped, as decided
            dropped = 0
            if not mixed or target not in mixed:  # its areas all drawn
                drawn = sorted(cells) if len(cells) > 1 else [*cells]
                if len(drawn) > 1:
                    cells = dict.fromkeys(drawn, _UNDRAWN)  # its observers in order (`AreaMap.cells`)
            else:
                cells = {o: cells[o] for o in sorted(cells)}
                drawn = []
                for observer, mark in cells.items():
                    if mark is None:
                        dropped += 1
                    else:
                        drawn.append(observer)
            if areas is None:
                areas = AreaMap(old_areas, old_areas)
            old_row = old_get(target) or no_row
            if old_row and dropped < len(old_row):  # a row that keeps areas: its changes held aside
                assert areas.cells is not None
                areas.cells[target] = cells
            else:
                _note(areas, target, old_row or None, cells, len(drawn), dropped)
            if drawn:
                stays = tokens[target]
                fills.append((cells, drawn))
                runs.append(((stays.x, stays.y), len(drawn)))
            continue
        named = looked[target]
        old_row = old_get(target) or no_row
        token = tokens.get(target)
        point = None if token is None else (token.x, token.y)
        if target in moved and old_row:  # its row whole, and any pair the ruling named besides
            if (
                point is not None
                and (not paired or None not in named.values())
                and _left_every(old_row, before.tokens[target], point, radius)
            ):
                # every area of it changes (as a far move's): the row anew, its approximate pairs drawn
                listed = dict(old_row)  # its observers are tokens (none came or went: `moved` is known)
                for observer, located in named.items():
                    if located is not _APPROXIMATE:
                        listed.pop(observer, None)
                    elif observer not in listed and observer in tokens:
                        listed[observer] = _UNDRAWN
                kept = sorted(listed)  # in the row's order, which is mostly sorted: a short sort
                if areas is None:
                    areas = AreaMap(old_areas, old_areas)
                areas.whole.append(target)
                if kept:
                    row: dict[str, Area | None] = {}
                    areas[target] = cast(dict[str, Area], row)  # filled below, before anyone reads it
                    fills.append((row, kept))
                    runs.append((point, len(kept)))
                else:
                    del areas[target]
                continue
            observers = sorted(old_row.keys() | named.keys() if named else old_row)
        else:
            observers = sorted(named) if len(named) > 1 else list(named)  # one: as it is
        changes: dict[str, Area | None] | None = None
        drawn = []
        changed = 0
        for observer in observers:
            located = named.get(observer, _APPROXIMATE)  # a moved row's pair left alone: approximate
            if located is None:
                located = _state_after(pending, visibility, observer, target)
            area = old_row.get(observer)
            if located is _APPROXIMATE and point is not None and observer in tokens:
                if area is not None and area[2] == radius:  # `still_holds`, inline
                    dx, dy = point[0] - area[0], point[1] - area[1]
                    if dx * dx + dy * dy <= reach:
                        continue
                if changes is None:
                    changes = {observer: _UNDRAWN}  # its place kept; drawn below, in this order
                else:
                    changes[observer] = _UNDRAWN
                drawn.append(observer)
            elif area is None:
                continue
            elif changes is None:
                changes = {observer: None}
            else:
                changes[observer] = None
            if area is not None:
                changed += 1
        if changes is None:
            continue
        if areas is None:
            areas = AreaMap(old_areas, old_areas)
        if old_row and changed < len(old_row):  # a row that keeps areas: its changes held aside (`_note`)
            assert areas.cells is not None
            areas.cells[target] = changes
        else:
            _note(areas, target, old_row or None, changes, len(drawn), changed)
        if drawn:
            assert point is not None  # an area is drawn only around a target on the map
            fills.append((changes, drawn))
            runs.append((point, len(drawn)))
    if runs:  # every new area at once, in the order of the pairs (the dice as one draw each takes)
        new_areas = draw_runs(runs, radius, dice)
        at = 0
        for row, observers in fills:
            if len(observers) == 1:  # most rows a move changes besides its own: one area
                row[observers[0]] = new_areas[at]
                at += 1
                continue
            end = at + len(observers)
            row.update(zip(observers, new_areas[at:end], strict=True))
            at = end
    if areas is None:
        return after
    return after.model_copy(update={"areas": areas})


def _left_every(row: Mapping[str, Area], was: Token, point: tuple[Pixel, Pixel], radius: Pixel) -> bool:
    """Whether a target at `point` is outside every area of its row (or the area's radius is not
    the world's): `still_holds` holds for none of them. Every area of a committed row holds where
    its target stood (`was`, the module's invariant), so a target now farther than `2 * radius`
    and a pixel from there has left them all: the row is not read."""
    x, y = point
    dx, dy = x - was.x, y - was.y
    beyond = 2 * radius + 1
    if dx * dx + dy * dy > beyond * beyond:
        return True
    reach = radius * radius
    for area in row.values():
        if area[2] == radius:
            dx, dy = x - area[0], y - area[1]
            if dx * dx + dy * dy <= reach:
                return False
    return True


def _note(
    areas: AreaMap,
    target: str,
    old_row: Mapping[str, Area] | None,
    changes: dict[str, Area | None],
    drawn: int,
    changed: int,
) -> None:
    """Put one target's changes in the ruling's map: a row that appears, goes, or whose every area
    changed (`changed` of its old ones) is set whole in the map (named in `whole`), a new dict; the
    changes to any other row are held aside (`cells`)."""
    if old_row is not None and changed < len(old_row):
        assert areas.cells is not None
        areas.cells[target] = changes
        return
    areas.whole.append(target)
    if not drawn:  # every area of the row dropped: it goes
        del areas[target]
        return
    if drawn < len(changes):
        for observer in [o for o, area in changes.items() if area is None]:
            del changes[observer]
    areas[target] = cast(dict[str, Area], changes)  # only drawn areas, filled in before anyone reads


def _whole_op(
    ops: list[dict[str, Any]],
    undo: list[Any] | None,
    target: str,
    old: Mapping[str, Area] | None,
    new: Mapping[str, Area] | None,
) -> None:
    """One op setting a target's row whole: `add` (it had none), `remove` (it has none left) or
    `replace`; `undo` gets its inverse (as in `area_ops`). The op's value is a copy of the new row
    (its areas are tuples, which JSON writes as arrays): a later ruling's cells written into the
    row at commit (`seal`) never reach an op already made. The inverse's value is the old row
    itself: once replaced or removed it is in no committed map, and only a committed map's rows are
    ever written into (`AreaMap`), so it stays as it was."""
    path = "/areas/" + target
    if new is None:
        ops.append({"op": "remove", "path": path})
    else:
        ops.append({"op": "add" if old is None else "replace", "path": path, "value": dict(new)})
    if undo is not None:
        if old is None:
            undo.append({"op": "remove", "path": path})
        else:
            undo.append({"op": "add" if new is None else "replace", "path": path, "value": old})


def area_ops(
    before: Mapping[str, Mapping[str, Area]],
    after: Mapping[str, Mapping[str, Area]],
    undo: list[Any] | None = None,
) -> list[dict[str, Any]]:
    """The RFC 6902 ops turning one areas map into the other, row by row in sorted order of targets:
    a row that appears, goes, or keeps none of its old areas (each was redrawn or dropped) is one
    op with the whole row (`add`, `remove`, `replace`); any other changed row has one op per area
    that changed (`add`, `remove` or `replace` of `/areas/<target>/<observer>`, in sorted order of
    observers). Rows that are the very same dict are skipped unread, and an area is a new tuple
    when it changes, so entries are compared by identity first; a ruling's map made from `before`
    (`AreaMap`) names its changes, and only those are read. `undo`, when given, gets each op's
    inverse (the path as `before` held it), index for index. An op's areas are tuples (arrays in
    its JSON), and nothing writes into its value once made."""
    if before is after:
        return []
    if type(after) is AreaMap and after.base is before and after.cells is not None:
        cells = after.cells
        whole = after.whole
        targets = sorted([*whole, *cells]) if whole else sorted(cells)
        return _row_ops(before, after, targets, cells.get, undo)
    if type(after) is AreaMap and after.cells:  # a ruling's map read against another map
        after = written_areas(after)
    old_get = before.get
    touched = [t for t, row in after.items() if old_get(t) is not row]
    touched.extend(before.keys() - after.keys())
    rows: dict[str, Mapping[str, Area | None] | None] = {}
    for target in sorted(touched):
        old, new = old_get(target), after.get(target)
        if old is None or new is None:
            rows[target] = None
            continue
        cell_get = old.get
        changes: list[tuple[str, Area | None]] = [
            (o, area) for o, area in new.items() if cell_get(o) is not area and cell_get(o) != area
        ]
        if len(old) + len(changes) != len(new):
            changes.extend((o, None) for o in old.keys() - new.keys())
        if not changes:
            continue
        if sum(1 for o, _ in changes if o in old) == len(old):  # none of its areas stays
            rows[target] = None
        else:
            changes.sort(key=_first)
            rows[target] = dict(changes)
    return _row_ops(before, after, rows, rows.get, undo)


def _row_ops(
    before: Mapping[str, Mapping[str, Area]],
    after: Mapping[str, Mapping[str, Area]],
    targets: Iterable[str],
    changes_of: Callable[[str], Mapping[str, Area | None] | None],
    undo: list[Any] | None,
) -> list[dict[str, Any]]:
    """`area_ops`' ops for its changed rows, in the order of `targets`: a row whose changes are None
    (`changes_of`) as one op with the whole row (`_whole_op`), any other as one op per changed area
    in its changes' order (None: the area removed; else added or replaced, never equal to the old
    one, the area's own tuple as its value); `undo` gets each op's inverse."""
    ops: list[dict[str, Any]] = []
    append = ops.append
    for target in targets:
        changed = changes_of(target)
        if changed is None:
            _whole_op(ops, undo, target, before.get(target), after.get(target))
            continue
        was_of = before[target].get
        for observer, area in changed.items():
            path = f"/areas/{target}/{observer}"
            was = was_of(observer)
            if area is None:
                append({"op": "remove", "path": path})
            else:
                append({"op": "add" if was is None else "replace", "path": path, "value": area})
            if undo is not None:
                if was is None:
                    undo.append({"op": "remove", "path": path})
                else:
                    undo.append({"op": "add" if area is None else "replace", "path": path, "value": was})
    return ops


def _first(change: tuple[str, Area | None]) -> str:
    return change[0]


def area_steps(state: WorldState, observer: str, target: str) -> list[Step]:
    """`explain`'s word on the pair's area: where it is and where it came from (DET-4)."""
    area = state.areas.get(target, {}).get(observer)
    if area is None:
        return []
    squares = state.settings.approximate_squares
    token = state.tokens.get(target)
    inside = token is not None and still_holds(area, token.x, token.y, area_radius_of(state))
    return [
        Step(
            rule="DET-4",
            text=f"{observer} knows {target} to be within {squares} squares of ({area[0]}, {area[1]}): "
            "an area drawn by the world's dice around where the target stood when the pair became "
            "approximate or last left its area; it stays while the target stays inside",
            data={
                "observer": observer,
                "target": target,
                "x": area[0],
                "y": area[1],
                "r": area[2],
                "squares": squares,
                "holds": inside,
            },
            key="DET-4.area",
        )
    ]


__all__ = ["Areas", "area_ops", "area_radius_of", "area_steps", "rule_areas"]
