"""Every wire message of protocol v1 (docs/protocol.md), as pydantic models.

The envelope `{v, id, type, payload, re?}` wraps every message both ways. Client payloads are
validated here; the action and query unions are the handlers' payload models (`actions.registry`),
passed in, so `vtt-bridge schema` prints exactly what the server accepts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import Field, TypeAdapter, ValidationError

from vtt_bridge.document.models import Actor, Id, Scene, Settings, Token, TokenId, WorldState
from vtt_bridge.rules.common import Count, Flag, RuleModel, Step
from vtt_bridge.rules.steps import catalogue_schema

PROTOCOL_VERSION = 1

MessageId = Annotated[str, Field(strict=True, min_length=1, max_length=200)]
WorldId = Id
"""A world id: one JSON Pointer segment, as a document id (`document.models.Id`)."""
Pointer = Annotated[str, Field(strict=True, min_length=1, max_length=1000, pattern=r"^/")]


class ErrorCode(StrEnum):
    """The stable error codes (docs/protocol.md)."""

    UNAUTHORIZED = "unauthorized"
    BAD_REQUEST = "bad_request"
    INVALID = "invalid"
    NOT_FOUND = "not_found"
    STALE = "stale"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    CONFLICT = "conflict"
    NOT_UNDOABLE = "not_undoable"
    STORAGE = "storage"
    INTERNAL = "internal"


class Envelope(RuleModel):
    """Every message, both ways. Replies carry `re`, the id of the request they answer."""

    v: Literal[1]
    id: MessageId
    type: Annotated[str, Field(strict=True, min_length=1, max_length=50)]
    payload: dict[str, Any] = Field(default_factory=dict)
    re: MessageId | None = None


# --- client -> server -------------------------------------------------------------------------


class ClientInfo(RuleModel):
    """Who is connecting (for logs and the status page)."""

    name: Annotated[str, Field(strict=True, max_length=100)]
    version: Annotated[str, Field(strict=True, max_length=50)] = ""


class Hello(RuleModel):
    """The first message of a connection: the shared secret and the world to join."""

    token: Annotated[str, Field(strict=True, max_length=500)]
    world: WorldId
    client: ClientInfo
    contests: Flag = False
    """True: this connection's results and pushed patches carry the ops of `/contests` (the
    stage-three wins, DET-8); false (the default): they are left out of its copy of every patch
    (the store and undo keep them; `query {kind: "state"}` shows them)."""


class SyncState(RuleModel):
    """The whole document as the client holds it: everything but `rev` and `visibility`.

    Derived fields (`status`, the derived conditions) may be present; the server recomputes them.
    """

    scene: Scene | None = None
    settings: Settings = Settings()
    actors: dict[Annotated[str, Field(pattern=r"^[^/~]+$", min_length=1, max_length=200)], Actor] = Field(
        default_factory=dict
    )
    tokens: dict[TokenId, Token] = Field(default_factory=dict)


class Sync(RuleModel):
    """Replace the world's document with the client's (on connect, scene change, or a rev gap).

    A state larger than one frame is sent in parts: every part but the last has `more: true`; the
    server merges the parts (actors and tokens by id) and rules on the whole at the last one.
    """

    state: SyncState
    more: Flag = False


class Upsert(RuleModel):
    """The GM changed something in the VTT: set the value at a JSON Pointer, or remove it (`null`)."""

    path: Pointer
    value: Any = None
    expect_rev: Count | None = None


# --- server -> client -------------------------------------------------------------------------


class Welcome(RuleModel):
    """The answer to a good `hello`."""

    protocol: Literal[1] = 1
    server: ClientInfo
    world: WorldId
    rev: Count
    maxFrame: Count
    """The largest frame (characters of JSON) this sidecar takes from a welcomed client (`--max-frame`):
    a client sends a larger `sync` in parts under it."""


LOG_SHOWN = 60
"""The most steps a `result` or `patch` carries (the first ones): what a ruling card shows. The rest
are read with `query {kind: "ruling"}`."""

ROLLS_SHOWN = 10
"""The most rolls a `result` or `patch` carries (the first ones): what a ruling card shows."""


class Summary(RuleModel):
    """What a message's `log` and `rolls` leave out: present only when they carry the first
    `LOG_SHOWN` steps or `ROLLS_SHOWN` rolls of a longer log or list (`query {kind: "ruling"}`
    reads the rest, in order)."""

    steps: Count
    """How many steps the ruling's log has."""
    rolls: Count
    """How many rolls the ruling made."""
    keys: dict[str, Count]
    """Steps per step key (`DET-8.contest`: 1200; a key starts with its rule id): what the left-out
    steps are."""


