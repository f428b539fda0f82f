"""The round's contests (DET-8, `actions/detection/round.py`): once per round, every observer that has
not pinpointed contests; results hold until the next round's contests."""

from __future__ import annotations

import pytest

from tests.actions.helpers import contest_dice, run_contest
from tests.detection_scenes import (
    ASSASSIN,
    DOG,
    GUARD,
    A,
    P,
    U,
    ctx,
    recompute_visibility,
    scene_tavern,
    world,
)
from vtt_bridge.actions import Context
from vtt_bridge.actions.detection.handlers import ContestAction, contest_action
from vtt_bridge.actions.detection.round import round_contests
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.detection import ROUND_DETAIL_LIMIT
from vtt_bridge.rules.dice import SuppliedDice


def test_DET_8_a_result_holds_until_the_next_rounds_contests_and_lapses_without_one() -> None:
    """'Once per round': the guard's round-1 win holds through round 1; in round 2 the guard, out
    cold, runs no contest, so the win lapses and, awake again, the guard has only its stage two."""
    state = world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2)}, round=1)
    won = run_contest(state, "guard", "assassin", contest_dice([8, 8, 1, 1, 1], [8] + [1] * 12)).state
    assert won.visibility["guard"]["assassin"] is A and won.contests["guard"]["assassin"].round == 1
    out = GUARD.model_copy(update={"conditions": {"unconscious": True}})
    knocked = won.model_copy(
        update={
            "actors": {**won.actors, "a-guard": out},
            "scene": won.scene.model_copy(update={"round": 2}) if won.scene else None,
        }
    )
    ruling = round_contests(knocked, ctx(3))
    assert ruling.state.contests == {}
    assert ruling.state.visibility["guard"]["assassin"] is U
    assert [s.data for s in ruling.log if s.data and "lapsed" in s.data] == [{"lapsed": 1}]
    assert ruling.state.visibility == recompute_visibility(ruling.state)


def test_DET_8_the_rounds_own_contest_won_or_lost_is_the_pairs_contest_of_the_round() -> None:
    """A loss of the round's own contests is kept like a win (raising nothing), so no on-demand
    contest follows either in the same round; the next round's contests replace both."""
    state = world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2)}, round=2)
    outcomes = set()
    for seed in range(1, 60):
        ruled = round_contests(state, ctx(seed)).state
        kept = ruled.contests["guard"]["assassin"]
        assert (kept.round, kept.stage_two) == (2, U)
        assert (ruled.visibility["guard"]["assassin"] is A) is kept.won
        with pytest.raises(RuleViolation, match="once per round") as refused:
            run_contest(ruled, "guard", "assassin")
        assert refused.value.rule == "DET-8"
        outcomes.add(kept.won)
        if outcomes == {True, False}:
            break
    assert outcomes == {True, False}


def test_DET_8_once_per_round_every_observer_that_has_not_pinpointed_contests() -> None:
    state = scene_tavern()
    ruling = round_contests(state, ctx(3))
    contested = {
        (d["observerPool"], d["hiderPool"])
        for s in ruling.log
        if s.rule == "DET-8" and (d := s.data) and "observerPool" in d
    }
    # guard: unlocated, 5 vs 13 (+10 invisible); dog: approximate by hearing, its sight could
    # pinpoint: 1 vs 3; the wizard pinpoints in stage two: no contest.
    assert contested == {(5, 13), (1, 3)}
    assert len(ruling.rolls) == 4
    assert ruling.log[0].rule == "DET-8" and ruling.log[0].data is not None
    assert ruling.log[0].data["contests"] == 2 and ruling.log[0].data["detailed"] == 2
    assert ruling.state.visibility == recompute_visibility(ruling.state)


@pytest.mark.parametrize("condition", ["unconscious", "dead"])
def test_DET_8_an_unconscious_or_dead_observer_makes_no_contest(condition: str) -> None:
    """HEALTH-3/5: the guard out cold spots nothing: the round leaves it out, an on-demand contest is
    refused; its stage one and two stand (they describe its means)."""
    out = GUARD.model_copy(update={"conditions": {condition: True}})
    state = world({"guard": (out, 0), "assassin": (ASSASSIN, 2), "dog": (DOG, 6)})
    ruling = round_contests(state, ctx(3))
    observers = {
        s.text.split(" ")[0] for s in ruling.log if s.rule == "DET-8" and s.data and "observerPool" in s.data
    }
    assert observers == {"dog"}
    with pytest.raises(RuleViolation, match="spots nothing") as refused:
        contest_action(state, ContestAction(kind="contest", observer="guard", target="assassin"), ctx())
    assert refused.value.path == ("observer",)
    assert state.visibility["guard"]["dog"] is P


def test_DET_8_a_crowded_round_details_only_the_contests_that_changed_a_pair() -> None:
    cast = {f"guard{i}": (GUARD, i % 5) for i in range(ROUND_DETAIL_LIMIT + 10)}
    state = world({**cast, "assassin": (ASSASSIN, 2)})
    ruling = round_contests(state, ctx(7))
    (summary,) = [s for s in ruling.log if s.rule == "DET-8" and s.data and "contests" in s.data]
    assert summary.data is not None
    assert summary.data["contests"] == ROUND_DETAIL_LIMIT + 10  # every guard contests the assassin
    changed = [
        o for o in cast if ruling.state.visibility[o]["assassin"] is not state.visibility[o]["assassin"]
    ]
    assert summary.data["changed"] == summary.data["detailed"] == len(changed) > 0
    detailed = [s for s in ruling.log if s.rule == "DET-8" and s.data and "observerPool" in s.data]
    assert len(detailed) == len(changed) and len(ruling.rolls) == 2 * len(changed)
    assert ruling.state.visibility == recompute_visibility(ruling.state)


def test_DET_8_the_next_rounds_contest_replaces_the_last_result() -> None:
    state = world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2)})
    won = round_contests(state, Context(roller=SuppliedDice([8] * 5 + [1] * 13))).state
    assert won.visibility["guard"]["assassin"] is A
    # this round the assassin is approximately located: no +10, DEX 2 + Stealth 1 = 3 dice
    lost = round_contests(won, Context(roller=SuppliedDice([1] * 5 + [8] * 3))).state
    assert lost.visibility["guard"]["assassin"] is U and lost.contests == {}
