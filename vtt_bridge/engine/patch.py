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
from operator import is_not
from typing import Any, TypeVar, cast

import jsonpatch
import orjson
from pydantic import BaseModel

from vtt_bridge.document.areas import area_ops
from vtt_bridge.document.models import (
    LOCATE_CODES,
    LOCATE_OF_CODE,
    NONE_WRITTEN,
    Actor,
    Scene,
    Settings,
    TargetPins,
    Token,
    Unapplied,
    WorldState,
    Written,
    edited_keys,
    pending_cells,
    settled,
)
from vtt_bridge.rules.areas import shared_area
from vtt_bridge.rules.common import STORED
from vtt_bridge.rules.detection import ContestWin, LocateState

Op = dict[str, Any]
PINPOINTED = "pinpointed"
"""DET-4: the state an absent pair has in the sparse visibility matrix."""
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
    if "~" not in pointer:  # nothing escaped (ids and field names hold no '~' or '/')
        return pointer[1:].split("/")
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


Olds = dict[str, Any]
"""Path -> the JSON value the state before held there (`MISSING`: nothing), for the ops whose old value
the diff read anyway (a scalar field, a visibility cell): `inverse_ops` takes them from here."""

Undo = list["Op | None"]
"""Beside a diff's ops, index for index: each op's inverse where the diff built it with the op (a
visibility cell), None where `inverse_ops` works it out."""


_ORDERED: dict[tuple[type[BaseModel], frozenset[str]], tuple[str, ...]] = {}
"""Per model class and set of its field names: those names in the class's field order."""


def _in_field_order(cls: type[BaseModel], names: frozenset[str]) -> tuple[str, ...]:
    ordered = _ORDERED.get((cls, names))
    if ordered is None:
        ordered = _ORDERED[(cls, names)] = tuple(name for name in cls.model_fields if name in names)
    return ordered


_MODEL_CLASSES: dict[type, bool] = {}
"""A field value's class -> whether it is a pydantic model's (`_is_model_class`)."""


def _is_model_class(kind: type) -> bool:
    """`issubclass(kind, BaseModel)`, known once per class: pydantic's metaclass answers each
    `isinstance` of a model in Python."""
    known = _MODEL_CLASSES.get(kind)
    if known is None:
        known = _MODEL_CLASSES[kind] = issubclass(kind, BaseModel)
    return known


def _diff_model(
    path: str,
    before: BaseModel,
    after: BaseModel,
    ops: list[Op],
    olds: Olds | None = None,
    written: frozenset[str] | None = None,
) -> None:
    """Ops for the fields of one model that are not the very same object before and after: a nested
    model field by field again, a plain scalar compared as it is, anything else dumped and diffed.
    `written`: the only fields that may differ (every other one the very same object before and
    after, `diff_states`); they are looked at in the model's field order, as the others would be."""
    old_fields, new_fields = before.__dict__, after.__dict__
    keys = _keys(type(after))
    rest: set[str] = set()
    names: Iterable[str] = new_fields if written is None else _in_field_order(type(after), written)
    changed = [name for name in names if old_fields[name] is not new_fields[name]]
    for name in changed:
        old, value = old_fields[name], new_fields[name]
        kind = type(value)
        if kind in _SCALARS and type(old) in _SCALARS:
            if old != value or type(old) is not kind:
                at = f"{path}/{keys[name]}"
                ops.append({"op": "replace", "path": at, "value": value})
                if olds is not None:
                    olds[at] = old  # a plain scalar is its own JSON
        elif type(old) is kind and _is_model_class(kind):
            _diff_model(f"{path}/{keys[name]}", old, value, ops, olds)
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
    """Ops for the members of a map that only one side has (set differences of the keys, in C): the
    removed ones, then the added ones, each in sorted key order (never the order of string hashing,
    which differs from process to process)."""
    if before.keys() == after.keys():
        return
    for key in sorted(before.keys() - after.keys()):
        ops.append({"op": "remove", "path": f"{path}/{escape(key)}"})
    for key in sorted(after.keys() - before.keys()):
        ops.append({"op": "add", "path": f"{path}/{escape(key)}", "value": dump(after[key])})


