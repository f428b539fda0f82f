"""The world's state document (PROTOCOL.md "State document") as pydantic models.

The models are frozen; a ruling builds new ones with `model_copy(update=...)`, so an unchanged part
of a document is the very same object before and after, and the patch builder can skip it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_serializer,
    model_validator,
)

from vtt_bridge.errors import Refusal
from vtt_bridge.rules.areas import DEFAULT_SQUARES, Area, Squares, shared_area
from vtt_bridge.rules.common import (
    STORED,
    Count,
    Distance,
    Flag,
    RuleModel,
    UpdateKey,
    update_path_segment,
)
from vtt_bridge.rules.conditions import DERIVED
from vtt_bridge.rules.detection import (
    ORDINARY_SENSES,
    AntiDetectionMeans,
    ContestWin,
    DetectionMeans,
    LocateState,
)
from vtt_bridge.rules.energy import Attribute, CannotGainAgain, EnergyPool, Gauge
from vtt_bridge.rules.health import HealthStatus, HealthTrack
from vtt_bridge.rules.immunities import Immunity, SaveBonuses
from vtt_bridge.rules.iwr import Iwr, TemporaryImmunity
from vtt_bridge.rules.willpower import Willpower

SERVER_WRITTEN: dict[str, Any] = {"readOnly": True}
"""JSON Schema of a derived field (PROTOCOL.md "Derived fields"): the server writes it; a value a
client sends is recomputed, or refused in an `upsert`. `readOnly` says so in `vtt-bridge schema`."""

DERIVED_CONDITIONS_SCHEMA: dict[str, Any] = {
    "properties": {
        condition.value: {"type": "boolean", "readOnly": True, "description": "HEALTH-3..5, WP-5: derived"}
        for condition in sorted(DERIVED)
    }
}
"""The `conditions` map's derived keys (`rules.conditions.DERIVED`), each marked `readOnly`."""

Id = Annotated[str, Field(strict=True, min_length=1, max_length=200, pattern=r"^[^/~]+$")]
"""A document id (actor uuid, token id): no '/' or '~', so it is one JSON Pointer segment as is."""

TokenId = Annotated[Id, AfterValidator(update_path_segment)]
"""A token id: also a segment of the VTT's update paths (visibility flags), so no '.', '-=' or '=='
(`UpdateKey`). Actor uuids ('Actor.abc') are never such a segment and keep their dots."""

ActorName = Annotated[str, Field(strict=True, max_length=200)]
Coordinate = Annotated[float, Field(strict=True, ge=-1e9, le=1e9, allow_inf_nan=False)]
Rating = Annotated[int, Field(strict=True, ge=0, le=1000)]


V = TypeVar("V")


class Edited(dict[str, V]):
    """A copy of the map `base` with the members named in `edited` set: a ruling that replaces one
    actor says so, and the world reads the edited keys instead of comparing every member before and
    after (`edited_keys`). A plain dict in every other respect (JSON, models).
    The world clears `base` once the state is committed, so no chain of old maps is kept alive."""

    __slots__ = ("base", "edited")

    def __init__(self, base: Mapping[str, V], edited: frozenset[str]) -> None:
        super().__init__(base)
        self.base: Mapping[str, V] | None = base
        self.edited = edited


def replaced(base: Mapping[str, V], key: str, value: V) -> dict[str, V]:
    """`base` with `base[key] = value`, as a new map that remembers the edit (see `Edited`)."""
    out = Edited(base, frozenset((key,)))
    out[key] = value
    return out


def edited_keys(before: Mapping[str, V], after: Mapping[str, V]) -> set[str] | None:
    """The keys whose members may differ between `before` and `after`, read from the `Edited` maps
    that lead from one to the other (a few edits at most); None when unknown: compare them all."""
    if type(after) is Edited and after.base is before:  # one edit (most rulings): its keys
        return set(after.edited)
    keys: set[str] = set()
    node: Mapping[str, V] | None = after
    for _ in range(8):
        if node is before:
            return keys
        if not isinstance(node, Edited) or node.base is None:
            return None
        keys.update(node.edited)
        node = node.base
    return None


