"""RFC 6902 patches of the state document: built from what a ruling changed, applied with jsonpatch.

The builder never diffs whole documents. The state models are frozen and a ruling replaces only
what it touches, so an unchanged actor, token or visibility row is the very same object before and
after and is skipped without a look (not even visited when the ruling's map names the members it
replaced, see `document.models.Edited`); a changed one is walked field by field: nested models again, plain
scalars compared as they are, only the other changed fields dumped. The ops are `add`, `remove`
and `replace` only (never `move`/`copy`, which no Foundry update can express); arrays are replaced
whole, as Foundry replaces them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import compress
from operator import is_not
from typing import Any, TypeVar

import jsonpatch
from pydantic import BaseModel

from vtt_bridge.document.models import Unapplied, WorldState, edited_keys, pending_cells

Op = dict[str, Any]
V = TypeVar("V")


def escape(segment: str) -> str:
    """One JSON Pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`."""
    if "~" not in segment and "/" not in segment:
        return segment
    return segment.replace("~", "~0").replace("/", "~1")


def unescape(segment: str) -> str:
    """The inverse of `escape`."""
    return segment.replace("~1", "/").replace("~0", "~")


def split_pointer(pointer: str) -> list[str]:
    """A JSON Pointer's unescaped segments (`/a/b~1c` -> `["a", "b/c"]`)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON Pointer starts with '/': {pointer!r}")
    return [unescape(part) for part in pointer[1:].split("/")]


def _diff_json(path: str, before: Any, after: Any, ops: list[Op]) -> None:
    """Ops turning one JSON value into another: objects key by key, anything else replaced whole."""
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": f"{path}/{escape(key)}"})
        for key, value in after.items():
            if key not in before:
                ops.append({"op": "add", "path": f"{path}/{escape(key)}", "value": value})
            else:
                _diff_json(f"{path}/{escape(key)}", before[key], value, ops)
        return
    ops.append({"op": "replace", "path": path, "value": after})


_SCALARS = frozenset((int, str, float, bool, type(None)))
"""Field values that are their own JSON (exact types: an enum member is dumped, not taken as is)."""

_KEYS: dict[type[BaseModel], dict[str, str]] = {}
"""Per model class: field name -> its escaped key on the wire (the camelCase alias)."""


def _keys(cls: type[BaseModel]) -> dict[str, str]:
    keys = _KEYS.get(cls)
    if keys is None:
        keys = {
            name: escape(info.serialization_alias or info.alias or name)
            for name, info in cls.model_fields.items()
        }
        _KEYS[cls] = keys
    return keys


def _diff_model(path: str, before: BaseModel, after: BaseModel, ops: list[Op]) -> None:
    """Ops for the fields of one model that are not the very same object before and after: a nested
    model field by field again, a plain scalar compared as it is, anything else dumped and diffed."""
    old_fields, new_fields = before.__dict__, after.__dict__
    keys = _keys(type(after))
    rest: set[str] = set()
    names = list(new_fields)
    if names == list(old_fields):  # the same fields in the same order: compare identities in C
        changed: Iterable[str] = compress(names, map(is_not, old_fields.values(), new_fields.values()))
    else:
        changed = [name for name in names if old_fields[name] is not new_fields[name]]
    for name in changed:
        old, value = old_fields[name], new_fields[name]
        kind = type(value)
        if kind in _SCALARS and type(old) in _SCALARS:
            if old != value or type(old) is not kind:
                ops.append({"op": "replace", "path": f"{path}/{keys[name]}", "value": value})
        elif isinstance(value, BaseModel) and type(old) is kind:
            _diff_model(f"{path}/{keys[name]}", old, value, ops)
        else:
            rest.add(name)
    if not rest:
        return
    old_json = before.model_dump(mode="json", include=rest)
    new_json = after.model_dump(mode="json", include=rest)
    for key, value in new_json.items():
        _diff_json(f"{path}/{escape(key)}", old_json[key], value, ops)


def _added_and_removed(
    path: str, before: Mapping[str, V], after: Mapping[str, V], dump: Callable[[V], Any], ops: list[Op]
) -> None:
    """Ops for the members of a map that only one side has (set differences of the keys, in C)."""
    if before.keys() == after.keys():
        return
    for key in before.keys() - after.keys():
        ops.append({"op": "remove", "path": f"{path}/{escape(key)}"})
    for key in after.keys() - before.keys():
        ops.append({"op": "add", "path": f"{path}/{escape(key)}", "value": dump(after[key])})


def _diff_models(
    path: str, before: Mapping[str, BaseModel], after: Mapping[str, BaseModel], ops: list[Op]
) -> None:
    """Ops for a map of models keyed by id: removed, added, and changed members."""
    if before is after:
        return
    edited = edited_keys(before, after)
    if edited is None:  # compare every member
        _added_and_removed(path, before, after, lambda model: model.model_dump(mode="json"), ops)
        old_get = before.get
        for key in [key for key, model in after.items() if old_get(key, model) is not model]:
            _diff_model(f"{path}/{escape(key)}", before[key], after[key], ops)
        return
    for key in sorted(edited):  # only the members the ruling replaced, added or removed
        old, new = before.get(key), after.get(key)
        if old is new:
            continue
        if new is None:
            ops.append({"op": "remove", "path": f"{path}/{escape(key)}"})
        elif old is None:
            ops.append({"op": "add", "path": f"{path}/{escape(key)}", "value": new.model_dump(mode="json")})
        else:
            _diff_model(f"{path}/{escape(key)}", old, new, ops)


def _diff_visibility(
    before: Mapping[str, Mapping[str, str]],
    after: Mapping[str, Mapping[str, str]],
    pairs: Iterable[tuple[str, str]] | None,
    ops: list[Op],
) -> None:
    """Ops for the visibility matrix; with `pairs`, only those (observer, target) cells are looked at,
    besides unapplied cells (`document.models.Unapplied`): their row is still the committed row,
    and they are all that changed in it. Token ids hold no '/' or '~' (`document.models.Id`; upsert
    checks them too), so they are pointer segments as they are."""
    if before is after:
        return
    if type(after) is not Unapplied or after.keys_of is not before:
        _added_and_removed("/visibility", before, after, dict, ops)
    unapplied = pending_cells(after)
    if pairs is None:
        old_get = before.get
        for observer in [o for o, row in after.items() if old_get(o, row) is not row]:
            _diff_json(f"/visibility/{observer}", dict(before[observer]), dict(after[observer]), ops)
    else:
        for observer, target in pairs:
            if observer in unapplied:
                continue  # its cells, below
            old_row, row = before.get(observer), after.get(observer)
            if old_row is None or row is None or old_row is row:
                continue  # a whole row added or removed above, or unchanged
            path = f"/visibility/{observer}/{target}"
            if target not in row:
                if target in old_row:
                    ops.append({"op": "remove", "path": path})
            elif target not in old_row:
                ops.append({"op": "add", "path": path, "value": row[target]})
            elif old_row[target] != row[target]:
                ops.append({"op": "replace", "path": path, "value": row[target]})
    for observer, cells in unapplied.items():
        old_row = before.get(observer)
        if old_row is None:
            continue  # a new row, added whole above
        prefix = f"/visibility/{observer}/"
        for target, value in cells.items():
            old = old_row.get(target)
            if old != value:
                op = "add" if old is None else "replace"
                ops.append({"op": op, "path": prefix + target, "value": value})


def diff_states(
    before: WorldState, after: WorldState, visibility_pairs: Iterable[tuple[str, str]] | None = None
) -> list[Op]:
    """The ops that turn `before` into `after`, rev excluded (see `ruling_patch`)."""
    ops: list[Op] = []
    for name in ("scene", "settings"):
        old, new = getattr(before, name), getattr(after, name)
        if old is not new:
            _diff_json(
                f"/{name}",
                None if old is None else old.model_dump(mode="json"),
                None if new is None else new.model_dump(mode="json"),
                ops,
            )
    _diff_models("/actors", before.actors, after.actors, ops)
    _diff_models("/tokens", before.tokens, after.tokens, ops)
    _diff_visibility(before.visibility, after.visibility, visibility_pairs, ops)
    _diff_contests(before.contests, after.contests, ops)
    if before.reveals is not after.reveals:
        _diff_json(
            "/reveals",
            {t: {o: v.value for o, v in row.items()} for t, row in before.reveals.items()},
            {t: {o: v.value for o, v in row.items()} for t, row in after.reveals.items()},
            ops,
        )
    if before.pins is not after.pins:
        _diff_json(
            "/pins",
            {t: pins.model_dump(mode="json") for t, pins in before.pins.items()},
            {t: pins.model_dump(mode="json") for t, pins in after.pins.items()},
            ops,
        )
    return ops


def _diff_contests(
    before: Mapping[str, Mapping[str, BaseModel]], after: Mapping[str, Mapping[str, BaseModel]], ops: list[Op]
) -> None:
    """Ops for the stage-three results: a ruling replaces only the rows (and in them the entries) it
    changed, so the rest are the very same objects and are skipped without a dump."""
    if before is after:
        return
    _added_and_removed(
        "/contests",
        before,
        after,
        lambda row: {t: win.model_dump(mode="json") for t, win in row.items()},
        ops,
    )
    for observer, row in after.items():
        old_row = before.get(observer)
        if old_row is None or old_row is row:
            continue
        path = f"/contests/{escape(observer)}"
        _added_and_removed(path, old_row, row, lambda win: win.model_dump(mode="json"), ops)
        old_get = old_row.get
        for target, win in row.items():
            old = old_get(target)
            if old is not None and old is not win:
                _diff_model(f"{path}/{escape(target)}", old, win, ops)


def ruling_patch(old_rev: int, new_rev: int, ops: list[Op]) -> list[Op]:
    """A ruling's patch: a `test` of the old rev, the changes, and the new rev (PROTOCOL.md)."""
    return [
        {"op": "test", "path": "/rev", "value": old_rev},
        *ops,
        {"op": "replace", "path": "/rev", "value": new_rev},
    ]


def apply(document: dict[str, Any], patch: list[Op]) -> dict[str, Any]:
    """Apply a patch to a JSON document in place (its `test` ops checked); raises on any failure."""
    result: dict[str, Any] = jsonpatch.apply_patch(document, patch, in_place=True)
    return result


PatchConflict = (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException)
"""What `apply` raises when a patch does not fit the document."""
