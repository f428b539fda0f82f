"""Undo and redo: each ruling's forward ops and their inverse, and which rulings stand undone.

An undo is a ruling of its own. It applies when every value the undone ruling set is still what it
set; its ops are that ruling's inverse (the values each changed path held before). A redo applies
the ops of the undo's inverse, under the same condition on the undo's own values. Undoing an undo is
a redo, undoing a redo an undo again: each resolves to the ruling first made (`Entry.origin`).

A stage-three row a ruling's patch replaced whole (`patch.is_whole_row`) counts as the entry-by-entry
ops it stands for (`patch.row_entries`, from the row before that the inverse holds): a value the
ruling set is one field of one entry, as in the entry form, so a later ruling that changed other
entries of the row neither keeps it from being undone nor is named for it; where the row changed
since, the undo restores only its entries. A sync or upsert keeps no values: a row it replaced
counts whole when later rulings are named.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import orjson

from vtt_bridge.document.models import WorldState
from vtt_bridge.engine import patch as patches
from vtt_bridge.engine.codec import part_frames, unpack_parts
from vtt_bridge.engine.protocol import ErrorCode, ErrorDetail, RulingRef
from vtt_bridge.engine.refusals import RequestError

SYNC_PARTS = ("scene", "settings", "actors", "tokens", "visibility", "contests", "pins", "reveals", "areas")
"""The parts of the document a sync's patch replaces whole (the paths it changes, for conflicts)."""

HISTORY_KEPT = 1000
"""Rulings a world keeps in memory for undo (their forward ops and inverse); older ones are
`not_undoable`."""

HISTORY_BYTES = 32 << 20
"""The replies of the rulings a world keeps for undo hold at most this many bytes between them (a
ruling's ops and inverse take memory in proportion to its patch); the newest ruling is always kept,
however large. The same bound holds in memory and when the store reads the history back."""


OPS_CHUNK = 64
"""Ops a `JsonOps` part holds at most: each part is decoded in one call, and a worker thread hands
the interpreter to the event loop only between calls."""

PACKED_FROM = 16 << 10
"""Bytes of JSON from which `JsonOps.packed` compresses: a `damage`'s few ops would save little."""


class JsonOps:
    """Ops kept as the JSON they were written as, decoded at each use: a round's hundred thousand
    ops then take their JSON's bytes in memory, not several times that as dicts, and give the cycle
    collector nothing to walk. Parts of at most `OPS_CHUNK` ops each (`of`, `of_json`), decoded
    part by part so that no one call holds the interpreter long (a short ruling's ops taken from
    its reply, and their inverse, are one part each: `stored_ops`); packed (`packed`), each part is
    its JSON compressed (a Zstandard frame, made and read with the interpreter released),
    decompressed and decoded a part at a time. Immutable: each use decodes afresh."""

    __slots__ = ("_packed", "_parts")

    def __init__(self, parts: tuple[bytes, ...], packed: bool = False) -> None:
        self._parts = parts
        self._packed = packed

    @classmethod
    def of(cls, ops: Iterable[patches.Op]) -> JsonOps:
        """The ops dumped in parts of `OPS_CHUNK` (JSON values only: what a diff and its inverse hold)."""
        listed: Sequence[patches.Op] = ops if isinstance(ops, tuple) else list(ops)
        if len(listed) <= OPS_CHUNK:  # a ruling's few ops (a damage's one): one part, dumped at once
            return cls((orjson.dumps(listed),) if listed else ())
        return cls(
            tuple(orjson.dumps(listed[at : at + OPS_CHUNK]) for at in range(0, len(listed), OPS_CHUNK))
        )

    @classmethod
    def of_json(cls, ops: Iterable[str | bytes]) -> JsonOps:
        """Ops given as the JSON text of each (as the store reads them back), gathered into parts of
        `OPS_CHUNK` without decoding them."""
        parts: list[bytes] = []
        chunk: list[bytes] = []
        for op in ops:
            chunk.append(op if isinstance(op, bytes) else op.encode())
            if len(chunk) == OPS_CHUNK:
                parts.append(b"[" + b",".join(chunk) + b"]")
                chunk = []
        if chunk:
            parts.append(b"[" + b",".join(chunk) + b"]")
        return cls(tuple(parts))

    @property
    def is_packed(self) -> bool:
        """Whether its parts are compressed (`packed`)."""
        return self._packed

    @property
    def nbytes(self) -> int:
        """The bytes its parts hold (compressed, when packed)."""
        return sum(len(part) for part in self._parts)

    def packed(self) -> JsonOps:
        """The same ops, each part compressed (one call a part: for a worker thread); itself when
        packed already, or when its JSON holds at most `PACKED_FROM` bytes."""
        if self._packed or self.nbytes <= PACKED_FROM:
            return self
        return JsonOps(part_frames(self._parts), packed=True)

    def _json_parts(self) -> Iterator[bytes]:
        """Each part's JSON (decompressed, when packed)."""
        if not self._packed:
            return iter(self._parts)
        return unpack_parts(self._parts)

    def data(self) -> bytes:
        """The ops as one JSON array, its UTF-8 (what the store writes)."""
        if len(self._parts) == 1 and not self._packed:
            return self._parts[0]
        return b"[" + b",".join(part[1:-1] for part in self._json_parts() if len(part) > 2) + b"]"

    def ops(self) -> tuple[patches.Op, ...]:
        out: list[patches.Op] = []
        for part in self._json_parts():
            out.extend(orjson.loads(part))
        return tuple(out)

    def __iter__(self) -> Iterator[patches.Op]:
        return iter(self.ops())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JsonOps):
            return self.ops() == other.ops()
        return isinstance(other, tuple) and self.ops() == other

    __hash__ = None  # type: ignore[assignment]


