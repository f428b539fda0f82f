"""The step vocabulary (rules/steps.py): scripts of actions, upserts and queries through the real
world layer (a keep, the GM's word, a dojo, an infirmary, a shrine, a watch) write every declared
key; every step they write has a declared key whose data carries exactly that key's fields
(validated against the exported schema), its subjects naming the scripts' actors or tokens."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from vtt_bridge.actions.registry import ACTION_ADAPTER, QUERY_ADAPTER
from vtt_bridge.engine.protocol import json_schema
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.rules.catalogue.fields import EVERY, SUBJECT_FIELDS
from vtt_bridge.rules.catalogue.wording import Wording
from vtt_bridge.rules.steps import STEPS, WORDING, step_fields_module

ASSASSIN = {
    "name": "Assassin",
    "health": {"max": 6},
    "attributes": {"DEX": 5},
    "skills": {"stealth": 4},
    "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
}
GUARD = {"name": "Guard", "health": {"max": 7}, "attributes": {"PER": 3}, "skills": {"investigation": 2}}


def scene() -> dict[str, Any]:
    return {
        "scene": {"id": "keep", "round": 0, "gridDistance": 1.5, "gridSize": 100},
        "settings": {"woundPenalty": True},
        "actors": {
            "Actor.assassin": ASSASSIN,
            "Actor.bran": {**GUARD, "name": "Bran"},
            "Actor.cora": {**GUARD, "name": "Cora", "secondHealth": {"max": 3}},
        },
        "tokens": {
            "tokAssassin": {"actor": "Actor.assassin", "x": 200, "y": 0},
            "tokBran": {"actor": "Actor.bran", "x": 0, "y": 0},
            "tokCora": {"actor": "Actor.cora", "x": 400, "y": 0},
        },
    }


@cache
def keep_steps() -> tuple[dict[str, Any], ...]:
    """The keep: two guards' contests with the assassin, rounds, rolls, damage, worsening on both
    tracks, undo and redo, an upsert, explain."""
    world = World("keep")
    roller = SeededRoller(3)
    log: list[dict[str, Any]] = []

    def commit(pending: Any) -> None:
        assert not isinstance(pending, bytes)
        log.extend(pending.result["log"])
        world.commit(pending, "{}")

    commit(world.prepare_sync({"state": scene()}))
    for index, action in enumerate(KEEP_ACTIONS):
        commit(world.prepare_action(f"a{index}", action, roller))
    last = f"a{len(KEEP_ACTIONS) - 1}"
    commit(world.prepare_action("undo", {"kind": "undo", "action": last}, roller))
    commit(world.prepare_action("redo", {"kind": "redo", "action": last}, roller))
    commit(world.prepare_upsert({"path": "/actors/Actor.bran/health/tempHp", "value": 2}))
    commit(
        world.prepare_action(
            "last",
            {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 1, "grade": "B"}]},
            roller,
        )
    )
    bruise = [{"amount": 1, "grade": "B"}]
    batch = [{"kind": "damage", "target": who, "instances": bruise} for who in ("Actor.bran", "Actor.cora")]
    commit(world.prepare_action("batch", {"kind": "batch", "actions": batch}, roller))
    pin = {"kind": "pinLocate", "observer": "tokBran", "target": "tokCora", "state": "unlocated"}
    commit(world.prepare_action("pin", {**pin, "until": {"round": 3}}, roller))
    commit(world.prepare_action("restart", {"kind": "round", "round": 0}, roller))
    log.extend(world.query({"kind": "explain", "observer": "tokBran", "target": "tokAssassin"})["log"])
    return tuple(log)


def tie() -> dict[str, list[int]]:
    return {"observer": [8, 1, 1, 1, 1], "target": [9] + [1] * 18}


def win() -> dict[str, list[int]]:
    return {"observer": [8, 8, 1, 1, 1], "target": [9] + [1] * 18}


KEEP_ACTIONS: list[dict[str, Any]] = [
    # out of combat, each guard's contest with the VTT's dice: PER 3 + Investigation 2 = 5
    # against DEX 5 + Stealth 4 + 10 (invisible) = 19: a tie (1 against 1), a win (2 against 1)
    {"kind": "contest", "observer": "tokBran", "target": "tokAssassin", "dice": tie()},
    {"kind": "contest", "observer": "tokCora", "target": "tokAssassin", "dice": win()},
    {"kind": "round", "round": 1},
    {"kind": "roll", "actor": "Actor.bran", "pool": ["PER", "investigation"]},
    {
        "kind": "roll",
        "actor": "Actor.bran",
        "pool": 4,
        "opponent": "Actor.assassin",
        "opposed": {"pool": 3},
    },
    {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 3, "grade": "L"}]},
    {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 3, "grade": "A"}]},
    {"kind": "roll", "actor": "Actor.bran", "pool": 5},
    {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 1, "grade": "B"}]},
    {"kind": "damage", "target": "Actor.cora", "instances": [{"amount": 8, "grade": "A"}]},
    {"kind": "damage", "target": "Actor.cora", "instances": [{"amount": 2, "grade": "L"}]},
    {"kind": "round", "round": 2},
    {"kind": "damage", "target": "Actor.assassin", "instances": [{"amount": 40, "grade": "A"}]},
]
"""The keep's actions, in order."""


