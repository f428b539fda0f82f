"""RANK-1..8: Rank order, prices, effect Rank, spell and opposed contests, unranked sources, XP table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from vtt_bridge.rules.effects import Effect
from vtt_bridge.rules.iwr import DamageInstance
from vtt_bridge.rules.ranks import (
    DEFAULT_XP_RANK_TABLE,
    Price,
    Priced,
    Rank,
    Spell,
    XpRankTable,
    effect_rank,
    opposed_contest,
    parse_price,
    rank_for_xp,
    source_rank,
    spell_contest,
)


def test_RANK_1_six_ranks_ordered_unranked_below_d_below_s() -> None:
    order = [Rank.UNRANKED, Rank.D, Rank.C, Rank.B, Rank.A, Rank.S]
    assert sorted(reversed(order)) == order
    assert [rank.number for rank in order] == [0, 1, 2, 3, 4, 5]
    assert all(Rank.from_number(rank.number) is rank for rank in order)
    assert Rank.from_number(9) is Rank.S


def test_RANK_1_rank_compares_only_with_rank() -> None:
    with pytest.raises(TypeError):
        _ = Rank.C < 3


@pytest.mark.parametrize(
    ("text", "rank", "points"),
    [
        pytest.param("DD+1200", Rank.D, 1200, id="DD+1200 is two D-Ranks and 1,200 points: D-Rank"),
        pytest.param("C", Rank.C, 0, id="a single letter is that Rank"),
        pytest.param("BB", Rank.B, 0, id="a double Rank counts as the single Rank"),
        pytest.param("SSS+500", Rank.S, 500, id="nothing is above S: SSS is S"),
        pytest.param("DC+10", Rank.C, 10, id="the highest Rank letter in the price is the Rank"),
        pytest.param(" A+0 ", Rank.A, 0, id="surrounding blanks are ignored"),
    ],
)
def test_RANK_2_price_gives_rank_and_reward_points(text: str, rank: Rank, points: int) -> None:
    assert parse_price(text) == Price(rank=rank, reward_points=points)


@pytest.mark.parametrize(
    "text",
    ["", "E", "SS+", "+1200", "D+-5", "d", "DD+12x", "D + 5", "D+1+2", "unranked", "D+1.5"],
)
def test_RANK_2_malformed_price_is_refused_with_a_clear_message(text: str) -> None:
    with pytest.raises(ValueError, match="malformed price") as error:
        parse_price(text)
    assert "D, C, B, A, S" in str(error.value)


@pytest.mark.parametrize(
    ("used", "gained", "expected"),
    [
        pytest.param(Rank.B, Rank.C, Rank.B, id="a C spell heightened to B deals B-Rank condition points"),
        pytest.param(Rank.C, Rank.B, Rank.B, id="the Rank when gained counts when higher"),
        pytest.param(Rank.D, Rank.D, Rank.D, id="equal Ranks stay"),
    ],
)
def test_RANK_3_effect_rank_is_higher_of_used_and_gained(used: Rank, gained: Rank, expected: Rank) -> None:
    assert effect_rank(used, gained) is expected


@pytest.mark.parametrize(
    ("spear", "shield", "winner", "rule"),
    [
        pytest.param(Spell(rank=Rank.B, caster_level=1), Spell(rank=Rank.C, caster_level=20), "spear",
                     "RANK-4", id="a spell uses its own Rank: B beats C whatever the levels"),
        pytest.param(Spell(rank=Rank.C, caster_level=9), Spell(rank=Rank.C, caster_level=5), "spear",
                     "RANK-4", id="same Rank: the higher caster level wins"),
        pytest.param(Spell(rank=Rank.C, caster_level=5), Spell(rank=Rank.C, caster_level=9), "shield",
                     "RANK-4", id="same Rank: the defender's higher caster level wins"),
        pytest.param(Spell(rank=Rank.C, caster_level=5), Spell(rank=Rank.C, caster_level=5), "shield",
                     "RANK-6", id="same Rank and level: the shield wins ties"),
    ],
)  # fmt: skip
def test_RANK_4_spells_compare_rank_then_caster_level(
    spear: Spell, shield: Spell, winner: str, rule: str
) -> None:
    outcome = spell_contest(spear, shield)
    assert (outcome.winner, outcome.rule) == (winner, rule)


@pytest.mark.parametrize(
    ("spear", "shield", "winner"),
    [
        pytest.param(Rank.B, Rank.C, "spear", id="a higher-Rank spear breaks a lower-Rank shield"),
        pytest.param(Rank.C, Rank.C, "shield", id="at the same Rank the shield wins"),
        pytest.param(Rank.C, Rank.B, "shield", id="a higher-Rank shield holds"),
        pytest.param(Rank.UNRANKED, Rank.UNRANKED, "shield", id="unranked against unranked: the shield"),
    ],
)
def test_RANK_6_opposed_abilities_higher_rank_wins_shield_wins_ties(
    spear: Rank, shield: Rank, winner: str
) -> None:
    outcome = opposed_contest(spear, shield)
    assert outcome.winner == winner
    assert outcome.rule == "RANK-6"
    assert str(spear) in outcome.reason or str(shield) in outcome.reason


@pytest.mark.parametrize("source", ["talent", "flaw", "quirk", "basic-combat"])
def test_RANK_7_talents_flaws_quirks_and_basic_combat_are_unranked(source: str) -> None:
    assert source_rank(source, Rank.A) is Rank.UNRANKED


def test_RANK_7_other_abilities_keep_their_price_rank() -> None:
    assert source_rank("bloodline", Rank.A) is Rank.A


@pytest.mark.parametrize(
    ("xp", "rank"),
    [(0, Rank.UNRANKED), (1, Rank.D), (999, Rank.D), (1000, Rank.C), (3000, Rank.B), (6000, Rank.A),
     (10000, Rank.S), (10**9, Rank.S)],
)  # fmt: skip
def test_RANK_8_xp_only_cost_becomes_a_rank_through_the_default_table(xp: int, rank: Rank) -> None:
    assert rank_for_xp(xp) is rank


def test_RANK_8_the_table_is_configuration() -> None:
    table = XpRankTable.model_validate({"thresholds": [{"minXp": 50, "rank": "C"}]})
    assert rank_for_xp(49, table) is Rank.UNRANKED
    assert rank_for_xp(50, table) is Rank.C
    assert rank_for_xp(50) is DEFAULT_XP_RANK_TABLE.thresholds[0].rank


def test_RANK_8_table_must_ascend_and_xp_is_not_negative() -> None:
    with pytest.raises(ValidationError, match="ascend"):
        XpRankTable.model_validate({"thresholds": [{"minXp": 50, "rank": "C"}, {"minXp": 40, "rank": "B"}]})
    with pytest.raises(ValueError, match="negative"):
        rank_for_xp(-1)


@pytest.mark.parametrize("bad", ["E", "SS+", "SS", "s", "", 3])
def test_RANK_1_unknown_rank_is_invalid_and_lists_allowed_values(bad: object) -> None:
    with pytest.raises(ValidationError) as error:
        Spell.model_validate({"rank": bad})
    problem = error.value.errors()[0]
    assert problem["loc"] == ("rank",)
    assert "'unranked'" in problem["msg"] and "'S'" in problem["msg"]


def _priced_classes() -> list[type[Priced]]:
    found: list[type[Priced]] = []
    stack: list[type[Priced]] = [Priced]
    while stack:
        for sub in stack.pop().__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


def test_RANK_2_every_spelling_of_a_priced_field_reaches_keep_prices() -> None:
    """`Priced`'s before-validator passes a payload naming none of its Rank and price fields as it
    is: each spelling of each (the name and the alias) still has its price kept, or its Rank set."""
    classes = _priced_classes()
    assert {DamageInstance, Effect} <= set(classes)
    for cls in classes:
        keep: Callable[[Any], Any] = getattr(cls, "_keep_prices")  # noqa: B009 (the bound validator)
        for rank_keys, price_keys in cls.PRICED.items():
            for key in rank_keys:
                assert keep({key: "DD+1200"}) == {key: "DD+1200", price_keys[0]: "DD+1200"}
            for key in price_keys:
                assert keep({key: "DD+1200"}) == {key: "DD+1200", rank_keys[0]: "DD+1200"}
        plain = {"amount": 1, "grade": "B"}
        assert keep(plain) is plain