def stored_ops(entry: Entry, forward: bytes | None = None) -> tuple[JsonOps, JsonOps] | None:
    """An undoable entry's ops and inverse as JSON in parts (`JsonOps.of`): what the store writes of
    its inverse and what undo keeps of it once committed (`World.commit`), until it is packed
    (`packed_ops`, `History.repack`); None without an inverse. `forward`: its ops' JSON array
    already made (the reply's patch without its rev ops: `server.commit.dumped_result`), kept as
    one part instead of being dumped again, and its inverse dumped as one part too (for a ruling
    written on the event loop: a short one); the caller vouches that it is `entry.forward`'s JSON."""
    if entry.inverse is None:
        return None
    if forward is None:
        return JsonOps.of(entry.forward), JsonOps.of(entry.inverse)
    inverse = entry.inverse
    if not isinstance(inverse, JsonOps):  # its ops dumped in one call, one part: the array stored
        inverse = JsonOps((orjson.dumps(inverse),) if inverse else ())
    return JsonOps((forward,) if entry.forward else ()), inverse


def packed_ops(kept: tuple[JsonOps, JsonOps]) -> tuple[JsonOps, JsonOps]:
    """A ruling's ops and inverse as `stored_ops` made them, packed (`JsonOps.packed`): in a worker
    thread, after the ruling is acknowledged."""
    return kept[0].packed(), kept[1].packed()


Ops = tuple[patches.Op, ...] | JsonOps
"""A ruling's ops as undo keeps them: as dicts, or as the JSON they were stored as (`JsonOps`)."""


@dataclass(frozen=True)
class Entry:
    """One ruling as undo sees it."""

    action_id: str | None
    """None: a sync or an upsert (they change paths, but are no ruling to undo)."""
    rev: int
    kind: str
    forward: Ops
    """The ruling's ops (rev excluded), as its patch carried them."""
    inverse: Ops | None
    """The ops that undo it; None when it cannot be undone (`reason`)."""
    target: str | None = None
    """For an undo or redo: the id of the ruling first made that it undid or redid."""
    reason: str | None = None
    size: int = 0
    """The bytes of its reply, counted against `HISTORY_BYTES` (0 for a sync or upsert: only its
    paths are kept)."""

    def __init__(
        self,
        action_id: str | None,
        rev: int,
        kind: str,
        forward: Ops,
        inverse: Ops | None,
        target: str | None = None,
        reason: str | None = None,
        size: int = 0,
    ) -> None:
        # a ruling makes two: its fields written into its `__dict__` at once, not through one
        # `object.__setattr__` call each (the frozen dataclass' own `__init__`)
        vars(self).update(
            action_id=action_id,
            rev=rev,
            kind=kind,
            forward=forward,
            inverse=inverse,
            target=target,
            reason=reason,
            size=size,
        )

    def ref(self) -> RulingRef:
        return RulingRef(action=self.action_id, kind=self.kind, rev=self.rev)


def sync_entry(rev: int) -> Entry:
    """A sync as undo sees it without its reply: the paths it replaced (every part), no inverse."""
    ops = tuple({"op": "replace", "path": f"/{part}"} for part in SYNC_PARTS)
    return Entry(None, rev, "sync", ops, None, reason="a sync is no ruling")


def _rows_before(inverse: Iterable[patches.Op] | None) -> dict[str, Any]:
    """Path -> the row before, of each stage-three row a ruling's patch replaced whole (from its
    inverse)."""
    return {op["path"]: op["value"] for op in inverse or () if patches.is_whole_row(op)}


