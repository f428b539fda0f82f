"""One world: its state document and the rulings on it, computed without I/O.

`World.prepare_*` turn a validated request into a `Pending` (the next state and the reply); the
server makes the pending ruling durable in the store and only then calls `World.commit` and
acknowledges it. A request that fails raises `refusals.RequestError` and leaves the world as it was.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel, TypeAdapter, ValidationError

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.actions.registry import (
    ACTION_ADAPTER,
    HANDLERS,
    QUERIES,
    QUERY_ADAPTER,
    RulingQuery,
    StateQuery,
)
from vtt_bridge.actions.undo import HISTORY_ACTIONS, RedoAction, UndoAction
from vtt_bridge.document.areas import rule_areas
from vtt_bridge.document.derive import derive
from vtt_bridge.document.models import (
    NONE_WRITTEN,
    SERVER_WRITTEN_ACTOR_FIELDS,
    Actor,
    Id,
    Scene,
    Settings,
    Token,
    TokenId,
    WorldState,
    Written,
    dumped_in_parts,
    reaches_detection,
    seal,
    settled,
)
from vtt_bridge.document.pins import apply_pins, held_steps
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.engine import patch as patches
from vtt_bridge.engine.history import SYNC_PARTS, Entry, History, JsonOps, step_data
from vtt_bridge.engine.protocol import ErrorCode, ErrorDetail, Sync, Upsert, error_details
from vtt_bridge.engine.refusals import RequestError, path_details, refusal
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.errors import AnsweredLongAgo
from vtt_bridge.rules.common import Step, counted, payloads
from vtt_bridge.rules.conditions import DERIVED
from vtt_bridge.rules.dice import Roll, Roller


class Pending(NamedTuple):
    """A ruling computed but not yet durable: the next state and the `result` payload. A named tuple:
    one is made for every ruling, and a frozen dataclass sets each field through `object.__setattr__`."""

    state: WorldState
    result: dict[str, Any]
    action_id: str | None
    snapshot: bool
    digest: str | None = None
    """The digest of the action's payload (`payload_digest`), kept with its id."""
    entry: Entry | None = None
    """The ruling as undo sees it (its ops and their inverse), stored with it."""
    message_id: str | None = None
    """The message id of a sync or upsert (an undo of it is refused as not a ruling)."""
    detection: bool = True
    """Whether the ruling went through detection (the visibility index, the pins, the areas); False:
    it changed nothing detection reads (`reaches_detection`), which was left alone."""


def payload_digest(payload: dict[str, Any]) -> str:
    """A digest of an action's payload as sent (keys sorted): a retry of the same id must match it."""
    try:
        text = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer past 64 bits (refused later, by validation)
        text = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def replayed(reply: bytes) -> bytes:
    """A stored `result` payload (the UTF-8 JSON of an object) marked `replayed: true`."""
    return b'{"replayed":true,' + memoryview(reply)[1:] if reply != b"{}" else b'{"replayed":true}'


def _utf8(reply: str | bytes) -> bytes:
    return reply if isinstance(reply, bytes) else reply.encode()


def roll_payload(roll: Roll) -> dict[str, Any]:
    """A roll as the wire shows it, so the module can rebuild it as a Foundry roll; `by` and
    `purpose` only when the roll is named."""
    if roll.by is None:
        return {"pool": roll.pool, "again": roll.again, "dice": list(roll.dice), "successes": roll.successes}
    return {
        "pool": roll.pool,
        "again": roll.again,
        "dice": list(roll.dice),
        "successes": roll.successes,
        "by": roll.by,
        "purpose": roll.purpose,
    }


