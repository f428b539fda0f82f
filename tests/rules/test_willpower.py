"""WP-1..6: the pure Willpower rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.willpower import (
    PERFECT_BONUS,
    Willpower,
    WillpowerUse,
    after_blow,
    change_will,
    check_not_a_modifier,
    check_spender_alive,
    gain,
    lose,
    new_round,
    spend,
    total,
    will,
)


def test_WP_1_will_is_resolve_plus_composure() -> None:
    assert will({"STR": 5, "RES": 3, "COM": 2}) == 5


def test_WP_1_recovery_stops_at_max() -> None:
    outcome = gain(Willpower(max=4, current=3), 5)
    new, recovered = outcome.willpower, outcome.recovered
    assert (new.current, recovered) == (4, 1)
    outcome = gain(new, 1)
    same, recovered = outcome.willpower, outcome.recovered
    assert same is new and recovered == 0


@pytest.mark.parametrize("use", [WillpowerUse.ROLL, WillpowerUse.DEFENSE])
def test_WP_2_one_willpower_buys_a_3_point_perfect_bonus(use: WillpowerUse) -> None:
    outcome = spend(Willpower(max=4, current=4), use, self_aware=True, injured_unconscious=False)
    new, steps = outcome.willpower, outcome.steps
    assert new.current == 3
    assert (
        steps[0].rule == "WP-2" and steps[0].data is not None and steps[0].data["bonus"] == PERFECT_BONUS == 3
    )


def test_WP_2_not_on_extended_rolls() -> None:
    with pytest.raises(RuleViolation) as err:
        spend(
            Willpower(max=4, current=4),
            WillpowerUse.ROLL,
            extended=True,
            self_aware=True,
            injured_unconscious=False,
        )
    assert err.value.rule == "WP-2" and err.value.path == ("extended",)


def test_WP_2_not_while_unconscious() -> None:
    with pytest.raises(RuleViolation) as err:
        spend(Willpower(max=4, current=4), WillpowerUse.ROLL, self_aware=False, injured_unconscious=True)
    assert "self-aware" in err.value.message


def test_WP_2_nothing_to_spend() -> None:
    with pytest.raises(RuleViolation):
        spend(Willpower(max=4, current=0), WillpowerUse.DEFENSE, self_aware=True, injured_unconscious=False)


def test_WP_3_stay_conscious_sets_the_flag_once_per_round() -> None:
    outcome = spend(
        Willpower(max=4, current=2), WillpowerUse.STAY_CONSCIOUS, self_aware=False, injured_unconscious=True
    )
    new, steps = outcome.willpower, outcome.steps
    assert new.kept_conscious and new.current == 1 and steps[0].rule == "WP-3"
    with pytest.raises(RuleViolation):
        spend(new, WillpowerUse.STAY_CONSCIOUS, self_aware=False, injured_unconscious=True)
    assert not new_round(new).kept_conscious
    assert not after_blow(new).kept_conscious


def test_WP_3_stay_conscious_only_when_unconscious_from_injuries() -> None:
    with pytest.raises(RuleViolation):
        spend(
            Willpower(max=4, current=2),
            WillpowerUse.STAY_CONSCIOUS,
            self_aware=True,
            injured_unconscious=False,
        )


def test_WP_3_hunger_once_per_scene() -> None:
    new = spend(
        Willpower(max=4, current=2),
        WillpowerUse.HUNGER,
        scene="s1",
        self_aware=False,
        injured_unconscious=True,
    ).willpower
    assert new.hunger_scene == "s1" and new.current == 1
    with pytest.raises(RuleViolation):
        spend(new, WillpowerUse.HUNGER, scene="s1", self_aware=True, injured_unconscious=False)
    again = spend(new, WillpowerUse.HUNGER, scene="s2", self_aware=True, injured_unconscious=False).willpower
    assert again.current == 0


def test_WP_4_temporary_willpower_is_spent_first_and_lost_first() -> None:
    w = Willpower(max=4, current=2, temporary=2)
    outcome = spend(w, WillpowerUse.ROLL, self_aware=True, injured_unconscious=False)
    spent, steps = outcome.willpower, outcome.steps
    assert (spent.current, spent.temporary) == (2, 1)
    assert steps[0].data is not None and steps[0].data["paidFrom"] == "temporary"
    lost = lose(w, 3).willpower
    assert (lost.current, lost.temporary) == (1, 0)


def test_WP_4_temporary_willpower_does_not_stack_and_is_not_recovery() -> None:
    w = Willpower(max=4, current=0, temporary=3)
    outcome = gain(w, 2, temporary=True)
    same, recovered = outcome.willpower, outcome.recovered
    assert same is w and recovered == 0
    outcome = gain(w, 5, temporary=True)
    higher, recovered = outcome.willpower, outcome.recovered
    assert higher.temporary == 5 and recovered == 0


def test_WP_4_temporary_willpower_above_max_is_allowed_and_counts() -> None:
    w = gain(Willpower(max=1, current=0), 3, temporary=True).willpower
    assert total(w) == 3


def test_WP_5_total_zero_only_without_temporary() -> None:
    assert total(Willpower(max=3, current=0)) == 0
    assert total(Willpower(max=3, current=0, temporary=1)) == 1


def test_WP_5_losing_more_than_held_stops_at_zero() -> None:
    lost = lose(Willpower(max=3, current=2, temporary=1), 1_000_000).willpower
    assert total(lost) == 0


def test_WP_5_losing_the_last_point_knocks_out_only_with_the_setting() -> None:
    held = Willpower(max=3, current=1, temporary=1)
    out = lose(held, 2, unconscious_at_zero=True)
    assert [s.key for s in out.steps] == ["WP-4.lose", "WP-5.unconscious"]
    assert out.steps[1].data == {"unconscious": True}
    assert [s.key for s in lose(held, 2).steps] == ["WP-4.lose"]
    assert [s.key for s in lose(held, 1, unconscious_at_zero=True).steps] == ["WP-4.lose"]
    assert [s.key for s in lose(Willpower(max=3, current=0), 0, unconscious_at_zero=True).steps] == [
        "WP-4.lose",
        "WP-5.unconscious",
    ]


def test_WP_5_falling_to_0_drains_and_only_recovery_lifts_it() -> None:
    """Spent or lost to 0: `drained` holds through temporary Willpower (not recovery, WP-4) until a
    point is recovered."""
    spent = spend(
        Willpower(max=3, current=1), WillpowerUse.ROLL, self_aware=True, injured_unconscious=False
    ).willpower
    assert spent.drained and total(spent) == 0
    lost = lose(Willpower(max=3, current=1, temporary=1), 2).willpower
    assert lost.drained
    assert not lose(Willpower(max=3, current=3), 1).willpower.drained
    outcome = gain(spent, 2, temporary=True)
    lifted, recovered = outcome.willpower, outcome.recovered
    assert lifted.drained and recovered == 0 and total(lifted) == 2
    outcome = gain(lifted, 1)
    back, recovered = outcome.willpower, outcome.recovered
    assert not back.drained and recovered == 1


@pytest.mark.parametrize(
    ("before", "delta", "after"),
    [
        pytest.param((4, 4), 1, (5, 4), id="increase: empty max only"),
        pytest.param((4, 4), -1, (3, 3), id="decrease: current above max is lost"),
        pytest.param((4, 2), -1, (3, 2), id="decrease: current within max stays"),
        pytest.param((2, 2), -5, (0, 0), id="never below 0"),
    ],
)
def test_WP_6_will_changes_move_max_willpower(
    before: tuple[int, int], delta: int, after: tuple[int, int]
) -> None:
    new = change_will(Willpower(max=before[0], current=before[1]), delta).willpower
    assert (new.max, new.current) == after


def test_WP_6_lost_willpower_does_not_come_back() -> None:
    w = change_will(Willpower(max=4, current=4), -1).willpower
    w = change_will(w, 1).willpower
    assert (w.max, w.current) == (4, 3)


@given(st.integers(0, 50), st.integers(0, 50), st.lists(st.integers(-20, 20), max_size=10))
def test_WP_6_current_never_exceeds_max(m: int, c: int, deltas: list[int]) -> None:
    w = Willpower(max=m, current=min(c, m))
    for d in deltas:
        w = change_will(w, d).willpower
        assert 0 <= w.current <= w.max


def test_HEALTH_5_WP_2_the_dead_spend_no_willpower() -> None:
    check_spender_alive(False, ("willpower",))
    with pytest.raises(RuleViolation) as caught:
        check_spender_alive(True, ("opposed", "willpower"))
    assert (caught.value.rule, caught.value.path) == ("HEALTH-5", ("opposed", "willpower"))
    assert caught.value.message == "a dead character spends no Willpower"


def test_WP_2_willpowers_bonus_is_not_a_modifier() -> None:
    check_not_a_modifier("equipment", ("modifiers", 0, "type"))
    with pytest.raises(RuleViolation) as caught:
        check_not_a_modifier("willpower", ("modifiers", 1, "type"))
    assert (caught.value.rule, caught.value.path) == ("WP-2", ("modifiers", 1, "type"))
    assert "`willpower: true`, once per action" in caught.value.message