def _entry_ops(rows: dict[str, Any], op: patches.Op) -> tuple[list[patches.Op], list[patches.Op]] | None:
    """The entry-by-entry ops (and their inverse) a whole row's replace stands for, from `rows`
    (`_rows_before`); None for any other op, or where no row before is kept (the op counts whole)."""
    if not patches.is_whole_row(op):
        return None
    old_row = rows.get(op["path"])
    if not isinstance(old_row, dict) or not isinstance(op["value"], dict):
        return None
    return patches.row_entries(op["path"], old_row, op["value"])


def _still(path: str, held: Any, value: Any) -> bool:
    """Whether a path holds the value an op set. A visibility cell is sparse on the wire (a
    pinpointed pair is removed, DET-4) where the document may hold it: absent and `pinpointed` are
    the same cell. An area is an array in JSON and a tuple in a ruling's own ops (`area_ops`): the
    same value."""
    if held == value:
        return True
    if path.startswith("/areas/") and value is not patches.MISSING:
        return bool(held == orjson.loads(orjson.dumps(value)))
    return (
        path.startswith("/visibility/")
        and path.count("/") == 3
        and all(v is patches.MISSING or v == "pinpointed" for v in (held, value))
    )


@dataclass(frozen=True)
class Plan:
    """What an undo or redo will do: the ops to apply, and the entry it cites."""

    mode: Literal["undo", "redo"]
    origin: Entry
    """The ruling first made, undone or redone."""
    ops: tuple[patches.Op, ...]