class Unapplied(dict[str, dict[str, LocateState]]):
    """A visibility matrix whose rows are the committed matrix's own rows, with the cells a ruling
    changed held in `cells` and not yet written into them.

    A move changes a cell or two in each of many rows, so rather than copy them the world writes the
    cells into the rows in place when it commits the ruling, after the store has it (`seal`); a
    ruling that is refused or
    not stored leaves the rows as they were. Until then the rows still hold the old values (the patch
    builder reads both), and `settled` gives the plain matrix to anything else that reads the state.
    Handlers return plain states unless the world asks (`Context.unapplied_cells`)."""

    __slots__ = ("cells", "keys_of")

    def __init__(
        self, rows: Mapping[str, dict[str, LocateState]], cells: dict[str, dict[str, LocateState]]
    ) -> None:
        super().__init__(rows)
        self.cells: dict[str, dict[str, LocateState]] | None = cells
        """Observer -> {target: its new state}, for rows shared with the committed matrix; None once
        written."""
        self.keys_of: Mapping[str, dict[str, LocateState]] | None = None
        """A matrix with exactly these observers (rows), when the ruling knows one (the patch
        builder then skips comparing them); cleared at commit."""


def pending_cells(visibility: object) -> dict[str, dict[str, LocateState]]:
    """The cells of a matrix not yet written into its rows (see `Unapplied`); empty for a plain one."""
    if type(visibility) is Unapplied and visibility.cells:
        return visibility.cells
    return {}


AreaCells = dict[str, dict[str, Area | None]]
"""Target -> observer -> the pair's new area, or None where the area is dropped (`AreaMap.cells`)."""


class AreaMap(dict[str, dict[str, Area]]):
    """A state's areas (DET-4 on the map: target -> observer -> area) whose rows are the committed
    map's own rows, with the areas a ruling changed in them held in `cells` and not yet written.

    A move redraws the areas of its target's one row, and changes a cell or two in the rows of the
    targets its mover now locates otherwise; rather than copy those rows the world writes the cells
    into them in place when it commits the ruling, after the store has it (`seal`); a ruling that
    is refused or not stored leaves the rows as they were. Rows that appear, go or are replaced
    whole are set in this map itself (named in `whole`, each a new dict), never in the committed
    one. Until the commit the rows hold the old areas: `area_ops` reads the cells, `settled` gives
    plain rows to anything else. Every other reader sees a plain dict."""

    __slots__ = ("base", "cells", "whole")

    def __init__(
        self, rows: Mapping[str, dict[str, Area]], base: Mapping[str, dict[str, Area]] | None = None
    ) -> None:
        """`rows` as they are written; with a `base` (the committed map `rows` are), a ruling's map
        whose cells are still to come."""
        super().__init__(rows)
        self.base: Mapping[str, dict[str, Area]] | None = base
        """The committed map the cells apply to; None once written (or for a map made whole)."""
        self.cells: AreaCells | None = None if base is None else {}
        """The changes to rows shared with `base`, each row's observers in sorted order; a row
        they would empty or change in every area is set whole instead. None once written."""
        self.whole: list[str] = []
        """The targets whose row this map added, removed or replaced whole (not in `cells`)."""


def pending_areas(areas: object) -> AreaCells:
    """The area changes of a map not yet written into its rows (see `AreaMap`); empty for a plain one."""
    if type(areas) is AreaMap and areas.cells:
        return areas.cells
    return {}


