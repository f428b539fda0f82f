"""The steps detection's rulings and answers write (DET-4, DET-5, DET-8), written by the rules and
checked without a server: a move, a round's count of contests, and `explain`'s answer for a pair."""

from __future__ import annotations

from vtt_bridge.rules.common import Step
from vtt_bridge.rules.detection import (
    moved_step,
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
