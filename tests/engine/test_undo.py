"""Undo and redo (history.py, world.py): an undo restores every value the ruling set, whole, and
each refusal changes nothing."""

from __future__ import annotations

import copy
import importlib
import inspect
import pkgutil
from typing import Any

import jsonpatch
import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import vtt_bridge
from tests.detection_scenes import guard_among_hiders
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.engine import patch as patch_module
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World

from .test_world import synced_world


def plain(world: World) -> dict[str, Any]:
    """The document, rev aside."""
    document = world.state.model_dump(mode="json")
    document.pop("rev")
    return document


def rule(world: World, action_id: str, payload: dict[str, Any], seed: int = 0) -> dict[str, Any] | None:
    """Commit one action (None when refused); its patch is checked against the document."""
    before = world.state.model_dump(mode="json")
    try:
        pending = world.prepare_action(action_id, payload, SeededRoller(seed))
    except RequestError:
        return None
    assert not isinstance(pending, bytes)
    after = jsonpatch.apply_patch(copy.deepcopy(before), orjson.loads(orjson.dumps(pending.result["patch"])))
    world.commit(pending, "{}")
    assert after == world.state.model_dump(mode="json"), payload
    return pending.result


def assert_matrix_recomputed(world: World) -> None:
    """The matrix is a full recompute's, with the GM's pins laid over it (an observer's own pin
    wins over one for every observer)."""
    state = world.state
    expected = {row: dict(cells) for row, cells in VisibilityIndex().recompute_visibility(state).items()}
    for target, pins in state.pins.items():
        for observer, row in expected.items():
            pin = pins.observers.get(observer, pins.every)
            if observer != target and pin is not None and target in row:
                row[target] = pin.state
    assert state.visibility == expected


def refused(world: World, action_id: str, payload: dict[str, Any]) -> RequestError:
    before = world.state.model_dump(mode="json")
    with pytest.raises(RequestError) as caught:
        world.prepare_action(action_id, payload, SeededRoller(0))
    assert world.state.model_dump(mode="json") == before
    return caught.value


HIT = {"kind": "damage", "target": "hero", "instances": [{"amount": 3, "grade": "L"}]}

ACTOR_IDS = ("a0", "a1", "a2", "a3")
TOKEN_IDS = ("t0", "t1", "t2", "t3")
ranks = st.sampled_from(["D", "C", "B", "A"])


@st.composite
def scenes(draw: st.DrawFn) -> dict[str, Any]:
    """A scene of 2 to 4 actors, each with a token: Health (a second track sometimes), Willpower,
    attributes and skills, anti-detection (always the second actor's), the tokens anywhere on a
    20-square map, the round and the optional rules."""
    actors: dict[str, Any] = {}
    tokens: dict[str, Any] = {}
    for i in range(draw(st.integers(2, 4))):
        willpower = draw(st.integers(1, 6))
        actor: dict[str, Any] = {
            "name": f"Actor {i}",
            "humanoid": draw(st.booleans()),
            "health": {"max": draw(st.integers(3, 12))},
            "willpower": {"max": willpower, "current": draw(st.integers(0, willpower))},
            "attributes": {name: draw(st.integers(1, 5)) for name in ("PER", "DEX", "INT", "RES", "STA")},
            "skills": {"stealth": draw(st.integers(0, 4)), "investigation": draw(st.integers(0, 4))},
        }
        if draw(st.booleans()):
            actor["secondHealth"] = {"max": draw(st.integers(1, 5))}
        if i == 1 or draw(st.booleans()):  # someone to contest
            actor["antiDetection"] = [{"name": "invisibility", "essence": "magical", "rank": draw(ranks)}]
        actors[ACTOR_IDS[i]] = actor
        tokens[TOKEN_IDS[i]] = {
            "actor": ACTOR_IDS[i],
            "x": draw(st.integers(0, 2000)),
            "y": draw(st.integers(0, 2000)),
        }
    return {
        "scene": {"id": "s", "round": draw(st.integers(1, 5)), "gridDistance": 1.5, "gridSize": 100},
        "settings": {"woundPenalty": draw(st.booleans()), "unconsciousAtZeroWillpower": draw(st.booleans())},
        "actors": actors,
        "tokens": tokens,
    }


def next_round(world: World, payload: dict[str, Any]) -> dict[str, Any]:
    """A `round` without its number begins the scene's next round (ROUND accepts no other but a
    restart); every other payload as it is."""
    if payload["kind"] != "round" or "round" in payload:
        return payload
    scene = world.state.scene
    return {**payload, "round": (scene.round if scene is not None else 0) + 1}


