"""The steps detection's rulings and answers write (DET-4, DET-5, DET-8), written by the rules and
checked without a server: a move, a round's count of contests, and `explain`'s answer for a pair."""

from __future__ import annotations

import pytest

from vtt_bridge.rules.common import Step
from vtt_bridge.rules.detection import (
    ORDINARY_SENSES,
    ROUND_DETAIL_LIMIT,
    AntiDetectionMeans,
    ContestWin,
    LocateState,
    ObserverProfile,
    explain_locate,
    explain_pair,
    moved_step,
    round_steps,
    standing,
)
from vtt_bridge.rules.steps import STEPS

INVISIBLE = (AntiDetectionMeans(name="invisibility", essence="magical", rank="C"),)


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


def _explain(result: ContestWin | None, *, blinded: bool = False) -> list[Step]:
    """explain for an ordinary human observer 3 scene units from an invisible (magical C) target."""
    stages = explain_locate(ORDINARY_SENSES, INVISIBLE, humanoid=True, blinded=blinded, distance2=9.0)
    profile = ObserverProfile(ORDINARY_SENSES, humanoid=True, blinded=blinded, deafened=False)
    now = standing(stages.state.level, profile.capability, 9.0, True, result)
    return explain_pair(
        "t-guard", "t-thief", stages, now, result, round_number=2, anti=True, distance2=9.0, units="m"
    )


def test_DET_4_explain_answers_first_with_the_state_the_means_and_the_deciding_rule() -> None:
    steps = _explain(None)
    first, distance, last = steps[0], steps[1], steps[-1]
    # stage two: unranked natural sight and hearing against magical C invisibility: unlocated (DET-7)
    assert (first.key, first.rule) == ("DET-4.summary", "DET-4")
    assert first.data == {
        "observer": "t-guard",
        "target": "t-thief",
        "result": "unlocated",
        "means": None,
        "decidedBy": "DET-7",
    }
    assert first.text == "t-guard locates t-thief unlocated: DET-7"
    assert (distance.key, distance.data["distance"], distance.data["units"]) == ("DET-5.distance", 3.0, "m")
    assert distance.text == "t-guard → t-thief: distance 3.00 m (3D, elevation included)"
    assert [s.key for s in steps[2:-1]][-1] == "DET-8.noWin"  # stage three: no standing win
    assert (last.key, last.text) == ("DET-4.locate", "t-guard locates t-thief: unlocated")
    assert all(declared(s) for s in steps)
    assert all(s.data["observer"] == "t-guard" and s.data["target"] == "t-thief" for s in steps)


def test_DET_4_DET_8_a_standing_win_decides_the_answer() -> None:
    won = ContestWin(stage_two=LocateState.UNLOCATED, round=2, won=True)
    steps = _explain(won)
    assert steps[0].data["result"] == "approximate" and steps[0].data["decidedBy"] == "DET-8"
    assert steps[0].text == "t-guard locates t-thief approximate: DET-8"
    assert [s.key for s in steps][-2:] == ["DET-8.won", "DET-4.locate"]
    assert steps[-1].data["result"] == "approximate"
    # a win against another stage two is stale: it raises nothing and the stages decide again
    stale = _explain(ContestWin(stage_two=LocateState.APPROXIMATE, round=2, won=True))
    assert stale[0].data["decidedBy"] == "DET-7" and stale[-1].data["result"] == "unlocated"


def test_DET_4_the_best_means_leads_the_answer_when_one_locates() -> None:
    stages = explain_locate(ORDINARY_SENSES, (), humanoid=True, distance2=0.0)
    profile = ObserverProfile(ORDINARY_SENSES, humanoid=True, blinded=False, deafened=False)
    now = standing(stages.state.level, profile.capability, 0.0, False, None)
    steps = explain_pair("o", "t", stages, now, None, round_number=0, anti=False, distance2=0.0, units="ft")
    assert steps[0].text == "o locates t pinpointed: sight, DET-6"
    assert steps[0].data["means"] == "sight" and steps[0].data["decidedBy"] == "DET-6"