def gm_scene() -> dict[str, Any]:
    """The GM's word: reveals held for approval (Hunter's and Scout's magical sight D against Ghost's
    veil D), pins on Wisp (invisible), attacks at what an attacker cannot pinpoint (DET-10)."""
    seer = {"detection": [{"name": "sight", "sense": "sight", "essence": "magical", "rank": "D"}]}
    return {
        "scene": {"id": "crypt", "round": 1, "gridSize": 100, "width": 2000, "height": 1000},
        "settings": {"approveReveals": True},
        "actors": {
            "Actor.hunter": {**GUARD, **seer, "name": "Hunter"},
            "Actor.scout": {**GUARD, **seer, "name": "Scout"},
            "Actor.ghost": {
                **ASSASSIN,
                "name": "Ghost",
                "antiDetection": [{"name": "veil", "essence": "magical", "rank": "D"}],
            },
            "Actor.wisp": {**ASSASSIN, "name": "Wisp"},
        },
        "tokens": {
            "tokHunter": {"actor": "Actor.hunter", "x": 0, "y": 0},
            "tokGhost": {"actor": "Actor.ghost", "x": 200, "y": 0},
            "tokWisp": {"actor": "Actor.wisp", "x": 400, "y": 0},
            "tokScout": {"actor": "Actor.scout", "x": 600, "y": 0},
        },
    }


def attack_check(attacker: str, target: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return "query", {"kind": "attackCheck", "attacker": attacker, "target": target, "successes": 5, **more}


WIN_DICE = {"observer": [8, 8, 1, 1, 1], "target": [1] * 9}
WISP_SQUARE = {"x": 450, "y": 50}
EMPTY_SQUARE = {"x": 1550, "y": 850}
GM_SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("action", {"kind": "contest", "observer": "tokHunter", "target": "tokGhost", "dice": WIN_DICE}),
    ("action", {"kind": "approveReveal", "observer": "tokHunter", "target": "tokGhost", "accept": True}),
    ("action", {"kind": "contest", "observer": "tokScout", "target": "tokGhost", "dice": WIN_DICE}),
    ("action", {"kind": "approveReveal", "observer": "tokScout", "target": "tokGhost", "accept": False}),
    attack_check("tokHunter", "tokGhost"),  # pinpointed: in full
    attack_check("tokScout", "tokWisp"),  # unlocated, no guess
    (
        "action",
        {
            "kind": "damage",
            "target": "Actor.wisp",
            "instances": [{"amount": 5, "grade": "L"}],
            "attack": {"attacker": "tokScout", "token": "tokWisp", "successes": 5},
        },
    ),
    attack_check("tokScout", "tokWisp", guess=WISP_SQUARE),
    attack_check("tokScout", "tokWisp", guess=EMPTY_SQUARE),
    attack_check("tokScout", "tokWisp", spell="targeted"),
    attack_check("tokScout", "tokWisp", spell="area"),
    (
        "action",
        {
            "kind": "pinLocate",
            "observer": "tokHunter",
            "target": "tokWisp",
            "state": "approximate",
            "until": "scene",
            "by": "Gamemaster",
        },
    ),
    ("query", {"kind": "explain", "observer": "tokHunter", "target": "tokWisp"}),
    attack_check("tokHunter", "tokWisp"),  # approximate: halved
    (
        "action",
        {
            "kind": "damage",
            "target": "Actor.wisp",
            "instances": [{"amount": 5, "grade": "L"}],
            "attack": {"attacker": "tokHunter", "token": "tokWisp", "successes": 5},
        },
    ),
    (
        "action",
        {
            "kind": "damage",
            "instances": [{"amount": 5, "grade": "L"}],
            "attack": {"attacker": "tokHunter", "successes": 5, "guess": EMPTY_SQUARE},
        },
    ),
    ("action", {"kind": "releaseLocate", "observer": "tokHunter", "target": "tokWisp"}),
    ("action", {"kind": "pinLocate", "target": "tokWisp", "state": "unlocated", "until": {"round": 3}}),
    ("action", {"kind": "releaseLocate", "target": "tokWisp"}),
]
"""The GM's script over `gm_scene`: (request kind, payload)."""