def _diff_models(
    path: str,
    before: Mapping[str, BaseModel],
    after: Mapping[str, BaseModel],
    ops: list[Op],
    olds: Olds | None = None,
    written: Written = NONE_WRITTEN,
) -> None:
    """Ops for a map of models keyed by id: removed, added, and changed members; `written`: per
    member, the only fields of it that may differ (see `diff_states`)."""
    if before is after:
        return
    edited = edited_keys(before, after)
    if edited is None:  # compare every member
        _added_and_removed(path, before, after, lambda model: model.model_dump(mode="json"), ops)
        old_get = before.get
        for key in [key for key, model in after.items() if old_get(key, model) is not model]:
            _diff_model(f"{path}/{escape(key)}", before[key], after[key], ops, olds)
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
            _diff_model(f"{path}/{escape(key)}", old, new, ops, olds, written.get(key))


_CODES: dict[object, str] = {state: code for state, code in LOCATE_CODES.items()}
"""A cell's code in the sparse form; an absent or pinpointed cell has none. Read by lookup, not by
comparing a cell with `PINPOINTED`: `LocateState` orders its members in Python, so each `==` goes
through a slot call, where a lookup of the member itself matches by identity."""


_CELL_CODES: dict[object, str | None] = {**_CODES, LocateState.PINPOINTED: None, None: None}
"""`_CODES` read by subscript: every state's code, None for a pinpointed or absent cell."""


def _cell_op(
    path: str,
    old: str | None,
    new: str | None,
    ops: list[Op],
    olds: Olds | None = None,
    undo: Undo | None = None,
) -> None:
    """The sparse form's op for one cell (`document.models.sparse_visibility`): a pair that becomes
    pinpointed (or leaves) is removed, one that stops being pinpointed is added, else replaced.
    `undo` gets the op's inverse (the cell as the sparse row before held it), else `olds` gets that
    cell."""
    was, now = _CODES.get(old), _CODES.get(new)
    if was is now:  # the same code (`_CODES`' own values) or both absent
        return
    if now is None:
        ops.append({"op": "remove", "path": path})
    elif was is None:
        ops.append({"op": "add", "path": path, "value": now})
    else:
        ops.append({"op": "replace", "path": path, "value": now})
    if undo is not None:
        undo.append(
            {"op": "remove", "path": path}
            if was is None
            else {"op": "add" if now is None else "replace", "path": path, "value": was}
        )
    elif olds is not None:
        olds[path] = MISSING if was is None else was


