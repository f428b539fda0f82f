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

from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any, cast

from vtt_bridge.document.models import (
    AreaMap,
    Scene,
    WorldState,
    edited_keys,
    pending_areas,
    pending_cells,
    written_areas,
)
from vtt_bridge.rules.areas import Area, area_radius, draw_areas, still_holds
from vtt_bridge.rules.common import Step
from vtt_bridge.rules.detection import LocateState
from vtt_bridge.rules.dice import Roller

Areas = dict[str, dict[str, Area]]
"""Target token -> observer token -> the observer's area of the target."""


_APPROXIMATE = LocateState.APPROXIMATE
_UNDRAWN: Area = (0, 0, 0)
"""The place of an area `rule_areas` draws once it knows every pair that needs one."""
_DEFAULT_SCENE = Scene(id="default")


def area_radius_of(state: WorldState) -> float:
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
    points: list[tuple[float, float]] = []
    for target in sorted(observers_of):
        observers = sorted(observers_of[target])
        point = where[target]
        old_row = old.get(target)
        if not old_row:
            plan.append((target, observers, None))
            points.extend([point] * len(observers))
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
            points.append(point)
        plan.append((target, observers, kept))
    drawn = iter(draw_areas(points, radius, dice))
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
    moved: Iterable[str],
    areas: Mapping[str, Mapping[str, Area]],
) -> dict[str, set[str]]:
    """Target -> the observers whose pair with it the ruling may have changed: the matrix's
    unapplied cells, the ruling's own pairs, and a moved target's row whole (its keys)."""
    looked: dict[str, set[str]] = {}
    for observer, cells in pending.items():
        for target in cells:
            named = looked.get(target)
            if named is None:
                looked[target] = {observer}
            else:
                named.add(observer)
    for observer, target in pairs:
        named = looked.get(target)
        if named is None:
            looked[target] = {observer}
        else:
            named.add(observer)
    for target in moved:
        row = areas.get(target)
        if row:
            named = looked.get(target)
            if named is None:
                looked[target] = set(row)
            else:
                named.update(row)
    return looked


def rule_areas(
    before: WorldState,
    after: WorldState,
    pairs: Iterable[tuple[str, str]] | None,
    dice: Roller,
    recheck: bool = False,
) -> WorldState:
    """`after` with its areas ruled (see the module): `pairs` are the cells whose state the ruling
    changed besides the matrix's unapplied cells (None: any may have); `recheck`: look at every pair
    (a world read back from a store written before areas were kept). A row that appears, goes or
    whose every area changed is set whole in the ruling's map (`AreaMap.whole`), a new dict; the
    areas it changes in other rows are held aside (`AreaMap.cells`) and written at commit (`seal`)."""
    radius = area_radius_of(after)
    moved = _moved_tokens(before, after)
    if (
        recheck
        or pairs is None
        or moved is None
        or after.areas is not before.areas
        or radius != area_radius_of(before)
        or pending_areas(after.areas)
    ):
        every = _every_pair(after, dice)
        if not pending_areas(after.areas) and every == after.areas:
            return after
        return after.model_copy(update={"areas": every})
    pending = pending_cells(after.visibility)
    old_areas = after.areas
    looked = _looked_at(pending, pairs, moved, old_areas)
    if not looked:
        return after
    tokens = after.tokens
    visibility = after.visibility
    reach = radius * radius
    areas: AreaMap | None = None
    undrawn: list[dict[str, Area | None]] = []
    undrawn_observers: list[str] = []
    points: list[tuple[float, float]] = []
    old_get = old_areas.get
    unapplied_of = pending.get
    no_states: dict[str, LocateState] = {}
    for target in sorted(looked):
        old_row = old_get(target)
        token = tokens.get(target)
        changes: dict[str, Area | None] | None = None
        drawn = changed = 0
        located: LocateState | None
        for observer in sorted(looked[target]):
            unapplied = unapplied_of(observer)
            if unapplied is not None and target in unapplied:
                located = unapplied[target]
            else:
                located = visibility.get(observer, no_states).get(target)
            area = None if old_row is None else old_row.get(observer)
            if located is _APPROXIMATE and token is not None and observer in tokens:
                x, y = token.x, token.y
                if area is not None and area[2] == radius:  # `still_holds`, inline
                    dx, dy = x - area[0], y - area[1]
                    if dx * dx + dy * dy <= reach:
                        continue
                if changes is None:
                    changes = {observer: _UNDRAWN}  # its place kept; drawn below, in this order
                else:
                    changes[observer] = _UNDRAWN
                undrawn.append(changes)
                undrawn_observers.append(observer)
                points.append((x, y))
                drawn += 1
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
        _note(areas, target, old_row, changes, drawn, changed)
    if undrawn:  # every new area at once, in the order of the pairs (the dice as one draw each takes)
        new_areas = draw_areas(points, radius, dice)
        for row, observer, area in zip(undrawn, undrawn_observers, new_areas, strict=True):
            row[observer] = area
    if areas is None:
        return after
    return after.model_copy(update={"areas": areas})


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