ATTRIBUTES = {"STR": 2, "DEX": 3, "STA": 3, "INT": 3, "PER": 2, "RES": 2, "PRE": 4, "MAN": 1, "COM": 2}


def pool(pool_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": pool_id,
        "name": pool_id.replace("-", " ").title(),
        "category": "general",
        "region": "western",
        "keyAttributes": ["INT", "RES"],
        "source": "Gem Person Bloodline",
        **fields,
    }


def dojo() -> dict[str, Any]:
    """Energy Pools, Gauges and their conflicts (EP-1..9): Ouyang gains, spends and reopens; Picky,
    Anchored and Calm each meet a conflict."""
    actor = {"attributes": ATTRIBUTES}
    return {
        "scene": {"id": "dojo", "round": 0},
        "actors": {
            "Actor.ouyang": {**actor, "name": "Ouyang"},
            "Actor.picky": {**actor, "name": "Picky"},
            "Actor.anchored": {**actor, "name": "Anchored"},
            "Actor.calm": {**actor, "name": "Calm"},
        },
        "tokens": {},
    }


def energy(kind: str, actor: str = "Actor.ouyang", **payload: Any) -> tuple[str, dict[str, Any]]:
    return "action", {"kind": kind, "actor": actor, **payload}


INNER_FORCE = pool("inner-force", region="eastern", keyAttributes=["STA", "PER"], source="Wudang Title")
RAGE = {"id": "rage", "name": "Rage", "max": 5, "source": "Berserker Title", "nature": "fury"}
DOJO_SCRIPT: list[tuple[str, dict[str, Any]]] = [
    energy("gainEnergyPool", pool=INNER_FORCE),
    *(
        energy("gainEnergyPool", pool=INNER_FORCE | {"source": f"route {n}"})  # +5, +3, ... then none
        for n in range(1, 6)
    ),
    energy("gainEnergyPool", pool=pool("mana", keyAttributes=["INT", "PRE"])),
    energy("gainEnergyPool", pool=pool("dark-mana", variantOf="mana")),
    energy("gainEnergyPool", pool=pool("shade", countsAsPool=False)),
    energy("spendEnergy", pool="mana", cost=2),
    energy("spendEnergy", pool="mana", cost=3, reduction=1),
    energy("spendEnergy", pool="mana", substituteFrom="dark-mana", cost=1),
    energy("restoreEnergy", pool="mana", amount=3),
    energy("spendEnergy", pool="dark-mana", spendAll=True, reduction=2),
    energy("changePoolMax", pool="mana", delta=-2),
    energy("changePoolMax", pool="shade", delta=-3, reason="attack"),
    energy("cannotGainAgain", participants=["inner-force"], **{"class": "eastern", "source": "True Essence"}),
    energy("cannotGainAgain", **{"class": "northern", "source": "a vow"}),
    energy("gainGauge", gauge=RAGE),
    energy("spendGauge", gauge="rage", amount=2),
    energy("restoreGauge", gauge="rage", amount=1),
    energy("changeGaugeMax", gauge="rage", delta=-1),
    energy(
        "gainEnergyPool",
        "Actor.picky",
        pool=pool("picky", compatibility=[{"mode": "onlyWith", "class": "western"}]),
    ),
    energy("gainEnergyPool", "Actor.picky", pool=INNER_FORCE),
    energy("cannotGainAgain", "Actor.anchored", **{"class": "eastern", "source": "True Essence"}),
    energy("gainEnergyPool", "Actor.anchored", pool=INNER_FORCE),
    energy(
        "gainEnergyPool",
        "Actor.calm",
        pool=pool("calm", compatibility=[{"mode": "rejectsGauges", "class": "fury"}]),
    ),
    energy("gainGauge", "Actor.calm", gauge=RAGE),
]
"""The dojo's script (EP-1..9)."""