def scene_world(scene: dict[str, Any]) -> World:
    world = World("w")
    world.commit(world.prepare_sync({"state": scene}), "")
    return world


actor_ids = st.sampled_from(ACTOR_IDS[:3])
token_ids = st.sampled_from(TOKEN_IDS[:3])
POOL = {
    "id": "mana",
    "name": "Mana",
    "category": "general",
    "region": "western",
    "keyAttributes": ["INT", "RES"],
    "source": "Gem Person Bloodline",
}
GAUGE = {"id": "rage", "name": "Rage", "max": 5, "source": "Berserker Title"}
pins = st.builds(
    lambda observer, target, state: {
        "kind": "pinLocate",
        "observer": observer,
        "target": target,
        "state": state,
        "until": "scene",
    },
    token_ids,
    token_ids,
    st.sampled_from(["pinpointed", "approximate", "unlocated"]),
)
"""A GM's pin of a pair until the scene ends (PIN), for `actions` and the table steps."""

actions = st.one_of(
    st.builds(
        lambda target, amount, grade, critical: {
            "kind": "damage",
            "target": target,
            "instances": [{"amount": amount, "grade": grade, "critical": critical}],
        },
        actor_ids,
        st.integers(1, 9),
        st.sampled_from(["B", "L", "A"]),
        st.booleans(),
    ),
    st.builds(
        lambda target, n: {"kind": "heal", "target": target, "amount": n, "source": "shortRest"},
        actor_ids,
        st.integers(0, 4),
    ),
    st.just({"kind": "round"}),  # the next round (`next_round`)
    st.builds(
        lambda token, x, y: {"kind": "move", "token": token, "x": x, "y": y},
        token_ids,
        st.integers(0, 3000),
        st.integers(0, 3000),
    ),
    st.builds(
        lambda observer, target: {"kind": "contest", "observer": observer, "target": target},
        token_ids,
        token_ids,
    ),
    st.builds(lambda a, n: {"kind": "gainTempHp", "actor": a, "amount": n}, actor_ids, st.integers(1, 5)),
    st.builds(
        lambda a, n, temporary: {"kind": "gainWillpower", "actor": a, "amount": n, "temporary": temporary},
        actor_ids,
        st.integers(1, 3),
        st.booleans(),
    ),
    st.builds(lambda a, n: {"kind": "loseWillpower", "actor": a, "amount": n}, actor_ids, st.integers(1, 3)),
    st.builds(
        lambda a, use: {"kind": "spendWillpower", "actor": a, "use": use},
        actor_ids,
        st.sampled_from(["roll", "defense", "stayConscious"]),
    ),
    st.builds(
        lambda a, rank, condition, points, n: {
            "kind": "affect",
            "actor": a,
            "effect": {"rank": rank, "conditions": [condition], "conditionPoints": {points: n}},
        },
        actor_ids,
        ranks,
        st.sampled_from(["blinded", "prone", "frozen", "flat-footed", "poisoned"]),
        st.sampled_from(["burn", "pain", "bleed", "stun"]),
        st.integers(1, 3),
    ),
    st.builds(
        lambda a, rank, n: {
            "kind": "affect",
            "actor": a,
            "effect": {"rank": rank, "emotionPoints": {"fear": n}},
        },
        actor_ids,
        ranks,
        st.integers(1, 3),
    ),
    st.builds(
        lambda a, kind, rank: {"kind": "gainImmunity", "actor": a, "immunity": {"kind": kind, "rank": rank}},
        actor_ids,
        st.sampled_from(["8-again", "9-again", "emotion-points", "condition-points", "invisibility"]),
        ranks,
    ),
    st.builds(lambda a: {"kind": "gainEnergyPool", "actor": a, "pool": POOL}, actor_ids),
    st.builds(
        lambda a, n: {"kind": "spendEnergy", "actor": a, "pool": "mana", "cost": n},
        actor_ids,
        st.integers(1, 3),
    ),
    st.builds(lambda a: {"kind": "gainGauge", "actor": a, "gauge": GAUGE}, actor_ids),
    st.builds(
        lambda kind, a, n: {"kind": kind, "actor": a, "gauge": "rage", "amount": n},
        st.sampled_from(["spendGauge", "restoreGauge"]),
        actor_ids,
        st.integers(1, 3),
    ),
    st.builds(
        lambda a, n: {"kind": "restoreEnergy", "actor": a, "pool": "mana", "amount": n},
        actor_ids,
        st.integers(1, 3),
    ),
    st.builds(lambda a, n: {"kind": "gainSecondHealth", "actor": a, "max": n}, actor_ids, st.integers(1, 4)),
    pins,
)
"""Rulings on a generated scene: damage, healing, a new round, moves, stage-three contests,
temporary Health, Willpower gained and lost, conditions and their points, emotion points,
immunities gained, an energy pool and a gauge gained and used, a second track, the GM's pins."""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(scenes(), st.lists(actions, min_size=1, max_size=12), st.integers(0, 2**32))
def test_undoing_every_ruling_in_reverse_order_returns_the_document_before_them(
    scene: dict[str, Any], steps: list[dict[str, Any]], seed: int
) -> None:
    world = scene_world(scene)
    start = plain(world)
    made = [
        f"a{i}"
        for i, payload in enumerate(steps)
        if rule(world, f"a{i}", next_round(world, payload), seed + i)
    ]
    for action_id in reversed(made):
        result = rule(world, f"undo-{action_id}", {"kind": "undo", "action": action_id})
        assert result is not None and result["log"][0]["rule"] == "UNDO"
        assert result["log"][0]["data"]["action"] == action_id
    assert plain(world) == start
    assert_matrix_recomputed(world)
    for action_id in made:  # and redone in order, back to where they were
        assert rule(world, f"redo-{action_id}", {"kind": "redo", "action": action_id}) is not None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(scenes(), st.lists(actions, min_size=1, max_size=10), st.integers(0, 2**32), st.data())