def written_areas(areas: Mapping[str, dict[str, Area]]) -> dict[str, dict[str, Area]]:
    """The areas as they read once their unapplied changes are written (see `AreaMap`): copies of
    the rows they change; the map itself when it holds none."""
    cells = pending_areas(areas)
    if not cells:
        return areas if type(areas) is dict or type(areas) is AreaMap else dict(areas)
    out = dict(areas)
    for observer, changed in cells.items():
        row = dict(out[observer])
        for target, area in changed.items():
            if area is None:
                del row[target]
            else:
                row[target] = area
        out[observer] = row
    return out


def _write_areas(areas: AreaMap) -> None:
    """Write a committed map's cells into its rows (see `AreaMap`)."""
    cells = areas.cells
    if areas.base is None or cells is None:
        return
    for target, changed in cells.items():
        row = areas[target]
        for observer, area in changed.items():  # most rows a move changes: one area
            if area is None:
                del row[observer]
            else:
                row[observer] = area
    areas.base = areas.cells = None
    areas.whole = []


def settled(state: WorldState) -> WorldState:
    """`state` with a plain visibility matrix and plain areas: unapplied cells written into copies
    of their rows."""
    cells = pending_cells(state.visibility)
    changes = pending_areas(state.areas)
    if not cells and not changes:
        return state
    update: dict[str, Any] = {}
    if cells:
        matrix = dict(state.visibility)
        for observer, changed in cells.items():
            matrix[observer] = {**matrix[observer], **changed}
        update["visibility"] = matrix
    if changes:
        update["areas"] = written_areas(state.areas)
    return state.model_copy(update=update)


def seal(state: WorldState) -> None:
    """Make a committed state plain: write its unapplied visibility cells and areas into their rows
    (see `Unapplied`, `AreaMap`), and forget the edit trail of its maps (their `base`), so old maps
    can be freed."""
    visibility = state.visibility
    if type(visibility) is Unapplied and visibility.cells is not None:
        for observer, changed in visibility.cells.items():
            visibility[observer].update(changed)
        visibility.cells = None
        visibility.keys_of = None
    if type(state.areas) is AreaMap:
        _write_areas(state.areas)
    for members in (state.actors, state.tokens):
        if isinstance(members, Edited):
            members.base = None


def senses_changed(before: Actor | None, after: Actor) -> bool:
    """Whether an actor's change reaches what detection reads of it (DET-1..7: its means and
    anti-detection, humanoid, blinded and deafened); a new actor (no `before`) always does. Its
    Health, Willpower and status do not: an unconscious or dead observer keeps its stages one and
    two, and only makes no contest (DET-8, read when one is made)."""
    if before is after:
        return False
    if before is None:
        return True
    old, new = before.__dict__, after.__dict__  # the fields, not each read through `__getattr__`
    if old["humanoid"] != new["humanoid"]:
        return True
    if old["detection"] is not new["detection"] and old["detection"] != new["detection"]:
        return True
    if old["anti_detection"] is not new["anti_detection"] and old["anti_detection"] != new["anti_detection"]:
        return True
    old_conditions: dict[str, bool] = old["conditions"]
    new_conditions: dict[str, bool] = new["conditions"]
    if old_conditions is new_conditions:
        return False
    return old_conditions.get("blinded", False) != new_conditions.get("blinded", False) or old_conditions.get(
        "deafened", False
    ) != new_conditions.get("deafened", False)


SENSED_FIELDS: frozenset[str] = frozenset(("humanoid", "detection", "anti_detection", "conditions"))
"""The Actor fields `senses_changed` reads."""

Written = Mapping[str, frozenset[str]]
"""Actor id -> the only fields of that actor a ruling may have replaced (`actions.Ruling.written`)."""

NONE_WRITTEN: Written = MappingProxyType({})
"""No actor named: every actor is looked at whole."""


