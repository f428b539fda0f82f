"""RANK-1/2 (a price wherever a Rank is accepted) and RANK-4 (caster level) over a real websocket."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Connect, Peer


def hero(**extra: Any) -> dict[str, Any]:
    return {"name": "Lu Ren", "health": {"max": 10}, **extra}


async def synced(connect: Connect, **actor: Any) -> Peer:
    peer = await connect()
    state = {
        "scene": {"id": "scene1", "round": 1},
        "actors": {"hero": hero(**actor), "foe": {"name": "Zerg", "health": {"max": 10}}},
        "tokens": {"t0": {"actor": "hero"}, "t1": {"actor": "foe", "x": 100}},
    }
    reply = await peer.request("sync", {"state": state})
    assert reply["type"] == "result", reply
    return peer


def flat_footed(rank: str, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "affect",
        "actor": "hero",
        "effect": {"rank": rank, "conditions": ["flat-footed"], **extra},
    }


def poison(rank: str, **extra: Any) -> dict[str, Any]:
    instance = {"amount": 3, "grade": "L", "type": "poison", "rank": rank, **extra}
    return {"kind": "damage", "target": "hero", "instances": [instance]}


async def test_RANK_2_a_price_in_every_place_a_rank_is_accepted(connect: Connect) -> None:
    """The state keeps what the GM wrote (`price`) and the Rank it gives (`rank`): immunities,
    detection and anti-detection means (sync), damage instances, effects (both Ranks), gainImmunity."""
    peer = await synced(
        connect,
        immunities=[{"kind": "mind-affecting", "rank": "CC+300"}],
        detection=[{"name": "eye", "sense": "sight", "rank": "DD+1200"}],
        antiDetection=[{"name": "veil", "essence": "magical", "rank": "SSS+500"}],
    )
    actor = (await peer.state())["actors"]["hero"]
    assert (actor["immunities"][0]["rank"], actor["immunities"][0]["price"]) == ("C", "CC+300")
    assert (actor["detection"][0]["rank"], actor["detection"][0]["price"]) == ("D", "DD+1200")
    assert (actor["antiDetection"][0]["rank"], actor["antiDetection"][0]["price"]) == ("S", "SSS+500")

    gained = await peer.action(
        {"kind": "gainImmunity", "actor": "hero", "immunity": {"kind": "poison", "rank": "BB+40"}}
    )
    assert gained["type"] == "result", gained
    immunity = (await peer.state())["actors"]["hero"]["immunities"][1]
    assert (immunity["rank"], immunity["price"]) == ("B", "BB+40")

    # A BB+40 (B) poison immunity stops poison damage priced at C, not at AA (A).
    blocked = await peer.action(poison("CC+100"))
    assert any(s["rule"] == "RANK-5" and s["data"]["blocked"] for s in blocked["payload"]["log"])
    assert any(s["data"].get("effectRank") == "C" for s in blocked["payload"]["log"] if s.get("data"))
    through = await peer.action(poison("AA"))
    assert (await peer.state())["actors"]["hero"]["health"]["lethal"] == 3, through

    # RANK-3 with two prices: used at D (DD+1200), gained at B (BB): B-Rank points; the C
    # mind-affecting immunity (CC+300) does not stop them.
    effect = {"rank": "DD+1200", "rankWhenGained": "BB", "emotionPoints": {"fear": 2}}
    reply = await peer.action({"kind": "affect", "actor": "hero", "effect": effect})
    steps = reply["payload"]["log"]
    assert steps[0]["rule"] == "RANK-3" and steps[0]["data"]["rank"] == "B"
    assert (await peer.state())["actors"]["hero"]["emotionPoints"]["fear"] == 2


@pytest.mark.parametrize(
    ("price", "rank"),
    [
        pytest.param("DD+1200", "D", id="two D-Ranks and 1,200 points: D"),
        pytest.param("CC", "C", id="a double Rank counts as the single Rank"),
        pytest.param("BBB", "B", id="a triple too"),
        pytest.param("DC+5", "C", id="the highest letter is the Rank"),
        pytest.param("SSS+500", "S", id="nothing is above S"),
        pytest.param("A", "A", id="a single letter is the Rank itself (no price kept)"),
    ],
)
async def test_RANK_2_the_price_gives_the_rank(connect: Connect, price: str, rank: str) -> None:
    peer = await synced(connect, immunities=[{"kind": "poison", "rank": price}])
    immunity = (await peer.state())["actors"]["hero"]["immunities"][0]
    assert immunity["rank"] == rank
    assert immunity.get("price") == (None if price == rank else price)


@pytest.mark.parametrize("bad", ["DD+", "E", "SS+-3"])
@pytest.mark.parametrize(
    ("place", "path"),
    [
        ("sync immunity", ["state", "actors", "hero", "immunities", 0, "rank"]),
        ("sync detection", ["state", "actors", "hero", "detection", 0, "rank"]),
        ("sync antiDetection", ["state", "actors", "hero", "antiDetection", 0, "rank"]),
        ("damage", ["instances", 0, "rank"]),
        ("affect", ["effect", "rank"]),
        ("affect gained", ["effect", "rankWhenGained"]),
        ("gainImmunity", ["immunity", "rank"]),
        ("upsert", ["value", "immunities", 0, "rank"]),
    ],
)
async def test_RANK_2_a_malformed_price_is_invalid_with_path_and_allowed_values_and_changes_nothing(
    connect: Connect, bad: str, place: str, path: list[Any]
) -> None:
    peer = await synced(connect)
    before = await peer.state()
    actor = hero()
    if place.startswith("sync"):
        field = place.split()[1]
        entry = {"immunity": {"kind": "poison"}, "detection": {"name": "eye", "sense": "sight"}}.get(
            field, {"name": "veil"}
        )
        key = "immunities" if field == "immunity" else field
        state = {"actors": {"hero": {**actor, key: [{**entry, "rank": bad}]}}}
        reply = await peer.request("sync", {"state": state})
    elif place == "damage":
        reply = await peer.action(poison(bad))
    elif place == "affect":
        reply = await peer.action(flat_footed(bad))
    elif place == "affect gained":
        reply = await peer.action(flat_footed("C", rankWhenGained=bad))
    elif place == "gainImmunity":
        immunity = {"kind": "poison", "rank": bad}
        reply = await peer.action({"kind": "gainImmunity", "actor": "hero", "immunity": immunity})
    else:
        reply = await peer.request(
            "upsert", {"path": "/actors/hero/immunities", "value": [{"kind": "poison", "rank": bad}]}
        )
    assert reply["type"] == "error", reply
    error = reply["payload"]
    assert error["code"] == "invalid"
    (detail,) = error["details"]
    assert detail["path"] == path
    assert f"malformed Rank or price {bad!r}" in detail["message"]
    assert "'DD+1200'" in detail["message"] and "'S'" in detail["message"]  # the allowed forms
    assert await peer.state() == before


async def test_RANK_2_a_price_and_a_rank_that_disagree_are_refused(connect: Connect) -> None:
    peer = await synced(connect)
    immunity = {"kind": "poison", "rank": "B", "price": "CC"}
    reply = await peer.action({"kind": "gainImmunity", "actor": "hero", "immunity": immunity})
    assert reply["payload"]["code"] == "invalid"
    assert "RANK-2: price 'CC' gives C, not rank B" in reply["payload"]["details"][0]["message"]


@pytest.mark.parametrize(
    ("effect_rank", "flat"),
    [
        pytest.param("CC+800", False, id="C-Rank Stinger Tongue: not flat-footed"),
        pytest.param("BB+2000", True, id="B-Rank Nanaya Body Arts: still flat-footed"),
        pytest.param("unranked", False, id="basic combat (unranked): not flat-footed"),
    ],
)
async def test_RANK_1_lu_ren_mage_slayer_c_rank_immunity_through_prices(
    connect: Connect, effect_rank: str, flat: bool
) -> None:
    """The rulebook's example: the Title "Mage Slayer" upgraded to C-Rank (price CC+300) gives C-Rank
    immunity to being flat-footed; Ranks ordered unranked < D < C < B < A < S."""
    peer = await synced(
        connect, immunities=[{"kind": "flat-footed", "rank": "CC+300", "source": "Mage Slayer"}]
    )
    reply = await peer.action(flat_footed(effect_rank))
    assert reply["type"] == "result", reply
    conditions = (await peer.state())["actors"]["hero"]["conditions"]
    assert bool(conditions.get("flat-footed")) is flat


@pytest.mark.parametrize(
    ("attack", "shield", "blocked", "rule"),
    [
        pytest.param(9, 7, False, "RANK-4", id="equal Rank: the higher caster level (the attacker's) wins"),
        pytest.param(5, 7, True, "RANK-4", id="equal Rank: the higher caster level (the shield's) wins"),
        pytest.param(7, 7, True, "RANK-5", id="equal Rank and level: RANK-6, the shield wins"),
        pytest.param(
            9, None, True, "RANK-5", id="an immunity that is no spell's: Rank alone, shield wins ties"
        ),
    ],
)
async def test_RANK_4_caster_level_breaks_a_tie_between_spells_of_equal_rank(
    connect: Connect, attack: int, shield: int | None, blocked: bool, rule: str
) -> None:
    immunity: dict[str, Any] = {"kind": "poison", "rank": "CC"}
    if shield is not None:
        immunity["casterLevel"] = shield
    peer = await synced(connect, immunities=[immunity])
    reply = await peer.action(poison("C", casterLevel=attack))
    steps = [s for s in reply["payload"]["log"] if "blocked" in (s.get("data") or {})]
    assert steps[-1]["rule"] == rule and steps[-1]["data"]["blocked"] is blocked
    lethal = (await peer.state())["actors"]["hero"]["health"]["lethal"]
    assert lethal == (0 if blocked else 3)
    effect = await peer.action(flat_footed("C", casterLevel=attack, traits=["poison"]))
    effect_steps = [s for s in effect["payload"]["log"] if "blocked" in (s.get("data") or {})]
    assert effect_steps[-1]["data"]["blocked"] is blocked


async def test_RANK_4_a_higher_rank_spell_wins_whatever_the_caster_level(connect: Connect) -> None:
    peer = await synced(connect, immunities=[{"kind": "poison", "rank": "C", "casterLevel": 20}])
    reply = await peer.action(poison("BB", casterLevel=1))
    step = next(s for s in reply["payload"]["log"] if s["rule"] == "RANK-4")
    assert step["data"]["blocked"] is False
    assert (await peer.state())["actors"]["hero"]["health"]["lethal"] == 3


async def test_RANK_2_the_kept_price_and_rank_round_trip_through_sync(connect: Connect) -> None:
    """What the server wrote (`rank` beside `price`) is accepted back as the VTT sends it again."""
    peer = await synced(connect, immunities=[{"kind": "poison", "rank": "DD+1200"}])
    state = await peer.state()
    again = {key: state[key] for key in ("scene", "settings", "actors", "tokens")}
    reply = await peer.request("sync", {"state": again})
    assert reply["type"] == "result", reply
    immunity = (await peer.state())["actors"]["hero"]["immunities"][0]
    assert (immunity["rank"], immunity["price"]) == ("D", "DD+1200")
