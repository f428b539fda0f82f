"""The reply encoding: a ruling's result as the JSON that is stored, the copy each client is sent
(its log and rolls cut, `/contests` ops only for a client that asked for them), the envelope around
it, and the `patch` a world's other clients are pushed. The same bytes however they are made: at
once on the event loop, or in turns in a worker thread.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from operator import itemgetter
from typing import Any

import orjson
from pydantic import BaseModel

from vtt_bridge.engine.protocol import LOG_SHOWN, ROLLS_SHOWN
from vtt_bridge.engine.world import Pending
from vtt_bridge.server.outbox import Part
from vtt_bridge.store.pages import PAGED_FROM, parts_of
from vtt_bridge.store.pages import Part as LogPart


def envelope(type_: str, payload_json: str, msg_id: str, re: str | None) -> str:
    """A message as JSON text, its payload already serialized."""
    head = f'{{"v":1,"id":{dumps(msg_id)},'
    if re is not None:
        head += f'"re":{dumps(re)},'
    return f'{head}"type":"{type_}","payload":{payload_json}}}'


def envelope_parts(type_: str, payload_data: bytes | list[Part], msg_id: str, re: str | None) -> list[Part]:
    """`envelope(...)`'s UTF-8 in parts (joined, the very bytes), its payload already serialized as
    UTF-8, or as the parts it is made of: a long ruling's megabytes are neither copied into a str
    nor encoded on the loop, nor joined into one message (the outbox writes the parts as they are)."""
    parts = payload_data if isinstance(payload_data, list) else [payload_data]
    return [envelope(type_, "", msg_id, re)[:-1].encode(), *parts, b"}"]


def json_default(value: Any) -> Any:
    """JSON for what a rule put in a step's data beyond plain JSON (a model, a set)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> str:
    """Compact JSON text (orjson, `json_default` for the values JSON lacks)."""
    return orjson.dumps(value, default=json_default).decode()


def _is_contests(op: Any) -> bool:
    """Whether a patch op writes `/contests` (the stage-three wins, DET-8), which a client has in
    its copy of a patch only when it asked for them (`Hello.contests`)."""
    path = op.get("path") if type(op) is dict else None
    return type(path) is str and path.startswith("/contests") and (len(path) == 9 or path[9] == "/")


_PATH = itemgetter("path")


def _has_contests(patch: list[Any]) -> bool:
    """Whether a patch holds a `/contests` op (`_is_contests`). Its paths are first joined and
    searched in C: a move's hundreds of ops are not looked at one by one in Python unless one path
    names `/contests` at all (or an op is not an object with a string path)."""
    try:
        paths = "\n".join(map(_PATH, patch))
    except (KeyError, TypeError):
        return any(_is_contests(op) for op in patch)
    return "/contests" in paths and any(_is_contests(op) for op in patch)


def summary(log: list[Any], rolls: list[Any]) -> dict[str, Any]:
    """A cut log's `summary` (`engine.protocol.Summary`): how many steps and rolls, the steps per key."""
    keys = Counter(step.get("key") if isinstance(step, dict) else None for step in log)
    return {
        "steps": len(log),
        "rolls": len(rolls),
        "keys": {key: count for key, count in keys.items() if isinstance(key, str)},
    }


def wire_payload(result: dict[str, Any], contests: bool) -> dict[str, Any]:
    """The copy of a `result` (or `patch`) payload a client is sent: its log and rolls cut to the
    first `LOG_SHOWN` steps and `ROLLS_SHOWN` rolls with a `summary` when longer, and its patch
    without `/contests` ops unless the client asked for them; the payload itself when nothing is
    left out. The store keeps the whole log and rolls (`store.pages`; `query {kind: "ruling"}` reads them)."""
    log, rolls, patch = result.get("log"), result.get("rolls"), result.get("patch")
    long_log = isinstance(log, list) and len(log) > LOG_SHOWN
    long_rolls = isinstance(rolls, list) and len(rolls) > ROLLS_SHOWN
    drop = not contests and isinstance(patch, list) and any(_is_contests(op) for op in patch)
    if not (long_log or long_rolls or drop):
        return result
    wire = dict(result)
    if drop:
        assert isinstance(patch, list)
        wire["patch"] = [op for op in patch if not _is_contests(op)]
    if long_log or long_rolls:
        all_log = log if isinstance(log, list) else []
        all_rolls = rolls if isinstance(rolls, list) else []
        wire["log"], wire["rolls"] = all_log[:LOG_SHOWN], all_rolls[:ROLLS_SHOWN]
        wire["summary"] = summary(all_log, all_rolls)
    return wire