def reaches_detection(before: WorldState, after: WorldState, written: Written = NONE_WRITTEN) -> bool:
    """Whether a ruling from `before` to `after` changed anything detection reads (DET-4..8: the
    visibility index, the GM's pins and held reveals, the areas): the scene, the settings, a token,
    the matrix, the standing wins, the pins, the reveals, the areas, or an actor's senses
    (`senses_changed`; an actor added or removed counts). False for a ruling on Health, Willpower
    or Energy alone: detection would give back `after` as it is. `written`: actor id -> the only
    fields of that actor that may differ (`actions.Ruling.written`); one whose fields hold none of
    `SENSED_FIELDS` kept its senses."""
    old, new = before.__dict__, after.__dict__  # the parts, not each read through `__getattr__`
    if (
        new["tokens"] is not old["tokens"]
        or new["scene"] is not old["scene"]
        or new["settings"] is not old["settings"]
        or new["visibility"] is not old["visibility"]
        or new["contests"] is not old["contests"]
        or new["pins"] is not old["pins"]
        or new["reveals"] is not old["reveals"]
        or new["areas"] is not old["areas"]
    ):
        return True
    b_actors, a_actors = old["actors"], new["actors"]
    if a_actors is b_actors:
        return False
    edited = edited_keys(b_actors, a_actors)
    if edited is None:
        return True
    for aid in edited:
        fields = written.get(aid)
        if fields is not None and fields.isdisjoint(SENSED_FIELDS) and aid in a_actors:
            continue
        if aid not in a_actors or senses_changed(b_actors.get(aid), a_actors[aid]):
            return True
    return False


class NotFound(Refusal):
    """A request names an actor or token the world does not have; `path` is the field that named it."""

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


class LastTurn(RuleModel):
    """What an actor did last turn (DET-9 contest modifiers)."""

    attacked: Flag = False
    made_sound: Flag = False
    moved_over_half_speed: Flag = False


class Healing(RuleModel):
    """HEALTH-10: every fast healing and regeneration rating the actor has (each works on its own)."""

    fast_healing: tuple[Rating, ...] = ()
    regeneration: tuple[Rating, ...] = ()


def _default_attributes() -> dict[Attribute, Count]:
    return {attribute: 1 for attribute in Attribute}


class Actor(RuleModel):
    """One actor of the world (docs/protocol.md); `status` and the derived conditions are server-written."""

    name: ActorName = ""
    humanoid: Flag = True
    speed: Distance = 0.0
    attributes: dict[Attribute, Annotated[int, Field(strict=True, ge=0, le=100)]] = Field(
        default_factory=_default_attributes
    )
    skills: dict[UpdateKey, Annotated[int, Field(strict=True, ge=0, le=100)]] = Field(default_factory=dict)
    health: HealthTrack = HealthTrack(max=7)
    second_health: HealthTrack | None = None
    status: HealthStatus = Field(HealthStatus.UNHARMED, json_schema_extra=SERVER_WRITTEN)
    wound_penalty: Count = Field(0, json_schema_extra=SERVER_WRITTEN)
    """HEALTH-7: dice penalty to rolls and defense, server-written (0 while the optional rule is off)."""
    healing: Healing = Healing()
    approximate_range: Distance | None = None
    sensory_range: Distance | None = None
    unusual_smell: Flag = False
    willpower: Willpower = Willpower(max=2, current=2)
    energy_pools: dict[UpdateKey, EnergyPool] = Field(default_factory=dict)
    gauges: dict[UpdateKey, Gauge] = Field(default_factory=dict)
    cannot_gain_again: tuple[CannotGainAgain, ...] = ()
    """EP-3: time-anchored bars on gaining pools of a class."""
    immunities: tuple[Immunity, ...] = ()
    temporary_immunities: tuple[TemporaryImmunity, ...] = ()
    save_bonuses: SaveBonuses = SaveBonuses()
    iwr: Iwr = Iwr()
    detection: tuple[DetectionMeans, ...] = ORDINARY_SENSES
    anti_detection: tuple[AntiDetectionMeans, ...] = ()
    conditions: dict[UpdateKey, Flag] = Field(
        default_factory=dict, json_schema_extra=DERIVED_CONDITIONS_SCHEMA
    )
    condition_points: dict[UpdateKey, Count] = Field(default_factory=dict)
    emotion_points: dict[UpdateKey, Count] = Field(default_factory=dict)
    last_turn: LastTurn = LastTurn()


