"""The areas of a world's approximate pairs (DET-4 on the map), kept up to date after every ruling.

`WorldState.areas[observer][target]` is `[x, y, r]` (`rules.areas`) for exactly the pairs the matrix
holds approximate, each holding its target's position, `r` the world's radius (`area_radius_of`).
After a ruling `rule_areas` keeps every area that still stands for its pair, draws one for each
approximate pair without one (or whose target left it, or whose radius the world changed) and drops
those of pairs no longer approximate. A ruling copies no row: the areas it changes in a row that
stays are held aside (`AreaMap.cells`) and written into the committed rows at commit (`seal`), so
the patch names only the areas that changed (`area_ops`) and a refused ruling leaves the rows as
they were. The observers holding an area of a target are read from the map's index
(`AreaMap.holders`). The dice are drawn in a fixed order (observers, then targets, sorted), so a
world with seeded dice draws the same areas for the same rulings.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from itertools import islice
from typing import Any, cast

from vtt_bridge.document.models import (
    AreaCells,
    AreaMap,
    Holders,
    Scene,
    WorldState,
    edited_keys,
    hold,
    holders_of,
    pending_areas,
    pending_cells,
    written_areas,
)
from vtt_bridge.rules.areas import Area, area_radius, draw_areas, still_holds
from vtt_bridge.rules.common import Step
from vtt_bridge.rules.detection import LocateState
from vtt_bridge.rules.dice import Roller

Areas = dict[str, dict[str, Area]]


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
    the order of the pairs (rows equal to the old ones are the old ones), indexed (`AreaMap.holders`)."""
    radius = area_radius_of(state)
    reach = radius * radius
    where = {tid: (token.x, token.y) for tid, token in state.tokens.items()}
    # each token's place: one tuple shared by every observer's point of it
    old = written_areas(state.areas)
    pending = pending_cells(state.visibility)
    plan: list[tuple[str, list[str], list[Area | None] | None]] = []
    points: list[tuple[float, float]] = []
    extend = points.extend
    place = where.__getitem__
    holders: dict[str, list[str]] = {}
    for observer in sorted(state.visibility):
        if observer not in where:
            continue
        row = state.visibility[observer]
        cells = pending.get(observer)
        if cells:
            row = {**row, **cells}
        targets = sorted([t for t, located in row.items() if located is _APPROXIMATE and t in where])
        if not targets:
            continue
        hold(holders, observer, targets)
        old_row = old.get(observer)
        if not old_row:
            plan.append((observer, targets, None))
            extend(map(place, targets))
            continue
        kept: list[Area | None] = []
        old_area = old_row.get
        for target in targets:
            area = old_area(target)
            point = where[target]
            if area is not None and area[2] == radius:  # `still_holds`, inline
                dx, dy = point[0] - area[0], point[1] - area[1]
                if dx * dx + dy * dy <= reach:
                    kept.append(area)
                    continue
            kept.append(None)
            points.append(point)
        plan.append((observer, targets, kept))
    drawn = iter(draw_areas(points, radius, dice))
    out: dict[str, dict[str, Area]] = {}
    for observer, targets, kept_areas in plan:
        if kept_areas is None:
            out[observer] = dict(zip(targets, islice(drawn, len(targets)), strict=True))
            continue
        new_row = {t: next(drawn) if a is None else a for t, a in zip(targets, kept_areas, strict=True)}
        out[observer] = old[observer] if old[observer] == new_row else new_row
    return AreaMap(out, holders)


def _held(
    areas: AreaMap | None, held: AreaCells | None, old_areas: Any, holders: Holders
) -> tuple[AreaMap, AreaCells]:
    """The ruling's map made from the committed one at its first change, and its cells."""
    if areas is None or held is None:
        areas = AreaMap(old_areas, holders, old_areas)
        assert areas.cells is not None
        held = areas.cells
    return areas, held


