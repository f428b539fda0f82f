"""What detection refuses, decided by the rules without a server (DET-4, DET-6, DET-8, DET-10): each
refusal names its rule id, says why, and points at the field to fix."""

from __future__ import annotations

import pytest

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.detection import (
    APPROXIMATE,
    PINPOINTED,
    UNLOCATED,
    ContestWin,
    LocateState,
    check_contest,
    check_guess_on_scene,
    check_two_tokens,
    guessed_square,
)


def test_DET_4_a_token_is_not_its_own_target() -> None:
    check_two_tokens("observer", "t-elf", "t-goblin", ("target",))
    with pytest.raises(RuleViolation) as caught:
        check_two_tokens("attacker", "t-elf", "t-elf", ("attack", "token"))
    assert (caught.value.rule, caught.value.path) == ("DET-4", ("attack", "token"))
    assert caught.value.message == "an attacker and its target must be two different tokens"


OUT_COLD = "o is unconscious or dead: it spots nothing"

CAN_CONTEST = {
    "conditions": {},
    "anti": True,
    "stage_two": UNLOCATED,
    "capability": PINPOINTED,
    "last": None,
    "round_number": 2,
}
"""An awake observer that has not contested its invisible target this round: it may."""


@pytest.mark.parametrize(
    ("change", "rule", "path", "message"),
    [
        ({"conditions": {"unconscious": True}}, "DET-8", ("observer",), OUT_COLD),
        ({"conditions": {"dead": True}}, "DET-8", ("observer",), OUT_COLD),
        ({"anti": False}, "DET-6", ("target",), "t has no anti-detection: no contest is needed"),
        (
            {"stage_two": APPROXIMATE, "capability": APPROXIMATE},
            "DET-8",
            ("observer",),
            "o already locates t as well as its means allow",
        ),
        (
            {"last": ContestWin(stage_two=LocateState.UNLOCATED, round=2, won=False)},
            "DET-8",
            ("target",),
            "o already contested t in round 2: once per round",
        ),
        # the first reason in the rules' order is the one given
        ({"conditions": {"dead": True}, "anti": False}, "DET-8", ("observer",), OUT_COLD),
    ],
)
def test_DET_6_DET_8_who_may_contest_whom(
    change: dict[str, object], rule: str, path: tuple[str, ...], message: str
) -> None:
    check_contest("o", "t", **CAN_CONTEST)  # type: ignore[arg-type]
    with pytest.raises(RuleViolation) as caught:
        check_contest("o", "t", **{**CAN_CONTEST, **change})  # type: ignore[arg-type]
    assert (caught.value.rule, caught.value.path, caught.value.message) == (rule, path, message)


def test_DET_8_a_contest_of_another_round_or_out_of_combat_does_not_count_against_this_one() -> None:
    lost_before = ContestWin(stage_two=LocateState.UNLOCATED, round=1, won=False)
    check_contest("o", "t", **{**CAN_CONTEST, "last": lost_before})  # type: ignore[arg-type]
    kept = ContestWin(stage_two=LocateState.UNLOCATED, round=0, won=True)
    check_contest("o", "t", **{**CAN_CONTEST, "last": kept, "round_number": 0})  # type: ignore[arg-type]


def test_DET_10_an_attack_that_names_no_token_needs_a_guessed_square() -> None:
    square = (3.0, 4.0)
    assert guessed_square(square, ("attack", "guess")) is square
    with pytest.raises(RuleViolation) as caught:
        guessed_square(None, ("attack", "guess"))
    assert (caught.value.rule, caught.value.path) == ("DET-10", ("attack", "guess"))
    assert caught.value.message == "an attack that names no target token needs a guessed square"


@pytest.mark.parametrize(
    ("x", "y", "width", "height", "inside"),
    [
        (0.0, 0.0, 1000.0, 800.0, True),
        (999.5, 799.5, 1000.0, 800.0, True),
        (1000.0, 10.0, 1000.0, 800.0, False),  # at the width: past the last pixel
        (10.0, 800.0, 1000.0, 800.0, False),
        (-0.5, 10.0, 1000.0, 800.0, False),
        (10.0, -1.0, None, None, False),
        (1e6, 1e6, None, None, True),  # a scene without a size: only the top-left corner bounds it
    ],
)
def test_DET_10_a_guessed_position_lies_on_the_scene(
    x: float, y: float, width: float | None, height: float | None, inside: bool
) -> None:
    if inside:
        check_guess_on_scene(x, y, width, height, ("guess",))
        return
    with pytest.raises(RuleViolation) as caught:
        check_guess_on_scene(x, y, width, height, ("guess",))
    assert (caught.value.rule, caught.value.path) == ("DET-10", ("guess",))
    assert caught.value.message == f"the guessed position ({x}, {y}) is outside the scene"
