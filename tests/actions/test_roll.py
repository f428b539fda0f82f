"""The `roll` action over a real websocket: DICE-1..7, WP-2, HEALTH-7, RANK-11, and bad input."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest

from tests.conftest import Connect, Peer


def ann(**extra: Any) -> dict[str, Any]:
    """A rogue: DEX 3, Stealth 2, PER 2, Investigation 1; Willpower 2 of 3 plus 1 temporary."""
    return {
        "name": "Ann",
        "health": {"max": 7},
        "attributes": {
            "STR": 2,
            "DEX": 3,
            "STA": 2,
            "INT": 2,
            "PER": 2,
            "RES": 2,
            "PRE": 1,
            "MAN": 1,
            "COM": 1,
        },
        "skills": {"stealth": 2, "investigation": 1},
        "willpower": {"max": 3, "current": 2, "temporary": 1},
        **extra,
    }


def guard(**extra: Any) -> dict[str, Any]:
    return {"name": "Guard", "health": {"max": 7}, "skills": {"investigation": 2}, **extra}


async def synced(
    connect: Connect, hero: dict[str, Any] | None = None, foe: dict[str, Any] | None = None, **settings: Any
) -> Peer:
    peer = await connect()
    state = {
        "scene": {"id": "scene1", "round": 1},
        "settings": settings,
        "actors": {"ann": hero or ann(), "guard": foe or guard()},
        "tokens": {"t0": {"actor": "ann"}, "t1": {"actor": "guard", "x": 100}},
    }
    reply = await peer.request("sync", {"state": state})
    assert reply["type"] == "result", reply
    return peer


def roll(**fields: Any) -> dict[str, Any]:
    return {"kind": "roll", "actor": "ann", **fields}


async def ruled(peer: Peer, payload: dict[str, Any]) -> dict[str, Any]:
    reply = await peer.action(payload)
    assert reply["type"] == "result", reply
    result: dict[str, Any] = reply["payload"]
    return result


def steps(result: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [step for step in result["log"] if step["rule"] == rule]


def outcome(result: dict[str, Any]) -> dict[str, Any]:
    """The last step: the roll's successes (DICE-1) or the opposed roll's result (DICE-5)."""
    data: dict[str, Any] = result["log"][-1]["data"]
    return data


# ---- DICE-1: the pool ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "successes"),
    [
        pytest.param([8, 9, 7, 1, 3], 2, id="8 and 9 are successes, 7 is not"),
        pytest.param([1, 2, 3, 4, 5], 0, id="no die of 8 or more: no success"),
        pytest.param([8, 8, 8, 8, 9], 5, id="every die a success"),
    ],
)
async def test_DICE_1_a_dexterity_stealth_roll_counts_each_die_of_8_or_more(
    connect: Connect, dice: list[int], successes: int
) -> None:
    """The rulebook's "a Dexterity + Stealth roll": DEX 3 + Stealth 2 = 5 d10s."""
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=["DEX", "stealth"], dice=dice))
    pool = steps(result, "DICE-1")[0]["data"]
    assert pool["traits"] == [{"trait": "DEX", "value": 3}, {"trait": "stealth", "value": 2}]
    assert pool["base"] == 5
    assert result["rolls"] == [
        {"pool": 5, "again": 10, "dice": dice, "successes": successes, "by": "ann", "purpose": "roll"}
    ]
    assert outcome(result)["successes"] == successes


async def test_DICE_1_a_number_of_dice_and_a_pool_of_0_rolls_nothing(connect: Connect) -> None:
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=4, dice=[1, 1, 1, 8]))
    assert result["rolls"][0]["pool"] == 4 and outcome(result)["successes"] == 1
    result = await ruled(peer, roll(pool=1, modifiers=[{"type": "circumstance", "value": -3}], dice=[]))
    assert result["rolls"] == [
        {"pool": 0, "again": 10, "dice": [], "successes": 0, "by": "ann", "purpose": "roll"}
    ]


async def test_DICE_1_the_engine_rolls_when_no_dice_are_given(connect: Connect) -> None:
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=["PER", "investigation"]))
    (engine,) = result["rolls"]
    assert engine["pool"] == 3 and all(1 <= face <= 10 for face in engine["dice"])
    assert len(engine["dice"]) == 3 + sum(1 for face in engine["dice"] if face == 10)
    assert engine["successes"] == sum(1 for face in engine["dice"] if face >= 8)
    assert steps(result, "DICE-1")[1]["data"]["supplied"] is False