class Dumped:
    """A result's JSON as the UTF-8 it is stored and kept for retries as (never decoded: a round's
    megabytes of text beyond ASCII would take twice the memory as a str), which is the copy a
    client that asked for `/contests` is sent, and `wire`, the copy (`wire_payload`) in parts for a
    client that did not (None: `data` itself, nothing left out). `parts`: its log and rolls in runs
    for the store when it is paged (`store.pages`; its log and rolls in `data` are then cut as in
    every client's copy). A plain class with slots: one is made for every ruling,
    a `damage`'s included."""

    __slots__ = ("data", "parts", "wire")

    def __init__(
        self, data: bytes, wire: list[Part] | None = None, parts: list[LogPart] | None = None
    ) -> None:
        self.data = data
        self.wire = wire
        self.parts = parts

    def stored_bytes(self) -> int:
        """The bytes the store writes of it: its JSON and its parts (before they are packed)."""
        return len(self.data) + (0 if self.parts is None else sum(len(part.data) for part in self.parts))

    def sent(self, contests: bool) -> bytes | list[Part]:
        """The JSON a client is sent (`contests`: it asked for them), whole or in parts."""
        return self.data if contests or self.wire is None else self.wire


def dumped_result(result: dict[str, Any], in_turns: bool = False) -> Dumped:
    """A result's JSON (`dumps`'s bytes) and its clients' copies (`wire_payload`'s JSON, the same
    bytes `dumps` gives them), each item dumped once: the copies share the full JSON's pieces (a
    round's `/contests` rows, tens of MB at 1,000 tokens, and its log are not dumped again).
    `in_turns`: dumped as `_dumped_in_turns` does, for a worker thread."""
    log, rolls, patch = result.get("log"), result.get("rolls"), result.get("patch")
    long_log = type(log) is list and len(log) > LOG_SHOWN
    long_rolls = type(rolls) is list and len(rolls) > ROLLS_SHOWN
    has_contests = type(patch) is list and _has_contests(patch)
    dump = _dumped_in_turns if in_turns else _dumped_at_once
    if not (long_log or long_rolls or has_contests):
        data = _dumped_in_turns(result) if in_turns else orjson.dumps(result, default=json_default)
        # a large reply is paged even when its log is short: a page of it then reads no patch
        return Dumped(data, parts=None if len(data) <= PAGED_FROM else parts_of(result, dump))
    full: list[Part] = []  # the stored JSON: a copy for a client that asked for `/contests`
    wire: list[Part] = []
    opening = b"{"
    for key, value in result.items():
        head = opening + orjson.dumps(key) + b":"
        opening = b","
        if key == "patch" and has_contests:
            assert isinstance(value, list)
            everything, plain = _patch_pieces(value, dump)
            full += [head, *everything]
            wire += [head, *plain]
        elif key in ("log", "rolls") and (long_log or long_rolls):
            assert isinstance(value, list)
            shown = orjson.dumps(value[: LOG_SHOWN if key == "log" else ROLLS_SHOWN], default=json_default)
            full += [head, shown]  # the whole of them goes to the store in parts
            wire += [head, shown]
        else:
            piece = dump(value)
            full += [head, piece]
            wire += [head, piece]
    if long_log or long_rolls:
        assert isinstance(log, list) and isinstance(rolls, list)
        tail = b',"summary":' + orjson.dumps(summary(log, rolls))
        full.append(tail)
        wire.append(tail)
    full.append(b"}")
    wire.append(b"}")
    data = b"".join(full)
    paged = long_log or long_rolls or len(data) > PAGED_FROM
    return Dumped(data, wire, parts_of(result, dump) if paged else None)


def replayed_copy(reply: bytes, contests: bool) -> bytes:
    """A client's copy (`wire_payload`) of a stored reply to a retried action id (as the store keeps
    it: the copy for a client that asked for `/contests`, or a layout-9 row's whole ruling): the
    reply itself when nothing is left out."""
    value = orjson.loads(reply)
    if not isinstance(value, dict):
        return reply
    wire = wire_payload(value, contests)
    return reply if wire is value else orjson.dumps(wire)


def _dumped_at_once(value: Any) -> bytes:
    return orjson.dumps(value, default=json_default)


