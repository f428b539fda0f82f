"""Attack resolution (`actions/attack.py`, DET-10): what an attack counts for against a target the
attacker has located, approximately located or not at all."""

from __future__ import annotations

from typing import Any

import pytest

from tests.actions.helpers import contest_dice, run_contest
from tests.detection_scenes import (
    scene_tavern,
)
from vtt_bridge.actions.attack import AttackCheckQuery, attack_check
from vtt_bridge.document.visibility import VisibilityIndex


@pytest.mark.parametrize(
    ("attacker", "spell", "expected"),
    [
        ("wizard", None, {"locate": "pinpointed", "successes": 5, "extraSuccesses": 3, "effectPoints": 7}),
        ("dog", None, {"locate": "approximate", "successes": 2, "extraSuccesses": 1, "halved": True}),
        ("dog", "targeted", {"spellAllowed": True, "spellChance": 0.5, "successes": 5}),
        ("guard", None, {"locate": "unlocated", "guessedPositionOnly": True, "successes": 2}),
        ("guard", "targeted", {"spellAllowed": False, "spellChance": 0.0}),
        ("guard", "area", {"spellAllowed": True, "spellChance": 1.0}),
    ],
)
def test_DET_10_attack_check_applies_the_attackers_locate_state(
    attacker: str, spell: str | None, expected: dict[str, Any]
) -> None:
    query = AttackCheckQuery.model_validate(
        {"kind": "attackCheck", "attacker": attacker, "target": "assassin", "successes": 5,
         "extraSuccesses": 3, "effectPoints": 7, "spell": spell}
    )  # fmt: skip
    state = scene_tavern()
    answer = attack_check(state, query, VisibilityIndex())
    assert {k: answer[k] for k in expected} == expected
    assert answer["log"][-1]["rule"] == "DET-10"
    assert state is scene_tavern() or state.visibility == scene_tavern().visibility


def test_DET_10_attack_check_counts_a_standing_win() -> None:
    state = run_contest(scene_tavern(), "guard", "assassin", contest_dice([8] * 5, [1] * 13)).state
    query = AttackCheckQuery(kind="attackCheck", attacker="guard", target="assassin", successes=4)
    assert attack_check(state, query, VisibilityIndex())["locate"] == "approximate"