# ---- DICE-2: n-again ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("again", "dice", "successes"),
    [
        pytest.param(9, [9, 2, 10, 9, 3, 1], 3, id="chained 9-again: 9 and 10 reroll, the reroll 9 again"),
        pytest.param(10, [10, 2, 3, 10, 10, 4], 3, id="10-again: a 10 rerolls, and its 10 again"),
        pytest.param(8, [8, 1, 1, 8, 9, 2], 3, id="8-again: 8s, 9s and 10s reroll"),
        pytest.param(None, [10, 9, 8], 3, id="none: no rerolls at all"),
    ],
)
async def test_DICE_2_again_adds_a_die_for_each_die_that_meets_it(
    connect: Connect, again: int | None, dice: list[int], successes: int
) -> None:
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=3, again=again, dice=dice))
    assert result["rolls"][0]["dice"] == dice
    assert result["rolls"][0]["again"] == (11 if again is None else again)
    assert outcome(result)["successes"] == successes
    assert steps(result, "DICE-2")[0]["data"]["rerolls"] == len(dice) - 3


async def test_DICE_2_ten_again_is_the_default(connect: Connect) -> None:
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=2, dice=[10, 9, 1]))
    assert result["rolls"][0]["again"] == 10 and outcome(result)["successes"] == 2


# ---- DICE-3: extra successes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "total"),
    [
        pytest.param([8, 1, 1], 3, id="a roll with a success gains the extra successes"),
        pytest.param([1, 2, 7], 0, id="a roll without a success gains none"),
    ],
)
async def test_DICE_3_extra_successes_add_only_to_a_roll_with_a_success(
    connect: Connect, dice: list[int], total: int
) -> None:
    """The rulebook's Will roll: RES + COM, plus the extra successes from Resolve and Composure."""
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=["RES", "COM"], extraSuccesses=2, dice=dice))
    (extra,) = steps(result, "DICE-3")
    assert extra["data"] == {"extra": 2, "counted": total > 0, "total": total, "actor": "ann"}
    assert outcome(result)["successes"] == total


# ---- DICE-4: bonuses ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("modifiers", "total"),
    [
        pytest.param(
            [{"type": "equipment", "value": 2}, {"type": "aid", "value": 1, "perfect": True}],
            3,
            id="the issue's example: equipment +2 and a perfect aid +1",
        ),
        pytest.param(
            [{"type": "equipment", "value": 2}, {"type": "equipment", "value": 1}],
            2,
            id="same type: only the highest",
        ),
        pytest.param(
            [{"type": "aid", "value": 1, "perfect": True}, {"type": "aid", "value": 2, "perfect": True}],
            3,
            id="perfect bonuses stack with all, each other too",
        ),
        pytest.param(
            [{"type": "morale", "value": 2}, {"type": "circumstance", "value": 2}],
            4,
            id="different types stack",
        ),
        pytest.param(
            [{"type": "circumstance", "value": -1}, {"type": "circumstance", "value": -3}],
            -3,
            id="same-type penalties: only the worst",
        ),
    ],
)
async def test_DICE_4_same_type_bonuses_do_not_stack_perfect_ones_do(
    connect: Connect, modifiers: list[dict[str, Any]], total: int
) -> None:
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=5, modifiers=modifiers))
    (stacking,) = steps(result, "DICE-4")
    assert stacking["data"]["total"] == total
    assert result["rolls"][0]["pool"] == 5 + total


# ---- DICE-5: opposed ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mine", "theirs", "wins"),
    [
        pytest.param([8, 9, 1, 1, 1], [8, 1, 1], True, id="2 successes beat DC 1"),
        pytest.param([8, 1, 1, 1, 1], [8, 1, 1], True, id="1 success meets DC 1"),
        pytest.param([8, 1, 1, 1, 1], [8, 8, 1], False, id="1 success falls short of DC 2"),
        pytest.param([1, 1, 1, 1, 1], [1, 1, 1], False, id="no success fails even against DC 0"),
    ],
)
async def test_DICE_5_an_opposed_roll_has_the_opponents_successes_as_its_dc(
    connect: Connect, mine: list[int], theirs: list[int], wins: bool
) -> None:
    """A race or a shove: Ann's DEX + Stealth against the guard's PER + Investigation (3 dice)."""
    peer = await synced(connect)
    opposed = {"pool": ["PER", "investigation"], "dice": theirs}
    result = await ruled(peer, roll(pool=["DEX", "stealth"], opponent="guard", opposed=opposed, dice=mine))
    assert [r["dice"] for r in result["rolls"]] == [mine, theirs]
    (decided,) = steps(result, "DICE-5")
    assert decided["data"]["dc"] == sum(1 for face in theirs if face >= 8)
    assert decided["data"]["wins"] is wins


