"""ROUND: the combat round count, decided without a server: the next round or a restart, nothing else."""

from __future__ import annotations

import pytest

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.rounds import begin_round
from vtt_bridge.rules.steps import STEPS


@pytest.mark.parametrize(
    ("current", "requested", "restarted"),
    [(0, 1, False), (3, 4, False), (3, 1, True), (3, 0, True), (0, 0, True), (1, 1, True), (0, 1, False)],
)
def test_ROUND_a_scene_enters_its_next_round_or_restarts_at_0_or_1(
    current: int, requested: int, restarted: bool
) -> None:
    start = begin_round(current, requested)
    assert (start.round, start.restarted) == (requested, restarted)
    (step,) = start.steps
    assert (step.rule, step.key, step.text) == ("ROUND", "ROUND.begins", f"round {requested} begins")
    assert step.data == {"round": requested} and set(step.data) == set(STEPS[step.key].fields)


@pytest.mark.parametrize(("current", "requested"), [(3, 5), (3, 3), (3, 2), (0, 2)])
def test_ROUND_any_other_round_is_refused(current: int, requested: int) -> None:
    with pytest.raises(RuleViolation) as caught:
        begin_round(current, requested)
    assert (caught.value.rule, caught.value.path) == ("ROUND", ("round",))
    assert caught.value.message == (
        f"the scene is at round {current}: the next round is {current + 1} (0 or 1 restarts)"
    )


def test_ROUND_without_a_scene_there_is_no_round_to_advance() -> None:
    with pytest.raises(RuleViolation) as caught:
        begin_round(None, 1)
    assert (caught.value.rule, caught.value.path) == ("ROUND", ("round",))
    assert "send `sync` with a scene first" in caught.value.message
