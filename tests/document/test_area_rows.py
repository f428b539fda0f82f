"""DET-4 on the map, in process: the committed areas (target -> observer -> area) stay true through
any sequence of rulings: moves near and far, pins and their release, tokens added and removed,
syncs, undos, and rulings prepared and never committed (refused or not stored). After each step the
rows are checked against the invariant (an area for exactly the approximate pairs, each of the
world's radius holding its target, no empty row), and a client's copy of the document, patched by
each ruling's reply, equals the server's document."""

from __future__ import annotations

from typing import Any

import jsonpatch
import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.server.test_areas import scene_state
from vtt_bridge.document.areas import area_radius_of
from vtt_bridge.document.models import AreaMap, WorldState, dumped_in_parts, settled
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World, area_dice
from vtt_bridge.rules.areas import still_holds
from vtt_bridge.rules.detection import LocateState

PLACES = [(1000, 500), (1100, 520), (1400, 500), (2500, 500), (5000, 4000), (0, 900), (300, 0), (7000, 100)]
"""Where a token may go: the hiders' own squares, a step away, far off, beside the watchers."""
RANGED = [
    {"name": "sight", "sense": "sight"},
    {"name": "see invisibility", "sense": "sight", "essence": "magical", "rank": "C", "range": 30},
]
"""w2's means against invisibility reach 30 m (20 squares): a hider beyond it is lost to w2, one
that comes back into range is approximate again (its area dropped, then drawn in a row that stays)."""
NEW_TOKENS = ["n0", "n1", "n2"]
"""Tokens a step may add: each shows one of the scene's actors (a hider or a watcher)."""


def check(state: WorldState) -> None:
    """The committed state's areas: written (no cells held aside), no empty row, and exactly the
    approximate pairs' areas, each of the world's radius holding its target, its target and
    observer tokens (`rule_areas` reads a row's observers as tokens while none comes or goes)."""
    areas = state.areas
    assert type(areas) is dict or (type(areas) is AreaMap and areas.cells is None and areas.base is None)
    approximate = {
        (o, t) for o, row in state.visibility.items() for t, s in row.items() if s is LocateState.APPROXIMATE
    }
    assert {(o, t) for t, row in areas.items() for o in row} == approximate
    assert all(row for row in areas.values())  # no empty row
    radius = area_radius_of(state)
    for target, row in areas.items():
        token = state.tokens[target]
        assert row.keys() <= state.tokens.keys()
        for area in row.values():
            assert still_holds(area, token.x, token.y, radius)


def document(world: World) -> dict[str, Any]:
    """The server's document as a client reads it (JSON)."""
    loaded: dict[str, Any] = orjson.loads(orjson.dumps(dumped_in_parts(world.state)))
    return loaded


def committed(world: World, pending: Pending | bytes, client: dict[str, Any], undo: bool = False) -> None:
    """Commit a ruling, patch the client's copy with its reply and compare it with the server's;
    an area of a pair approximate before and after that still holds its target stays as it was
    (but for an undo, which sets the areas back as they were)."""
    assert isinstance(pending, Pending)
    before = {t: dict(row) for t, row in world.state.areas.items()}
    ruled = settled(pending.state).areas
    world.commit(pending, b"{}")
    assert world.state.areas == ruled  # the rows as the ruling's plain reading had them
    check(world.state)
    radius = area_radius_of(world.state)
    for target, row in world.state.areas.items():
        token = world.state.tokens[target]
        for observer, area in row.items():
            old = before.get(target, {}).get(observer)
            if old is not None and not undo and still_holds(old, token.x, token.y, radius):
                assert area == old, (target, observer, old, area)
    jsonpatch.apply_patch(client, orjson.loads(orjson.dumps(pending.result["patch"])), in_place=True)
    assert client == document(world)


def scene() -> dict[str, Any]:
    state = scene_state()
    state["actors"]["aw2"]["detection"] = RANGED
    return state


steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("move"),
            st.sampled_from(["i0", "i1", "w0", "w2", "p0", *NEW_TOKENS]),
            st.sampled_from(PLACES),
        ),
        st.tuples(st.just("add"), st.sampled_from(NEW_TOKENS), st.sampled_from(["ai0", "ai1", "aw1", "ap"])),
        st.tuples(st.just("remove"), st.sampled_from(["i1", "w1", *NEW_TOKENS]), st.just(None)),
        st.tuples(st.just("sync"), st.just(""), st.just(None)),
        st.tuples(
            st.just("pin"),
            st.sampled_from(["i0", "i1", "p0"]),
            st.tuples(st.sampled_from([None, "w0", "w1"]), st.sampled_from(list(LocateState))),
        ),
        st.tuples(
            st.just("release"), st.sampled_from(["i0", "i1", "p0"]), st.sampled_from([None, "w0", "w1"])
        ),
        st.tuples(st.just("undo"), st.just(""), st.just(None)),
        st.tuples(st.just("refused"), st.sampled_from(["i0", "i1", "w0"]), st.sampled_from(PLACES)),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=80, deadline=None)
@given(steps)
@example(  # a row that goes whole (w2 out of range of both hiders) and comes back; undone
    [("move", "w2", (5000, 4000)), ("move", "w2", (300, 0)), ("move", "i0", (7000, 100)), ("undo", "", None)]
)
@example(  # pins that drop an area from a row that stays and add one to it
    [
        ("pin", "i0", ("w0", LocateState.PINPOINTED)),
        ("pin", "p0", ("w1", LocateState.APPROXIMATE)),
        ("move", "p0", (5000, 4000)),
        ("release", "i0", "w0"),
        ("refused", "i1", (7000, 100)),
    ]
)
def test_DET_4_the_areas_keep_the_invariant_and_the_patches_rebuild_them_through_any_rulings(
    plan: list[tuple[str, str, Any]],
) -> None:
    world = World("w", dice=area_dice("w", seed=5))
    client = document(world)  # a new world's document, as a client reads it before the first sync
    committed(world, world.prepare_sync({"state": scene()}, "s"), client)
    actions: list[str] = []
    for n, (kind, token, arg) in enumerate(plan):
        try:
            if kind in ("move", "refused"):
                if token not in world.state.tokens:
                    continue
                x, y = arg
                pending = world.prepare_action(
                    f"a{n}", {"kind": "move", "token": token, "x": x, "y": y}, SeededRoller(n)
                )
                if kind == "refused":  # prepared, never stored: the committed rows stay as they were
                    before = {t: dict(row) for t, row in world.state.areas.items()}
                    assert isinstance(pending, Pending)
                    settled(pending.state)  # read plainly (as a snapshot is): still nothing written
                    assert world.state.areas == before
                    assert client == document(world)
                    continue
                committed(world, pending, client)
                actions.append(f"a{n}")
            elif kind in ("pin", "release"):
                observer, located = arg if kind == "pin" else (arg, None)
                payload: dict[str, Any] = {"kind": f"{kind}Locate", "target": token}
                if observer is not None:
                    payload["observer"] = observer
                if located is not None:
                    payload |= {"state": located.value, "until": "scene"}
                committed(world, world.prepare_action(f"p{n}", payload, SeededRoller(n)), client)
                actions.append(f"p{n}")
            elif kind == "add":
                if token in world.state.tokens:
                    continue
                value = {"actor": arg, "x": 1000 + 37 * n, "y": 500}
                committed(world, world.prepare_upsert({"path": f"/tokens/{token}", "value": value}), client)
            elif kind == "remove":
                if token not in world.state.tokens:
                    continue
                committed(world, world.prepare_upsert({"path": f"/tokens/{token}", "value": None}), client)
            elif kind == "sync":
                dumped = dumped_in_parts(world.state)
                state = {k: dumped[k] for k in ("scene", "settings", "actors", "tokens")}
                committed(world, world.prepare_sync({"state": state}, f"s{n}"), client)
            elif actions:  # undo the last move not undone yet
                committed(
                    world,
                    world.prepare_action(f"u{n}", {"kind": "undo", "action": actions.pop()}, SeededRoller(n)),
                    client,
                    undo=True,
                )
        except RequestError:
            pass  # e.g. an undo a later change blocks: refused, nothing changes
        check(world.state)