async def test_DICE_5_the_opponents_extra_successes_raise_the_dc(connect: Connect) -> None:
    peer = await synced(connect)
    opposed = {"pool": 1, "extraSuccesses": 2, "dice": [9]}
    result = await ruled(peer, roll(pool=2, opponent="guard", opposed=opposed, dice=[8, 8]))
    assert outcome(result)["dc"] == 3 and outcome(result)["wins"] is False


# ---- DICE-6: the VTT's dice ---------------------------------------------------------------------------


async def test_DICE_6_supplied_dice_are_used_exactly_and_the_engine_is_reproducible(
    connect: Connect,
) -> None:
    peer = await synced(connect)
    result = await ruled(peer, roll(pool=["DEX"], dice=[10, 3, 4, 8]))
    assert result["rolls"][0]["dice"] == [10, 3, 4, 8]
    assert steps(result, "DICE-6")[0]["data"]["supplied"] is True
    # The same action id returns the very same engine dice (an idempotent retry).
    first = await peer.action(roll(pool=6), msg_id="again-1")
    retry = await peer.action(roll(pool=6), msg_id="again-1")
    assert retry["payload"].pop("replayed") is True
    assert first["payload"] == retry["payload"]


# ---- DICE-7 / WP-2: Willpower -------------------------------------------------------------------------


async def test_DICE_7_willpower_adds_3_dice_as_a_perfect_bonus(connect: Connect) -> None:
    peer = await synced(connect)
    modifiers = [{"type": "aid", "value": 2, "perfect": True}, {"type": "equipment", "value": 1}]
    result = await ruled(peer, roll(pool=["DEX", "stealth"], willpower=True, modifiers=modifiers))
    assert steps(result, "DICE-7")[0]["data"]["bonus"] == 3
    assert result["rolls"][0]["pool"] == 5 + 3 + 3


async def test_WP_2_willpower_is_paid_temporary_first_and_the_patch_says_so(connect: Connect) -> None:
    peer = await synced(connect)
    before = await peer.state()
    result = await ruled(peer, roll(pool=["DEX", "stealth"], willpower=True))
    (paid,) = steps(result, "WP-2")
    assert paid["data"]["paidFrom"] == "temporary"
    assert {"op": "replace", "path": "/actors/ann/willpower/temporary", "value": 0} in result["patch"]
    after = await peer.state()
    assert jsonpatch.apply_patch(before, result["patch"]) == after
    assert after["actors"]["ann"]["willpower"] == {**before["actors"]["ann"]["willpower"], "temporary": 0}
    result = await ruled(peer, roll(pool=["DEX", "stealth"], willpower=True))
    assert steps(result, "WP-2")[0]["data"]["paidFrom"] == "current"
    assert (await peer.state())["actors"]["ann"]["willpower"]["current"] == 1


async def test_WP_2_the_opponent_may_pay_willpower_on_its_own_roll_too(connect: Connect) -> None:
    peer = await synced(connect, foe=guard(willpower={"max": 2, "current": 2}))
    opposed = {"pool": 2, "willpower": True, "dice": [1, 1, 1, 1, 1]}
    result = await ruled(peer, roll(pool=2, opponent="guard", opposed=opposed, dice=[8, 1]))
    assert result["rolls"][1]["pool"] == 5
    assert {"op": "replace", "path": "/actors/guard/willpower/current", "value": 1} in result["patch"]


@pytest.mark.parametrize(
    ("hero", "payload", "rule", "path"),
    [
        pytest.param(
            ann(willpower={"max": 3, "current": 0}),
            roll(pool=2, willpower=True),
            "WP-2",
            ["willpower"],
            id="refused at 0",
        ),
        pytest.param(
            ann(),
            roll(pool=2, willpower=True, extended=True),
            "WP-2",
            ["extended"],
            id="not on an extended roll",
        ),
        pytest.param(
            ann(health={"max": 3, "lethal": 3}),
            roll(pool=2, willpower=True),
            "WP-2",
            ["willpower"],
            id="only while self-aware (unconscious from injuries)",
        ),
        pytest.param(
            ann(),
            roll(pool=2, willpower=True, modifiers=[{"type": "willpower", "value": 3, "perfect": True}]),
            "WP-2",
            ["modifiers", 0, "type"],
            id="once per action: not again as a modifier",
        ),
        pytest.param(
            ann(health={"max": 3, "aggravated": 3}),
            roll(pool=2, willpower=True),
            "HEALTH-5",
            ["willpower"],
            id="not by the dead (all A)",
        ),
        pytest.param(
            ann(conditions={"annihilated": True}),
            roll(pool=2, willpower=True),
            "HEALTH-5",
            ["willpower"],
            id="not by the annihilated",
        ),
    ],
)
async def test_WP_2_willpower_refusals_name_the_rule_and_change_nothing(
    connect: Connect, hero: dict[str, Any], payload: dict[str, Any], rule: str, path: list[Any]
) -> None:
    peer = await synced(connect, hero=hero)
    before = await peer.state()
    reply = await peer.action(payload)
    assert reply["type"] == "error" and reply["payload"]["code"] == "invalid", reply
    assert reply["payload"]["message"].startswith(f"{rule}:")
    assert reply["payload"]["details"][0]["path"] == path
    assert await peer.state() == before