def _patch_pieces(patch: list[Any], dump: Callable[[Any], bytes]) -> tuple[list[Part], list[Part]]:
    """A patch's JSON in pieces, whole and without its `/contests` ops, each run of ops dumped once
    (`dump`) and shared by both."""
    runs: list[tuple[bool, list[Any]]] = []
    for op in patch:
        contests = _is_contests(op)
        if runs and runs[-1][0] == contests:
            runs[-1][1].append(op)
        else:
            runs.append((contests, [op]))
    everything: list[Part] = [b"["]
    plain: list[Part] = [b"["]
    for contests, ops in runs:
        items = memoryview(dump(ops))[1:-1]
        everything += [b"," if len(everything) > 1 else b"", items]
        if not contests:
            plain += [b"," if len(plain) > 1 else b"", items]
    everything.append(b"]")
    plain.append(b"]")
    return everything, plain


DUMP_CHUNK = 128
"""Items of a long list that `_dumped_in_turns` dumps in one call: of a round's largest items (patch
ops that replace a row of contests) a call writes a few MB (docs/benchmarks.md)."""


def _dumped_in_turns(value: Any) -> bytes:
    """`dumps(value)`'s UTF-8, the same bytes, in calls of at most `DUMP_CHUNK` items of each long
    list (of an object's values or of a list itself): for a worker thread, which then hands the
    interpreter to the event loop between calls (orjson holds it for a whole call). The pieces are
    joined once (`bytes.join` lets go of the interpreter while it copies; `+` holds it for each
    copy of the megabytes)."""
    pieces: list[bytes] = []
    _dump_into(value, pieces)
    return b"".join(pieces)


def _dump_into(value: Any, pieces: list[bytes]) -> None:
    """Append `dumps(value)`'s UTF-8 to `pieces`, a piece at a time (`_dumped_in_turns`)."""
    if isinstance(value, list) and len(value) > DUMP_CHUNK:
        pieces.append(b"[")
        for at in range(0, len(value), DUMP_CHUNK):
            chunk = orjson.dumps(value[at : at + DUMP_CHUNK], default=json_default)[1:-1]
            pieces.append(b"," + chunk if at else chunk)
        pieces.append(b"]")
    elif isinstance(value, dict) and value and all(type(key) is str for key in value):
        opening = b"{"
        for key, item in value.items():
            pieces.append(opening + orjson.dumps(key) + b":")
            opening = b","
            _dump_into(item, pieces)
        pieces.append(b"}")
    else:
        pieces.append(orjson.dumps(value, default=json_default))


def pushed_patch(pending: Pending, kind: str, contests: bool = False) -> dict[str, Any]:
    """The `patch` payload a ruling is pushed to one of the world's other clients with (`contests`:
    whether it asked for them; `wire_payload`): its rev, patch, log and rolls (and `summary`), its
    `kind`, and for an action its `action` id (what an undo of it names)."""
    result = wire_payload(pending.result, contests)
    payload = {
        "rev": result["rev"],
        "patch": result["patch"],
        "log": result["log"],
        "rolls": result["rolls"],
    }
    if "summary" in result:
        payload["summary"] = result["summary"]
    payload["kind"] = kind
    if pending.action_id is not None:
        payload["action"] = pending.action_id
    return payload


_RESULT_KEYS = ["rev", "patch", "log", "rolls"]
"""A ruling's `result` payload, in order: all `pushed_patch` takes, before its own keys."""


def pushed_parts(pending: Pending, kind: str, sent: bytes | list[Part], contests: bool = False) -> list[Part]:
    """`pushed_patch`'s JSON for a client (`contests`: whether it asked for them) in parts (joined,
    the very bytes `dumps` gives it), made from its copy of the result's JSON (`sent`: `Dumped.sent`,
    sent already) when the result holds just `_RESULT_KEYS`: a view of it but its closing brace,
    then its own keys, not a round's megabytes dumped (or copied) again on the event loop."""
    parts = [sent] if isinstance(sent, bytes) else sent
    if list(pending.result) != _RESULT_KEYS or not parts or bytes(parts[-1][-1:]) != b"}":
        return [orjson.dumps(pushed_patch(pending, kind, contests), default=json_default)]
    tail = b',"kind":' + orjson.dumps(kind)
    if pending.action_id is not None:
        tail += b',"action":' + orjson.dumps(pending.action_id)
    last = parts[-1]
    return [*parts[:-1], memoryview(last)[:-1], tail + b"}"]