def test_undoing_a_ruling_no_later_ruling_touched_equals_never_making_it(
    scene: dict[str, Any], steps: list[dict[str, Any]], seed: int, data: st.DataObject
) -> None:
    world = scene_world(scene)
    sent = list(steps)  # each as sent (a round with its number)
    results: dict[int, dict[str, Any] | None] = {}
    for i, payload in enumerate(steps):
        sent[i] = next_round(world, payload)
        results[i] = rule(world, f"a{i}", sent[i], seed + i)
    paths = {
        i: {op["path"] for op in result["patch"] if op["path"] != "/rev"}
        for i, result in results.items()
        if result is not None
    }

    def untouched(i: int) -> bool:
        """No later ruling wrote a path of ruling i, one inside it, or a field beside it: the
        fields of one object (a track's max and its boxes) are validated together, so a later
        ruling that filled a track's boxes rests on the max an earlier one set
        (`test_an_undo_that_would_overfill_a_track_is_a_conflict_and_changes_nothing`)."""
        later = set().union(*(p for j, p in paths.items() if j > i))
        return not any(
            a == b
            or a.startswith(b + "/")
            or b.startswith(a + "/")
            or a.rpartition("/")[0] == b.rpartition("/")[0]
            for a in paths[i]
            for b in later
        )

    candidates = [i for i in paths if untouched(i)]  # the last ruling made always is one
    assume(candidates)
    chosen = data.draw(st.sampled_from(candidates))
    assert rule(world, "undo", {"kind": "undo", "action": f"a{chosen}"}) is not None
    assert_matrix_recomputed(world)
    never = scene_world(scene)  # the rulings made, but the chosen one (each still accepted without it)
    for i in paths:
        if i != chosen:
            result = rule(never, f"a{i}", sent[i], seed + i)
            assume(result is not None)
            assert result is not None
            if i > chosen:  # nor did it touch them in this history (a move to where it already was)
                touched = {op["path"] for op in result["patch"] if op["path"] != "/rev"}
                made = results[i]
                assert made is not None
                # and it ruled the same without it (a round's contests depend on who is conscious)
                assume(
                    [op for op in result["patch"] if op["path"] != "/rev"]
                    == [op for op in made["patch"] if op["path"] != "/rev"]
                )
                assume(
                    not any(
                        a == b or a.startswith(b + "/") or b.startswith(a + "/")
                        for a in paths[chosen]
                        for b in touched
                    )
                )
    assert plain(world) == plain(never)