def _note(
    areas: AreaMap,
    held: AreaCells,
    observer: str,
    old_row: dict[str, Area] | None,
    changes: dict[str, Area | None],
    drawn: int,
) -> None:
    """Put one observer's changes in the ruling's map: a row that appears or goes whole is set in
    the map (named in `whole`), the changes to a row that stays are held aside (`cells`)."""
    if old_row is None:  # a row that appears: only areas drawn in it
        areas[observer] = cast(dict[str, Area], changes)  # drawn before anyone reads it
        areas.whole.append(observer)
    elif not drawn and len(changes) == len(old_row):  # every area of the row dropped: it goes
        del areas[observer]
        areas.whole.append(observer)
    else:
        held[observer] = changes


def rule_areas(
    before: WorldState,
    after: WorldState,
    pairs: Iterable[tuple[str, str]] | None,
    dice: Roller,
    recheck: bool = False,
) -> WorldState:
    """`after` with its areas ruled (see the module): `pairs` are the cells whose state the ruling
    changed besides the matrix's unapplied cells (None: any may have); `recheck`: look at every pair
    (a world read back from a store written before areas were kept). The areas it changes in rows
    that stay are held aside (`AreaMap.cells`) and written into the rows at commit (`seal`)."""
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
        kept = after.areas
        if type(kept) is AreaMap and kept.cells is None and kept.holders is not None and every == kept:
            return after
        return after.model_copy(update={"areas": every})
    pending = pending_cells(after.visibility)
    old_areas = after.areas
    holders = holders_of(old_areas)
    # observer -> the targets to look at: a matrix row's unapplied cells as they are (their keys),
    # the few other pairs (the ruling's own, a moved target's holders) added as lists
    by_observer: dict[str, Collection[str]] = dict(pending)
    extra: list[tuple[str, str]] = list(pairs)
    for target in moved:
        extra.extend((observer, target) for observer in holders.get(target, ()))
    for observer, target in extra:
        named = by_observer.get(observer)
        if named is None:
            by_observer[observer] = [target]
        elif target not in named:
            if type(named) is list:
                named.append(target)
            else:
                by_observer[observer] = [*named, target]
    # a moved target whose pair stayed approximate without an area cannot be (the invariant holds
    # before the ruling), so the index names every pair of a moved target to look at
    if not by_observer:
        return after
    tokens = after.tokens
    visibility = after.visibility
    reach = radius * radius
    areas: AreaMap | None = None
    held: AreaCells | None = None
    undrawn: list[dict[str, Area | None]] = []
    undrawn_targets: list[str] = []
    points: list[tuple[float, float]] = []
    old_get = old_areas.get
    no_states: dict[str, LocateState] = {}
    changes: dict[str, Area | None] | None
    for observer in sorted(by_observer):
        named = by_observer[observer]
        old_row = old_get(observer)
        states = visibility.get(observer, no_states)
        unapplied = pending.get(observer)
        present = observer in tokens  # an observer off the map holds no area
        changes = None
        drawn = 0
        looked: Iterable[tuple[str, LocateState | None]]
        if unapplied is not None and named is unapplied:  # the row's unapplied cells: states at hand
            looked = sorted(unapplied.items()) if len(unapplied) > 1 else unapplied.items()
        else:
            looked = [
                (t, unapplied[t] if unapplied is not None and t in unapplied else states.get(t))
                for t in sorted(named)
            ]
        for target, located in looked:
            area = None if old_row is None else old_row.get(target)
            if located is _APPROXIMATE and present:
                token = tokens.get(target)
                if token is not None:
                    x, y = token.x, token.y
                    if area is not None and area[2] == radius:  # `still_holds`, inline
                        dx, dy = x - area[0], y - area[1]
                        if dx * dx + dy * dy <= reach:
                            continue
                    if changes is None:
                        changes = {target: _UNDRAWN}  # its place kept; drawn below, in this order
                    else:
                        changes[target] = _UNDRAWN
                    undrawn.append(changes)
                    undrawn_targets.append(target)
                    points.append((x, y))
                    drawn += 1
                    continue
            if area is not None:
                if changes is None:
                    changes = {target: None}
                else:
                    changes[target] = None
        if changes is not None:
            areas, held = _held(areas, held, old_areas, holders)
            _note(areas, held, observer, old_row, changes, drawn)
    if undrawn:  # every new area at once, in the order of the pairs (the dice as one draw each takes)
        for row, target, area in zip(undrawn, undrawn_targets, draw_areas(points, radius, dice), strict=True):
            row[target] = area
    if areas is None:
        return after
    return after.model_copy(update={"areas": areas})


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
    for target in gone:
        path = prefix + target
        append({"op": "remove", "path": path})
        if olds is not None:
            olds[path] = list(old[target])
    was_get = old.get
    for target, area in puts:
        was = was_get(target)
        path = prefix + target
        if was is None:
            append({"op": "add", "path": path, "value": list(area)})
            if olds is not None:
                olds[path] = missing
        elif was != area:
            append({"op": "replace", "path": path, "value": list(area)})
            if olds is not None:
                olds[path] = list(was)


