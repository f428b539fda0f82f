"""PIN and DET-8: the GM's pins on locate states and answers to held reveals, decided and explained
without a server."""

from __future__ import annotations

import pytest

from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.pins import (
    check_pin_round,
    held_step,
    pin_explained_step,
    pinned_step,
    released_step,
    restart_ended_step,
    reveal_answered_step,
)
from vtt_bridge.rules.steps import STEPS


def test_PIN_a_pin_through_a_round_already_past_is_refused() -> None:
    with pytest.raises(RuleViolation) as caught:
        check_pin_round(2, 3)
    assert caught.value.rule == "PIN"
    assert caught.value.path == ("until", "round")
    check_pin_round(3, 3)
    check_pin_round(None, 7)


def test_PIN_the_pinned_step_names_the_pair_the_state_and_the_moment() -> None:
    step = pinned_step(None, "t-goblin", "pinpointed", {"round": 4}, "")
    assert (step.rule, step.key) == ("PIN", "PIN.pinned")
    assert step.text == "the GM pins how every observer locates t-goblin: pinpointed until the end of round 4"
    assert step.data == {
        "observer": None,
        "target": "t-goblin",
        "state": "pinpointed",
        "until": {"round": 4},
        "by": "",
    }
    assert set(step.data) <= set(STEPS[step.key].fields) | set(STEPS[step.key].subjects)
    by_name = pinned_step("t-elf", "t-goblin", "unlocated", "move", "Gamemaster")
    assert by_name.text == "Gamemaster pins how t-elf locates t-goblin: unlocated until move"
    assert by_name.data["until"] == "move"


def test_PIN_releasing_a_pin_not_held_is_refused_and_a_held_one_is_explained() -> None:
    with pytest.raises(RuleViolation) as caught:
        released_step("t-elf", "t-goblin", held=False)
    assert caught.value.rule == "PIN"
    assert "no pin on how t-elf locates t-goblin" in str(caught.value)
    step = released_step(None, "t-goblin", held=True)
    assert (step.rule, step.key) == ("PIN", "PIN.released")
    assert step.text == "the pin on how every observer locates t-goblin is released"
    assert step.data == {"observer": None, "target": "t-goblin", "released": True}


def test_DET_8_the_gm_answers_a_held_reveal_and_none_held_is_refused() -> None:
    with pytest.raises(RuleViolation) as caught:
        reveal_answered_step("t-elf", "t-goblin", True, held=False)
    assert caught.value.rule == "DET-8" and caught.value.path == ("target",)
    accepted = reveal_answered_step("t-elf", "t-goblin", True, held=True)
    assert (accepted.key, accepted.text) == ("DET-8.accepted", "the GM accepted (t-elf → t-goblin)")
    assert accepted.data == {"observer": "t-elf", "target": "t-goblin", "accepted": True}
    refused = reveal_answered_step("t-elf", "t-goblin", False, held=True)
    assert refused.key == "DET-8.refused" and "the contest counts as lost" in refused.text


def test_PIN_explain_names_the_pinned_state_over_the_rules_own_and_who_pinned_it() -> None:
    step = pin_explained_step("t-elf", "t-goblin", "pinpointed", "unlocated", "", {"round": 4})
    assert (step.rule, step.key) == ("PIN", "PIN.explain")
    assert step.text == "pinned by the GM: t-elf locates t-goblin: pinpointed"
    assert step.data == {
        "observer": "t-elf",
        "target": "t-goblin",
        "result": "pinpointed",
        "rules": "unlocated",
        "by": "",
        "until": {"round": 4},
    }
    assert set(step.data) == set(STEPS[step.key].fields)
    assert pin_explained_step("o", "t", "approximate", "approximate", "Gamemaster", "move").text == (
        "pinned by Gamemaster: o locates t: approximate"
    )


def test_DET_8_a_reveal_held_for_the_gm_says_what_the_pair_shows_meanwhile() -> None:
    step = held_step("t-elf", "t-goblin", "approximate")
    assert (step.rule, step.key) == ("DET-8", "DET-8.held")
    assert step.text == "t-elf would pinpoint t-goblin: held until the GM accepts or refuses it"
    assert step.data == {"held": True, "observer": "t-elf", "target": "t-goblin", "shown": "approximate"}
    assert set(step.data) == set(STEPS[step.key].fields)


def test_PIN_a_restart_of_the_round_count_ends_a_pin_held_until_a_round() -> None:
    step = restart_ended_step(None, "t-goblin", 5)
    assert (step.rule, step.key) == ("PIN", "PIN.restart")
    assert (
        step.text
        == "the round count restarted: the pin on how every observer locates t-goblin until round 5 ends"
    )
    assert step.data == {"observer": None, "target": "t-goblin", "untilRound": 5}
    assert set(step.data) == set(STEPS[step.key].fields)
    assert "the pin on how t-elf locates" in restart_ended_step("t-elf", "t-goblin", 2).text