# ---- HEALTH-7: the wound penalty ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("health", "enabled", "penalty"),
    [
        pytest.param({"max": 7, "lethal": 5}, True, 1, id="2 healthy boxes: -1"),
        pytest.param({"max": 7, "lethal": 6}, True, 2, id="1 healthy box: -2"),
        pytest.param({"max": 7, "bashing": 6}, True, 0, id="bashing only: no penalty"),
        pytest.param({"max": 7, "lethal": 6}, False, 0, id="the optional rule off: no penalty"),
    ],
)
async def test_HEALTH_7_the_wound_penalty_takes_dice_from_the_roll(
    connect: Connect, health: dict[str, int], enabled: bool, penalty: int
) -> None:
    peer = await synced(connect, hero=ann(health=health), woundPenalty=enabled)
    result = await ruled(peer, roll(pool=["DEX", "stealth"]))
    assert result["rolls"][0]["pool"] == 5 - penalty
    wound = steps(result, "HEALTH-7")
    assert [s["data"]["penalty"] for s in wound] == ([penalty] if penalty else [])


# ---- RANK-11: 8-again and 9-again immunity ------------------------------------------------------------


@pytest.mark.parametrize(
    ("immunities", "again", "effective"),
    [
        pytest.param(["8-again"], 8, 10, id="immune to 8-again: counts as immune to 9-again too: 10-again"),
        pytest.param(["9-again"], 9, 10, id="immune to 9-again: 9-again becomes 10-again"),
        pytest.param(["9-again"], 8, 8, id="only 9-again immunity: 8-again stays (our reading)"),
        pytest.param(["8-again"], 9, 9, id="only 8-again immunity: 9-again stays"),
        pytest.param([], 8, 8, id="no immunity: 8-again"),
    ],
)
async def test_RANK_11_the_targets_immunity_turns_the_rollers_again_off(
    connect: Connect, immunities: list[str], again: int, effective: int
) -> None:
    peer = await synced(connect, foe=guard(immunities=[{"kind": kind} for kind in immunities]))
    rerolls = {10: 0, 9: 1, 8: 2}[effective]  # of the first three dice 9, 8, 1
    dice = [9, 8, 1] + [1] * rerolls
    result = await ruled(peer, roll(pool=3, again=again, opponent="guard", dice=dice))
    assert result["rolls"][0]["again"] == effective
    assert len(steps(result, "RANK-11")) == (1 if effective != again else 0)
    assert outcome(result)["successes"] == 2


async def test_RANK_11_in_an_opposed_roll_each_side_meets_the_others_immunity(connect: Connect) -> None:
    peer = await synced(
        connect, hero=ann(immunities=[{"kind": "9-again"}]), foe=guard(immunities=[{"kind": "8-again"}])
    )
    opposed = {"pool": 2, "again": 9, "dice": [9, 1]}
    result = await ruled(peer, roll(pool=2, again=8, opponent="guard", opposed=opposed, dice=[8, 1]))
    assert [r["again"] for r in result["rolls"]] == [10, 10]
    assert [s["data"]["actor"] for s in steps(result, "RANK-11")] == ["ann", "guard"]


