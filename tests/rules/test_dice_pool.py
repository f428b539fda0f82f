"""DICE-1/3/4/7 and HEALTH-7 in the pure pool builder and roll explanation (`rules.dice`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.dice import (
    MAX_POOL,
    NO_AGAIN,
    PERFECT,
    Bonus,
    SuppliedDice,
    add_willpower,
    check_pool_size,
    counted_bonuses,
    dice_pool,
    pool_traits,
    roll_pool,
    roll_steps,
    stack_bonuses,
)


def test_DICE_4_counted_bonuses_keep_the_highest_of_a_type_the_first_of_equals() -> None:
    first, second = Bonus(2, "equipment"), Bonus(2, "equipment")
    bonuses = [first, Bonus(1, "equipment"), second, Bonus(1, PERFECT), Bonus(-1, "circumstance")]
    kept = counted_bonuses(bonuses)
    assert kept == (first, bonuses[3], bonuses[4]) and kept[0] is first


@given(st.lists(st.builds(Bonus, st.integers(-10, 10), st.sampled_from(["a", "b", PERFECT])), max_size=12))
def test_DICE_4_counted_bonuses_sum_to_the_stacked_total(bonuses: list[Bonus]) -> None:
    assert sum(b.value for b in counted_bonuses(bonuses)) == stack_bonuses(bonuses)


def test_DICE_1_dice_pool_sums_traits_modifiers_willpower_and_the_wound_penalty() -> None:
    bonuses = add_willpower([Bonus(2, "equipment"), Bonus(1, "equipment"), Bonus(1, PERFECT, "aid")])
    outcome = dice_pool([("DEX", 3), ("stealth", 2)], bonuses, wound_penalty=2)
    pool, steps = outcome.pool, outcome.steps
    assert pool == 5 + 2 + 1 + 3 - 2
    assert [s.rule for s in steps] == ["DICE-1", "DICE-4", "DICE-7", "HEALTH-7", "DICE-1"]
    assert steps[1].data is not None and steps[1].data["total"] == 3
    assert [m["counted"] for m in steps[1].data["modifiers"]] == [True, False, True]
    assert steps[-1].data == {"pool": pool}


def test_DICE_1_a_pool_below_zero_rolls_nothing() -> None:
    outcome = dice_pool([("dice", 1)], [Bonus(-3, "circumstance")])
    pool, steps = outcome.pool, outcome.steps
    assert pool == -2 and steps[-1].data == {"pool": 0}
    assert roll_pool(pool, SuppliedDice([])).dice == ()


@pytest.mark.parametrize(("dice", "extra", "total"), [([8, 1], 2, 3), ([1, 1], 2, 0)])
def test_DICE_3_roll_steps_count_extra_successes_only_on_a_success(
    dice: list[int], extra: int, total: int
) -> None:
    roll = roll_pool(2, SuppliedDice(dice))
    *_, last = roll_steps(roll, supplied=True, extra=extra)
    assert last.rule == "DICE-3" and last.data is not None and last.data["total"] == total


def test_DICE_2_roll_steps_say_no_rerolls_without_again() -> None:
    roll = roll_pool(2, SuppliedDice([10, 10]), NO_AGAIN)
    first, rolled = roll_steps(roll, supplied=False)
    assert first.data == {"again": None, "rerolls": 0}
    assert rolled.rule == "DICE-1" and rolled.data is not None and rolled.data["successes"] == 2


ATTRIBUTES = {"STR": 0, "DEX": 3, "PER": 2}
"""A few Attributes, each with its dots (0: the actor has none)."""


def test_DICE_1_a_pool_is_its_traits_dots_attributes_and_skills_in_the_pools_order() -> None:
    traits = pool_traits(("stealth", "DEX", "STR"), ATTRIBUTES, {"stealth": 2, "athletics": 1}, ())
    assert traits == [("stealth", 2), ("DEX", 3), ("STR", 0)]


@pytest.mark.parametrize(
    ("pool", "index", "message"),
    [
        (
            ("DEX", "flying"),
            1,
            "unknown Attribute or Skill 'flying'; allowed: STR, DEX, PER, athletics, stealth",
        ),
        (("DEX", "stealth", "DEX"), 2, "'DEX' is named twice in the pool"),
        (("stealth", "stealth"), 1, "'stealth' is named twice in the pool"),
    ],
)
def test_DICE_1_an_unknown_trait_or_one_named_twice_is_refused_at_its_place(
    pool: tuple[str, ...], index: int, message: str
) -> None:
    with pytest.raises(RuleViolation) as caught:
        pool_traits(pool, ATTRIBUTES, {"stealth": 2, "athletics": 1}, ("opposed",))
    assert (caught.value.rule, caught.value.path, caught.value.message) == (
        "DICE-1",
        ("opposed", "pool", index),
        message,
    )


def test_DICE_1_a_roll_rolls_at_most_MAX_POOL_dice_its_modifiers_counted() -> None:
    check_pool_size(MAX_POOL, ())
    with pytest.raises(RuleViolation) as caught:
        check_pool_size(MAX_POOL + 1, ("opposed",))
    assert (caught.value.rule, caught.value.path) == ("DICE-1", ("opposed", "modifiers"))
    assert caught.value.message == (
        f"the dice pool after its modifiers is {MAX_POOL + 1} dice; a roll rolls at most {MAX_POOL}"
    )
