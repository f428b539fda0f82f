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

PROTOCOL_VERSION = 1

MessageId = Annotated[str, Field(strict=True, min_length=1, max_length=200)]
WorldId = Id
"""A world id: one JSON Pointer segment, as a document id (`document.models.Id`)."""
Pointer = Annotated[str, Field(strict=True, min_length=1, max_length=1000, pattern=r"^/")]


class ErrorCode(StrEnum):
    """The stable error codes of PROTOCOL.md."""

    UNAUTHORIZED = "unauthorized"
    BAD_REQUEST = "bad_request"
    INVALID = "invalid"
    NOT_FOUND = "not_found"
    STALE = "stale"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    CONFLICT = "conflict"
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


class Patch(RuleModel):
    """A change another client caused, pushed to every other client of the world."""

    rev: Count
    patch: list[dict[str, Any]]
    log: list[Step] = Field(default_factory=list)


class ErrorDetail(RuleModel):
    """One problem with a request: where (a field path) and why."""

    path: list[str | int]
    message: str


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


def json_schema(actions: TypeAdapter[Any], queries: TypeAdapter[Any]) -> dict[str, Any]:
    """The JSON Schema of every message: the envelope, each client payload (the action and query
    payloads are the handlers' union, `actions.registry`), each server payload."""
    schemas: dict[str, Any] = {
        "envelope": Envelope.model_json_schema(by_alias=True),
        "client": {
            "hello": Hello.model_json_schema(by_alias=True),
            "sync": Sync.model_json_schema(by_alias=True),
            "upsert": Upsert.model_json_schema(by_alias=True),
            "action": actions.json_schema(by_alias=True),
            "query": queries.json_schema(by_alias=True),
        },
        "server": {
            "welcome": Welcome.model_json_schema(by_alias=True),
            "result": Result.model_json_schema(by_alias=True),
            "patch": Patch.model_json_schema(by_alias=True),
            "error": Error.model_json_schema(by_alias=True),
        },
        "state": WorldState.model_json_schema(by_alias=True),
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"vtt-bridge protocol v{PROTOCOL_VERSION}",
        **schemas,
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


def _field_lines(model: type[RuleModel]) -> list[str]:
    lines = []
    for name, info in model.model_fields.items():
        wire = info.alias or name
        if wire == "kind":
            continue
        required = "required" if info.is_required() else "optional"
        lines.append(f"  - `{wire}` ({required}): `{_type_name(info.annotation)}`")
    return lines


def reference_markdown(actions: Mapping[str, type[RuleModel]], queries: Mapping[str, type[RuleModel]]) -> str:
    """The generated reference of every action and query kind with its fields (docs/protocol.md)."""
    out = ["### Actions", ""]
    for kind, model in sorted(actions.items()):
        doc = (model.__doc__ or "").strip().splitlines()[0]
        out.append(f"- `{kind}`: {doc}")
        out.extend(_field_lines(model))
    out += ["", "### Queries", ""]
    for kind, model in sorted(queries.items(), key=lambda item: (item[0] != "state", item[0])):
        doc = (model.__doc__ or "").strip().splitlines()[0]
        out.append(f"- `{kind}`: {doc}")
        out.extend(_field_lines(model))
    return "\n".join(out) + "\n"