# ---- bad input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "path", "needle"),
    [
        pytest.param(roll(pool=["DEX", "sneak"]), ["pool", 1], "allowed: STR, DEX", id="unknown skill"),
        pytest.param(roll(pool=["AGI"]), ["pool", 0], "investigation, stealth", id="unknown attribute"),
        pytest.param(roll(pool=["DEX", "DEX"]), ["pool", 1], "named twice", id="a trait twice"),
        pytest.param(roll(pool=-1), ["pool"], "0..1000", id="pool -1"),
        pytest.param(roll(pool=10**6), ["pool"], "0..1000", id="pool 10^6"),
        pytest.param(roll(pool=[]), ["pool"], "1 to 10 traits", id="no traits"),
        pytest.param(roll(pool="DEX"), ["pool"], "1 to 10 traits", id="a string"),
        pytest.param(roll(pool=2, again=7), ["again"], "8, 9 or 10", id="again 7"),
        pytest.param(roll(pool=2, again="9"), ["again"], "8, 9 or 10", id="again as a string"),
        pytest.param(roll(pool=2, dice=[8]), ["dice"], "too few dice", id="too few dice"),
        pytest.param(roll(pool=2, dice=[8, 1, 1]), ["dice"], "too many dice", id="too many dice"),
        pytest.param(roll(pool=2, dice=[10, 1]), ["dice"], "too few dice", id="a 10 wants its reroll die"),
        pytest.param(roll(pool=2, dice=[0, 1]), ["dice", 0], "greater than or equal to 1", id="die 0"),
        pytest.param(roll(pool=2, dice=[1, 11]), ["dice", 1], "less than or equal to 10", id="die 11"),
        pytest.param(roll(pool=2, extraSuccesses=-1), ["extraSuccesses"], "greater than", id="extra -1"),
        pytest.param(
            roll(pool=2, modifiers=[{"type": "aid", "value": 1.5}]),
            ["modifiers", 0, "value"],
            "integer",
            id="a fractional modifier",
        ),
        pytest.param(roll(actor="nobody", pool=2), ["actor"], "no actor", id="unknown actor"),
        pytest.param(roll(pool=2, opponent="nobody"), ["opponent"], "no actor", id="unknown opponent"),
        pytest.param(roll(pool=2, opponent="ann"), ["opponent"], "itself", id="against itself"),
        pytest.param(roll(pool=2, opposed={"pool": 2}), ["opposed"], "DICE-5", id="opposed, no opponent"),
        pytest.param(
            roll(pool=2, opponent="guard", opposed={"pool": ["DEX", "stealth"]}),
            ["opposed", "pool", 1],
            "unknown Attribute or Skill 'stealth'",
            id="the opponent's unknown skill",
        ),
        pytest.param(
            roll(pool=2, opponent="guard", opposed={"pool": 2, "dice": [1]}, dice=[1, 1]),
            ["opposed", "dice"],
            "too few dice",
            id="the opponent's supplied dice",
        ),
        pytest.param(roll(pool=2, bonus=1), ["bonus"], "Extra inputs", id="an unknown field"),
    ],
)
async def test_DICE_6_bad_rolls_are_refused_with_path_and_change_nothing(
    connect: Connect, payload: dict[str, Any], path: list[Any], needle: str
) -> None:
    peer = await synced(connect)
    before = await peer.state()
    reply = await peer.action(payload)
    assert reply["type"] == "error", reply
    error = reply["payload"]
    assert error["code"] in ("invalid", "not_found")
    assert any(detail["path"] == path for detail in error["details"]), error
    assert needle in error["message"] + " ".join(d["message"] for d in error["details"]), error
    assert await peer.state() == before
    assert (await peer.action(roll(pool=1, dice=[8])))["type"] == "result"  # still serving


async def test_RANK_11_dice_for_the_refused_again_are_too_many(connect: Connect) -> None:
    """The VTT rolled 9-again, but the target is immune: the reroll die is one too many (DICE-6)."""
    peer = await synced(connect, foe=guard(immunities=[{"kind": "9-again"}]))
    before = await peer.state()
    reply = await peer.action(roll(pool=3, again=9, opponent="guard", dice=[9, 8, 1, 1]))
    assert reply["payload"]["code"] == "invalid"
    assert reply["payload"]["message"].startswith("DICE-6: too many dice: a pool of 3 with 10-again")
    assert await peer.state() == before


async def test_RANK_2_a_priced_8_again_immunity_turns_the_rollers_8_again_off(connect: Connect) -> None:
    """The immunity's Rank, given as a price, is kept; 8-again immunity is uncontested (RANK-9), so
    it applies whatever its Rank."""
    peer = await synced(connect, foe=guard(immunities=[{"kind": "8-again", "rank": "DD+1200"}]))
    result = await ruled(peer, roll(pool=3, again=8, opponent="guard", dice=[9, 8, 1]))
    assert result["rolls"][0]["again"] == 10
    immunity = (await peer.state())["actors"]["guard"]["immunities"][0]
    assert (immunity["rank"], immunity["price"]) == ("D", "DD+1200")