def _diff_visibility(
    before: Mapping[str, Mapping[str, str]],
    after: Mapping[str, Mapping[str, str]],
    pairs: Iterable[tuple[str, str]] | None,
    ops: list[Op],
    olds: Olds | None = None,
    undo: Undo | None = None,
) -> None:
    """Ops for the visibility matrix in its sparse form (a row per observer, only the pairs that are
    not pinpointed); with `pairs`, only those (observer, target) cells are looked at, besides
    unapplied cells (`document.models.Unapplied`): their row is still the committed row, and they are
    all that changed in it. `undo` (index for index with `ops`) gets each cell op's inverse as the op
    is made. Token ids hold no '/' or '~' (`document.models.Id`; upsert checks them too), so they are
    pointer segments as they are."""
    if before is after:
        return
    if type(after) is not Unapplied or after.keys_of is not before:
        _added_and_removed("/visibility", before, after, _sparse_row, ops)
    unapplied = pending_cells(after)
    if pairs is None:
        old_get = before.get
        for observer in [o for o, row in after.items() if old_get(o, row) is not row]:
            old_sparse, new_sparse = _sparse_row(before[observer]), _sparse_row(after[observer])
            _diff_json(f"/visibility/{observer}", old_sparse, new_sparse, ops)
    if undo is not None:
        undo.extend([None] * (len(ops) - len(undo)))  # the rows' ops: `inverse_ops` reads them
    if pairs is not None:
        for observer, target in pairs:
            if observer in unapplied:
                continue  # its cells, below
            old_row, row = before.get(observer), after.get(observer)
            if old_row is None or row is None or old_row is row:
                continue  # a whole row added or removed above, or unchanged
            old, new = old_row.get(target), row.get(target)
            if old is not new:  # most pairs a ruling looked at kept their state: no path built
                _cell_op(f"/visibility/{observer}/{target}", old, new, ops, olds, undo)
    if undo is None:
        for observer, cells in unapplied.items():
            old_row = before.get(observer)
            if old_row is not None:  # else a new row, added whole above
                prefix = f"/visibility/{observer}/"
                for target, value in cells.items():
                    _cell_op(prefix + target, old_row.get(target), value, ops, olds)
        return
    codes, table = _CODES.get, _CELL_CODES
    add, inverse = ops.append, undo.append
    for observer, cells in unapplied.items():
        old_row = before.get(observer)
        if old_row is None:
            continue  # a new row, added whole above
        for target, value in cells.items():  # `_cell_op`, inline: a move changes a hundred cells
            try:
                was, now = table[old_row[target]], table[value]
            except KeyError:  # a cell the row lacks
                was, now = codes(old_row.get(target)), codes(value)
            if was is now:
                continue
            path = f"/visibility/{observer}/{target}"
            if now is None:
                add({"op": "remove", "path": path})
                inverse({"op": "add", "path": path, "value": was})
            elif was is None:
                add({"op": "add", "path": path, "value": now})
                inverse({"op": "remove", "path": path})
            else:
                add({"op": "replace", "path": path, "value": now})
                inverse({"op": "replace", "path": path, "value": was})


def _sparse_row(row: Mapping[str, str]) -> dict[str, str]:
    codes = _CODES
    return {target: code for target, state in row.items() if (code := codes.get(state)) is not None}


def diff_states(
    before: WorldState,
    after: WorldState,
    visibility_pairs: Iterable[tuple[str, str]] | None = None,
    olds: Olds | None = None,
    whole_rows: bool = True,
    undo: Undo | None = None,
    written: Written = NONE_WRITTEN,
) -> list[Op]:
    """The ops that turn `before` into `after`, rev excluded (see `ruling_patch`); `olds`, when given,
    is filled with what `before` held at the paths the diff read (`Olds`, for `inverse_ops`), and
    `undo` (given with `olds`) with the inverses the diff built with their ops, index for index
    (`Undo`).
    `written`: actor id -> the only fields of that actor that may differ between `before` and
    `after`, every other field the very same object (`actions.Ruling.written`); only those are
    looked at, and the ops are the same as without it.
    `whole_rows`: a stage-three row most of which changed is replaced whole (`ROW_SHARE`); without,
    every row is patched entry by entry (a sync's or upsert's patch: undo keeps no row before of it,
    `history`)."""
    ops: list[Op] = []
    parts, new_parts = before.__dict__, after.__dict__  # not each part read through `__getattr__`
    for name in ("scene", "settings"):
        old, new = parts[name], new_parts[name]
        if old is not new:
            _diff_json(
                f"/{name}",
                None if old is None else old.model_dump(mode="json"),
                None if new is None else new.model_dump(mode="json"),
                ops,
            )
    _diff_models("/actors", parts["actors"], new_parts["actors"], ops, olds, written)
    # the parts a ruling left the very same objects (a damage: all but the actors) are not visited
    if parts["tokens"] is not new_parts["tokens"]:
        _diff_models("/tokens", parts["tokens"], new_parts["tokens"], ops, olds)
    if parts["visibility"] is not new_parts["visibility"]:
        settled_rows = not pending_cells(parts["visibility"])  # the Reader's rows are before's own
        _diff_visibility(
            parts["visibility"],
            new_parts["visibility"],
            visibility_pairs,
            ops,
            olds if settled_rows else None,
            undo if settled_rows else None,
        )
    if parts["contests"] is not new_parts["contests"]:
        _diff_contests(parts["contests"], new_parts["contests"], ops, olds, whole_rows)
    if parts["reveals"] is not new_parts["reveals"]:
        _diff_json(
            "/reveals",
            {t: {o: v.value for o, v in row.items()} for t, row in before.reveals.items()},
            {t: {o: v.value for o, v in row.items()} for t, row in after.reveals.items()},
            ops,
        )
    if parts["areas"] is not new_parts["areas"]:
        if undo is not None:
            undo.extend([None] * (len(ops) - len(undo)))
        ops.extend(area_ops(parts["areas"], new_parts["areas"], undo))
    if parts["pins"] is not new_parts["pins"]:
        _diff_json(
            "/pins",
            {t: pins.model_dump(mode="json") for t, pins in before.pins.items()},
            {t: pins.model_dump(mode="json") for t, pins in after.pins.items()},
            ops,
        )
    if undo is not None:
        undo.extend([None] * (len(ops) - len(undo)))
    return ops