def area_ops(
    before: Mapping[str, Mapping[str, Area]],
    after: Mapping[str, Mapping[str, Area]],
    olds: dict[str, Any] | None = None,
    missing: Any = None,
) -> list[dict[str, Any]]:
    """The RFC 6902 ops turning one areas map into the other: a row that appears or goes whole, in a
    row that changed only its areas that changed (removed, then added or replaced: an area is a new
    tuple when it changes, so entries are compared by identity), in sorted order. Rows that are the
    very same dict are skipped unread; a ruling's map made from `before` (`AreaMap`) names its
    changes, and only those are read. `olds` gets what `before` held at each op's path (`missing`:
    none), for the inverse."""
    if before is after:
        return []
    ops: list[dict[str, Any]] = []
    cells: AreaCells | None = None
    if type(after) is AreaMap and after.base is before and after.cells is not None:
        cells = after.cells
        gone_rows = sorted(o for o in after.whole if o not in after)
        new_rows = sorted(o for o in after.whole if o in after)
        changed_rows = sorted(cells)
    else:
        if type(after) is AreaMap and after.cells:  # a ruling's map read against another map
            after = written_areas(after)
        gone_rows = sorted(before.keys() - after.keys())
        new_rows = sorted(after.keys() - before.keys())
        old_get = before.get
        changed_rows = sorted(o for o, row in after.items() if old_get(o, row) is not row)
    for observer in gone_rows:
        ops.append({"op": "remove", "path": f"/areas/{observer}"})
        if olds is not None:
            olds[f"/areas/{observer}"] = {t: list(a) for t, a in before[observer].items()}
    for observer in new_rows:
        row = after[observer]
        ops.append({"op": "add", "path": f"/areas/{observer}", "value": {t: list(a) for t, a in row.items()}})
        if olds is not None:
            olds[f"/areas/{observer}"] = missing
    if cells is not None:  # the ruling's own changes, each row's in sorted order
        for observer in changed_rows:
            changed = cells[observer]
            gone = [t for t, area in changed.items() if area is None]
            puts = [(t, area) for t, area in changed.items() if area is not None]
            _row_ops(ops, olds, missing, f"/areas/{observer}/", before[observer], gone, puts)
        return ops
    for observer in changed_rows:
        old, new = before[observer], after[observer]
        cell_get = old.get
        changed_targets = sorted(t for t, area in new.items() if cell_get(t) is not area)
        gone = sorted(old.keys() - new.keys()) if len(old) + len(changed_targets) != len(new) else []
        puts = [(t, new[t]) for t in changed_targets]
        _row_ops(ops, olds, missing, f"/areas/{observer}/", old, gone, puts)
    return ops


def area_steps(state: WorldState, observer: str, target: str) -> list[Step]:
    """`explain`'s word on the pair's area: where it is and where it came from (DET-4)."""
    area = state.areas.get(observer, {}).get(target)
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
