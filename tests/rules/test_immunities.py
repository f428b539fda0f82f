"""RANK-5, RANK-9..13: the immunity catalogue and the rules built on it."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from vtt_bridge.rules.conditions import ConditionPointKind, EmotionPointKind
from vtt_bridge.rules.immunities import (
    IMMUNITY_KINDS,
    Immunity,
    ImmunityKindId,
    SaveBonuses,
    check_immunities,
    covers_condition,
    covers_condition_points,
    covers_damage,
    covers_emotion_points,
    covers_traits,
    effective_again,
    gain_immunity,
)
from vtt_bridge.rules.ranks import Rank


def imm(kind: str, **fields: Any) -> Immunity:
    return Immunity.model_validate({"kind": kind, **fields})


def blocks_condition(immunity: Immunity, condition: str, rank: Rank) -> bool:
    return check_immunities([immunity], lambda i: covers_condition(i, condition), rank, condition).blocked


# --- RANK-5 -------------------------------------------------------------------------------------------

LU_REN = imm("flat-footed", rank="C", source="Title: Mage Slayer")


@pytest.mark.parametrize(
    ("ability_rank", "flat_footed"),
    [
        pytest.param(
            Rank.C, False, id="Lu Ren's C-Rank immunity: the C-Rank Stinger Tongue leaves him ready"
        ),
        pytest.param(Rank.B, True, id="Lu Ren's C-Rank immunity: the B-Rank Nanaya Body Arts flat-foots him"),
        pytest.param(Rank.UNRANKED, False, id="flat-footed from a surprise attack is unranked (RANK-7)"),
    ],
)
def test_RANK_5_lu_ren_c_rank_flat_footed_immunity(ability_rank: Rank, flat_footed: bool) -> None:
    assert blocks_condition(LU_REN, "flat-footed", ability_rank) is not flat_footed


@pytest.mark.parametrize(
    ("rank", "blocked"),
    [
        (Rank.UNRANKED, True),
        (Rank.D, True),
        (Rank.C, True),
        (Rank.B, False),
        (Rank.A, False),
        (Rank.S, False),
    ],
    ids=lambda value: str(value),
)
def test_RANK_5_c_rank_poison_immunity_blocks_poison_of_c_or_lower(rank: Rank, blocked: bool) -> None:
    poison = imm("poison", rank="C", source="Bloodline")
    check = check_immunities([poison], lambda i: covers_traits(i, ["poison"]) is not None, rank, "poison")
    assert check.blocked is blocked
    assert check.steps[-1].rule == "RANK-5"


def test_RANK_5_d_rank_mind_affecting_does_not_stop_a_rank_fear_points() -> None:
    mind = imm("mind-affecting", rank="D")
    covers = lambda i: covers_emotion_points(i, "fear")  # noqa: E731
    assert check_immunities([mind], covers, Rank.A, "fear points").blocked is False
    assert check_immunities([mind], covers, Rank.D, "fear points").blocked is True


def test_RANK_5_without_a_matching_immunity_any_rank_applies() -> None:
    check = check_immunities([imm("poison", rank="S")], lambda i: covers_condition(i, "blinded"), Rank.D, "x")
    assert check.blocked is False and check.steps == ()


# --- RANK-9 / RANK-10: the catalogue -------------------------------------------------------------------

RANK_9 = [
    "damage", "grapple", "trip", "bull-rush", "called-shots", "disarm", "armor-piercing", "spell-piercing",
    "falling-damage", "difficult-terrain", "environmental-effects", "environment", "8-again", "9-again",
    "cannot-be-revived", "emotion-points", "condition-points", "multiple-attack-penalty", "condition",
    "aging", "high-speed",
]  # fmt: skip
RANK_10 = [
    "invisibility", "transformation", "possession", "energy-pool", "instant-death", "suffocation",
    "silence", "sealing", "imprisonment", "banishment", "disease", "poison", "mind-affecting",
    "hallucinations", "flat-footed", "touch-attacks", "curses", "time", "space", "causality",
    "must-attack", "cannot-be-attacked",
]  # fmt: skip


def test_RANK_9_RANK_10_catalogue_holds_every_kind_once_with_an_english_name() -> None:
    assert sorted(IMMUNITY_KINDS) == sorted(RANK_9 + RANK_10)
    assert all(row.english and row.id == key for key, row in IMMUNITY_KINDS.items())


@pytest.mark.parametrize("kind", RANK_9)
def test_RANK_9_uncontested_kinds_ignore_rank(kind: str) -> None:
    assert IMMUNITY_KINDS[ImmunityKindId(kind)].contested is False
    assert IMMUNITY_KINDS[ImmunityKindId(kind)].rule == "RANK-9"


@pytest.mark.parametrize("kind", RANK_10)
def test_RANK_10_contested_kinds_meet_rank(kind: str) -> None:
    assert IMMUNITY_KINDS[ImmunityKindId(kind)].contested is True


def test_RANK_9_damage_immunity_holds_against_an_s_rank_hit() -> None:
    fire = imm("damage", subject="fire")
    check = check_immunities([fire], lambda i: covers_damage(i, "fire"), Rank.S, "fire")
    assert check.blocked and check.steps[0].rule == "RANK-9"
    assert not covers_damage(fire, "acid")


def test_RANK_10_mind_affecting_covers_emotion_points_mental_damage_charm_and_infatuation() -> None:
    mind = imm("mind-affecting", rank="B")
    assert all(covers_emotion_points(mind, kind) for kind in EmotionPointKind)
    assert covers_damage(mind, "mental")
    assert covers_condition(mind, "infatuated")
    assert covers_condition_points(mind, "charm")
    assert covers_traits(mind, ["morale"]) == "morale"
    assert covers_traits(mind, ["intimidation"]) == "intimidation"
    assert not covers_damage(mind, "fire")


def test_RANK_10_poison_immunity_covers_poison_damage_and_poison_effects() -> None:
    poison = imm("poison", rank="C")
    assert covers_damage(poison, "poison")
    assert covers_traits(poison, ["spell", "poison"]) == "poison"


def test_RANK_9_aging_d_covers_natural_aging_a_covers_all_aging() -> None:
    assert covers_traits(imm("aging", rank="D"), ["natural-aging"]) == "natural-aging"
    assert covers_traits(imm("aging", rank="D"), ["aging"]) is None
    assert covers_traits(imm("aging", rank="A"), ["aging"]) == "aging"


def test_RANK_9_named_environment_covers_that_environment() -> None:
    space = imm("environment", subject="space-combat")
    assert covers_traits(space, ["space-combat"]) == "space-combat"
    assert covers_traits(space, ["underwater"]) is None


# --- RANK-11 ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("again", "immune", "expected"),
    [
        pytest.param(8, ["8-again"], 10, id="immune to 8-again: counts as immune to 9-again too, 10-again"),
        pytest.param(8, ["8-again", "9-again"], 10, id="immune to both: 10-again"),
        pytest.param(9, ["9-again"], 10, id="immune to 9-again: 9-again becomes 10-again"),
        pytest.param(9, ["8-again"], 9, id="immune to 8-again only: an attacker's 9-again still applies"),
        pytest.param(8, ["9-again"], 8, id="immune to 9-again only: 8-again is not 9-again (literal)"),
        pytest.param(10, ["8-again", "9-again"], 10, id="10-again is untouched"),
        pytest.param(8, [], 8, id="no immunity: the attacker's again applies"),
    ],
)
def test_RANK_11_again_immunities(again: int, immune: list[str], expected: int) -> None:
    outcome = effective_again(again, [imm(kind) for kind in immune])
    result, steps = outcome.again, outcome.steps
    assert result == expected
    assert (steps != ()) is (result != again)


# --- RANK-12 ---------------------------------------------------------------------------------------------


def test_RANK_12_condition_immunity_does_not_cover_its_points() -> None:
    frozen = imm("condition", subject="frozen")
    assert covers_condition(frozen, "frozen")
    assert not any(covers_condition_points(frozen, kind) for kind in ConditionPointKind)


def test_RANK_12_point_immunity_covers_the_points_not_the_condition() -> None:
    freeze = imm("condition-points", subject="freeze")
    assert covers_condition_points(freeze, "freeze")
    assert not covers_condition_points(freeze, "burn")
    assert not covers_condition(freeze, "frozen")


# --- RANK-13 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "old_rank", "new_rank", "save", "bonus"),
    [
        pytest.param("flat-footed", "D", "D", "reflex", 2, id="flat-footed D replaced by D: +2 Reflex"),
        pytest.param("flat-footed", "C", "B", "reflex", 4, id="flat-footed C replaced by B: +4 Reflex"),
        pytest.param("touch-attacks", "B", "A", "fortitude", 6, id="touch attacks B by A: +6 Fortitude"),
        pytest.param("mind-affecting", "A", "S", "will", 8, id="mind-affecting A by S: +8 Will"),
        pytest.param("mind-affecting", "S", "S", "will", 10, id="mind-affecting S by S: +10 Will"),
        pytest.param("flat-footed", "unranked", "C", "reflex", 0, id="an unranked one replaced: +0"),
    ],
)
def test_RANK_13_replacing_a_same_or_lower_immunity_from_another_source_gives_2x_rank(
    kind: str, old_rank: str, new_rank: str, save: str, bonus: int
) -> None:
    old = imm(kind, rank=old_rank, source="Bloodline")
    new = imm(kind, rank=new_rank, source="Title")
    gain = gain_immunity((old,), SaveBonuses(reflex=1), new)
    assert gain.immunities == (new,)
    expected = {"reflex": 1, "fortitude": 0, "will": 0}
    expected[save] += bonus
    assert gain.save_bonuses.model_dump() == expected
    assert gain.steps[0].rule == "RANK-13"


def test_RANK_13_same_source_replaces_without_bonus() -> None:
    old = imm("flat-footed", rank="D", source="Title: Mage Slayer")
    new = imm("flat-footed", rank="C", source="Title: Mage Slayer")
    gain = gain_immunity((old,), SaveBonuses(), new)
    assert gain.immunities == (new,) and gain.save_bonuses == SaveBonuses()


def test_RANK_13_a_lower_new_immunity_gives_no_bonus() -> None:
    old = imm("flat-footed", rank="B", source="Bloodline")
    new = imm("flat-footed", rank="C", source="Title")
    gain = gain_immunity((old,), SaveBonuses(), new)
    assert gain.immunities == (old, new) and gain.save_bonuses == SaveBonuses()


def test_RANK_13_other_kinds_give_no_bonus() -> None:
    old = imm("poison", rank="D", source="Bloodline")
    new = imm("poison", rank="C", source="Title")
    gain = gain_immunity((old,), SaveBonuses(), new)
    assert gain.immunities == (old, new) and gain.save_bonuses == SaveBonuses()


def test_RANK_13_the_very_same_immunity_changes_nothing() -> None:
    old = imm("poison", rank="D", source="Bloodline")
    gain = gain_immunity((old,), SaveBonuses(), imm("poison", rank="D", source="Bloodline"))
    assert gain.immunities == (old,)


# --- bad input -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "loc", "needle"),
    [
        pytest.param({"kind": "lava"}, ("kind",), "'mind-affecting'", id="unknown kind lists the kinds"),
        pytest.param({"kind": "poison", "rank": "E"}, ("rank",), "'S'", id="Rank E is no Rank"),
        pytest.param({"kind": "poison", "rank": "SS+"}, ("rank",), "'S'", id="Rank SS+ is no Rank"),
        pytest.param({"kind": "damage", "subject": "lava"}, ("subject",), "pure-energy",
                     id="unknown damage type lists the types"),
        pytest.param({"kind": "damage"}, ("subject",), "fire", id="damage immunity needs a damage type"),
        pytest.param({"kind": "emotion-points", "subject": "anger"}, ("subject",), "dejection",
                     id="unknown emotion kind lists the kinds"),
        pytest.param({"kind": "condition-points", "subject": "itch"}, ("subject",), "limb-impairment",
                     id="unknown condition point kind lists the kinds"),
        pytest.param({"kind": "condition", "subject": "sad"}, ("subject",), "petrified",
                     id="unknown condition lists the conditions"),
        pytest.param({"kind": "poison", "subject": "fire"}, ("subject",), "no subject",
                     id="a kind without subject refuses one"),
    ],
)  # fmt: skip
def test_RANK_9_bad_immunity_is_invalid_with_path_and_allowed_values(
    payload: dict[str, Any], loc: tuple[str, ...], needle: str
) -> None:
    with pytest.raises(ValidationError) as error:
        Immunity.model_validate(payload)
    problems = error.value.errors()
    assert problems[0]["loc"] == loc
    assert needle in problems[0]["msg"]


# --- step data the chat card words (RANK-5/9/10/13) -----------------------------------------------------


def test_RANK_5_check_steps_carry_the_immunity_its_outcome_the_effect_rank_and_what_it_meets() -> None:
    what = {"what": "points", "kind": "fear"}
    mind = imm("mind-affecting", rank="D")
    covers = lambda i: covers_emotion_points(i, "fear")  # noqa: E731
    stopped = check_immunities([mind], covers, Rank.D, "fear points", data=what).steps[0]
    broken = check_immunities([mind], covers, Rank.A, "fear points", data=what).steps[0]
    assert stopped.rule == broken.rule == "RANK-5"
    immunity = {"kind": "mind-affecting", "rank": "D"}
    blank = {f: None for f in ("condition", "amount", "index", "type", "before", "after", "casterLevel")}
    assert stopped.data == {**blank, **what, "immunity": immunity, "effectRank": "D", "blocked": True}
    assert broken.data == {**blank, **what, "immunity": immunity, "effectRank": "A", "blocked": False}
    assert (stopped.key, broken.key) == ("RANK-5.blocks", "RANK-5.unstopped")


def test_RANK_9_check_step_carries_the_immunity_and_blocked() -> None:
    fire = imm("damage", subject="fire")
    step = check_immunities(
        [fire], lambda i: covers_damage(i, "fire"), Rank.S, "fire", {"what": "effect"}
    ).steps[0]
    assert step.rule == "RANK-9"
    immunity = {"kind": "damage", "subject": "fire", "rank": "unranked"}
    blank = dict.fromkeys(("kind", "condition", "amount", "index", "type", "before", "after"))
    blank |= {"effectRank": None, "casterLevel": None}
    assert step.data == {**blank, "what": "effect", "immunity": immunity, "blocked": True}
    assert step.key == "RANK-9.blocks"


def test_RANK_9_gaining_and_already_holding_an_immunity_name_it_in_the_step_data() -> None:
    fire = imm("damage", subject="fire")
    dumped = {"kind": "damage", "subject": "fire", "rank": "unranked"}
    gained = gain_immunity((), SaveBonuses(), fire).steps[0]
    assert (gained.rule, gained.data) == ("RANK-9", {"immunity": dumped, "gained": True})
    again = gain_immunity((fire,), SaveBonuses(), fire).steps[0]
    assert (again.rule, again.data) == ("RANK-9", {"immunity": dumped, "already": True})


def test_RANK_10_gaining_a_contested_immunity_names_it_with_its_rank() -> None:
    step = gain_immunity((), SaveBonuses(), imm("poison", rank="C")).steps[0]
    assert (step.rule, step.data) == (
        "RANK-10",
        {"immunity": {"kind": "poison", "rank": "C"}, "gained": True},
    )


def test_RANK_13_steps_name_the_new_and_the_replaced_immunity() -> None:
    old = imm("flat-footed", rank="C", source="Mage Slayer")
    other = gain_immunity((old,), SaveBonuses(), imm("flat-footed", rank="B", source="Bloodline")).steps[0]
    assert other.data == {
        "replaced": {"kind": "flat-footed", "rank": "C", "source": "Mage Slayer"},
        "immunity": {"kind": "flat-footed", "rank": "B", "source": "Bloodline"},
        "save": "reflex",
        "bonus": 4,
        "total": 4,
    }
    same = gain_immunity((old,), SaveBonuses(), imm("flat-footed", rank="B", source="Mage Slayer")).steps[0]
    assert same.data == {
        "replaced": {"kind": "flat-footed", "rank": "C", "source": "Mage Slayer"},
        "immunity": {"kind": "flat-footed", "rank": "B", "source": "Mage Slayer"},
    }