ROW_SHARE = (1, 2)
"""A stage-three row whose changed entries (added, removed or changed) are at least this share
(numerator, denominator) of the entries either side holds is patched whole: one `replace
/contests/<observer>` with the row, not an op per entry (each later round rewrites every kept
entry). The share is docs/benchmarks.md's measured break-even."""


def _diff_contests(
    before: Mapping[str, Mapping[str, BaseModel]],
    after: Mapping[str, Mapping[str, BaseModel]],
    ops: list[Op],
    olds: Olds | None = None,
    whole_rows: bool = True,
) -> None:
    """Ops for the stage-three results: a ruling replaces only the rows (and in them the entries) it
    changed, so the rest are the very same objects and are skipped without a dump. A changed row is
    replaced whole where most of it changed (`ROW_SHARE`; `olds` gets the row before),
    else patched entry by entry. A round's results are a handful of shared objects
    (`VisibilityIndex.result`): each is dumped once, equal dumps are one dict (so a row's entries
    are compared in C, by the identity of their dumps), shared by every row and op that holds it;
    each pair of old and new result is diffed once, its ops' values (and the old values `olds` gets)
    shared by every entry that makes the same change. No op's value is ever changed in place."""
    if before is after:
        return
    held: dict[int, BaseModel] = {}
    """id -> the result it names (both states are alive throughout: no id is reused)."""
    dumps: dict[int, dict[str, Any]] = {}
    """id of a result -> its JSON, one dict for equal JSON (`alike`)."""
    alike: dict[bytes, dict[str, Any]] = {}
    changes: dict[tuple[int, int], list[tuple[str, str, Any, Any]]] = {}

    def row_json(row: Mapping[str, BaseModel]) -> dict[str, Any]:
        ids = list(map(id, row.values()))
        try:
            return dict(zip(row, map(dumps.__getitem__, ids), strict=True))
        except KeyError:  # a result not dumped yet
            for key, win in dict(zip(ids, row.values(), strict=True)).items():
                if key not in dumps:
                    held[key] = win
                    value = win.model_dump(mode="json")
                    dumps[key] = alike.setdefault(orjson.dumps(value, option=orjson.OPT_SORT_KEYS), value)
            return dict(zip(row, map(dumps.__getitem__, ids), strict=True))

    def change(old: BaseModel, win: BaseModel) -> list[tuple[str, str, Any, Any]]:
        """The ops turning `old` into `win`, each as its path below the entry, its kind, its value
        (`_UNREAD`: none) and the old value (`_UNREAD` where the diff read none)."""
        key = (id(old), id(win))
        known = changes.get(key)
        if known is None:
            found: list[Op] = []
            read: Olds = {}
            _diff_model("", old, win, found, read)
            known = changes[key] = [
                (op["path"], op["op"], op.get("value", _UNREAD), read.get(op["path"], _UNREAD))
                for op in found
            ]
        return known

    _added_and_removed("/contests", before, after, row_json, ops)
    add = ops.append
    share, of = ROW_SHARE
    for observer, row in after.items():
        old_row = before.get(observer)
        if old_row is None or old_row is row:
            continue
        new_json, old_json = row_json(row), row_json(old_row)
        # the entries changed or added (their dumps differ), then those removed
        count = sum(map(is_not, map(old_json.get, new_json), new_json.values()))
        gone = old_row.keys() - row.keys() if old_row.keys() != row.keys() else set()
        count += len(gone)
        if not count:
            continue
        path = f"/contests/{escape(observer)}"
        entries = len(row) + len(gone)  # the entries either side holds
        if whole_rows and count * of >= share * entries:
            add({"op": "replace", "path": path, "value": new_json})
            if olds is not None:
                olds[path] = old_json
            continue
        for target in sorted(gone):
            add({"op": "remove", "path": f"{path}/{escape(target)}"})
        for target in sorted(row.keys() - old_row.keys()):
            add({"op": "add", "path": f"{path}/{escape(target)}", "value": new_json[target]})
        old_get = old_row.get
        for target, win in row.items():
            old = old_get(target)
            if old is None or old is win:
                continue
            at = f"{path}/{escape(target)}"
            for below, kind, value, was in change(old, win):
                full = at + below
                add(
                    {"op": kind, "path": full}
                    if value is _UNREAD
                    else {"op": kind, "path": full, "value": value}
                )
                if olds is not None and was is not _UNREAD:
                    olds[full] = was