SERVER_WRITTEN_ACTOR_FIELDS: frozenset[str] = frozenset(
    info.alias or name
    for name, info in Actor.model_fields.items()
    if info.json_schema_extra is SERVER_WRITTEN
)
"""The wire names of the Actor fields the server derives (`status`, `woundPenalty`)."""


class Token(RuleModel):
    """A token on the scene: which actor it shows and where (canvas pixels, as Foundry keeps them)."""

    actor: Id
    x: Coordinate = 0.0
    y: Coordinate = 0.0
    elevation: Coordinate = 0.0


class Scene(RuleModel):
    """The scene the world's tokens stand on."""

    id: Id
    round: Count = 0
    noisy: Flag = False
    grid_size: Annotated[float, Field(strict=True, gt=0, le=10_000, allow_inf_nan=False)] = 100.0
    grid_distance: Annotated[float, Field(strict=True, gt=0, le=10_000, allow_inf_nan=False)] = 1.5
    grid_units: Annotated[str, Field(strict=True, max_length=20)] = "m"
    width: Annotated[float, Field(strict=True, gt=0, le=1e9, allow_inf_nan=False)] | None = None
    """The scene's width in canvas pixels, when the VTT says (a guessed square must lie inside)."""
    height: Annotated[float, Field(strict=True, gt=0, le=1e9, allow_inf_nan=False)] | None = None
    """The scene's height in canvas pixels, when the VTT says."""


class Settings(RuleModel):
    """World settings: the optional rules (both off by default)."""

    wound_penalty: Flag = False
    """HEALTH-7."""
    unconscious_at_zero_willpower: Flag = False
    """WP-5."""
    approve_reveals: Flag = False
    """Hold a stage-three contest that would raise a pair to pinpointed until the GM accepts it
    (`approveReveal`); off by default."""
    approximate_squares: Squares = DEFAULT_SQUARES
    """DET-4: the radius of an approximate target's area (`WorldState.areas`), in grid squares."""


class UntilRound(RuleModel):
    """`{"round": N}`: a pin that holds through round N and is released when round N+1 begins."""

    round: Count


PinUntil = Literal["scene", "move"] | UntilRound
"""When a GM's pin ends: `"scene"` (with the scene), `{"round": N}`, or `"move"` (either token moves)."""


class LocatePin(RuleModel):
    """The GM's word on how an observer locates a target (DET-4), laid over the computed state until
    `until`; `by` is who set it (as the VTT names the user)."""

    state: LocateState
    until: PinUntil
    by: Annotated[str, Field(strict=True, max_length=200)] = ""


class TargetPins(RuleModel):
    """The pins on one target token: one for every observer (`every`) and one per observer token;
    an observer's own pin wins over `every`."""

    every: LocatePin | None = None
    observers: dict[TokenId, LocatePin] = Field(default_factory=dict)


LOCATE_CODES: dict[str, str] = {LocateState.APPROXIMATE: "a", LocateState.UNLOCATED: "u"}
"""DET-4 on the wire: the code of a pair that is not pinpointed in the sparse matrix (a pinpointed
pair is absent): `a` approximate, `u` unlocated."""
LOCATE_OF_CODE: dict[str, LocateState] = {
    **{code: LocateState(state) for state, code in LOCATE_CODES.items()},
    **{state.value: state for state in LocateState},
}
"""A pair's state from its code, or from its name (files and inverses written before the codes)."""


def _locate_of_code(value: object) -> object:
    return LOCATE_OF_CODE.get(value, value) if isinstance(value, str) else value