def test_an_undo_of_damage_restores_health_and_the_derived_fields_and_is_refused_twice() -> None:
    world = synced_world()
    start = plain(world)
    rule(world, "hit", HIT)
    assert plain(world) != start
    result = rule(world, "u1", {"kind": "undo", "action": "hit"})
    assert result is not None and plain(world) == start
    step = result["log"][0]
    assert step["data"] == {"key": "UNDO.undone", "action": "hit", "kind": "damage", "rev": 2}
    error = refused(world, "u2", {"kind": "undo", "action": "hit"})
    assert error.code == "invalid" and "already undone" in error.message
    redo = rule(world, "r1", {"kind": "redo", "action": "hit"})
    assert redo is not None and redo["log"][0]["data"]["key"] == "UNDO.redone"
    assert refused(world, "r2", {"kind": "redo", "action": "hit"}).code == "invalid"
    # an undo of the undo is a redo; an undo of the redo undoes the damage again
    assert rule(world, "u3", {"kind": "undo", "action": "r1"}) is not None
    assert plain(world) == start
    assert rule(world, "u4", {"kind": "undo", "action": "u3"}) is not None
    assert plain(world) != start


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(HIT, id="damage"),
        pytest.param({"kind": "move", "token": "t-cat", "x": 700, "y": 300}, id="move"),
        pytest.param({"kind": "heal", "target": "hero", "amount": 1, "source": "magic"}, id="heal"),
        pytest.param({"kind": "round", "round": 2}, id="round"),
    ],
)
def test_an_undos_patch_touches_only_what_its_ruling_touched(payload: dict[str, Any]) -> None:
    """The sync leaves out every actor's `speed` and every token's `elevation` (their defaults)."""
    world = synced_world()
    if payload["kind"] == "heal":
        rule(world, "before", HIT)
    made = rule(world, "made", payload)
    undo = rule(world, "u", {"kind": "undo", "action": "made"})
    assert made is not None and undo is not None
    made_paths = {op["path"] for op in made["patch"]} - {"/rev"}
    undo_paths = {op["path"] for op in undo["patch"]} - {"/rev"}
    assert undo_paths and undo_paths <= made_paths
    redo = rule(world, "r", {"kind": "redo", "action": "made"})
    assert redo is not None and {op["path"] for op in redo["patch"]} - {"/rev"} <= made_paths


def test_every_float_field_defaults_to_a_float() -> None:
    """A default is not validated: an int default of a float field would differ in type from the
    value a rebuilt model holds (an undo rebuilds what it restores), so the undo's patch would write
    it though its ruling never did."""
    wrong = []
    for found in pkgutil.walk_packages(vtt_bridge.__path__, "vtt_bridge."):
        if found.name.endswith("__main__"):
            continue
        module = importlib.import_module(found.name)
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and issubclass(cls, BaseModel) and cls.__module__ == module.__name__:
                for field, info in cls.model_fields.items():
                    if (
                        info.annotation is float
                        and type(info.default) is not float
                        and not info.is_required()
                    ):
                        wrong.append(f"{name}.{field} = {info.default!r}")
    assert wrong == []


def test_an_undo_that_would_overfill_a_track_is_a_conflict_and_changes_nothing() -> None:
    """A second Health track raised to 2, then a damage that fills it: undoing the raise would
    leave 2 boxes marked in a track of 1, so it is a `conflict` (the document would not validate)
    and nothing changes, though the damage wrote none of the raise's paths."""
    actor = {
        "humanoid": False,
        "health": {"max": 3},
        "willpower": {"max": 1, "current": 0},
        "attributes": {"PER": 1, "DEX": 1, "INT": 1, "RES": 1, "STA": 1},
        "skills": {"stealth": 0, "investigation": 0},
    }
    world = scene_world(
        {
            "scene": {"id": "s", "round": 1, "gridDistance": 1.5, "gridSize": 100},
            "settings": {"woundPenalty": False, "unconsciousAtZeroWillpower": False},
            "actors": {"a0": {"name": "Actor 0", **actor, "secondHealth": {"max": 1}}},
            "tokens": {"t0": {"actor": "a0", "x": 0, "y": 0}},
        }
    )
    raised = rule(world, "raise", {"kind": "gainSecondHealth", "actor": "a0", "max": 2})
    hit = {"kind": "damage", "target": "a0", "instances": [{"amount": 5, "grade": "A", "critical": False}]}
    damaged = rule(world, "hit", hit)
    assert raised is not None and damaged is not None
    raise_paths = {op["path"] for op in raised["patch"]} - {"/rev"}
    assert raise_paths == {"/actors/a0/secondHealth/max"}
    assert "/actors/a0/secondHealth/aggravated" in {op["path"] for op in damaged["patch"]}
    before = plain(world)
    error = refused(world, "u", {"kind": "undo", "action": "raise"})
    assert error.code == "conflict" and "exceeds max" in error.message, error.message
    assert plain(world) == before
    assert rule(world, "u2", {"kind": "undo", "action": "hit"}) is not None  # the damage first
    assert rule(world, "u3", {"kind": "undo", "action": "raise"}) is not None