class Result(RuleModel):
    """The answer to `sync`, `upsert`, `action` and `query`: the new rev, the patch, and why."""

    rev: Count
    patch: list[dict[str, Any]] = Field(default_factory=list)
    log: list[Step] = Field(default_factory=list)
    rolls: list[dict[str, Any]] = Field(default_factory=list)
    state: dict[str, Any] | None = None
    data: dict[str, Any] | None = None
    replayed: Flag | None = None
    """True when this is the stored answer to a retried action id (same id, same payload)."""
    summary: Summary | None = None
    """Present when `log` or `rolls` is cut to its first `LOG_SHOWN` steps or `ROLLS_SHOWN` rolls."""


class Patch(RuleModel):
    """A change another client caused, pushed to every other client of the world."""

    rev: Count
    patch: list[dict[str, Any]]
    log: list[Step] = Field(default_factory=list)
    rolls: list[dict[str, Any]] = Field(default_factory=list)
    """The engine's dice, as the `result` lists them."""
    summary: Summary | None = None
    """As the `result`'s: present when `log` or `rolls` is cut."""
    kind: str | None = None
    """What made the change: the action's kind (`damage`, `undo`, ...), `sync` or `upsert`."""
    action: str | None = None
    """The action's id (the envelope id it was sent with), which an `undo` names; absent for a
    sync or upsert."""


class RulingRef(RuleModel):
    """A ruling named in an error: its action id (absent for a sync or upsert), kind and rev."""

    action: str | None = None
    kind: str
    rev: int


class ErrorDetail(RuleModel):
    """One problem with a request: where (a field path) and why; for an undo's `conflict`, the
    later rulings that changed the path."""

    path: list[str | int]
    message: str
    rulings: list[RulingRef] | None = None


class Error(RuleModel):
    """Any failure; `re` names the request when there was one."""

    code: ErrorCode
    message: str
    details: list[ErrorDetail] | None = None
    rev: Count | None = None


CLIENT_TYPES = frozenset({"hello", "sync", "upsert", "action", "query"})


def error_details(
    exc: ValidationError, prefix: tuple[str | int, ...] = (), tag: str | None = None
) -> list[ErrorDetail]:
    """Each failing field of a validation error, with its path and pydantic's reason.

    `tag`: the discriminator value a tagged union puts first in every path (dropped).
    """
    details = []
    errors = exc.errors(include_url=False)
    for err in errors:
        if err["type"] == "too_short" and any(
            other["loc"][: len(err["loc"])] == err["loc"] and len(other["loc"]) > len(err["loc"])
            for other in errors
        ):
            continue  # a list "too short after validation" only because one of its items failed
        loc = err["loc"][1:] if tag is not None and err["loc"][:1] == (tag,) else err["loc"]
        message = err["msg"]
        ctx = err.get("ctx") or {}
        if "expected" in ctx and str(ctx["expected"]) not in message:
            message = f"{message} (allowed: {ctx['expected']})"
        details.append(ErrorDetail(path=[*prefix, *loc], message=message))
    return details


def client_payloads(actions: TypeAdapter[Any], queries: TypeAdapter[Any]) -> dict[str, TypeAdapter[Any]]:
    """Each client message type's payload validator (the action and query unions are the handlers',
    `actions.registry`)."""
    return {
        "hello": TypeAdapter(Hello),
        "sync": TypeAdapter(Sync),
        "upsert": TypeAdapter(Upsert),
        "action": actions,
        "query": queries,
    }


SERVER_PAYLOADS: dict[str, TypeAdapter[Any]] = {
    "welcome": TypeAdapter(Welcome),
    "result": TypeAdapter(Result),
    "patch": TypeAdapter(Patch),
    "error": TypeAdapter(Error),
}

EXPECT_REV = {
    "description": "Refuse the action with `stale` unless the world is at this rev.",
    "type": "integer",
    "minimum": 0,
    "maximum": 2**53 - 1,
}
"""`expectRev`, which every action may carry besides its own fields (`World.prepare_action`)."""