def is_whole_row(op: Op) -> bool:
    """Whether an op replaces a stage-three row whole (`_diff_contests`' row form)."""
    path: str = op["path"]
    return op["op"] == "replace" and "value" in op and path.startswith("/contests/") and path.count("/") == 2


def row_entries(
    path: str, old_row: Mapping[str, Any], new_row: Mapping[str, Any]
) -> tuple[list[Op], list[Op]]:
    """The entry-by-entry ops a whole row's `replace` at `path` stands for (what the entry form would
    have made: entries removed and added, the fields of the others that changed), and each one's
    inverse (the value `old_row` held there), in the same order."""
    forward: list[Op] = []
    _diff_json(path, old_row, new_row, forward)
    inverse: list[Op] = []
    for op in forward:
        old = walk(old_row, split_pointer(op["path"])[2:])
        if old is MISSING:
            inverse.append({"op": "remove", "path": op["path"]})
        else:
            inverse.append(
                {"op": "add" if op["op"] == "remove" else "replace", "path": op["path"], "value": old}
            )
    return forward, inverse


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


MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""What `value_at` answers for a path the document does not hold."""

_UNREAD: Any = object()
"""A path `Olds` does not hold."""

_MEMBER_PARTS = frozenset(("actors", "tokens", "visibility", "contests", "areas"))


_DICT_PARTS = frozenset(("pins", "reveals"))
"""Parts kept whole (few members): the GM's pins and the reveals held for the GM."""


def _dump_part(state: WorldState, head: str) -> Any:
    """A whole part's JSON: `scene`, `settings`, `pins`, `reveals` (`rev` as is)."""
    if head == "pins":
        return {target: pins.model_dump(mode="json") for target, pins in state.pins.items()}
    if head == "reveals":
        return {target: {o: str(shown) for o, shown in row.items()} for target, row in state.reveals.items()}
    part = getattr(state, head)
    return part if head == "rev" else None if part is None else part.model_dump(mode="json")


def _load_part(head: str, value: Any) -> Any:
    """A whole part from its JSON (`MISSING`: emptied)."""
    if head == "pins":
        return (
            {}
            if value is MISSING
            else {t: TargetPins.model_validate(v, context=STORED) for t, v in value.items()}
        )
    if head == "reveals":
        if value is MISSING:
            return {}
        return {t: {o: _LOCATE[shown] for o, shown in row.items()} for t, row in value.items()}
    model: type[BaseModel] = Scene if head == "scene" else Settings
    return None if value is None or value is MISSING else model.model_validate(value, context=STORED)