def infirmary() -> dict[str, Any]:
    """Health, healing and Willpower (HEALTH-2..13, WP-1..6): Ann takes damage, heals, spends and
    loses Willpower; Bo has a second track; Cy is dead."""
    return {
        "scene": {"id": "infirmary", "round": 1},
        "settings": {"woundPenalty": True, "unconsciousAtZeroWillpower": True},
        "actors": {
            "Actor.ann": {"name": "Ann", "health": {"max": 7}, "willpower": {"max": 4, "current": 2}},
            "Actor.bo": {"name": "Bo", "health": {"max": 5}, "secondHealth": {"max": 3}},
            "Actor.cy": {
                "name": "Cy",
                "health": {"max": 4, "aggravated": 4, "temporaryMax": {"drain": -2}},
            },
            "Actor.dee": {"name": "Dee", "health": {"max": 6}, "healing": {"fastHealing": [2]}},
            "Actor.eve": {"name": "Eve", "health": {"max": 4}, "willpower": {"max": 3, "current": 3}},
            "Actor.fay": {"name": "Fay"},
        },
        "tokens": {},
    }


def hurt(target: str, amount: int, grade: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return "action", {
        "kind": "damage",
        "target": target,
        "instances": [{"amount": amount, "grade": grade, **more}],
    }


def heal(target: str, amount: int, source: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return "action", {"kind": "heal", "target": target, "amount": amount, "source": source, **more}


def will(kind: str, actor: str = "Actor.ann", **payload: Any) -> tuple[str, dict[str, Any]]:
    return "action", {"kind": kind, "actor": actor, **payload}


INFIRMARY_SCRIPT: list[tuple[str, dict[str, Any]]] = [
    will("gainTempHp", amount=2),
    will("gainTempHp", amount=1),
    hurt("Actor.ann", 3, "L"),
    hurt("Actor.ann", 2, "B", unavoidable=True),
    will("gainTempHp", amount=2),
    (
        "action",
        {
            "kind": "damage",
            "target": "Actor.ann",
            "instances": [{"amount": 1, "grade": "L", "unavoidable": True}],
        },
    ),
    heal("Actor.ann", 1, "firstAid"),
    hurt("Actor.ann", 1, "B"),
    heal("Actor.ann", 2, "magic"),
    heal("Actor.ann", 1, "overseer"),
    heal("Actor.ann", 3, "longRest"),
    heal("Actor.ann", 1, "shortRest"),
    hurt("Actor.ann", 2, "A"),
    heal("Actor.ann", 1, "overseer"),
    heal("Actor.ann", 1, "longRest"),
    will("changeMaxHealth", delta=2, effect="potion"),
    will("endTemporaryMax", effect="potion"),
    will("changeMaxHealth", delta=-1),
    will("gainSecondHealth", "Actor.bo", max=3),
    hurt("Actor.bo", 7, "A"),
    heal("Actor.bo", 1, "magic"),
    will("endTemporaryMax", "Actor.cy", effect="drain"),
    hurt("Actor.dee", 2, "L"),
    ("action", {"kind": "round", "round": 2}),
    heal("Actor.dee", 2, "fastHealing"),
    heal("Actor.bo", 1, "longRest"),
    heal("Actor.fay", 1, "overseer"),
    will("spendWillpower", use="roll"),
    will("spendWillpower", use="defense"),
    will("gainWillpower", amount=1, temporary=True),
    will("gainWillpower", amount=1, temporary=True),
    will("gainWillpower", amount=1),
    will("gainWillpower", amount=9),
    will("changeWill", delta=-1),
    will("loseWillpower", amount=9),
    hurt("Actor.ann", 9, "L"),
    will("gainWillpower", amount=3),
    will("spendWillpower", use="hunger"),
    hurt("Actor.eve", 4, "L"),
    will("spendWillpower", "Actor.eve", use="stayConscious"),
    hurt("Actor.eve", 1, "B"),
    will("spendWillpower", "Actor.eve", use="stayConscious"),
    ("action", {"kind": "round", "round": 3}),
]
"""The infirmary's script (HEALTH-2..13, WP-1..6)."""


def shrine() -> dict[str, Any]:
    """Immunities, weaknesses and resistances (RANK-3..13, IWR-1..8): Vex and a golem."""
    return {
        "scene": {"id": "shrine", "round": 3},
        "actors": {
            "Actor.vex": {
                "name": "Vex",
                "health": {"max": 20},
                "immunities": [
                    {"kind": "damage", "subject": "fire"},
                    {"kind": "poison", "rank": "C"},
                    {"kind": "flat-footed", "rank": "D", "source": "Bloodline"},
                    {"kind": "mind-affecting", "rank": "D"},
                    {"kind": "8-again"},
                ],
                "iwr": {
                    "immunities": [{"type": "critical-hits"}, {"type": "blinded"}],
                    "weaknesses": [{"type": "cold", "value": 2}],
                    "resistances": [{"type": "slashing", "value": 3}],
                },
                "temporaryImmunities": [{"effect": "blindness", "untilRound": 3}, {"effect": "sleep"}],
            },
            "Actor.golem": {
                "name": "Golem",
                "health": {"max": 20},
                "attributes": {"STR": 3},
                "iwr": {
                    "immunities": [
                        {"type": "physical", "exceptions": ["adamantine"]},
                        {"type": "nonlethal-attacks"},
                        {"type": "death-effects"},
                        {"type": "fear-effects"},
                    ],
                },
                "immunities": [{"kind": "poison", "rank": "C", "casterLevel": 5}],
            },
        },
        "tokens": {},
    }


def affect(actor: str, **effect: Any) -> tuple[str, dict[str, Any]]:
    return "action", {"kind": "affect", "actor": actor, "effect": effect}


def hit(target: str, *instances: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "action", {"kind": "damage", "target": target, "instances": list(instances)}


SHRINE_SCRIPT: list[tuple[str, dict[str, Any]]] = [
    affect("Actor.vex", rank="B", rankWhenGained="C", emotionPoints={"fear": 2}, conditionPoints={"burn": 1}),
    affect("Actor.vex", rank="A", emotionPoints={"fear": 1}, conditions=["frozen", "blinded"]),
    affect("Actor.vex", rank="C", conditions=["flat-footed"]),
    affect("Actor.vex", traits=["blindness"], conditions=["deafened"]),
    affect("Actor.golem", traits=["fear"], conditions=["intimidated"]),
    affect("Actor.golem", rank="C", casterLevel=5, traits=["poison"]),
    affect("Actor.golem", rank="C", casterLevel=7, traits=["poison"]),
    hit("Actor.vex", {"amount": 4, "grade": "L", "type": "fire"}),
    hit("Actor.vex", {"amount": 3, "grade": "L", "type": "poison", "rank": "B"}),
    hit("Actor.vex", {"amount": 3, "grade": "L", "type": "poison", "rank": "A"}),
    hit("Actor.vex", {"amount": 2, "grade": "L", "type": "cold", "critical": True}),
    hit("Actor.vex", {"amount": 6, "grade": "L", "type": "slashing"}),
    hit("Actor.vex", {"amount": 6, "grade": "L", "type": "slashing", "unavoidable": True}),
    hit("Actor.vex", {"amount": 2, "grade": "B", "type": "force", "traits": ["blindness"]}),
    hit("Actor.golem", {"amount": 5, "grade": "L", "type": "bludgeoning"}),
    hit(
        "Actor.golem",
        {"amount": 5, "grade": "L", "type": "bludgeoning", "materials": ["adamantine"], "critical": True},
    ),
    hit("Actor.golem", {"amount": 4, "grade": "B", "type": "fire", "traits": ["nonlethal"]}),
    hit("Actor.golem", {"amount": 8, "grade": "L", "type": "void", "traits": ["death"]}),
    hit("Actor.golem", {"amount": 3, "grade": "L", "type": "poison", "rank": "C", "casterLevel": 3}),
    hit("Actor.golem", {"amount": 3, "grade": "L", "type": "poison", "rank": "C", "casterLevel": 7}),
    (
        "action",
        {"kind": "gainImmunity", "actor": "Actor.vex", "immunity": {"kind": "damage", "subject": "fire"}},
    ),
    (
        "action",
        {"kind": "gainImmunity", "actor": "Actor.vex", "immunity": {"kind": "damage", "subject": "acid"}},
    ),
    ("action", {"kind": "gainImmunity", "actor": "Actor.vex", "immunity": {"kind": "poison", "rank": "B"}}),
    (
        "action",
        {
            "kind": "gainImmunity",
            "actor": "Actor.vex",
            "immunity": {"kind": "flat-footed", "rank": "C", "source": "Title: Mage Slayer"},
        },
    ),
    (
        "action",
        {"kind": "gainImmunity", "actor": "Actor.vex", "immunity": {"kind": "flat-footed", "rank": "C"}},
    ),
    (
        "action",
        {"kind": "roll", "actor": "Actor.golem", "pool": ["STR"], "again": 8, "opponent": "Actor.vex"},
    ),
    ("action", {"kind": "round", "round": 4}),
]
"""The shrine's script (RANK-3..13, IWR-1..8)."""


def watch() -> dict[str, Any]:
    """Stages one to three as explain walks them (DET-3..8): Dana (an echo sense that pinpoints, but
    she is human-based), Eli (blinded; hearing out of range), Gil and Hal (contests with Hid)."""
    invisible = [{"name": "invisibility", "essence": "magical", "rank": "C"}]
    guard = {"attributes": {"PER": 3}, "skills": {"investigation": 2}}
    return {
        "scene": {"id": "watch", "round": 1, "gridSize": 100, "gridDistance": 1.5},
        "actors": {
            "Actor.dana": {
                "name": "Dana",
                "detection": [{"name": "echo", "sense": "hearing", "capability": "pinpoint"}],
            },
            "Actor.eli": {
                "name": "Eli",
                "conditions": {"blinded": True},
                "detection": [
                    {"name": "sight", "sense": "sight"},
                    {"name": "hearing", "sense": "hearing", "range": 3},
                ],
            },
            "Actor.gil": {**guard, "name": "Gil"},
            "Actor.hal": {**guard, "name": "Hal"},
            "Actor.fox": {"name": "Fox"},
            "Actor.hid": {
                "name": "Hid",
                "attributes": {"DEX": 2},
                "skills": {"stealth": 1},
                "antiDetection": invisible,
            },
        },
        "tokens": {
            "tokDana": {"actor": "Actor.dana", "x": 0, "y": 0},
            "tokEli": {"actor": "Actor.eli", "x": 0, "y": 500},
            "tokGil": {"actor": "Actor.gil", "x": 200, "y": 0},
            "tokHal": {"actor": "Actor.hal", "x": 300, "y": 0},
            "tokFox": {"actor": "Actor.fox", "x": 100, "y": 0},
            "tokHid": {"actor": "Actor.hid", "x": 400, "y": 0},
        },
    }


def explain(observer: str, target: str) -> tuple[str, dict[str, Any]]:
    return "query", {"kind": "explain", "observer": observer, "target": target}


def contest(
    observer: str, target: str, observer_dice: list[int], target_dice: list[int]
) -> tuple[str, dict[str, Any]]:
    dice = {"observer": observer_dice, "target": target_dice}
    return "action", {"kind": "contest", "observer": observer, "target": target, "dice": dice}


WATCH_SCRIPT: list[tuple[str, dict[str, Any]]] = [
    explain("tokDana", "tokFox"),
    explain("tokEli", "tokFox"),
    contest("tokGil", "tokHid", [8, 8, 1, 1, 1], [1] * 13),
    contest("tokHal", "tokHid", [1] * 5, [8] + [1] * 12),
    explain("tokGil", "tokHid"),
    explain("tokHal", "tokHid"),
    ("upsert", {"path": "/scene/round", "value": 2}),
    explain("tokHal", "tokHid"),
    ("action", {"kind": "move", "token": "tokFox", "x": 100, "y": 100}),
    ("action", {"kind": "roll", "actor": "Actor.gil", "pool": ["PER", "investigation"], "again": None}),
    (
        "action",
        {
            "kind": "roll",
            "actor": "Actor.gil",
            "pool": 3,
            "willpower": True,
            "modifiers": [{"type": "equipment", "value": 2}, {"type": "equipment", "value": 1}],
            "extraSuccesses": 2,
            "dice": [8, 8, 1, 1, 1, 1, 1, 1],
        },
    ),
    ("action", {"kind": "roll", "actor": "Actor.hal", "pool": 2, "extraSuccesses": 1, "dice": [1, 1]}),
]
"""The watch's script (DET-3..8 in explain, a move, rolls with every kind of step)."""


WORLDS: dict[str, World] = {}
"""Each script's world after it ran, by scene id."""


def run(state: dict[str, Any], script: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every step a script over a synced world writes, as the wire shows them (actions, upserts and
    queries through the real world layer, its dice seeded)."""
    world = WORLDS[state["scene"]["id"]] = World(state["scene"]["id"])
    roller = SeededRoller(3)
    log: list[dict[str, Any]] = []

    def commit(pending: Any) -> None:
        assert not isinstance(pending, bytes), pending
        log.extend(pending.result["log"])
        world.commit(pending, "{}")

    def attempt(kind: str, payload: dict[str, Any], name: str = "") -> Any:
        try:
            if kind == "sync":
                return world.prepare_sync({"state": payload})
            if kind == "action":
                return world.prepare_action(name, payload, roller)
            if kind == "upsert":
                return world.prepare_upsert(payload)
            return world.query(payload)
        except RequestError as exc:
            pytest.fail(f"{state['scene']['id']}: {kind} {payload} refused: {exc} {vars(exc)}")

    commit(attempt("sync", state))
    for index, (kind, payload) in enumerate(script):
        if kind == "query":
            log.extend(attempt(kind, payload)["log"])
        else:
            commit(attempt(kind, payload, f"a{index}"))
    return log


@cache
def written() -> tuple[dict[str, Any], ...]:
    """Every step the scripts write, as the wire shows them."""
    return (
        *keep_steps(),
        *run(gm_scene(), GM_SCRIPT),
        *run(dojo(), DOJO_SCRIPT),
        *run(infirmary(), INFIRMARY_SCRIPT),
        *run(shrine(), SHRINE_SCRIPT),
        *run(watch(), WATCH_SCRIPT),
    )


def by_key(key: str) -> list[dict[str, Any]]:
    return [step for step in written() if step.get("key") == key]


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    schema = json_schema(ACTION_ADAPTER, QUERY_ADAPTER)
    return {entry["properties"]["key"]["const"]: entry for entry in schema["$defs"]["StepCatalogue"]["oneOf"]}


@cache
def validator(key: str) -> Any:
    """The exported schema of a key, as a validator (checked once, then reused for every step)."""
    schema = catalogue()[key]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_the_exported_catalogue_is_the_declared_one() -> None:
    assert sorted(catalogue()) == sorted(STEPS)
    for key, spec in STEPS.items():
        assert key.startswith(spec.rule + "."), key
        assert set(spec.subjects) <= set(spec.fields)
        assert set(spec.subjects) <= set(SUBJECT_FIELDS), f"the status page does not name {key}'s subjects"


def test_every_field_is_worded_and_the_modules_table_is_the_catalogues() -> None:
    """Each declared field has its wording in the export; the module words fields from a generated
    copy (`make docs`), which must be this catalogue's own."""
    used = set()
    for key, entry in catalogue().items():
        for field, schema in entry["properties"]["data"]["properties"].items():
            kind, counted = WORDING[key][field]
            assert schema["x-wording"] == kind.value, (key, field)
            assert schema.get("x-counts") == (counted.value if counted else None), (key, field)
            assert (kind in (Wording.COUNT, Wording.SIGNED_COUNT)) == (counted is not None), (key, field)
            used.add(kind)
    assert used == set(Wording), f"wordings no field uses: {set(Wording) - used}"
    table = Path(__file__).parents[2] / "foundry_module" / "scripts" / "core" / "step-fields.mjs"
    assert table.read_text(encoding="utf-8") == step_fields_module(), (
        "step-fields.mjs is stale: run make docs"
    )


def test_every_step_written_has_a_declared_key_and_exactly_its_fields() -> None:
    """Every step of every script: a declared key of its rule, whose data carries exactly the
    key's fields (the schema entry validates each field's type)."""
    for step in written():
        assert "key" in step, step
        spec = STEPS[step["key"]]
        assert step["rule"] == spec.rule, step
        assert set(step["data"]) == set(spec.fields), (step["key"], sorted(step["data"]), sorted(spec.fields))
        validator(step["key"]).validate(step)


@pytest.mark.parametrize("key", sorted(STEPS))
def test_a_step_of_each_key_carries_its_declared_fields_and_subjects(key: str) -> None:
    steps = by_key(key)
    assert steps, f"the scene writes no {key} step"
    scenes = (scene(), gm_scene(), dojo(), infirmary(), shrine(), watch())
    ids = {id_ for state in scenes for id_ in (*state["actors"], *state["tokens"])}
    for step in steps:
        validator(key).validate(step)
        assert step["rule"] == STEPS[key].rule
        for subject in STEPS[key].subjects:
            value = step["data"][subject]
            nullable = STEPS[key].fields[subject] is EVERY  # a pin for every observer
            assert value in ids or (value is None and nullable), (key, subject, value)


def test_each_contest_step_names_its_own_pair() -> None:
    contests = by_key("DET-8.contest")
    pairs = {(s["data"]["observer"], s["data"]["target"]) for s in contests}
    assert pairs >= {("tokBran", "tokAssassin"), ("tokCora", "tokAssassin")}


def test_the_second_track_worsening_says_second() -> None:
    [worse] = by_key("HEALTH-13.worsening")
    assert worse["data"]["track"] == "second" and worse["data"]["actor"] == "Actor.cora"
    assert all(s["data"]["track"] == "first" for s in by_key("HEALTH-4.worsening"))


def test_an_upsert_says_its_old_and_new_values() -> None:
    [upsert] = [step for step in keep_steps() if step["key"] == "UPSERT.set"]
    assert (upsert["data"]["old"], upsert["data"]["new"]) == (0, 2)


def test_the_wound_penalty_change_is_a_HEALTH_7_step() -> None:
    changes = by_key("HEALTH-7.change")
    assert changes and all(s["data"]["before"] != s["data"]["after"] for s in changes)


def test_DET_4_explain_answers_with_a_summary_first() -> None:
    world = World("keep")
    world.commit(world.prepare_sync({"state": scene()}), "{}")
    answer = world.query({"kind": "explain", "observer": "tokBran", "target": "tokAssassin"})
    first = answer["log"][0]
    assert first["key"] == "DET-4.summary"
    assert first["text"].startswith("tokBran locates tokAssassin unlocated")


@pytest.mark.parametrize("scene_id", ["crypt", "watch"])
def test_every_explain_answer_starts_with_its_one_line_summary(scene_id: str) -> None:
    """DET-4: for every ordered pair of tokens, explain's first step is `DET-4.summary`, whose text
    reads "<observer> locates <target> <state>: <means>, <rule>" and agrees with the answer."""
    written()
    world = WORLDS[scene_id]
    tokens = sorted(world.state.tokens)
    for observer in tokens:
        for target in tokens:
            if observer == target:
                continue
            answer = world.query({"kind": "explain", "observer": observer, "target": target})
            first = answer["log"][0]
            assert first["key"] == "DET-4.summary", (observer, target, first)
            data = first["data"]
            assert (data["observer"], data["target"], data["result"]) == (
                observer,
                target,
                answer["data"]["locate"],
            )
            means = f"{data['means']}, " if data["means"] else ""
            assert (
                first["text"] == f"{observer} locates {target} {data['result']}: {means}{data['decidedBy']}"
            )