def test_a_conflicting_undo_names_the_paths_and_the_later_rulings() -> None:
    world = synced_world()
    rule(world, "hit", HIT)
    rule(world, "hit2", {**HIT, "instances": [{"amount": 1, "grade": "L"}]})
    error = refused(world, "u", {"kind": "undo", "action": "hit"})
    assert error.code == "conflict"
    assert error.details
    body = error.payload()
    paths = [detail["path"] for detail in body["details"]]
    assert all(path[:2] == ["actors", "hero"] for path in paths)
    assert {"action": "hit2", "kind": "damage", "rev": 3} in body["details"][0]["rulings"]
    assert "hit2" in error.message
    # undo the later one first, then the earlier one applies
    assert rule(world, "u2", {"kind": "undo", "action": "hit2"}) is not None
    assert rule(world, "u3", {"kind": "undo", "action": "hit"}) is not None


def test_a_redo_refused_by_a_conflict_says_undo_the_later_rulings_first() -> None:
    """damage `hit`, undo it, damage `hit2`: redoing `hit` is a `conflict` naming `hit2` at the
    paths both set, telling the GM to undo `hit2` first (not to redo it), and changes nothing."""
    world = synced_world()
    rule(world, "hit", HIT)
    rule(world, "u1", {"kind": "undo", "action": "hit"})
    rule(world, "hit2", {**HIT, "instances": [{"amount": 1, "grade": "L"}]})
    error = refused(world, "r1", {"kind": "redo", "action": "hit"})
    assert error.code == "conflict"
    body = error.payload()
    paths = [detail["path"] for detail in body["details"]]
    assert ["actors", "hero", "health", "lethal"] in paths, paths
    assert all(path[:2] == ["actors", "hero"] for path in paths), paths
    hit2 = {"action": "hit2", "kind": "damage", "rev": 4}
    assert all(hit2 in detail["rulings"] for detail in body["details"])
    assert "undo these first: damage 'hit2' (rev 4)" in error.message
    assert "redo these first" not in error.message and "(nothing was changed)" in error.message
    # undo the later one, then the redo applies
    assert rule(world, "u2", {"kind": "undo", "action": "hit2"}) is not None
    assert rule(world, "r2", {"kind": "redo", "action": "hit"}) is not None


def test_bad_undos_are_refused_with_a_clear_code() -> None:
    world = synced_world()
    assert refused(world, "u", {"kind": "undo", "action": "nobody"}).code == "not_found"
    upsert = world.prepare_upsert({"path": "/actors/hero/health/max", "value": 9}, "up-1")
    world.commit(upsert, "{}")
    error = refused(world, "u", {"kind": "undo", "action": "up-1"})
    assert error.code == "invalid" and "upsert, not a ruling" in error.message
    assert refused(world, "u", {"kind": "undo", "action": ""}).code == "invalid"
    assert refused(world, "u", {"kind": "redo"}).code == "invalid"


def test_an_undo_is_idempotent_by_its_own_id() -> None:
    world = synced_world()
    rule(world, "hit", HIT)
    rule(world, "u1", {"kind": "undo", "action": "hit"})
    again = world.prepare_action("u1", {"kind": "undo", "action": "hit"}, SeededRoller(0))
    assert isinstance(again, bytes) and b'"replayed":true' in again