WireLocate = Annotated[
    LocateState,
    BeforeValidator(_locate_of_code),
    WithJsonSchema(
        {
            "enum": sorted(LOCATE_CODES.values()),
            "type": "string",
            "description": "a: approximate, u: unlocated (DET-4); an absent pair is pinpointed",
        }
    ),
]
"""A visibility pair's state, written as its code (`LOCATE_CODES`)."""


AreaNumber = Annotated[int, Field(strict=True)] | Annotated[float, Field(strict=True, allow_inf_nan=False)]
WireArea = Annotated[
    tuple[AreaNumber, AreaNumber, AreaNumber],
    WithJsonSchema(
        {
            "type": "array",
            "items": {"type": "number"},
            "minItems": 3,
            "maxItems": 3,
            "description": "[x, y, r]: an area's centre and radius in the tokens' coordinates (DET-4)",
        }
    ),
]
"""An approximate target's area on the wire (`rules.areas.Area`)."""


class WorldState(RuleModel):
    """The whole state document of one world, at revision `rev`."""

    rev: Count = 0
    scene: Scene | None = None
    settings: Settings = Settings()
    actors: dict[Id, Actor] = Field(default_factory=dict)
    tokens: dict[TokenId, Token] = Field(default_factory=dict)
    visibility: dict[TokenId, dict[TokenId, WireLocate]] = Field(
        default_factory=dict, json_schema_extra=SERVER_WRITTEN
    )
    """DET-4: observer token -> target token -> how it locates it. Held in full in memory; its JSON
    (the store, the sync result, patches) is sparse: a row per observer token with only the pairs that
    are not pinpointed, each as its code (`sparse_visibility`, `LOCATE_CODES`), and an absent pair is
    pinpointed (`dense_visibility`)."""
    contests: dict[TokenId, dict[TokenId, ContestWin]] = Field(
        default_factory=dict, json_schema_extra=SERVER_WRITTEN
    )
    """DET-8: standing stage-three wins, observer token -> target token (server-written)."""
    pins: dict[TokenId, TargetPins] = Field(default_factory=dict)
    """The GM's pins, target token -> its pins (`pinLocate`); the world lays them over `visibility`
    after every ruling and releases those that ended (`document.pins`)."""
    areas: dict[TokenId, dict[TokenId, WireArea]] = Field(
        default_factory=dict, json_schema_extra=SERVER_WRITTEN
    )
    """DET-4 on the map: target token -> observer token -> `[x, y, r]`, the area the observer knows
    the target to be in, for exactly the pairs that are approximate (`document.areas`): a target's
    areas are one row, so they move with it."""
    reveals: dict[TokenId, dict[TokenId, LocateState]] = Field(default_factory=dict)
    """Reveals held for the GM (`settings.approveReveals`): target token -> observer token -> the
    state shown meanwhile; a contest's win to pinpointed waits here until `approveReveal`."""

    @field_serializer("visibility")
    def _sparse(self, visibility: dict[str, dict[str, LocateState]]) -> dict[str, dict[str, str]]:
        return sparse_visibility(visibility)

    @model_validator(mode="after")
    def _dense(self, info: ValidationInfo) -> WorldState:
        """A stored document's sparse matrix is read back in full (its absent pairs pinpointed), its
        areas' whole pixels shared as drawn ones' are (`rules.areas.shared_area`)."""
        if info.context == STORED and self.tokens:
            object.__setattr__(self, "visibility", dense_visibility(self.tokens, self.visibility))
        if info.context == STORED and self.areas:
            areas = {t: {o: shared_area(a) for o, a in row.items()} for t, row in self.areas.items()}
            object.__setattr__(self, "areas", areas)
        return self


def get_actor(state: WorldState, actor_id: str, path: tuple[str | int, ...]) -> Actor:
    """The actor with this id, or `NotFound` naming the field that held the id."""
    actor = state.actors.get(actor_id)
    if actor is None:
        raise NotFound(path, f"no actor {actor_id!r} in this world")
    return actor