def _message(name: str, payloads: dict[str, str]) -> dict[str, Any]:
    """A message of one direction: the envelope, a known `type`, and that type's payload."""
    return {
        "title": name,
        "allOf": [
            {"$ref": "#/$defs/Envelope"},
            {"properties": {"type": {"enum": sorted(payloads)}}, "required": ["type", "payload"]},
            *(
                {
                    "if": {"properties": {"type": {"const": type_}}, "required": ["type"]},
                    "then": {"properties": {"payload": {"$ref": f"#/$defs/{definition}"}}},
                }
                for type_, definition in sorted(payloads.items())
            ),
        ],
    }


def json_schema(actions: TypeAdapter[Any], queries: TypeAdapter[Any]) -> dict[str, Any]:
    """The JSON Schema (2020-12) of every message, one document: every type it names is in `$defs`
    (`actions` and `queries`: the handlers' unions, `actions.registry`).

    The root validates any message, either way (`ClientMessage`, `ServerMessage`); `client`,
    `server`, `envelope` and `state` point at each payload's definition.
    """
    names = {"envelope": "Envelope", "state": "WorldState"}
    inputs: list[tuple[str, Literal["validation"], TypeAdapter[Any]]] = [
        ("Envelope", "validation", TypeAdapter(Envelope)),
        ("WorldState", "validation", TypeAdapter(WorldState)),
    ]
    client_types = client_payloads(actions, queries)
    for direction, payloads in (("client", client_types), ("server", SERVER_PAYLOADS)):
        for type_, adapter in payloads.items():
            inputs.append((f"{direction}.{type_}", "validation", adapter))
    schemas, top = TypeAdapter.json_schemas(inputs, by_alias=True)
    defs: dict[str, Any] = top["$defs"]
    refs: dict[str, str] = {}
    for (key, _), schema in schemas.items():
        ref = schema.get("$ref")
        if isinstance(ref, str) and set(schema) == {"$ref"}:
            refs[key] = ref.removeprefix("#/$defs/")
        else:  # a union (actions, queries): a definition of its own
            name = {"client.action": "Action", "client.query": "Query"}[key]
            assert name not in defs, f"a model is named {name}"
            defs[name] = schema
            refs[key] = name
    for ref in defs["Action"]["discriminator"]["mapping"].values():
        action = defs[ref.removeprefix("#/$defs/")]
        action["properties"]["expectRev"] = {"$ref": "#/$defs/ExpectRev"}
    defs["ExpectRev"] = EXPECT_REV
    defs["StepCatalogue"] = catalogue_schema()
    client = {type_: refs[f"client.{type_}"] for type_ in client_types}
    server = {type_: refs[f"server.{type_}"] for type_ in SERVER_PAYLOADS}
    defs["ClientMessage"] = _message("ClientMessage", client)
    defs["ServerMessage"] = _message("ServerMessage", server)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"vtt-bridge protocol v{PROTOCOL_VERSION}",
        "description": "Any message of the protocol, either way; see docs/protocol.md.",
        "anyOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        **{part: {"$ref": f"#/$defs/{refs[name]}"} for part, name in names.items()},
        "client": {type_: {"$ref": f"#/$defs/{name}"} for type_, name in client.items()},
        "server": {type_: {"$ref": f"#/$defs/{name}"} for type_, name in server.items()},
        "$defs": dict(sorted(defs.items())),
    }


def _type_name(annotation: Any) -> str:
    """A short readable name of a field's type for the reference (`int | null`, `list[DamageInstance]`)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is type(None):
        return "null"
    if origin is Annotated:
        return _type_name(args[0])
    if origin is Literal:
        return " | ".join(json.dumps(a) for a in args)
    if origin in (Union, UnionType):
        return " | ".join(_type_name(a) for a in args)
    if origin in (tuple, list):
        return f"list[{_type_name(args[0])}]" if args else "list"
    if origin is dict:
        return f"object[{_type_name(args[0])} → {_type_name(args[1])}]"
    name = getattr(annotation, "__name__", None)
    return name if name is not None else str(annotation)


ID_FIELDS = {"actor": "actor", "token": "token", "observer": "token", "attacker": "token"}
"""Which document a field of an action or query names, by the field's name."""