def test_the_inverse_reads_one_field_of_an_actor_or_token_as_the_whole_dump_holds_it() -> None:
    """`patch.Reader` dumps only the field a path names (the undo's inverse of a damage reads one
    actor's health, not the whole actor): each field equals the whole member's dump of it."""
    from vtt_bridge.engine import patch

    world = synced_world()
    rule(world, "hit", HIT)
    state = world.state
    for head in ("actors", "tokens"):
        for member_id, member in getattr(state, head).items():
            whole = member.model_dump(mode="json")
            reader = patch.Reader(state)
            for name, value in whole.items():
                assert reader.value_at(f"/{head}/{member_id}/{name}") == value, (head, member_id, name)
            assert reader.value_at(f"/{head}/{member_id}/noSuchField") is patch.MISSING


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(actions, min_size=1, max_size=12), st.integers(0, 2**32))
def test_the_inverse_the_diff_reads_along_equals_the_one_read_from_the_state_before(
    steps: list[dict[str, Any]], seed: int
) -> None:
    """A ruling's inverse takes the old values the diff read anyway (scalar fields, visibility cells;
    `patch.Olds`) and reads the rest: op for op it is what a `Reader` of the state before gives, for
    rulings, undos and redos alike."""
    from vtt_bridge.engine import patch

    world = synced_world()
    made: list[str] = []
    for i, payload in enumerate(steps):
        for action_id, body in (
            (f"a{i}", payload),
            (f"u{i}", {"kind": "undo", "action": made[-1] if made else ""}),
        ):
            before = world.state
            try:
                pending = world.prepare_action(action_id, body, SeededRoller(seed + i))
            except RequestError:
                continue
            assert not isinstance(pending, bytes) and pending.entry is not None
            entry = pending.entry
            assert entry.inverse == tuple(patch.inverse_ops(before, entry.forward)), body
            world.commit(pending, "{}")
            if action_id.startswith("a"):
                made.append(action_id)


def test_an_undo_derives_the_derived_fields_again_not_only_restores_them() -> None:
    """The damage was ruled with the wound penalty off; the GM turned it on since (every actor's
    `woundPenalty` derived again). The undo of the damage restores Health and the status it set, and
    derives `woundPenalty` afresh from the Health it restored: a value its inverse never held."""
    world = synced_world()
    world.commit(world.prepare_upsert({"path": "/settings/woundPenalty", "value": False}), "")
    start = world.state.actors["hero"]
    rule(world, "hit", {**HIT, "instances": [{"amount": 6, "grade": "L"}]})
    assert world.state.actors["hero"].wound_penalty == 0
    world.commit(world.prepare_upsert({"path": "/settings/woundPenalty", "value": True}), "")
    assert world.state.actors["hero"].wound_penalty > 0, "derived from the damage, after it"
    result = rule(world, "u", {"kind": "undo", "action": "hit"})
    assert result is not None
    hero = world.state.actors["hero"]
    assert hero.health == start.health and hero.status == start.status
    assert hero.wound_penalty == 0, "derived again from the restored Health"
    assert {"op": "replace", "path": "/actors/hero/woundPenalty", "value": 0} in result["patch"]


def test_a_rounds_kept_results_share_one_dump_and_undo_and_redo_leave_its_ops_as_they_were() -> None:
    """A round's patch adds each kept result as the one dump of its result object (a crowd's equal
    results are a handful of dicts in undo's history, not a copy each); nothing changes an op's
    value in place: after an undo and a redo of the round its ops are what they were, and the
    document is the round's again."""
    world = World("w")
    names = [f"h{i}" for i in range(6)]
    state = guard_among_hiders(names, 100, 10)
    world.commit(world.prepare_sync({"state": state}), "")
    result = rule(world, "r", {"kind": "round", "round": 2})
    assert result is not None
    values = [
        win
        for op in result["patch"]
        if op["path"].startswith("/contests/") and "value" in op
        for win in (op["value"].values() if op["path"].count("/") == 2 else [op["value"]])
    ]
    assert len(values) >= len(names)  # the guard's, and the hiders' of each other
    assert len({id(win) for win in values}) < len(values), "equal results share one dump"
    entry = world.history.by_id["r"]
    forward = copy.deepcopy(entry.forward)
    after_round = plain(world)
    assert rule(world, "u", {"kind": "undo", "action": "r"}) is not None
    assert rule(world, "re", {"kind": "redo", "action": "r"}) is not None
    assert entry.forward == forward
    assert plain(world) == after_round


def guard_and_hiders(hiders: int = 4) -> World:
    """A guard among hiders in round 1 (every one contests the others it cannot pinpoint)."""
    hider = {
        "attributes": {"DEX": 2},
        "skills": {"stealth": 1},
        "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
    }
    names = [f"h{i}" for i in range(hiders)]
    world = World("w")
    state = {
        "scene": {"id": "s", "round": 1},
        "actors": {
            "guard": {"name": "Guard", "attributes": {"PER": 3}, "skills": {"investigation": 2}},
            **{name: {**hider, "name": name} for name in names},
            "newcomer": {**hider, "name": "Newcomer"},
        },
        "tokens": {
            "guard": {"actor": "guard", "x": 0},
            **{name: {"actor": name, "x": 100 + 10 * i} for i, name in enumerate(names)},
        },
    }
    world.commit(world.prepare_sync({"state": state}), "")
    return world