def _value_at(state: WorldState, segments: list[str]) -> Any:
    """UPSERT: the JSON value at a document path (None where there is none); only the one actor,
    token or part the path names is dumped."""
    head, rest = segments[0], segments[1:]
    node: Any = getattr(state, head, None)
    if head in ("actors", "tokens") and rest:
        node, rest = node.get(rest[0]), rest[1:]
    if isinstance(node, BaseModel):
        node = node.model_dump(mode="json", by_alias=True)
    elif isinstance(node, Mapping):
        node = {
            k: v.model_dump(mode="json", by_alias=True) if isinstance(v, BaseModel) else v
            for k, v in node.items()
        }
    for part in rest:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _validated(
    adapter: TypeAdapter[Any], known: Collection[str], what: str, body: dict[str, Any]
) -> tuple[str, Any]:
    """An action's or query's payload validated by its `kind`: `bad_request` for an unknown kind,
    `invalid` (with each field path) for a known one that does not fit. The adapter's core
    validator is called as `TypeAdapter.validate_python` calls it with no options (every action
    passes here)."""
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in known:
        raise RequestError(
            ErrorCode.BAD_REQUEST, f"unknown {what} kind {kind!r}; known kinds: {', '.join(sorted(known))}"
        )
    try:
        return kind, adapter.validator.validate_python(body)
    except ValidationError as exc:
        raise RequestError(
            ErrorCode.INVALID, f"invalid {kind} {what}", error_details(exc, tag=kind)
        ) from None


def area_dice(world_id: str, seed: int | None = 0) -> Roller:
    """The dice of a world's areas, a stream of their own (the rulings' dice stay as they are):
    seeded by `seed` and the world's id, so a seeded world draws the same areas for the same
    rulings; None: the system's random source."""
    if seed is None:
        return SeededRoller(source=random.SystemRandom())
    return SeededRoller(f"areas:{seed}:{world_id}")


class _Refusals:
    """A handler's refusals as request errors (`refusals.refusal`). A plain context manager (no
    generator): it wraps every ruling."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if exc is not None and (error := refusal(exc, self.what)) is not None:
            raise error from None


DERIVED_SLUGS: frozenset[str] = frozenset(condition.value for condition in DERIVED)

_ID_ADAPTER: TypeAdapter[str] = TypeAdapter(Id)
_TOKEN_ID_ADAPTER: TypeAdapter[str] = TypeAdapter(TokenId)


def is_document_id(candidate: str) -> bool:
    """Whether a path segment is a document id (`document.models.Id`): what sync accepts, upsert accepts."""
    try:
        _ID_ADAPTER.validate_python(candidate)
    except ValidationError:
        return False
    return True


_ACTION_KINDS = frozenset(HANDLERS) | frozenset(HISTORY_ACTIONS)
"""Every action kind (the registry's and undo's), known once."""

RECENT_REPLIES = 1000
"""Replies a world keeps in memory for retried action ids (a reconnecting module resends only its
last few); older ones are read back from the store."""

RECENT_REPLY_BYTES = 32 << 20
"""...and at most this much of them."""

LARGEST_KEPT_REPLY = 1 << 20
"""A reply larger than this is not kept in memory for retries (a round of a big scene answers with
megabytes, tens of them at 1,000 tokens): the store has it, and a retry of it reads it back from
there (`AnsweredLongAgo`), in the store's thread."""


