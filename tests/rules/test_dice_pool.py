"""DICE-1/3/4/7 and HEALTH-7 in the pure pool builder and roll explanation (`rules.dice`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vtt_bridge.rules.dice import (
    NO_AGAIN,
    PERFECT,
    Bonus,
    SuppliedDice,
    add_willpower,
    counted_bonuses,
    dice_pool,
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