def whole_rows(result: dict[str, Any]) -> list[str]:
    return [op["path"] for op in result["patch"] if patch_module.is_whole_row(op)]


def test_an_undo_of_a_round_after_a_contest_in_one_of_its_rows_restores_only_the_rounds_entries() -> None:
    """Round 2 replaced the guard's row whole; a contest made after it (a newcomer, never contested
    in round 2) added an entry to that row. The undo of round 2 applies: the values round 2 set are
    still what it set (one field of one entry each, as the entry ops it stands for). It restores
    round 1's entries and keeps the contest's; the redo brings round 2's back, the contest's still
    there; and the contest, made after the round, is undone on its own too."""
    world = guard_and_hiders()
    assert rule(world, "r1", {"kind": "round", "round": 1}) is not None
    after_round_1 = plain(world)["contests"]["guard"]
    round_2 = rule(world, "r2", {"kind": "round", "round": 2})
    assert round_2 is not None and "/contests/guard" in whole_rows(round_2)
    after_round_2 = plain(world)["contests"]["guard"]
    world.commit(
        world.prepare_upsert({"path": "/tokens/newcomer", "value": {"actor": "newcomer", "x": 150}}), ""
    )
    contest = rule(world, "c", {"kind": "contest", "observer": "guard", "target": "newcomer"})
    assert contest is not None
    assert [op["path"] for op in contest["patch"] if op["path"].startswith("/contests/guard")] == [
        "/contests/guard/newcomer"
    ], "one entry of a row of five: the entry's op"
    contested = plain(world)["contests"]["guard"]["newcomer"]

    undo = rule(world, "u", {"kind": "undo", "action": "r2"})
    assert undo is not None and "/contests/guard" in whole_rows(undo)
    assert plain(world)["scene"]["round"] == 1
    assert plain(world)["contests"]["guard"] == {**after_round_1, "newcomer": contested}
    assert_matrix_recomputed(world)
    assert rule(world, "re", {"kind": "redo", "action": "r2"}) is not None
    assert plain(world)["contests"]["guard"] == {**after_round_2, "newcomer": contested}
    assert rule(world, "uc", {"kind": "undo", "action": "c"}) is not None
    assert plain(world)["contests"]["guard"] == after_round_2


def test_a_conflicting_undo_of_a_round_names_the_entries_and_only_the_rulings_that_changed_them() -> None:
    """Round 2, then a contest on a newcomer (one entry of the guard's row), then round 3 (every
    row replaced whole): the undo of round 2 is a `conflict`, each detail one field of one entry
    round 2 set (not the row), naming round 3 alone: the contest changed none of them. Undoing round
    3 first lets it apply."""
    world = guard_and_hiders()
    rule(world, "r1", {"kind": "round", "round": 1})
    round_2 = rule(world, "r2", {"kind": "round", "round": 2})
    assert round_2 is not None
    world.commit(
        world.prepare_upsert({"path": "/tokens/newcomer", "value": {"actor": "newcomer", "x": 150}}), ""
    )
    assert rule(world, "c", {"kind": "contest", "observer": "guard", "target": "newcomer"}) is not None
    round_3 = rule(world, "r3", {"kind": "round", "round": 3})
    assert round_3 is not None and "/contests/guard" in whole_rows(round_3)
    error = refused(world, "u", {"kind": "undo", "action": "r2"})
    assert error.code == "conflict"
    body = error.payload()
    contest_paths = [d for d in body["details"] if d["path"][0] == "contests"]
    assert contest_paths and all(len(d["path"]) == 4 for d in contest_paths), "entry fields, not rows"
    assert {tuple(d["path"][:3]) for d in contest_paths} >= {("contests", "guard", f"h{i}") for i in range(4)}
    for detail in contest_paths:
        assert [r["action"] for r in detail["rulings"]] == ["r3"], detail
    assert "undo these first: round 'r3'" in error.message and "contest 'c'" not in error.message
    assert rule(world, "u3", {"kind": "undo", "action": "r3"}) is not None
    assert rule(world, "u2", {"kind": "undo", "action": "r2"}) is not None
    assert plain(world)["contests"]["guard"]["newcomer"]["round"] == 2