def _dump_member(state: WorldState, head: str, member: str) -> Any:
    members: Mapping[str, Any] = getattr(state, head)
    value = members.get(member, MISSING)
    if value is MISSING:
        return MISSING
    if head == "visibility":
        return {target: str(cell) for target, cell in value.items()}
    if head == "contests":
        return {target: win.model_dump(mode="json") for target, win in value.items()}
    if head == "areas":
        return {target: list(area) for target, area in value.items()}
    return value.model_dump(mode="json")


def _dump_field(state: WorldState, head: str, member: str, alias: str) -> Any:
    """One field of an actor or token, by its JSON name, as the whole member's dump would hold it."""
    model = getattr(state, head).get(member)
    if model is None:
        return MISSING
    name = _FIELD_NAMES.get(type(model), {}).get(alias)
    if name is None:
        return MISSING
    dumped: dict[str, Any] = model.model_dump(mode="json", include={name})
    return dumped.get(alias, MISSING)


def _field_names(model: type[BaseModel]) -> dict[str, str]:
    return {field.alias or name: name for name, field in model.model_fields.items()}


_FIELD_NAMES: dict[type[BaseModel], dict[str, str]] = {Actor: _field_names(Actor), Token: _field_names(Token)}
"""JSON name -> field name of the members whose fields the `Reader` dumps one at a time."""


def walk(value: Any, segments: Iterable[str]) -> Any:
    """The value at these (unescaped) pointer segments inside a JSON value, or `MISSING`."""
    for segment in segments:
        if isinstance(value, dict):
            value = value.get(segment, MISSING)
        elif isinstance(value, list) and segment.isdigit() and int(segment) < len(value):
            value = value[int(segment)]
        else:
            return MISSING
        if value is MISSING:
            return MISSING
    return value


class Reader:
    """JSON values at pointers of one state, each actor, token or row dumped at most once. The state
    is read plainly (`settled`): unapplied visibility cells count."""

    def __init__(self, state: WorldState) -> None:
        self.state = settled(state)
        self._members: dict[tuple[str, ...], Any] = {}
        self._wins: dict[int, tuple[BaseModel, Any]] = {}
        """id -> a stage-three result and its dump: a round's rows share a handful of results."""

    def _win(self, win: BaseModel) -> Any:
        known = self._wins.get(id(win))
        if known is None:
            known = self._wins[id(win)] = (win, win.model_dump(mode="json"))
        return known[1]

    def value_at(self, pointer: str) -> Any:
        """The JSON value at a pointer, or `MISSING`."""
        segments = split_pointer(pointer)
        if not segments:
            return self.state.model_dump(mode="json")
        head = segments[0]
        if head in _MEMBER_PARTS:
            if len(segments) == 1:
                return self.state.model_dump(mode="json", include={head})[head]
            if head == "visibility" and len(segments) == 3:  # a cell: no row dumped
                row = self.state.visibility.get(segments[1])
                cell = MISSING if row is None else row.get(segments[2], MISSING)
                # the sparse form (DET-4): a pinpointed pair is absent, as the patch that made it says
                return _CODES.get(cell, MISSING)
            key: tuple[str, ...] = (head, segments[1])
            rest = segments[2:]
            if head == "contests" and rest:  # an entry: only it dumped
                key, rest = (head, segments[1], rest[0]), rest[1:]
            elif head in ("actors", "tokens") and rest:  # one field of an actor or token: only it dumped
                field_key = (head, segments[1], "." + rest[0])
                if field_key not in self._members:
                    self._members[field_key] = _dump_field(self.state, head, segments[1], rest[0])
                return walk(self._members[field_key], rest[1:])
        elif head in ("scene", "settings", "rev") or head in _DICT_PARTS:
            key, rest = (head,), segments[1:]
        else:
            return MISSING
        if key not in self._members:
            if len(key) == 3:
                contest_row = self.state.contests.get(key[1])
                win = None if contest_row is None else contest_row.get(key[2])
                self._members[key] = MISSING if win is None else self._win(win)
            elif key[0] == "contests":
                contest_row = self.state.contests.get(key[1])
                self._members[key] = (
                    MISSING if contest_row is None else {t: self._win(w) for t, w in contest_row.items()}
                )
            elif len(key) == 2:
                self._members[key] = _dump_member(self.state, key[0], key[1])
            else:
                self._members[key] = _dump_part(self.state, head)
        return walk(self._members[key], rest)


