"""The GM's pins over the wire (`pinLocate`, `releaseLocate`), against the real server and store:
each end condition, the form for every observer, explain's last step, bad input; and DET-10 attacks
on approximate and guessed targets through `damage`."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from tests.conftest import TOKEN, Connect, Peer, world_state
from vtt_bridge.cli.app import create_app
from vtt_bridge.server.bridge import Config

INVISIBLE = [{"name": "invisibility", "essence": "magical", "rank": "C"}]


async def scene(connect: Connect, world: str = "w1") -> Peer:
    """token0 and token1 see each other; token2 (invisible) is not pinpointed by either."""
    peer = await connect(world)
    state = world_state(actors=3)
    state["scene"]["width"] = 4000
    state["scene"]["height"] = 3000
    state["actors"]["actor2"]["antiDetection"] = INVISIBLE
    reply = await peer.request("sync", {"state": state})
    assert reply["type"] == "result", reply
    return peer


async def ok(peer: Peer, payload: dict[str, Any]) -> dict[str, Any]:
    reply = await peer.action(payload)
    assert reply["type"] == "result", reply
    result: dict[str, Any] = reply["payload"]
    return result


CODES = {"a": "approximate", "u": "unlocated"}
"""A visibility pair's code on the wire (protocol 0.4.0)."""


async def cell(peer: Peer, observer: str, target: str) -> str:
    """How `observer` locates `target` in the sparse document: an absent pair is pinpointed."""
    code = (await peer.state())["visibility"].get(observer, {}).get(target)
    return "pinpointed" if code is None else CODES[code]


def pin(target: str, state: str, until: Any, observer: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "pinLocate",
        "target": target,
        "state": state,
        "until": until,
        "by": "Gamemaster",
    }
    if observer is not None:
        body["observer"] = observer
    return body


async def test_PIN_a_pin_until_the_scene_holds_through_moves_and_rounds_and_is_released(
    connect: Connect,
) -> None:
    peer = await scene(connect)
    assert await cell(peer, "token0", "token1") == "pinpointed"
    result = await ok(peer, pin("token1", "unlocated", "scene", observer="token0"))
    assert {"op": "add", "path": "/visibility/token0/token1", "value": "u"} in result["patch"]
    assert result["log"][0]["rule"] == "PIN" and result["log"][0]["data"]["by"] == "Gamemaster"
    await ok(peer, {"kind": "move", "token": "token1", "x": 150, "y": 0})
    await ok(peer, {"kind": "round", "round": 2})
    assert await cell(peer, "token0", "token1") == "unlocated"
    assert await cell(peer, "token1", "token0") == "pinpointed"  # the other direction is not pinned
    state = await peer.state()
    assert state["pins"]["token1"]["observers"]["token0"]["state"] == "unlocated"
    await ok(peer, {"kind": "releaseLocate", "observer": "token0", "target": "token1"})
    assert await cell(peer, "token0", "token1") == "pinpointed"
    assert (await peer.state())["pins"] == {}