def test_a_pin_after_a_round_and_the_round_undo_one_another_apart() -> None:
    """A pin set after round 2 (a visibility cell and `/pins`, no stage-three row) keeps neither from
    being undone: the round's undo restores its rows and keeps the pin; the pin's undo after that
    applies too."""
    world = guard_and_hiders()
    rule(world, "r1", {"kind": "round", "round": 1})
    before_round_2 = plain(world)
    round_2 = rule(world, "r2", {"kind": "round", "round": 2})
    assert round_2 is not None and whole_rows(round_2)
    pin = {"kind": "pinLocate", "observer": "guard", "target": "h0", "state": "unlocated", "until": "scene"}
    assert rule(world, "p", pin) is not None
    pins = plain(world)["pins"]
    assert rule(world, "u", {"kind": "undo", "action": "r2"}) is not None
    assert plain(world)["contests"] == before_round_2["contests"] and plain(world)["pins"] == pins
    assert rule(world, "up", {"kind": "undo", "action": "p"}) is not None
    assert plain(world) == before_round_2
    assert_matrix_recomputed(world)


class _EntryForm:
    """Every row of `contests` patched entry by entry (no row reaches the share)."""

    def __enter__(self) -> None:
        self.share = patch_module.ROW_SHARE
        patch_module.ROW_SHARE = (2, 1)

    def __exit__(self, *exc: object) -> None:
        patch_module.ROW_SHARE = self.share


def outcome(world: World, action_id: str, payload: dict[str, Any], seed: int) -> Any:
    """What a ruling did: the document after it, or the refusal (code, message, details)."""
    try:
        pending = world.prepare_action(action_id, next_round(world, payload), SeededRoller(seed))
    except RequestError as error:
        return ("refused", error.code, error.message, error.payload().get("details"))
    assert not isinstance(pending, bytes)
    world.commit(pending, "{}")
    return plain(world)


table_kinds: dict[str, st.SearchStrategy[Any]] = {
    "round": st.just({"kind": "round"}),
    "contest": st.builds(
        lambda observer, target: {"kind": "contest", "observer": observer, "target": target},
        token_ids,
        token_ids,
    ),
    "move": st.builds(
        lambda token, x, y: {"kind": "move", "token": token, "x": x, "y": y},
        token_ids,
        st.integers(0, 2000),
        st.integers(0, 2000),
    ),
    "pin": pins,
    "other": actions,
    "undo": st.tuples(st.just("undo"), st.integers(0, 20)),
    "redo": st.tuples(st.just("redo"), st.integers(0, 20)),
}
table_steps = st.sampled_from(
    ["round", "round", "contest", "move", "pin", "other", "undo", "undo", "redo"]
).flatmap(table_kinds.__getitem__)
"""Steps at the table for `contests`: rounds, contests, moves, pins, any other ruling, and undos and
redos of an earlier ruling (by its index among those made)."""


@st.composite
def crowds(draw: st.DrawFn) -> dict[str, Any]:
    """A scene of `scenes` where every actor hides and the tokens stand close: most pairs are
    contested each round, so rows of `contests` fill and a later round rewrites them."""
    scene = draw(scenes())
    for actor in scene["actors"].values():
        actor["antiDetection"] = [{"name": "invisibility", "essence": "magical", "rank": draw(ranks)}]
    for token in scene["tokens"].values():
        token["x"], token["y"] = draw(st.integers(0, 600)), draw(st.integers(0, 600))
    return scene


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(crowds(), st.lists(table_steps, max_size=16), st.integers(0, 2**32))
def test_undo_and_redo_rule_the_same_whether_rows_are_patched_whole_or_entry_by_entry(
    scene: dict[str, Any], steps: list[Any], seed: int
) -> None:
    """Whole rows change the patch's form, not what undo does: rulings, undos and redos of any
    earlier ruling (rounds, contests, pins, moves among them) in two worlds, one patching rows whole
    where most of a row changed and one entry by entry, leave the same documents and refuse the
    same undos with the same conflicts (paths and the rulings named)."""
    rows, entries = scene_world(scene), scene_world(scene)
    made: list[str] = []
    for i, step in enumerate(steps):
        if isinstance(step, tuple):
            if not made:
                continue
            payload = {"kind": step[0], "action": made[step[1] % len(made)]}
        else:
            payload = step
        with_rows = outcome(rows, f"a{i}", payload, seed + i)
        with _EntryForm():
            by_entry = outcome(entries, f"a{i}", payload, seed + i)
        assert with_rows == by_entry, (i, payload)
        if not isinstance(with_rows, tuple):
            made.append(f"a{i}")