class History:
    """A world's last `HISTORY_KEPT` rulings (syncs and upserts included, for the conflicts they
    cause), which rulings stand undone (by which undo), and the message ids of syncs and upserts."""

    def __init__(
        self,
        entries: Iterable[Entry] = (),
        undone: dict[str, str] | None = None,
        changes: dict[str, str] | None = None,
        old: dict[str, str] | None = None,
        kept: int = HISTORY_KEPT,
        budget: int | None = None,
    ) -> None:
        self.kept = max(1, kept)
        self.budget = HISTORY_BYTES if budget is None else budget
        self.size = 0
        """The bytes of the kept entries' replies (`Entry.size`)."""
        self.by_rev: OrderedDict[int, Entry] = OrderedDict()
        self.by_id: dict[str, Entry] = {}
        self.undone: dict[str, str] = dict(undone or {})
        """Id of a ruling first made -> the id of the undo that stands on it."""
        self.changes: dict[str, str] = dict(changes or {})
        """Message id of a sync or upsert -> its kind."""
        self.old: dict[str, str] = dict(old or {})
        """Action id -> why it cannot be undone (made before the store kept inverses)."""
        for entry in entries:
            self._keep(entry)

    def _keep(self, entry: Entry) -> None:
        """Keep `entry`, then drop the oldest while more than `kept` are kept or their replies hold
        more than `budget` bytes (the newest always stays)."""
        old = self.by_rev.get(entry.rev)
        if old is not None:
            self.size -= old.size
        self.by_rev[entry.rev] = entry
        self.size += entry.size
        if entry.action_id is not None:
            self.by_id[entry.action_id] = entry
        while len(self.by_rev) > self.kept or (self.size > self.budget and len(self.by_rev) > 1):
            _, dropped = self.by_rev.popitem(last=False)
            self.size -= dropped.size
            if dropped.action_id is not None:
                self.by_id.pop(dropped.action_id, None)

    def record(self, entry: Entry, message_id: str | None = None) -> None:
        """A committed ruling: kept, and an undo or redo marks its origin undone or standing."""
        if entry.action_id is None and message_id is not None:
            self.changes[message_id] = entry.kind
        if entry.kind == "undo" and entry.target is not None and entry.action_id is not None:
            self.undone[entry.target] = entry.action_id
        elif entry.kind == "redo" and entry.target is not None:
            self.undone.pop(entry.target, None)
        self._keep(entry)

    def repack(self, rev: int, kept: tuple[JsonOps, JsonOps], packed: tuple[JsonOps, JsonOps]) -> bool:
        """Keep the entry at `rev` with its ops and inverse `packed` (`packed_ops` of `kept`), where
        it still holds `kept` (False: it was dropped or replaced meanwhile, and nothing changes).
        The same ops either way: no undo or conflict differs."""
        entry = self.by_rev.get(rev)
        if entry is None or entry.forward is not kept[0] or entry.inverse is not kept[1]:
            return False
        if packed[0] is kept[0] and packed[1] is kept[1]:
            return False
        entry = replace(entry, forward=packed[0], inverse=packed[1])
        self.by_rev[rev] = entry
        if entry.action_id is not None:
            self.by_id[entry.action_id] = entry
        return True

    def plan(self, mode: Literal["undo", "redo"], action: str, state: WorldState, answered: set[str]) -> Plan:
        """The undo or redo of `action` on `state`, or the `RequestError` refusing it (nothing changes)."""
        entry = self._entry(action, answered)
        if entry.kind == "undo" and entry.target is not None:  # undo of an undo: a redo
            mode, entry = ("redo" if mode == "undo" else "undo"), self._entry(entry.target, answered)
        elif entry.kind == "redo" and entry.target is not None:
            entry = self._entry(entry.target, answered)
        assert entry.action_id is not None
        if mode == "undo":
            standing = self.undone.get(entry.action_id)
            if standing is not None:
                undo = self.by_id.get(standing)
                at = f" at rev {undo.rev}" if undo is not None else ""
                raise RequestError(
                    ErrorCode.INVALID,
                    f"{entry.kind} {entry.action_id[:60]!r} (rev {entry.rev}) is already undone (by "
                    f"{standing[:60]!r}{at}); redo it first (nothing was changed)",
                    [ErrorDetail(path=["action"], message="already undone")],
                )
            checked = entry
        else:
            standing = self.undone.get(entry.action_id)
            if standing is None:
                raise RequestError(
                    ErrorCode.INVALID,
                    f"{entry.kind} {entry.action_id[:60]!r} (rev {entry.rev}) is not undone: nothing to redo",
                    [ErrorDetail(path=["action"], message="not undone")],
                )
            checked = self._entry(standing, answered)
        assert checked.inverse is not None
        return Plan(mode=mode, origin=entry, ops=self._check(checked, state, mode, entry))

    def _entry(self, action: str, answered: set[str]) -> Entry:
        entry = self.by_id.get(action)
        if entry is not None:
            if entry.inverse is None:
                raise RequestError(
                    ErrorCode.NOT_UNDOABLE,
                    f"{entry.kind} {action[:60]!r} (rev {entry.rev}) cannot be undone: {entry.reason}",
                    [ErrorDetail(path=["action"], message=entry.reason or "not undoable")],
                )
            return entry
        kind = self.changes.get(action)
        if kind is not None:
            raise RequestError(
                ErrorCode.INVALID,
                f"{action[:60]!r} is a {kind}, not a ruling: the VTT set those values, and changes them back",
                [ErrorDetail(path=["action"], message=f"a {kind}, not a ruling")],
            )
        if action in answered:
            reason = self.old.get(action) or (
                f"it is older than the rulings this world keeps for undo (the last {self.kept:,}, "
                f"whose replies hold at most {self.budget / (1 << 20):g} MB)"
            )
            raise RequestError(
                ErrorCode.NOT_UNDOABLE,
                f"{action[:60]!r} cannot be undone: {reason}",
                [ErrorDetail(path=["action"], message=reason)],
            )
        raise RequestError(
            ErrorCode.NOT_FOUND,
            f"no ruling {action[:60]!r} in this world",
            [ErrorDetail(path=["action"], message="unknown action id")],
        )

    def _caused(self, checked: Entry) -> list[str]:
        """The paths `checked` wrote (a whole row's replace: the entries it set) that a later ruling
        still standing wrote too, whatever the values now: undo goes by cause, so a later ruling
        that happens to have set the same values is never taken back by an undo of an earlier one."""
        standing = [
            _Touched(entry)
            for rev, entry in self.by_rev.items()
            if rev > checked.rev and _stands(self, entry)
        ]
        if not standing:
            return []
        return sorted(path for path in _Touched(checked).paths if any(t.touches(path) for t in standing))

    def _check(self, checked: Entry, state: WorldState, mode: str, origin: Entry) -> tuple[patches.Op, ...]:
        """The ops that undo `checked` (its inverse, a row that changed since restored entry by entry),
        or `conflict` unless every value `checked` set is still what it set and no later ruling that
        stands wrote a path it wrote (`_caused`), listing each such path and the later rulings that
        changed it."""
        assert checked.inverse is not None
        reader = patches.Reader(state)
        undo_ops = tuple(checked.inverse)  # decoded once (`JsonOps`)
        rows = _rows_before(undo_ops)
        changed: list[str] = []
        partly: dict[str, list[patches.Op]] = {}
        """Path of a whole row that changed since only where `checked` set nothing -> the entry ops
        that undo it."""
        for op in checked.forward:
            path = op["path"]
            held = reader.value_at(path)
            if _still(path, held, patches.set_value(op)):
                continue
            entry_ops = _entry_ops(rows, op)
            if entry_ops is None:
                changed.append(path)
                continue
            forward, inverse = entry_ops
            moved = [
                sub["path"]
                for sub in forward
                if not _still(sub["path"], _below(held, sub["path"]), patches.set_value(sub))
            ]
            changed.extend(moved)
            if not moved:
                partly[path] = inverse
        changed.extend(path for path in self._caused(checked) if path not in changed)
        if not changed:
            if not partly:
                return undo_ops
            return tuple(undo for op in undo_ops for undo in partly.get(op["path"], (op,)))
        seen: dict[str, int] = {}
        for at, path in enumerate(changed):
            seen.setdefault(_row_of(path), at)
        # a row's entries by path: listed alike whether the ruling patched the row whole or by entry
        changed.sort(key=lambda path: (seen[_row_of(path)], path))
        later = [(entry.ref(), _Touched(entry)) for rev, entry in self.by_rev.items() if rev > checked.rev]
        details = []
        for path in changed:
            by = [ref for ref, touched in later if touched.touches(path)]
            names = ", ".join(
                f"{r.kind} {r.action!r} (rev {r.rev})" if r.action else f"{r.kind} (rev {r.rev})" for r in by
            )
            details.append(
                ErrorDetail(
                    path=patches.split_pointer(path),
                    message=f"changed later by {names}" if by else "changed since",
                    rulings=by,
                )
            )
        rulings = {ref.rev: ref for detail in details for ref in detail.rulings or ()}
        first = ", ".join(
            f"{r.kind} {r.action!r} (rev {r.rev})" if r.action else f"{r.kind} (rev {r.rev})"
            for r in sorted(rulings.values(), key=lambda r: -r.rev)
        )
        raise RequestError(
            ErrorCode.CONFLICT,
            f"cannot {mode} {origin.kind} {origin.action_id!s:.60} (rev {origin.rev}): {len(changed)} of the "
            f"values it set changed since"
            + (f"; undo these first: {first}" if first else "")
            + " (nothing was changed)",
            details,
        )


