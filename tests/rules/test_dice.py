"""DICE-1..7: pools, n-again, extra successes, stacking contest modifiers, opposed rolls, supplied
dice, Willpower's bonus."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.detection import ContestModifier, contest
from vtt_bridge.rules.dice import (
    SuppliedDice,
    active_wins,
    active_wins_each,
    check_opponent,
    kept_extra_successes,
    opposed,
    opposed_step,
    result_step,
    roll_pool,
    roll_pools,
    roll_supplied,
)
from vtt_bridge.rules.willpower import PERFECT_BONUS, Willpower, WillpowerUse, spend


def test_DICE_1_each_die_of_8_or_more_is_a_success() -> None:
    roll = roll_pool(5, SuppliedDice([1, 7, 8, 9, 3]))
    assert roll.successes == 2 and roll.dice == (1, 7, 8, 9, 3)


@pytest.mark.parametrize(
    ("again", "dice", "successes"),
    [
        pytest.param(10, [10, 10, 2, 5], 2, id="10-again: each 10 adds a die, which can add more"),
        pytest.param(9, [9, 10, 1, 1], 2, id="9-again: 9s and 10s add a die"),
        pytest.param(8, [8, 1, 1], 1, id="8-again: 8s add a die"),
        pytest.param(11, [10, 4], 1, id="no rerolls at all"),
    ],
)
def test_DICE_2_again_adds_dice(again: int, dice: list[int], successes: int) -> None:
    roll = roll_pool(2, SuppliedDice(dice), again)
    assert roll.dice == tuple(dice) and roll.successes == successes


def test_DICE_2_again_must_be_8_9_10_or_none() -> None:
    with pytest.raises(ValueError, match="again"):
        roll_pool(2, SuppliedDice([1, 1]), again=7)


@pytest.mark.parametrize(
    ("dice", "extra", "expected"),
    [
        pytest.param([8, 1], 2, 2, id="a roll with a success gains the extra successes"),
        pytest.param([1, 2], 2, 0, id="a roll without a success gains none"),
    ],
)
def test_DICE_3_extra_successes_only_on_a_success(dice: list[int], extra: int, expected: int) -> None:
    assert kept_extra_successes(roll_pool(2, SuppliedDice(dice)).successes, extra) == expected


def test_DICE_4_where_a_rule_says_all_modifiers_stack_the_detection_contest_sums_them() -> None:
    modifiers = [
        ContestModifier("observer", 2, "sound"),
        ContestModifier("observer", 2, "moved"),
        ContestModifier("observer", -2, "noisy"),
        ContestModifier("hider", 10, "invisible"),
    ]
    outcome = contest(3, 1, modifiers, SuppliedDice([1] * 5), SuppliedDice([1] * 11))
    assert (outcome.observer_pool, outcome.hider_pool) == (3 + 2 + 2 - 2, 1 + 10)


@pytest.mark.parametrize(
    ("active", "passive", "wins"),
    [
        pytest.param(3, 2, True, id="more successes than the DC succeed"),
        pytest.param(2, 2, True, id="at least the opponent's successes succeed"),
        pytest.param(0, 0, False, id="the active side needs at least one success"),
        pytest.param(1, 3, False, id="fewer successes than the DC fail"),
    ],
)
def test_DICE_5_opposed_roll(active: int, passive: int, wins: bool) -> None:
    assert active_wins(active, passive) is wins
    outcome = opposed(active, passive)
    assert outcome.active_wins is wins and outcome.dc == passive


@given(st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300)), max_size=40), st.booleans())
def test_DICE_5_every_pair_of_a_round_is_the_opposed_roll(pairs: list[tuple[int, int]], small: bool) -> None:
    """DICE-5 over many pairs at once (`active_wins_each`, a byte a pair): each is `active_wins` of
    its pair, with successes below 256 (two-byte lanes of one big-integer sum) and past it."""
    if small:
        pairs = [(active % 256, passive % 256) for active, passive in pairs]
    successes = [count for pair in pairs for count in pair]
    assert list(active_wins_each(successes)) == [int(active_wins(a, p)) for a, p in pairs]
    edges = [(0, 0), (1, 0), (0, 1), (1, 1), (255, 255), (255, 0), (0, 255), (254, 255), (255, 254)]
    assert list(active_wins_each([n for pair in edges for n in pair])) == [
        int(active_wins(a, p)) for a, p in edges
    ]


@pytest.mark.parametrize(
    ("pool", "again", "dice"),
    [
        pytest.param(3, 10, [1, 8, 9], id="exactly the pool when nothing rerolls"),
        pytest.param(2, 10, [10, 10, 3, 8], id="one more die per 10 (10-again)"),
        pytest.param(2, 8, [8, 9, 1, 1], id="one more die per 8+ (8-again)"),
        pytest.param(0, 10, [], id="an empty pool takes no dice"),
    ],
)
def test_DICE_6_supplied_dice_that_fit_the_pool_are_used_exactly(
    pool: int, again: int, dice: list[int]
) -> None:
    roll = roll_supplied(pool, dice, again)
    assert roll.dice == tuple(dice)


@pytest.mark.parametrize(
    ("pool", "again", "dice", "path", "message"),
    [
        pytest.param(2, 10, [11, 3], ("dice", 0), "1..10", id="a die above 10"),
        pytest.param(2, 10, [3, 0], ("dice", 1), "1..10", id="a die of 0"),
        pytest.param(2, 10, [3, -2], ("dice", 1), "1..10", id="a negative die"),
        pytest.param(3, 10, [3, 4], ("dice",), "too few", id="fewer dice than the pool"),
        pytest.param(2, 10, [10, 4], ("dice",), "too few", id="a 10 without its reroll"),
        pytest.param(2, 10, [3, 4, 5], ("dice",), "too many", id="more dice than the pool"),
        pytest.param(2, 11, [10, 4, 5], ("dice",), "too many", id="a reroll where none is allowed"),
    ],
)
def test_DICE_6_supplied_dice_that_do_not_fit_are_refused(
    pool: int, again: int, dice: list[int], path: tuple[str | int, ...], message: str
) -> None:
    with pytest.raises(RuleViolation, match=message) as error:
        roll_supplied(pool, dice, again)
    assert error.value.path == path and error.value.rule == "DICE-6"


def test_DICE_6_supplied_dice_run_out() -> None:
    with pytest.raises(RuleViolation, match="too few") as error:
        roll_pool(3, SuppliedDice([1, 2]))
    assert error.value.rule == "DICE-6"


@given(
    pool=st.integers(min_value=0, max_value=12),
    again=st.sampled_from([8, 9, 10, 11]),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_DICE_6_any_roll_replayed_as_supplied_dice_gives_the_same_roll(
    pool: int, again: int, seed: int
) -> None:
    rng = random.Random(seed)
    engine = roll_pool(pool, SuppliedDice([rng.randint(1, 10) for _ in range(60)]), again)
    assert roll_supplied(pool, engine.dice, again) == engine


def test_DICE_7_willpower_adds_three_perfect_dice_to_a_roll() -> None:
    steps = spend(
        Willpower(max=2, current=2), WillpowerUse.ROLL, self_aware=True, injured_unconscious=False
    ).steps
    assert PERFECT_BONUS == 3 and steps[0].data is not None and steps[0].data["bonus"] == 3


class _Faces:
    """A `FaceSource` over fixed dice: `faces` and `d10` read the same stream."""

    def __init__(self, dice: list[int]) -> None:
        self._dice = bytes(dice)
        self._at = 0

    def faces(self, count: int) -> bytes:
        out = self._dice[self._at : self._at + count]
        assert len(out) == count, "the roll asked for more dice than the stream holds"
        self._at += count
        return out

    def d10(self) -> int:
        return self.faces(1)[0]


@given(
    st.integers(0, 12),
    st.sampled_from([8, 9, 10, 11]),
    st.lists(st.integers(1, 10), min_size=80, max_size=80),
)
def test_DICE_2_a_pool_rolled_in_blocks_is_the_pool_rolled_die_by_die(
    pool: int, again: int, dice: list[int]
) -> None:
    """DICE-1/2: counting a block of faces (`FaceSource.faces`) gives the roll `d10` one by one gives."""
    by_block = roll_pool(pool, _Faces(dice), again)
    one_by_one = roll_pool(pool, SuppliedDice(dice), again)
    assert by_block == one_by_one


@given(
    st.lists(st.integers(-2, 14), max_size=12),
    st.sampled_from([8, 9, 10, 11]),
    st.integers(0, 2**32),
)
def test_DICE_2_pools_rolled_together_are_the_pools_rolled_one_by_one(
    pools: list[int], again: int, seed: int
) -> None:
    """DICE-1/2: `roll_pools` gives each pool the roll `roll_pool` gives it, from the same stream
    (a seeded roller's next die after the pools is the same), from a `FaceSource` or die by die."""
    from vtt_bridge.engine.roller import SeededRoller

    together, alone = SeededRoller(seed), SeededRoller(seed)
    rolled = roll_pools(pools, together, again)
    one_by_one = [roll_pool(pool, alone, again) for pool in pools]
    assert [rolled.roll(i) for i in range(len(pools))] == one_by_one
    assert list(rolled.successes) == [roll.successes for roll in one_by_one]
    assert together.d10() == alone.d10()
    rng = random.Random(seed)
    dice = [rng.randint(1, 10) for _ in range(1000)]
    supplied = roll_pools(pools, SuppliedDice(dice), again)
    assert [supplied.roll(i) for i in range(len(pools))] == [
        roll_pool(pool, stream, again) for stream in [_Faces(dice)] for pool in pools
    ]


def test_DICE_2_a_round_of_many_pools_rolled_together_is_the_pools_rolled_one_by_one() -> None:
    """DICE-1/2: `roll_pools` over more pools than one of its C loops takes (`_CHUNK`), 8- and
    10-again, some pools empty: each pool's roll as `roll_pool` gives it from the same stream."""
    from vtt_bridge.engine.roller import SeededRoller
    from vtt_bridge.rules import dice

    rng = random.Random(5)
    pools = [rng.choice([-1, 0, 1, 3, 5, 13, 15]) for _ in range(2 * dice._CHUNK + 7)]
    for again in (8, 10):
        together, alone = SeededRoller(9), SeededRoller(9)
        rolled = roll_pools(pools, together, again)
        one_by_one = [roll_pool(pool, alone, again) for pool in pools]
        assert list(rolled.successes) == [roll.successes for roll in one_by_one]
        assert [rolled.roll(i) for i in (0, dice._CHUNK - 1, dice._CHUNK, len(pools) - 1)] == [
            one_by_one[i] for i in (0, dice._CHUNK - 1, dice._CHUNK, len(pools) - 1)
        ]
        assert together.d10() == alone.d10()


@pytest.mark.parametrize("tens", [255, 256, 300, 512])
def test_DICE_2_a_pool_with_hundreds_of_rerolls_rolled_together_is_rolled_one_by_one(tens: int) -> None:
    """DICE-2: `roll_pools` counts each pool's adding dice mod 256 and checks their sum; a pool that
    rolls 256 or more of them (a run of tens) still gets exactly the roll `roll_pool` gives it."""
    dice = [10] * tens + [3, 8, 10, 9, 1, 10, 10, 2]
    pools = [1, 0, 2, 2]
    rolled = roll_pools(pools, _Faces(dice), 10)
    stream = _Faces(dice)
    assert [rolled.roll(i) for i in range(len(pools))] == [roll_pool(pool, stream, 10) for pool in pools]
    assert list(rolled.successes) == [tens, 0, 3, 2]


@pytest.mark.parametrize("again", [8, 10, 11])
def test_DICE_2_big_pools_rolled_together_are_the_pools_rolled_one_by_one(again: int) -> None:
    """DICE-1/2: pools of 128 dice or more (their ends found another way, by a search per pool)
    beside small ones: each pool's roll as `roll_pool` gives it from the same stream."""
    from vtt_bridge.engine.roller import SeededRoller

    for pools in ([130, 3, 0, 200, 1], list(range(12)) * 3):
        together, alone = SeededRoller(11), SeededRoller(11)
        rolled = roll_pools(pools, together, again)
        one_by_one = [roll_pool(pool, alone, again) for pool in pools]
        assert [rolled.roll(i) for i in range(len(pools))] == one_by_one
        assert list(rolled.successes) == [roll.successes for roll in one_by_one]
        assert together.d10() == alone.d10()


def test_DICE_5_an_opposed_roll_names_another_actor_and_explains_its_dc() -> None:
    with pytest.raises(RuleViolation) as itself:
        check_opponent("a", "a", opposed=False)
    assert itself.value.rule == "DICE-5" and itself.value.path == ("opponent",)
    with pytest.raises(RuleViolation) as unnamed:
        check_opponent("a", None, opposed=True)
    assert unnamed.value.path == ("opposed",)
    check_opponent("a", "b", opposed=True)
    check_opponent("a", None, opposed=False)
    met = opposed_step("a", "b", 2, 2)
    assert (met.key, met.text) == ("DICE-5.opposed", "opposed roll: 2 successes meet DC 2")
    assert met.data == {"actor": "a", "opponent": "b", "successes": 2, "dc": 2, "wins": True}
    assert opposed_step("a", "b", 0, 0).data["wins"] is False


def test_DICE_1_a_plain_roll_result_names_its_successes_and_a_failure() -> None:
    failed = result_step("a", 0)
    assert (failed.key, failed.text) == ("DICE-1.result", "0 successes (a failure)")
    assert failed.data == {"actor": "a", "successes": 0, "wins": False}
    one = result_step("a", 1)
    assert one.text == "1 success" and one.data["wins"] is True