class World:
    """A world's document at its last acknowledged rev, every action id it answered, and the replies
    to the most recent of them."""

    def __init__(
        self,
        world_id: str,
        state: WorldState | None = None,
        replies: Mapping[str, str | bytes] | None = None,
        answered: set[str] | None = None,
        recent: int = RECENT_REPLIES,
        digests: dict[str, str] | None = None,
        history: History | None = None,
        dice: Roller | None = None,
    ):
        self.id = world_id
        self.dice: Roller = dice if dice is not None else area_dice(world_id)
        """The world's own dice for drawing its areas (DET-4 on the map: `document.areas`)."""
        self._areas_checked = False
        """Whether every pair's area was looked at since the world was made (a store written before
        areas were kept holds none)."""
        self.state = state if state is not None else WorldState()
        self.replies: OrderedDict[str, bytes] = OrderedDict(
            (action_id, _utf8(reply)) for action_id, reply in (replies or {}).items()
        )
        """Action id -> the `result` payload it was answered with (idempotent retries), as the UTF-8
        of its JSON (as it was sent: a str of text beyond ASCII takes 2 or 4 bytes a character), for
        the last `recent` actions (and `RECENT_REPLY_BYTES`) of those answered with at most
        `LARGEST_KEPT_REPLY` bytes, oldest first."""
        self.answered: set[str] = set(self.replies) | (answered or set())
        """Every action id this world ever answered (kept for good: a retry is never ruled twice)."""
        self.digests: dict[str, str] = dict(digests or {})
        """Action id -> the digest of the payload it was answered for (ids stored before digests
        were kept have none: a retry of one is replayed)."""
        self.recent = max(1, recent)
        self.visibility = VisibilityIndex()
        """The world's own visibility index and its caches (DET-4..8)."""
        self._context: Context | None = None
        """What the world's handlers are given besides the state (the dice, its visibility index):
        made once for the dice it is given, not at every action."""
        self._reply_bytes = sum(len(reply) for reply in self.replies.values())
        self.history = history if history is not None else History()
        """The last rulings' ops and inverses, and which stand undone (`history.py`)."""

    @property
    def rev(self) -> int:
        """The last acknowledged revision."""
        return self.state.rev

    # --- rulings -------------------------------------------------------------------------------

    def _finish(
        self,
        before: WorldState,
        after: WorldState,
        log: Iterable[Step],
        rolls: Iterable[Roll],
        action_id: str | None,
        pairs: Iterable[tuple[str, str]] | None = None,
        full: bool = False,
        derived: frozenset[str] = frozenset(),
        previous: WorldState | None = None,
        kind: str = "",
        target: str | None = None,
        message_id: str | None = None,
        digest: str | None = None,
        written: Written = NONE_WRITTEN,
    ) -> Pending:
        """Derive, rule detection (the visibility index, the pins, the areas: only when the ruling
        changed something they read, `reaches_detection`), diff, and keep the undo entry.
        `previous`: the state the pins' ends are judged against, when not `before` (a sync);
        `digest`: the action's payload digest (`payload_digest`); `written`: the handler's
        `Ruling.written` about `before`'s actors, read only while `after`'s map of actors is the one
        the handler gave (neither derived nor detection replaced a member since)."""
        handed = after.__dict__["actors"]
        after = derive(before, after, derived)
        if written and after.__dict__["actors"] is not handed:
            written = NONE_WRITTEN
        detection = not self._areas_checked or reaches_detection(previous or before, after, written)
        refreshed: list[tuple[str, str]] | None = []
        if detection:
            after, refreshed = self.visibility.refresh_changes(before, after, unapplied_cells=True)
            after, refreshed = apply_pins(previous or before, after, self.visibility, refreshed)
            after = rule_areas(before, after, refreshed, self.dice, recheck=not self._areas_checked)
            if after.reveals is not before.reveals:
                log = [*log, *held_steps(before, after)]
            if written and after.__dict__["actors"] is not handed:
                written = NONE_WRITTEN
        if pairs is None:
            pairs = None if target is not None else refreshed  # an undo diffs the rows it restored
        old_rev = before.__dict__["rev"]  # not read through the model's `__getattr__` hook
        new_rev = old_rev + 1
        after = after.model_copy(update={"rev": new_rev})
        olds: patches.Olds = {}
        """What the diff read of `before` (the inverse takes it from there)."""
        undo: patches.Undo | None = None
        """The inverses the diff built with their ops."""
        if full:
            document = dumped_in_parts(settled(after))
            ops: list[patches.Op] = [
                {"op": "replace", "path": f"/{name}", "value": document[name]} for name in SYNC_PARTS
            ]
        else:
            undo = []
            ops = patches.diff_states(
                before, after, pairs, olds, whole_rows=action_id is not None, undo=undo, written=written
            )
        result = {
            "rev": new_rev,
            "patch": patches.ruling_patch(old_rev, new_rev, ops),
            "log": payloads(log),
            "rolls": [roll_payload(roll) for roll in rolls],
        }
        if action_id is not None:
            entry = Entry(
                action_id,
                new_rev,
                kind,
                tuple(ops),
                tuple(patches.inverse_ops(before, ops, olds, undo)),
                target,
            )
        else:  # a sync or upsert: only its paths matter (for the conflicts it causes)
            entry = Entry(
                None,
                new_rev,
                kind,
                tuple({"op": op["op"], "path": op["path"]} for op in ops),
                None,
                reason=f"a {kind} is no ruling",
            )
        return Pending(after, result, action_id, full, digest, entry, message_id, detection)

    def prepare_action(self, action_id: str, payload: dict[str, Any], roller: Roller) -> Pending | bytes:
        """Rule on one `action`. A retried action id with the same payload returns its stored reply
        (its JSON's UTF-8, marked `replayed: true`) instead, or raises `AnsweredLongAgo` when the reply is
        not kept in memory (too old, or too large: `LARGEST_KEPT_REPLY`); with another payload it is
        refused (`conflict`)."""
        digest = payload_digest(payload)
        if action_id in self.answered:
            stored = self.replies.get(action_id)
            if stored is None:
                raise AnsweredLongAgo(action_id, digest)
            return self.replay(action_id, digest, stored, self.digests.get(action_id))
        body = dict(payload)
        expect_rev = body.pop("expectRev", None)
        if expect_rev is not None and (type(expect_rev) is not int or expect_rev < 0):
            raise RequestError(
                ErrorCode.INVALID,
                "expectRev must be a non-negative integer",
                path_details(("expectRev",), "int"),
            )
        kind, action = _validated(ACTION_ADAPTER, _ACTION_KINDS, "action", body)
        if expect_rev is not None and expect_rev != self.rev:
            raise RequestError(
                ErrorCode.STALE, f"the world is at rev {self.rev}, not {expect_rev}", rev=self.rev
            )
        if kind in HISTORY_ACTIONS:
            pending = self._prepare_history(action_id, action)
        else:
            _, handler = HANDLERS[kind]
            context = self._context
            if context is None or context.roller is not roller:  # one per world and dice
                context = self._context = Context(
                    roller=roller, visibility=self.visibility, unapplied_cells=True
                )
            try:  # as `_Refusals` does, without a context manager's two calls on every ruling
                ruling: Ruling = handler(self.state, action, context)
            except BaseException as exc:
                error = refusal(exc, f"{kind} action")
                if error is None:
                    raise
                raise error from None
            return self._finish(
                self.state,
                ruling.state,
                ruling.log,
                ruling.rolls,
                action_id,
                derived=ruling.derived,
                kind=kind,
                digest=digest,
                written=ruling.written,
            )
        return Pending(
            pending.state,
            pending.result,
            action_id,
            pending.snapshot,
            digest,
            pending.entry,
            detection=pending.detection,
        )

    def _prepare_history(self, action_id: str, action: UndoAction | RedoAction) -> Pending:
        """An undo or redo (`history.py`): the planned ops applied, everything derived again."""
        plan = self.history.plan(action.kind, action.action, self.state, self.answered)
        origin = plan.origin
        try:
            after = patches.apply_ops(self.state, plan.ops)
        except (*patches.PatchConflict, ValidationError) as exc:  # a bug or a damaged history
            raise RequestError(
                ErrorCode.CONFLICT,
                f"the {plan.mode} of {origin.action_id!s:.60} does not fit the document ({exc}); "
                "nothing was changed",
            ) from None
        verb = "undone" if plan.mode == "undo" else "redone"
        step = Step(
            rule="UNDO",
            text=f"{origin.kind} {origin.action_id!s:.60} (rev {origin.rev}) {verb}: "
            f"{counted(len(plan.ops), 'change')} applied (a row of results counts once), "
            "derived fields derived again",
            data={"key": f"UNDO.{verb}", **step_data(plan.mode, origin)},
            key=f"UNDO.{verb}",
        )
        return self._finish(self.state, after, [step], (), action_id, kind=plan.mode, target=origin.action_id)

    def replay(self, action_id: str, digest: str, stored: str | bytes, stored_digest: str | None) -> bytes:
        """The stored reply to a retried action id, marked `replayed`; `conflict` when the retry's
        payload is not the one the id was answered for (nothing changes)."""
        known = stored_digest if stored_digest is not None else self.digests.get(action_id)
        if known is not None and known != digest:
            raise RequestError(
                ErrorCode.CONFLICT,
                f"action id {action_id[:60]!r} was already used for another action; "
                "use a fresh random id for each action (nothing was changed)",
            )
        return replayed(_utf8(stored))

    def prepare_sync(self, payload: dict[str, Any], message_id: str | None = None) -> Pending:
        """Replace the document with the client's; derive everything; the patch replaces each part."""
        try:
            sync = Sync.model_validate(payload)
        except ValidationError as exc:
            raise RequestError(ErrorCode.INVALID, "invalid sync", error_details(exc)) from None
        state = sync.state
        details = [
            ErrorDetail(
                path=["state", "tokens", token_id, "actor"], message=f"no actor {token.actor!r} in the state"
            )
            for token_id, token in state.tokens.items()
            if token.actor not in state.actors
        ]
        if details:
            raise RequestError(ErrorCode.INVALID, "a token names an actor the state does not have", details)
        same_scene = (
            state.scene is not None and self.state.scene is not None and state.scene.id == self.state.scene.id
        )
        after = WorldState(
            rev=self.rev,
            scene=state.scene,
            settings=state.settings,
            actors=state.actors,
            tokens=state.tokens,
            # the GM's pins are rulings: a sync of the same scene keeps them (those whose tokens are
            # gone are released); a new scene ends them all
            pins=self.state.pins if same_scene else {},
            areas=self.state.areas if same_scene else {},  # a reconnect does not move them (DET-4)
        )
        step = Step(
            rule="SYNC",
            text=f"the world was synced from the VTT: {counted(len(state.actors), 'actor')}, "
            f"{counted(len(state.tokens), 'token')}",
            data={"actors": len(state.actors), "tokens": len(state.tokens)},
            key="SYNC.synced",
        )
        # Against an empty world every actor and token is new, so all of them are derived afresh.
        return self._finish(
            WorldState(rev=self.rev),
            after,
            [step],
            (),
            None,
            full=True,
            kind="sync",
            message_id=message_id,
            previous=self.state,
        )

    def prepare_upsert(self, payload: dict[str, Any], message_id: str | None = None) -> Pending:
        """Set (or with `null`, remove) one part of the document, as the GM changed it in the VTT."""
        try:
            upsert = Upsert.model_validate(payload)
        except ValidationError as exc:
            raise RequestError(ErrorCode.INVALID, "invalid upsert", error_details(exc)) from None
        if upsert.expect_rev is not None and upsert.expect_rev != self.rev:
            raise RequestError(
                ErrorCode.STALE, f"the world is at rev {self.rev}, not {upsert.expect_rev}", rev=self.rev
            )
        try:
            segments = patches.split_pointer(upsert.path)
        except ValueError as exc:
            raise RequestError(ErrorCode.INVALID, str(exc), path_details(("path",), str(exc))) from None
        after = self._upserted(segments, upsert.value)
        old, new = _value_at(self.state, segments), _value_at(after, segments)
        step = Step(
            rule="UPSERT",
            text=f"the VTT set {upsert.path}: {json.dumps(old)} → {json.dumps(new)}",
            data={"path": upsert.path, "old": old, "new": new},
            key="UPSERT.set",
        )
        return self._finish(self.state, after, [step], (), None, kind="upsert", message_id=message_id)

    def _upserted(self, segments: list[str], value: Any) -> WorldState:
        state = self.state
        head, rest = segments[0], segments[1:]
        where = ("path",)
        if head in ("actors", "tokens"):
            if not rest:
                raise RequestError(
                    ErrorCode.INVALID,
                    f"name one of the {head} (/{head}/<id>)",
                    path_details(where, "too short"),
                )
            entity_id, inner = rest[0], rest[1:]
            if not is_document_id(entity_id):
                raise RequestError(
                    ErrorCode.INVALID,
                    f"{entity_id[:40]!r} is not an id: 1 to 200 characters, no '/' or '~'",
                    path_details(where, "bad id"),
                )
            if head == "tokens":
                try:
                    _TOKEN_ID_ADAPTER.validate_python(entity_id)
                except ValidationError as exc:
                    reason = exc.errors(include_url=False)[0]["msg"]
                    raise RequestError(ErrorCode.INVALID, reason, path_details(where, reason)) from None
            members: dict[str, Any] = dict(getattr(state, head))
            model: type[BaseModel] = Actor if head == "actors" else Token
            if (
                head == "actors"
                and inner
                and (
                    inner[0] in SERVER_WRITTEN_ACTOR_FIELDS
                    or (inner[0] == "conditions" and len(inner) > 1 and inner[1] in DERIVED_SLUGS)
                )
            ):
                raise RequestError(
                    ErrorCode.INVALID,
                    f"/{'/'.join(segments)} is derived by the server (HEALTH-3..7); it cannot be set",
                    path_details(where, "derived field"),
                )
            if not inner and value is None:
                if entity_id not in members:
                    raise RequestError(
                        ErrorCode.NOT_FOUND,
                        f"no {head[:-1]} {entity_id!r}",
                        path_details(where, "unknown id"),
                    )
                if head == "actors":
                    users = [t for t, token in state.tokens.items() if token.actor == entity_id]
                    if users:
                        raise RequestError(
                            ErrorCode.INVALID,
                            f"actor {entity_id!r} still has tokens ({', '.join(users)}); remove them first",
                            path_details(where, "actor in use"),
                        )
                del members[entity_id]
                return state.model_copy(update={head: members})
            if inner and entity_id not in members:
                raise RequestError(
                    ErrorCode.NOT_FOUND, f"no {head[:-1]} {entity_id!r}", path_details(where, "unknown id")
                )
            current = members[entity_id].model_dump(mode="json") if entity_id in members else None
            new_json = self._patched(current, inner, value)
            try:
                entity = model.model_validate(new_json)
            except ValidationError as exc:
                raise RequestError(
                    ErrorCode.INVALID, f"invalid {head[:-1]}", error_details(exc, ("value",))
                ) from None
            if head == "tokens" and entity.actor not in state.actors:  # type: ignore[attr-defined]
                raise RequestError(
                    ErrorCode.NOT_FOUND,
                    f"no actor {entity.actor!r} for this token",  # type: ignore[attr-defined]
                    path_details(("value", "actor"), "unknown actor"),
                )
            members[entity_id] = entity
            return state.model_copy(update={head: members})
        if head in ("scene", "settings"):
            part: BaseModel | None = getattr(state, head)
            current = None if part is None else part.model_dump(mode="json")
            if rest and current is None:
                raise RequestError(
                    ErrorCode.NOT_FOUND, "there is no scene yet", path_details(where, "no scene")
                )
            new_json = self._patched(current, rest, value)
            if head == "settings" and new_json is None:
                raise RequestError(
                    ErrorCode.INVALID, "settings cannot be removed", path_details(where, "required")
                )
            part_model: type[BaseModel] = Scene if head == "scene" else Settings
            try:
                new_part = None if new_json is None else part_model.model_validate(new_json)
            except ValidationError as exc:
                raise RequestError(
                    ErrorCode.INVALID, f"invalid {head}", error_details(exc, ("value",))
                ) from None
            return state.model_copy(update={head: new_part})
        raise RequestError(
            ErrorCode.INVALID,
            f"/{head} cannot be set; settable: /actors, /tokens, /scene, /settings",
            path_details(where, "not settable"),
        )

    @staticmethod
    def _patched(current: Any, inner: list[str], value: Any) -> Any:
        """`current` with `value` set at the inner path (or removed when `value` is null)."""
        if not inner:
            return value
        op: patches.Op
        pointer = "/" + "/".join(patches.escape(s) for s in inner)
        op = (
            {"op": "remove", "path": pointer}
            if value is None
            else {"op": "add", "path": pointer, "value": value}
        )
        try:
            return patches.apply(current, [op])
        except patches.PatchConflict as exc:
            raise RequestError(
                ErrorCode.INVALID, f"cannot set {pointer}: {exc}", path_details(("path",), str(exc))
            ) from None

    # --- queries -------------------------------------------------------------------------------

    @staticmethod
    def ruling_query(payload: dict[str, Any]) -> RulingQuery:
        """A `ruling` query validated (the server answers it from the store); `invalid` else."""
        _, query = _validated(QUERY_ADAPTER, {"ruling"}, "query", payload)
        assert isinstance(query, RulingQuery)
        return query

    def query(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Answer a query (no state change): the `result` payload. A `ruling` query is the server's
        (`ruling_query`: it reads the store)."""
        kind, query = _validated(QUERY_ADAPTER, {"state", "ruling", *QUERIES}, "query", payload)
        if isinstance(query, RulingQuery):
            raise RequestError(ErrorCode.BAD_REQUEST, "a ruling query is answered from the store")
        if isinstance(query, StateQuery):
            return {
                "rev": self.rev,
                "patch": [],
                "log": [],
                "rolls": [],
                "state": dumped_in_parts(self.state),
            }
        _, handler = QUERIES[kind]
        with _Refusals(f"{kind} query"):
            data = handler(self.state, query, self.visibility)
        log = data.pop("log", [])
        return {"rev": self.rev, "patch": [], "log": log, "rolls": [], "data": data}

    # --- commit --------------------------------------------------------------------------------

    def commit(
        self, pending: Pending, reply: str | bytes, kept: tuple[JsonOps, JsonOps] | None = None
    ) -> None:
        """Make a durable ruling the world's state (call only after the store has it); `reply`: its
        `result` payload's JSON, kept as UTF-8 for retries (up to `LARGEST_KEPT_REPLY` bytes); `kept`:
        its forward ops and inverse as JSON (`JsonOps.of`, as the store wrote the inverse), which
        undo then keeps instead (packed once the ruling is answered: `History.repack`)."""
        self.state = pending.state
        seal(pending.state)
        if pending.detection:  # else the index forgets at the next one
            self._areas_checked = True
            self.visibility.committed(pending.state)
        data = _utf8(reply)
        if pending.entry is not None:
            entry = pending.entry
            if entry.action_id is not None:  # its ops take memory in proportion to its reply
                # one constructor call, not `dataclasses.replace` (a ruling's hot path)
                forward, inverse = (
                    kept if kept is not None and entry.inverse is not None else (entry.forward, entry.inverse)
                )
                entry = Entry(
                    entry.action_id,
                    entry.rev,
                    entry.kind,
                    forward,
                    inverse,
                    entry.target,
                    entry.reason,
                    len(data),
                )
            self.history.record(entry, pending.message_id)
        if pending.action_id is not None:
            self.answered.add(pending.action_id)
            if pending.digest is not None:
                self.digests[pending.action_id] = pending.digest
            if len(data) <= LARGEST_KEPT_REPLY:
                self.replies[pending.action_id] = data
                self._reply_bytes += len(data)
            while len(self.replies) > 1 and (
                len(self.replies) > self.recent or self._reply_bytes > RECENT_REPLY_BYTES
            ):
                self._reply_bytes -= len(self.replies.popitem(last=False)[1])