def _stands(history: History, entry: Entry) -> bool:
    """Whether a kept entry is a ruling whose values stand: a ruling first made (not an undo or a redo,
    which stand for the ruling they name) that is not undone now."""
    return (
        entry.action_id is not None
        and entry.kind not in ("undo", "redo")
        and entry.action_id not in history.undone
    )


def _row_of(path: str) -> str:
    """The row of `contests` an entry's path is in (`/contests/<observer>`), else the path itself."""
    if path.startswith("/contests/") and path.count("/") > 2:
        return path[: path.index("/", len("/contests/"))]
    return path


def _below(row: Any, path: str) -> Any:
    """The value at an entry path (`/contests/<observer>/<target>/...`) inside its row's JSON."""
    return patches.walk(row, patches.split_pointer(path)[2:]) if isinstance(row, dict) else patches.MISSING


class _Touched:
    """The paths one ruling's patch changed, for asking whether it changed a path, or one inside or
    above it, in a few set lookups (a round's patch holds thousands of paths, a conflict lists as
    many). A whole row's replace counts as the entry ops it stands for, where the entry kept the
    row before (`_entry_ops`)."""

    def __init__(self, entry: Entry) -> None:
        forward = tuple(entry.forward)  # decoded once (`JsonOps`)
        rows = _rows_before(entry.inverse) if any(map(patches.is_whole_row, forward)) else {}
        self.paths: set[str] = set()
        for op in forward:
            entry_ops = _entry_ops(rows, op)
            if entry_ops is None:
                self.paths.add(op["path"])
            else:
                self.paths.update(sub["path"] for sub in entry_ops[0])
        self.above: set[str] = set()
        """Every proper prefix of a path changed (a path above one changed)."""
        for path in self.paths:
            cut = path.rfind("/")
            while cut > 0 and path[:cut] not in self.above:
                self.above.add(path[:cut])
                cut = path.rfind("/", 0, cut)
            if cut == 0:
                self.above.add("")

    def touches(self, path: str) -> bool:
        if path in self.paths or path in self.above:
            return True
        cut = path.rfind("/")
        while cut > 0:
            if path[:cut] in self.paths:
                return True
            cut = path.rfind("/", 0, cut)
        return "" in self.paths


def step_data(mode: str, origin: Entry) -> dict[str, Any]:
    """The declared fields of an `UNDO` step: the ruling undone or redone."""
    return {"action": origin.action_id, "kind": origin.kind, "rev": origin.rev}
