"""Detection queries (`actions/detection/queries.py`): `explain` (DET-7, DET-8, DET-4), and the
registry of the module's actions and queries."""

from __future__ import annotations

import pytest

from tests.actions.helpers import contest_dice, run_contest
from tests.detection_scenes import (
    ASSASSIN,
    GUARD,
    scene_tavern,
    world,
)
from vtt_bridge.actions.detection import ACTIONS, QUERIES
from vtt_bridge.actions.detection.queries import ExplainQuery, explain, explain_query
from vtt_bridge.document.models import NotFound
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.rules.common import RuleViolation


def test_DET_7_explain_walks_the_rules_and_agrees_with_the_matrix() -> None:
    state = scene_tavern()
    for observer in state.tokens:
        for target in state.tokens:
            if observer != target:
                steps = explain(state, observer, target, VisibilityIndex())
                assert steps[-1].rule == "DET-4"
                assert steps[-1].data is not None and steps[-1].key == "DET-4.locate"
                assert steps[-1].data["result"] == state.visibility[observer][target].value
                assert (steps[-1].data["observer"], steps[-1].data["target"]) == (observer, target)
                summary = steps[0].data
                assert steps[0].key == "DET-4.summary" and summary is not None
                assert summary == {**steps[-1].data, "decidedBy": summary["decidedBy"]}
    answer = QUERIES["explain"][1](
        state, ExplainQuery(kind="explain", observer="dog", target="assassin"), VisibilityIndex()
    )
    assert answer["locate"] == "approximate"
    assert any(step["rule"] == "DET-2" for step in answer["log"])


def test_DET_8_explain_shows_a_standing_win() -> None:
    state = run_contest(scene_tavern(), "guard", "assassin", contest_dice([8] * 5, [1] * 13)).state
    answer = explain_query(
        state, ExplainQuery(kind="explain", observer="guard", target="assassin"), VisibilityIndex()
    )
    assert answer["locate"] == "approximate"
    assert [s["rule"] for s in answer["log"]][-2:] == ["DET-8", "DET-4"]


def test_DET_8_explain_shows_a_kept_loss_and_whether_it_was_this_rounds_contest() -> None:
    state = world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2)}, round=2)
    lost = run_contest(state, "guard", "assassin", contest_dice([1] * 5, [8] + [1] * 12)).state
    query = ExplainQuery(kind="explain", observer="guard", target="assassin")
    step = explain_query(lost, query, VisibilityIndex())["log"][-2]
    assert step["rule"] == "DET-8"
    assert step["key"] == "DET-8.lostThisRound"
    assert step["data"] == {
        "observer": "guard",
        "target": "assassin",
        "lostIn": 2,
        "result": "unlocated",
        "thisRound": True,
    }
    assert step["text"].endswith("no other contest this round")
    later = lost.model_copy(
        update={"scene": lost.scene.model_copy(update={"round": 3}) if lost.scene else None}
    )
    step = explain_query(later, query, VisibilityIndex())["log"][-2]
    assert step["data"] == {
        "observer": "guard",
        "target": "assassin",
        "lostIn": 2,
        "result": "unlocated",
        "thisRound": False,
    }
    run_contest(later, "guard", "assassin")  # a loss of an earlier round does not refuse this one


def test_DET_4_explain_of_an_unknown_or_same_token() -> None:
    state = scene_tavern()
    with pytest.raises(NotFound):
        explain(state, "nobody", "guard", VisibilityIndex())
    with pytest.raises(RuleViolation):
        explain(state, "guard", "guard", VisibilityIndex())


def test_DET_8_the_module_registers_its_actions_and_queries() -> None:
    assert set(ACTIONS) == {"move", "contest", "pinLocate", "releaseLocate", "approveReveal"} and set(
        QUERIES
    ) == {
        "explain",
        "attackCheck",
        "pins",
    }
