"""The steps detection's rulings and answers write (DET-4, DET-5, DET-8), written by the rules and
checked without a server: a move, a round's count of contests, and `explain`'s answer for a pair."""

from __future__ import annotations

import pytest

from vtt_bridge.rules.common import Step
from vtt_bridge.rules.detection import (
    ROUND_DETAIL_LIMIT,
    moved_step,
    round_steps,
)
from vtt_bridge.rules.steps import STEPS


def declared(step: Step) -> bool:
    """The step's data carries exactly its key's declared fields."""
    return set(step.data) == set(STEPS[step.key].fields) and STEPS[step.key].rule == step.rule


def test_DET_5_a_move_says_where_the_token_went_and_how_many_pairs_changed() -> None:
    step = moved_step("t-elf", 150.0, 250.5, 3.0, 2)
    assert (step.rule, step.key) == ("DET-5", "DET-5.moved")
    assert step.text == "t-elf moved to (150.0, 250.5, elevation 3.0); 2 pairs changed"
    assert step.data == {"token": "t-elf", "changedPairs": 2} and declared(step)
    assert moved_step("t-elf", 0, 0, 0, 1).text.endswith("; 1 pair changed")


@pytest.mark.parametrize(
    ("contests", "changed", "detailed", "lapsed", "keys", "suffix"),
    [
        (0, 0, 0, 0, [], None),  # nothing contested, nothing lapsed: no step
        (0, 0, 0, 3, ["DET-8.lapsed"], None),
        (2, 1, 2, 0, ["DET-8.round"], ""),  # few contests: each is detailed, nothing said about it
        (ROUND_DETAIL_LIMIT, 0, ROUND_DETAIL_LIMIT, 1, ["DET-8.lapsed", "DET-8.round"], ""),
        (ROUND_DETAIL_LIMIT + 1, 4, 4, 0, ["DET-8.round"], "; the 4 that changed are detailed"),
        # many contests, each changed a pair: all are detailed, as those that changed
        (ROUND_DETAIL_LIMIT + 1, 21, 21, 0, ["DET-8.round"], "; the 21 that changed are detailed"),
    ],
)
def test_DET_8_a_round_counts_its_contests_and_the_results_that_lapse(
    contests: int, changed: int, detailed: int, lapsed: int, keys: list[str], suffix: str | None
) -> None:
    steps = round_steps(3, contests, changed, detailed, lapsed)
    assert [s.key for s in steps] == keys
    assert all(s.rule == "DET-8" and declared(s) for s in steps)
    if lapsed:
        assert steps[0].data == {"lapsed": lapsed}
        assert steps[0].text.startswith(f"{lapsed} stage-three results of earlier rounds lapse")
    if suffix is not None:
        summary = steps[-1]
        assert summary.data == {"round": 3, "contests": contests, "changed": changed, "detailed": detailed}
        assert summary.text == (
            f"stage three, round 3: {contests} contest{'s' if contests != 1 else ''}, {changed} changed "
            f"a pair's state{suffix}"
        )