TOKEN_TARGETS = frozenset(
    {"contest", "explain", "attackCheck", "pinLocate", "releaseLocate", "approveReveal"}
)
"""The kinds whose `target` is a token (detection is between tokens); every other `target` is an actor."""


def id_kind(kind: str, field: str) -> str | None:
    """`"actor"` or `"token"` when the field of this kind names a document (a key of `/actors` or
    `/tokens`), None when it is no such id."""
    if field == "target":
        return "token" if kind in TOKEN_TARGETS else "actor"
    return ID_FIELDS.get(field)


def _summary(model: type[Any]) -> str:
    """A model's docstring's first paragraph, on one line (never cut mid-sentence)."""
    paragraph = (model.__doc__ or "").strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())


def _nested(annotation: Any) -> list[type[Any]]:
    """The models and enums an annotation names, through unions, lists, dicts and `Annotated`."""
    if isinstance(annotation, type) and issubclass(annotation, RuleModel | StrEnum):
        return [annotation]
    return [found for arg in get_args(annotation) for found in _nested(arg)]


def _field_lines(model: type[RuleModel], kind: str | None) -> list[str]:
    """A model's fields, one line each; `kind` None: a shape inside an action, query or sync (its
    `kind` is a field like any other, and only its `str` fields named for a document are ids)."""
    lines = []
    for name, info in model.model_fields.items():
        wire = info.alias or name
        if wire == "kind" and kind is not None:
            continue
        required = "required" if info.is_required() else "optional"
        type_name = _type_name(info.annotation)
        if kind is not None:
            document = id_kind(kind, wire)
        else:
            document = ID_FIELDS.get(wire) if type_name in ("str", "str | null") else None
        shown = f"{document} id (a key of `/{document}s`)" if document else f"`{type_name}`"
        default = info.default
        if not info.is_required() and isinstance(default, str | int | float) and default not in ("", None):
            required = (
                f"optional, default {json.dumps(default.value if isinstance(default, StrEnum) else default)}"
            )
        said = " ".join((info.description or "").split())
        lines.append(f"  - `{wire}` ({required}): {shown}" + (f": {said}" if said else ""))
    return lines


def _shapes(roots: list[type[RuleModel]]) -> list[str]:
    """Every model and enum the roots' fields name, nested ones included, by name: each model with
    its fields, each enum with its values."""
    seen: dict[str, type[Any]] = {}
    todo = [
        found for root in roots for info in root.model_fields.values() for found in _nested(info.annotation)
    ]
    while todo:
        shape = todo.pop()
        if seen.setdefault(shape.__name__, shape) is not shape or shape in roots:
            continue
        if issubclass(shape, RuleModel):
            todo.extend(found for info in shape.model_fields.values() for found in _nested(info.annotation))
    out: list[str] = []
    for name in sorted(seen, key=str.lower):
        shape = seen[name]
        if shape in roots:
            continue
        summary = _summary(shape)
        if issubclass(shape, RuleModel):
            out.append(f"- `{name}`" + (f": {summary}" if summary else ""))
            out.extend(_field_lines(shape, None))
        else:
            values = ", ".join(json.dumps(member.value) for member in shape)
            out.append(f"- `{name}`: one of {values}" + (f". {summary}" if summary else ""))
    return out


def reference_markdown(actions: Mapping[str, type[RuleModel]], queries: Mapping[str, type[RuleModel]]) -> str:
    """The generated reference of every action and query kind with its fields, and of every shape
    a client sends inside them or in a `hello` or `sync` (docs/protocol.md)."""
    out = ["### Actions", ""]
    for kind, model in sorted(actions.items()):
        out.append(f"- `{kind}`: {_summary(model)}")
        out.extend(_field_lines(model, kind))
    out += ["", "### Queries", ""]
    for kind, model in sorted(queries.items(), key=lambda item: (item[0] != "state", item[0])):
        out.append(f"- `{kind}`: {_summary(model)}")
        out.extend(_field_lines(model, kind))
    roots: list[type[RuleModel]] = [Hello, Sync, *actions.values(), *queries.values()]
    out += [
        "",
        "### Shapes inside them",
        "",
        "Every object and enumeration the fields above name, nested ones included (the state document a",
        "`sync` sends among them), in alphabetical order:",
        "",
        *_shapes(roots),
    ]
    return "\n".join(out) + "\n"