async def test_PIN_a_new_scene_releases_a_scene_pin(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token1", "unlocated", "scene", observer="token0"))
    same = world_state(actors=3)
    same["actors"]["actor2"]["antiDetection"] = INVISIBLE
    assert (await peer.request("sync", {"state": same}))["type"] == "result"
    assert await cell(peer, "token0", "token1") == "unlocated"  # a sync of the same scene keeps it
    other = world_state(actors=3)
    other["scene"]["id"] = "scene2"
    assert (await peer.request("sync", {"state": other}))["type"] == "result"
    assert await cell(peer, "token0", "token1") == "pinpointed"
    assert (await peer.state())["pins"] == {}


async def test_PIN_a_pin_until_round_n_is_released_when_round_n_plus_1_begins(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token2", "pinpointed", {"round": 2}, observer="token0"))
    assert await cell(peer, "token0", "token2") == "pinpointed"
    await ok(peer, {"kind": "round", "round": 2})
    assert await cell(peer, "token0", "token2") == "pinpointed"
    result = await ok(peer, {"kind": "round", "round": 3})
    assert await cell(peer, "token0", "token2") != "pinpointed"
    assert any(op["path"] == "/visibility/token0/token2" for op in result["patch"])
    assert (await peer.state())["pins"] == {}


async def test_PIN_a_restart_of_the_round_count_ends_every_pin_until_a_round(connect: Connect) -> None:
    """A new combat (round 0 or 1 again) ends `{"round": N}` pins, however far off N was; pins until
    the scene or a move stand; the restart's log says which ended; an undo of it brings them back."""
    peer = await scene(connect)
    await ok(peer, {"kind": "round", "round": 2})
    await ok(peer, {"kind": "round", "round": 3})
    await ok(peer, pin("token2", "pinpointed", {"round": 5}, observer="token0"))
    await ok(peer, pin("token1", "unlocated", {"round": 4}))
    await ok(peer, pin("token0", "approximate", "scene", observer="token1"))
    reply = await peer.action({"kind": "round", "round": 0}, msg_id="restart-1")
    assert reply["type"] == "result", reply
    ended = [step["data"] for step in reply["payload"]["log"] if step.get("key") == "PIN.restart"]
    assert sorted(ended, key=lambda d: d["target"]) == [
        {"observer": None, "target": "token1", "untilRound": 4},
        {"observer": "token0", "target": "token2", "untilRound": 5},
    ]
    pins = (await peer.state())["pins"]
    assert set(pins) == {"token0"}, pins  # the scene pin stands
    assert await cell(peer, "token0", "token2") != "pinpointed"
    assert await cell(peer, "token0", "token1") == "pinpointed"
    assert await cell(peer, "token1", "token0") == "approximate"
    undo = await peer.action({"kind": "undo", "action": "restart-1"})
    assert undo["type"] == "result", undo["payload"]
    pins = (await peer.state())["pins"]
    assert pins["token2"]["observers"]["token0"]["until"] == {"round": 5}
    assert pins["token1"]["every"]["until"] == {"round": 4}
    assert await cell(peer, "token0", "token2") == "pinpointed"
    # a restart at 1 from round 1 is a restart too
    peer = await scene(connect, world="w2")
    await ok(peer, pin("token2", "pinpointed", {"round": 1}, observer="token0"))
    await ok(peer, {"kind": "round", "round": 1})
    assert (await peer.state())["pins"] == {}


async def test_PIN_a_pin_until_a_move_is_released_when_either_token_moves(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token2", "pinpointed", "move", observer="token0"))
    await ok(peer, pin("token2", "approximate", "move", observer="token1"))
    await ok(peer, {"kind": "move", "token": "token1", "x": 120, "y": 0})  # the observer of the second
    assert await cell(peer, "token0", "token2") == "pinpointed"
    assert "token1" not in (await peer.state())["pins"]["token2"]["observers"]
    await ok(peer, {"kind": "move", "token": "token2", "x": 230, "y": 0})  # the target of the first
    assert await cell(peer, "token0", "token2") != "pinpointed"
    assert (await peer.state())["pins"] == {}


async def test_PIN_against_every_observer_nobody_sees_the_ghost_and_an_own_pin_wins(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token0", "unlocated", "scene"))
    assert await cell(peer, "token1", "token0") == "unlocated"
    assert await cell(peer, "token2", "token0") == "unlocated"
    await ok(peer, pin("token0", "approximate", "scene", observer="token1"))
    assert await cell(peer, "token1", "token0") == "approximate"
    assert await cell(peer, "token2", "token0") == "unlocated"
    await ok(peer, {"kind": "releaseLocate", "target": "token0"})
    assert await cell(peer, "token2", "token0") == "pinpointed"
    assert await cell(peer, "token1", "token0") == "approximate"  # its own pin stands


async def test_PIN_explain_shows_the_pin_as_the_last_step_with_who_set_it(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token2", "pinpointed", "scene", observer="token0"))
    reply = await peer.request("query", {"kind": "explain", "observer": "token0", "target": "token2"})
    assert reply["type"] == "result", reply
    log = reply["payload"]["log"]
    assert reply["payload"]["data"]["locate"] == "pinpointed"
    last = log[-1]
    assert last["rule"] == "PIN"
    assert last["data"]["by"] == "Gamemaster" and last["data"]["result"] == "pinpointed"
    assert last["data"]["rules"] != "pinpointed"  # what the rules alone say, one step before
    assert log[-2]["rule"] == "DET-4"


async def test_PIN_a_pin_is_a_durable_ruling(config: Config) -> None:
    for attempt in range(2):
        client = TestClient(TestServer(create_app(config), host="127.0.0.1"))
        await client.start_server()
        try:
            peer = Peer(await client.ws_connect("/ws"))
            hello = {"token": TOKEN, "world": "w1", "client": {"name": "pytest"}}
            assert (await peer.request("hello", hello))["type"] == "welcome"
            if attempt == 0:
                state = world_state(actors=3)
                assert (await peer.request("sync", {"state": state}))["type"] == "result"
                await ok(peer, pin("token1", "unlocated", "scene", observer="token0"))
            else:
                assert await cell(peer, "token0", "token1") == "unlocated"
                assert (await peer.state())["pins"]["token1"]["observers"]["token0"]["by"] == "Gamemaster"
        finally:
            await client.close()


async def test_PIN_bad_input_is_refused_and_changes_nothing(connect: Connect) -> None:
    """Each bad pin gets the protocol's code (`invalid` for a bad field, `not_found` for a token
    not on the scene) and the path of the field at fault; the document, rev included, stays."""
    peer = await scene(connect)
    await ok(peer, {"kind": "round", "round": 2})
    await ok(peer, {"kind": "round", "round": 3})
    before = await peer.state()
    bad: list[tuple[dict[str, Any], str, list[str]]] = [
        (pin("token1", "glimpsed", "scene", observer="token0"), "invalid", ["state"]),  # unknown state
        (pin("token1", "unlocated", {"round": 2}, observer="token0"), "invalid", ["until", "round"]),  # past
        (pin("token1", "unlocated", "forever", observer="token0"), "invalid", ["until"]),
        (pin("nobody", "unlocated", "scene", observer="token0"), "not_found", ["target"]),  # not on the scene
        (
            pin("token1", "unlocated", "scene", observer="nobody"),
            "not_found",
            ["observer"],
        ),  # unknown observer
        (pin("token1", "unlocated", "scene", observer="token1"), "invalid", ["target"]),  # itself
        (
            {"kind": "releaseLocate", "observer": "token0", "target": "token1"},
            "invalid",
            ["target"],
        ),  # no pin
        ({"kind": "releaseLocate", "observer": "nobody", "target": "token1"}, "not_found", ["observer"]),
        ({"kind": "releaseLocate", "target": "nobody"}, "not_found", ["target"]),
    ]
    for body, code, path in bad:
        reply = await peer.action(body)
        assert reply["type"] == "error", (body, reply)
        payload = reply["payload"]
        assert payload["code"] == code, (body, payload)
        assert payload["message"], (body, payload)
        paths = [detail["path"][: len(path)] for detail in payload["details"]]
        assert path in paths, (body, payload)
        assert await peer.state() == before, body


# --- DET-10 through damage ----------------------------------------------------------------------------


def attack_damage(amount: int, **attack: Any) -> dict[str, Any]:
    return {
        "kind": "damage",
        "target": "actor2",
        "instances": [{"amount": amount, "grade": "L"}],
        "attack": {"attacker": "token0", "token": "token2", "successes": 5, **attack},
    }


async def test_DET_10_damage_of_an_attack_on_an_approximate_target_counts_half(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token2", "approximate", "scene", observer="token0"))
    result = await ok(peer, attack_damage(5))
    rules = [step["rule"] for step in result["log"]]
    assert rules[:2] == ["DET-4", "DET-10"]
    halving = next(step for step in result["log"] if step["data"] and "after" in step["data"])
    assert halving["data"] == {"attacker": "token0", "target": "token2", "before": [5], "after": [2]}
    health = (await peer.state())["actors"]["actor2"]["health"]
    assert health["lethal"] == 2
    check = await peer.request(
        "query", {"kind": "attackCheck", "attacker": "token0", "target": "token2", "successes": 5}
    )
    assert check["payload"]["data"]["successes"] == 2 and check["payload"]["data"]["halved"] is True


async def test_DET_10_an_attack_on_a_pinpointed_target_counts_in_full(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token2", "pinpointed", "scene", observer="token0"))
    result = await ok(peer, attack_damage(5))
    assert not any(step["data"] and "after" in step["data"] for step in result["log"])
    assert result["log"][1]["text"] == "attack: counts in full"


async def test_DET_10_a_wrong_square_misses_and_a_right_one_counts_as_approximate(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token2", "unlocated", "scene", observer="token0"))
    before = await peer.state()
    missed = await ok(peer, attack_damage(6, guess={"x": 1050, "y": 1050}))
    guess = missed["log"][1]
    assert guess["rule"] == "DET-10" and guess["data"]["right"] is False
    after = await peer.state()
    assert after["actors"]["actor2"] == before["actors"]["actor2"]  # a miss deals nothing
    check = await peer.request(
        "query",
        {
            "kind": "attackCheck",
            "attacker": "token0",
            "target": "token2",
            "successes": 6,
            "guess": {"x": 1050, "y": 50},
        },
    )
    assert check["payload"]["data"]["hit"] is False
    hit = await ok(peer, attack_damage(6, guess={"x": 250, "y": 50}))  # token2 stands at (200, 0)
    assert hit["log"][1]["data"]["right"] is True
    halving = next(step for step in hit["log"] if step["data"] and "after" in step["data"])
    assert halving["key"] == "DET-10.damageHalved"
    assert halving["data"] == {"attacker": "token0", "target": "token2", "before": [6], "after": [3]}
    assert (await peer.state())["actors"]["actor2"]["health"]["lethal"] == 3
    no_guess = await ok(peer, attack_damage(6))
    assert no_guess["log"][1]["key"] == "DET-10.noGuess"
    assert no_guess["log"][1]["data"] == {
        "attacker": no_guess["log"][0]["data"]["attacker"],
        "target": no_guess["log"][0]["data"]["target"],
        "guessed": False,
        "right": False,
    }


async def test_DET_10_a_guess_off_the_scene_or_a_token_of_another_actor_is_refused(connect: Connect) -> None:
    peer = await scene(connect)
    await ok(peer, pin("token2", "unlocated", "scene", observer="token0"))
    rev = (await peer.state())["rev"]
    for body in (
        attack_damage(3, guess={"x": 5000, "y": 10}),
        attack_damage(3, guess={"x": -1, "y": 10}),
        {**attack_damage(3), "target": "actor1"},
        {**attack_damage(3), "attack": {"attacker": "ghost", "token": "token2", "successes": 1}},
    ):
        reply = await peer.action(body)
        assert reply["type"] == "error", (body, reply)
    assert (await peer.state())["rev"] == rev


async def test_DET_10_an_attack_at_a_square_naming_nobody_hits_whoever_stands_there(connect: Connect) -> None:
    """The player does not know who is there; the sidecar does."""
    peer = await scene(connect)
    await ok(peer, pin("token2", "unlocated", "scene", observer="token0"))
    at = {"kind": "damage", "instances": [{"amount": 4, "grade": "L"}]}
    empty = await ok(
        peer, {**at, "attack": {"attacker": "token0", "successes": 4, "guess": {"x": 950, "y": 950}}}
    )
    assert empty["log"] == [
        {
            "rule": "DET-10",
            "text": "nobody stands at the guessed square: the attack misses",
            "data": {"attacker": "token0", "guessed": True, "right": False},
            "key": "DET-10.noTarget",
        }
    ]
    hit = await ok(
        peer, {**at, "attack": {"attacker": "token0", "successes": 4, "guess": {"x": 210, "y": 90}}}
    )
    assert hit["log"][0]["text"] == "token0 locates token2: unlocated"
    assert (await peer.state())["actors"]["actor2"]["health"]["lethal"] == 2  # as approximate: halved
    for body in (
        at,  # no target and no attack
        {**at, "attack": {"attacker": "token0", "successes": 1}},  # no target, no square
        {**at, "attack": {"attacker": "token0", "successes": 1, "guess": {"x": 9000, "y": 1}}},
        {**at, "target": "actor2", "attack": {"attacker": "token0", "successes": 1}},  # a target, no token
    ):
        reply = await peer.action(body)
        assert reply["type"] == "error", (body, reply)


# --- a reveal the GM approves ---------------------------------------------------------------------------


async def reveal_scene(connect: Connect, approve: bool = True) -> Peer:
    """token0 (magical sight D) approximately locates token2 (a magical veil D): a won contest pinpoints."""
    peer = await connect()
    state = world_state(actors=3)
    state["settings"] = {"approveReveals": approve}
    state["actors"]["actor0"]["detection"] = [
        {"name": "sight", "sense": "sight", "essence": "magical", "rank": "D"}
    ]
    state["actors"]["actor2"]["antiDetection"] = [{"name": "veil", "essence": "magical", "rank": "D"}]
    reply = await peer.request("sync", {"state": state})
    assert reply["type"] == "result", reply
    assert await cell(peer, "token0", "token2") == "approximate"
    return peer


WIN = {"kind": "contest", "observer": "token0", "target": "token2", "dice": {"observer": [8], "target": [1]}}


async def test_DET_8_a_reveal_the_GM_approves_is_held_then_accepted(connect: Connect) -> None:
    peer = await reveal_scene(connect)
    held = await ok(peer, WIN)
    assert not any(op["path"] == "/visibility/token0/token2" for op in held["patch"]), (
        "players see nothing yet"
    )
    assert {"op": "add", "path": "/reveals/token2", "value": {"token0": "approximate"}} in held["patch"]
    assert held["log"][-1]["data"] == {
        "held": True,
        "observer": "token0",
        "target": "token2",
        "shown": "approximate",
    }
    assert await cell(peer, "token0", "token2") == "approximate"
    await ok(peer, {"kind": "move", "token": "token1", "x": 150, "y": 0})  # another ruling keeps it held
    assert await cell(peer, "token0", "token2") == "approximate"
    accepted = await ok(
        peer, {"kind": "approveReveal", "observer": "token0", "target": "token2", "accept": True}
    )
    assert {"op": "remove", "path": "/visibility/token0/token2"} in accepted["patch"]  # now pinpointed
    state = await peer.state()
    assert state["reveals"] == {} and state["contests"]["token0"]["token2"]["won"] is True
    again = await peer.action(
        {"kind": "approveReveal", "observer": "token0", "target": "token2", "accept": True}
    )
    assert again["type"] == "error"  # nothing waits any more


async def test_DET_8_a_held_reveal_is_asked_once_and_waits_through_the_rounds(connect: Connect) -> None:
    """The GM is asked once: the next rounds run no contest for the held pair (its win is neither
    re-rolled, nor lapsed, nor held again), players keep seeing the state before, and the answer
    given rounds later still applies."""
    peer = await reveal_scene(connect)
    held = await ok(peer, WIN)
    assert [s for s in held["log"] if s["data"] and s["data"].get("held")]
    for round_number in (2, 3, 4):
        result = await ok(peer, {"kind": "round", "round": round_number})
        for step in result["log"]:  # token1's own contests may run (and be held): not token0's
            data = step.get("data") or {}
            pair = (data.get("observer"), data.get("target"))
            assert pair != ("token0", "token2") or step["rule"] not in ("DET-8", "DICE-5"), step
        state = await peer.state()
        assert state["reveals"]["token2"]["token0"] == "approximate"
        assert state["contests"]["token0"]["token2"] == {"stageTwo": "approximate", "round": 1, "won": True}
        assert await cell(peer, "token0", "token2") == "approximate"
    await ok(peer, {"kind": "approveReveal", "observer": "token0", "target": "token2", "accept": True})
    assert await cell(peer, "token0", "token2") == "pinpointed"
    assert "token0" not in (await peer.state())["reveals"].get("token2", {})


async def test_DET_8_a_refused_reveal_counts_as_a_lost_contest(connect: Connect) -> None:
    peer = await reveal_scene(connect)  # round 1: a combat round
    await ok(peer, WIN)
    await ok(peer, {"kind": "approveReveal", "observer": "token0", "target": "token2", "accept": False})
    state = await peer.state()
    assert state["visibility"]["token0"]["token2"] == "a" and state["reveals"] == {}
    assert state["contests"]["token0"]["token2"]["won"] is False  # the pair's contest of round 1
    assert (await peer.action(WIN))["type"] == "error"  # once per round


async def test_DET_8_without_the_setting_a_won_contest_pinpoints_at_once(connect: Connect) -> None:
    peer = await reveal_scene(connect, approve=False)
    await ok(peer, WIN)
    assert await cell(peer, "token0", "token2") == "pinpointed"
    assert (await peer.state())["reveals"] == {}


async def test_PIN_a_pin_and_its_release_can_be_undone(connect: Connect) -> None:
    peer = await scene(connect)
    reply = await peer.action(pin("token1", "unlocated", "scene", observer="token0"), msg_id="pin-1")
    assert reply["type"] == "result", reply
    assert await cell(peer, "token0", "token1") == "unlocated"
    undo = await peer.action({"kind": "undo", "action": "pin-1"})
    assert undo["type"] == "result", undo
    assert await cell(peer, "token0", "token1") == "pinpointed"
    assert (await peer.state())["pins"] == {}


async def test_UNDO_a_ruling_that_pinpointed_a_pair_can_be_undone(connect: Connect) -> None:
    """The patch removes a pinpointed pair (the sparse form); the undo reads the pair the same way
    (absent, not "pinpointed") and puts the state before back: a won contest, a pin's release."""
    peer = await reveal_scene(connect, approve=False)
    reply = await peer.action(WIN, msg_id="won-1")
    assert reply["type"] == "result", reply
    assert {"op": "remove", "path": "/visibility/token0/token2"} in reply["payload"]["patch"]
    undo = await ok(peer, {"kind": "undo", "action": "won-1"})
    assert {"op": "add", "path": "/visibility/token0/token2", "value": "a"} in undo["patch"]
    assert await cell(peer, "token0", "token2") == "approximate"
    redo = await ok(peer, {"kind": "redo", "action": "won-1"})
    assert {"op": "remove", "path": "/visibility/token0/token2"} in redo["patch"]
    await ok(peer, pin("token1", "unlocated", "scene", observer="token0"))
    released = await peer.action({"kind": "releaseLocate", "observer": "token0", "target": "token1"}, "rel-1")
    assert released["type"] == "result", released
    await ok(peer, {"kind": "undo", "action": "rel-1"})
    assert await cell(peer, "token0", "token1") == "unlocated"


async def test_DET_10_attack_check_for_the_attacker_never_says_whether_a_square_is_right(
    connect: Connect,
) -> None:
    """The answer a player gets (`view: "attacker"`): the verdict and the counts, never `hit`, the
    log, the locate state or a token id; at a square the same answer whoever stands there."""
    peer = await scene(connect)
    await ok(peer, pin("token2", "unlocated", "scene", observer="token0"))
    await ok(peer, pin("token1", "approximate", "scene", observer="token0"))
    base = {"kind": "attackCheck", "attacker": "token0", "successes": 5, "view": "attacker"}
    answers = []
    # token2's square, nobody's, token1's
    for square in ({"x": 250, "y": 50}, {"x": 1050, "y": 950}, {"x": 150, "y": 50}):
        for named in ({}, {"target": "token2"}):
            reply = await peer.request("query", {**base, **named, "guess": square})
            assert reply["type"] == "result", reply
            answers.append(reply["payload"]["data"])
    assert all(answer == answers[0] for answer in answers), answers
    assert answers[0] == {
        "view": "attacker",
        "verdict": "guessed",
        "halved": True,
        "successes": 2,
        "extraSuccesses": 0,
        "effectPoints": 0,
        "spell": None,
        "spellAllowed": True,
        "spellChance": 1.0,
    }
    silhouette = (await peer.request("query", {**base, "target": "token1"}))["payload"]["data"]
    assert (silhouette["verdict"], silhouette["successes"]) == ("halved", 2)
    unseen = (await peer.request("query", {**base, "target": "token2"}))["payload"]["data"]
    assert unseen["verdict"] == "notPossible"
    for answer in (silhouette, unseen):
        assert not {"hit", "log", "locate", "guessedPositionOnly"} & set(answer)
        assert "token" not in str(answer) and "actor" not in str(answer)
    spell = {**base, "target": "token2", "spell": "targeted"}
    assert (await peer.request("query", spell))["payload"]["data"]["verdict"] == "notPossible"
    # the GM's answer names the target; without one it is refused, as is a square off the scene
    for body in (
        {**base, "view": "gm", "guess": {"x": 250, "y": 50}},
        {**base, "guess": {"x": 5000, "y": 50}},
        {**base},
        {**base, "attacker": "ghost", "guess": {"x": 250, "y": 50}},
    ):
        reply = await peer.request("query", body)
        assert reply["type"] == "error", (body, reply)


async def test_PIN_a_batch_pins_many_pairs_as_one_ruling_and_one_undo(connect: Connect) -> None:
    """The GM's panel: pins for several pairs in one `batch` (one rev, one card, one undo); a
    refused item (an observer pinned against itself) refuses the whole batch and changes nothing."""
    peer = await scene(connect)
    pairs = [("token0", "token1"), ("token0", "token2"), ("token1", "token2")]
    body = {"kind": "batch", "actions": [pin(t, "approximate", "scene", observer=o) for o, t in pairs]}
    rev = (await peer.state())["rev"]
    reply = await peer.action(body, msg_id="panel-1")
    assert reply["type"] == "result", reply
    result = reply["payload"]
    assert result["rev"] == rev + 1
    items = [s["data"] for s in result["log"] if s["key"] == "BATCH.item"]
    assert [(i["kind"], i["target"]) for i in items] == [("pinLocate", t) for _o, t in pairs]
    assert [s["key"] for s in result["log"]].count("PIN.pinned") == 3
    for observer, target in pairs:
        assert await cell(peer, observer, target) == "approximate"
    # releasing two of them at once, one undo brings both pins back
    release = {
        "kind": "batch",
        "actions": [{"kind": "releaseLocate", "observer": o, "target": t} for o, t in pairs[:2]],
    }
    assert (await peer.action(release, msg_id="panel-2"))["type"] == "result"
    assert await cell(peer, "token0", "token1") == "pinpointed"
    assert await cell(peer, "token0", "token2") == "unlocated"
    assert await cell(peer, "token1", "token2") == "approximate"
    await ok(peer, {"kind": "undo", "action": "panel-2"})
    assert await cell(peer, "token0", "token1") == "approximate"
    assert await cell(peer, "token0", "token2") == "approximate"
    # all or nothing
    before = await peer.state()
    bad = {
        "kind": "batch",
        "actions": [
            pin("token2", "pinpointed", "scene", observer="token0"),
            pin("token2", "pinpointed", "scene", observer="token2"),
        ],
    }
    reply = await peer.action(bad)
    assert reply["type"] == "error", reply
    assert [d["path"][:2] for d in reply["payload"]["details"]] == [["actions", 1]], reply
    assert await peer.state() == before


async def test_PIN_the_pins_query_answers_the_pins_now_and_refuses_extra_fields(connect: Connect) -> None:
    peer = await scene(connect)
    empty = await peer.request("query", {"kind": "pins"})
    assert empty["type"] == "result" and empty["payload"]["data"] == {"pins": {}}, empty
    await ok(peer, pin("token2", "approximate", {"round": 3}, observer="token0"))
    await ok(peer, pin("token1", "unlocated", "move"))
    reply = await peer.request("query", {"kind": "pins"})
    assert reply["payload"]["data"]["pins"] == (await peer.state())["pins"]
    assert reply["payload"]["data"]["pins"]["token2"]["observers"]["token0"]["until"] == {"round": 3}
    bad = await peer.request("query", {"kind": "pins", "target": "token1"})
    assert bad["type"] == "error", bad