def inverse_ops(
    before: WorldState, ops: Iterable[Op], olds: Olds | None = None, undo: Undo | None = None
) -> list[Op]:
    """The ops that undo `ops` (a diff of `before`, paths disjoint, rev excluded): each path set back
    to what `before` held there, or removed where it held nothing; in reverse order. `undo`: the
    inverses `diff_states` built already, index for index (`Undo`), taken as they are (the others
    found by a search in C, not a loop over every op); `olds`: what it read of `before` (`Olds`);
    the other paths are read with a `Reader`."""
    reader: Reader | None = None

    def unknown(op: Op) -> Op:
        nonlocal reader
        path = op["path"]
        old = _UNREAD if olds is None else olds.get(path, _UNREAD)
        if old is _UNREAD:
            if reader is None:
                reader = Reader(before)
            old = reader.value_at(path)
        if old is MISSING:
            return {"op": "remove", "path": path}
        return {"op": "add" if op["op"] == "remove" else "replace", "path": path, "value": old}

    if undo is None:
        inverse = [unknown(op) for op in ops]
        inverse.reverse()
        return inverse
    listed = ops if isinstance(ops, list) else list(ops)
    if len(listed) != len(undo):
        raise ValueError(f"{len(undo)} inverses known for {len(listed)} ops")
    known = undo.copy()
    at = -1
    for _ in range(known.count(None)):
        at = known.index(None, at + 1)
        known[at] = unknown(listed[at])
    known.reverse()
    return cast(list[Op], known)  # no None is left


def set_value(op: Op) -> Any:
    """What an op leaves at its path (`MISSING` for a remove)."""
    return MISSING if op["op"] == "remove" else op["value"]