def with_actor(state: WorldState, actor_id: str, actor: Actor) -> WorldState:
    """The state with one actor replaced; every other actor stays the very same object."""
    return state.model_copy(update={"actors": replaced(state.actors, actor_id, actor)})


DUMP_KEYS = 100
"""Entries of a map of the document (actors, tokens, observers' rows of wins) `dumped_in_parts`
dumps in one call at most."""


def dumped_in_parts(state: WorldState) -> dict[str, Any]:
    """`state.model_dump(mode="json")`: the same value, its keys in the same order, dumped a field
    at a time and a large map `DUMP_KEYS` entries at a time, the visibility matrix by its own
    serializer (`sparse_visibility`, Python). Pydantic dumps each call whole holding the interpreter,
    and a worker that holds it holds every other world up."""
    out: dict[str, Any] = {}
    for name in type(state).model_fields:
        value = getattr(state, name)
        if name == "visibility":
            out[name] = sparse_visibility(value)
        elif name == "areas":  # plain tuples of numbers: no model to dump (DET-4)
            out[name] = {t: {o: list(area) for o, area in row.items()} for t, row in value.items()}
        elif isinstance(value, dict) and len(value) > DUMP_KEYS:
            keys = list(value)
            part: dict[str, Any] = {}
            for at in range(0, len(keys), DUMP_KEYS):
                chunk = {name: set(keys[at : at + DUMP_KEYS])}
                part.update(state.model_dump(mode="json", include=chunk)[name])
            out[name] = part
        else:
            out[name] = state.model_dump(mode="json", include={name})[name]
    return out


def sparse_visibility(visibility: Mapping[str, Mapping[str, LocateState]]) -> dict[str, dict[str, str]]:
    """DET-4 on the wire: every observer's row with only its pairs that are not pinpointed, each as
    its code (`LOCATE_CODES`; cells not yet written into their rows, `Unapplied`, included)."""
    pinpointed = LocateState.PINPOINTED
    codes = LOCATE_CODES
    cells = pending_cells(visibility)
    out: dict[str, dict[str, str]] = {}
    for observer, row in visibility.items():
        pending = cells.get(observer)
        if pending:
            row = {**row, **pending}
        out[observer] = {target: codes[state] for target, state in row.items() if state is not pinpointed}
    return out


def dense_visibility(
    tokens: Mapping[str, object], sparse: Mapping[str, Mapping[str, LocateState]]
) -> dict[str, dict[str, LocateState]]:
    """The full matrix of a sparse one over these tokens: every ordered pair of distinct tokens, an
    absent pair pinpointed (pairs naming a token not among them dropped)."""
    pinpointed = LocateState.PINPOINTED
    ids = list(tokens)
    out: dict[str, dict[str, LocateState]] = {}
    for observer in ids:
        row = dict.fromkeys(ids, pinpointed)
        del row[observer]
        given = sparse.get(observer)
        if given:
            row.update((t, s) for t, s in given.items() if t in row)
        out[observer] = row
    return out


__all__ = [
    "LOCATE_CODES",
    "LOCATE_OF_CODE",
    "NONE_WRITTEN",
    "SERVER_WRITTEN_ACTOR_FIELDS",
    "Actor",
    "AreaCells",
    "AreaMap",
    "Edited",
    "Healing",
    "HealthStatus",
    "LastTurn",
    "LocatePin",
    "LocateState",
    "NotFound",
    "PinUntil",
    "Scene",
    "Settings",
    "TargetPins",
    "Token",
    "Unapplied",
    "UntilRound",
    "WorldState",
    "dense_visibility",
    "edited_keys",
    "pending_areas",
    "pending_cells",
    "replaced",
    "seal",
    "settled",
    "sparse_visibility",
    "written_areas",
]