def _row_ops(
    ops: list[dict[str, Any]],
    olds: dict[str, Any] | None,
    missing: Any,
    prefix: str,
    old: Mapping[str, Area],
    gone: list[str],
    puts: list[tuple[str, Area]],
) -> None:
    """A changed row's ops, appended to `ops`: its `gone` areas removed, then each of `puts` added
    or replaced (none when equal to the old one); `olds` as in `area_ops`."""
    append = ops.append
    for observer in gone:
        path = prefix + observer
        append({"op": "remove", "path": path})
        if olds is not None:
            olds[path] = list(old[observer])
    was_get = old.get
    for observer, area in puts:
        was = was_get(observer)
        path = prefix + observer
        if was is None:
            append({"op": "add", "path": path, "value": list(area)})
            if olds is not None:
                olds[path] = missing
        elif was != area:
            append({"op": "replace", "path": path, "value": list(area)})
            if olds is not None:
                olds[path] = list(was)


def _whole_op(
    ops: list[dict[str, Any]],
    olds: dict[str, Any] | None,
    missing: Any,
    target: str,
    old: Mapping[str, Area] | None,
    new: Mapping[str, Area] | None,
) -> None:
    """One op setting a target's row whole: `add` (it had none), `remove` (it has none left) or
    `replace`; `olds` as in `area_ops`."""
    path = f"/areas/{target}"
    if new is None:
        ops.append({"op": "remove", "path": path})
    else:
        value = {o: list(a) for o, a in new.items()}
        ops.append({"op": "add" if old is None else "replace", "path": path, "value": value})
    if olds is not None:
        olds[path] = missing if old is None else {o: list(a) for o, a in old.items()}


def area_ops(
    before: Mapping[str, Mapping[str, Area]],
    after: Mapping[str, Mapping[str, Area]],
    olds: dict[str, Any] | None = None,
    missing: Any = None,
) -> list[dict[str, Any]]:
    """The RFC 6902 ops turning one areas map into the other, row by row in sorted order of targets:
    a row that appears, goes, or whose every area changed (none of its old areas stays) is one op
    with the whole row (`add`, `remove`, `replace`); in any other changed row only its areas that
    changed (removed, then added or replaced: an area is a new tuple when it changes, so entries
    are compared by identity first). Rows that are the very same dict are skipped unread; a ruling's
    map made from `before` (`AreaMap`) names its changes, and only those are read. `olds` gets what
    `before` held at each op's path (`missing`: none), for the inverse."""
    if before is after:
        return []
    ops: list[dict[str, Any]] = []
    if type(after) is AreaMap and after.base is before and after.cells is not None:
        cells = after.cells
        whole = after.whole
        for target in sorted([*whole, *cells]) if whole else sorted(cells):
            changed = cells.get(target)
            if changed is None:
                _whole_op(ops, olds, missing, target, before.get(target), after.get(target))
                continue
            gone = [o for o, area in changed.items() if area is None]
            puts = [(o, area) for o, area in changed.items() if area is not None]
            _row_ops(ops, olds, missing, f"/areas/{target}/", before[target], gone, puts)
        return ops
    if type(after) is AreaMap and after.cells:  # a ruling's map read against another map
        after = written_areas(after)
    old_get = before.get
    touched = [t for t, row in after.items() if old_get(t) is not row]
    touched.extend(before.keys() - after.keys())
    for target in sorted(touched):
        old, new = old_get(target), after.get(target)
        if old is None or new is None:
            _whole_op(ops, olds, missing, target, old, new)
            continue
        cell_get = old.get
        changed_observers = [o for o, area in new.items() if cell_get(o) is not area]
        gone = sorted(old.keys() - new.keys()) if len(old) + len(changed_observers) != len(new) else []
        puts = [(o, new[o]) for o in sorted(changed_observers) if cell_get(o) != new[o]]
        if not gone and not puts:
            continue
        if len(gone) + sum(1 for o, _ in puts if o in old) == len(old):  # none of its areas stays
            _whole_op(ops, olds, missing, target, old, new)
        else:
            _row_ops(ops, olds, missing, f"/areas/{target}/", old, gone, puts)
    return ops


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