def apply_ops(state: WorldState, ops: Iterable[Op]) -> WorldState:
    """`state` with the ops applied (add, replace, remove below a member or of one), each touched actor,
    token, row or part rebuilt from its JSON and validated; every other member stays the very same
    object. Raises `PatchConflict` or pydantic's `ValidationError` when they do not fit."""
    groups: dict[tuple[str, ...], list[Op]] = {}
    cells: dict[str, list[tuple[str, Op]]] = {}
    entries: dict[str, dict[str, list[Op]]] = {}
    for op in ops:
        segments = split_pointer(op["path"])
        head = segments[0] if segments else ""
        if head == "visibility" and len(segments) == 3:  # a cell: set in a copy of its row
            cells.setdefault(segments[1], []).append((segments[2], op))
            continue
        if head == "contests" and len(segments) >= 3:  # an entry: only it rebuilt
            inner_path = "/v" + "".join("/" + escape(s) for s in segments[3:])
            entries.setdefault(segments[1], {}).setdefault(segments[2], []).append({**op, "path": inner_path})
            continue
        if head in _MEMBER_PARTS and len(segments) >= 2:
            key: tuple[str, ...] = (head, segments[1])
            rest = segments[2:]
        elif head in ("scene", "settings") or head in _DICT_PARTS:
            key, rest = (head,), segments[1:]
        else:
            raise jsonpatch.JsonPatchException(f"{op['path']!r} names no actor, token, row or part")
        inner = "/v" + "".join("/" + escape(s) for s in rest)
        groups.setdefault(key, []).append({**op, "path": inner})
    updates: dict[str, Any] = {}
    wins = _Results()
    for key, inner_ops in groups.items():
        head = key[0]
        whole = inner_ops[0] if len(key) == 2 and len(inner_ops) == 1 else None
        if whole is not None and whole["path"] == "/v" and whole["op"] in ("add", "replace"):
            # a whole member set: what it held is not read (a replace only needs it to exist)
            if whole["op"] == "replace" and key[1] not in getattr(state, head):
                raise jsonpatch.JsonPatchException(f"no {head} member {key[1]!r} to replace")
            value = whole["value"]
        else:
            current = _dump_member(state, head, key[1]) if len(key) == 2 else _dump_part(state, head)
            wrapper: dict[str, Any] = {} if current is MISSING else {"v": current}
            jsonpatch.apply_patch(wrapper, inner_ops, in_place=True)
            value = wrapper.get("v", MISSING)
        if len(key) == 1:
            updates[head] = _load_part(head, value)
            continue
        members = dict(updates.get(head, getattr(state, head)))
        if value is MISSING:
            members.pop(key[1], None)
        elif head == "actors":
            members[key[1]] = Actor.model_validate(value, context=STORED)
        elif head == "tokens":
            members[key[1]] = Token.model_validate(value, context=STORED)
        elif head == "visibility":
            members[key[1]] = {target: _LOCATE[cell] for target, cell in value.items()}
        elif head == "areas":
            members[key[1]] = _area_row(value)
        else:
            members[key[1]] = {target: wins.load(win) for target, win in value.items()}
        updates[head] = members
    if cells:
        matrix = dict(updates.get("visibility", state.visibility))
        for observer, changes in cells.items():
            if observer not in matrix:
                raise jsonpatch.JsonPatchException(f"no visibility row {observer!r}")
            row = dict(matrix[observer])
            for target, op in changes:
                if op["op"] == "remove":  # the sparse form's remove: the pair is pinpointed again
                    if row.get(target) in (None, PINPOINTED):
                        raise jsonpatch.JsonPatchException(f"no visibility cell {observer}/{target}")
                    row[target] = _LOCATE[PINPOINTED]
                else:
                    row[target] = _LOCATE[op["value"]]
            matrix[observer] = row
        updates["visibility"] = matrix
    if entries:
        contests = dict(updates.get("contests", state.contests))
        for observer, by_target in entries.items():
            if observer not in contests:
                raise jsonpatch.JsonPatchException(f"no stage-three row {observer!r}")
            contest_row = dict(contests[observer])
            for target, inner_ops in by_target.items():
                old = contest_row.get(target)
                wrapper = {} if old is None else {"v": old.model_dump(mode="json")}
                jsonpatch.apply_patch(wrapper, inner_ops, in_place=True)
                if "v" in wrapper:
                    contest_row[target] = wins.load(wrapper["v"])
                else:
                    contest_row.pop(target, None)
            contests[observer] = contest_row
        updates["contests"] = contests
    return state.model_copy(update=updates)


def _area_row(value: Any) -> dict[str, tuple[float, float, float]]:
    """A row of areas from its JSON (`document.areas`), each `[x, y, r]` of numbers (a tuple where
    the ops are the ruling's own, `area_ops`, not read back from JSON)."""
    if not isinstance(value, dict):
        raise jsonpatch.JsonPatchException("a row of areas is an object")
    row: dict[str, tuple[float, float, float]] = {}
    for target, area in value.items():
        if (
            not isinstance(area, list | tuple)
            or len(area) != 3
            or not all(type(n) in (int, float) for n in area)
        ):
            raise jsonpatch.JsonPatchException(f"an area is [x, y, r], not {area!r:.60}")
        row[target] = shared_area(area)
    return row


class _Results:
    """Stage-three results validated from their JSON, one object for equal JSON (a round's rows
    hold a handful of distinct results)."""

    def __init__(self) -> None:
        self._known: dict[bytes, ContestWin] = {}

    def load(self, value: Any) -> ContestWin:
        key = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        win = self._known.get(key)
        if win is None:
            win = self._known[key] = ContestWin.model_validate(value, context=STORED)
        return win


_LOCATE: Mapping[str, LocateState] = LOCATE_OF_CODE
"""A state from its name, or a visibility pair's from its code (`document.models.LOCATE_CODES`)."""
