"""Stage three (DET-8/9): a pair's standing result, when a pair contests, the circumstance
modifiers, the contest of the two pools and its explanation (DICE-5 decides who wins).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from vtt_bridge.rules.common import Count, Flag, RuleModel, RuleViolation, Step, counted, make_step
from vtt_bridge.rules.detection.locating import Reach
from vtt_bridge.rules.detection.means import PINPOINTED, STATES, LocateState
from vtt_bridge.rules.dice import Roll, Roller, active_wins, roll_pool


class ContestWin(RuleModel):
    """DET-8: the standing stage-three result of an observer against a target (server-written).

    A win raises the stage-two state it was won against by one step and holds until the next round's
    contests or until stage two changes (then the server drops it). A contest lost in a combat round
    (the round's own or on demand) is kept too (`won: false`, raising nothing), so the pair is not
    contested again that round.
    """

    stage_two: LocateState
    round: Count = 0
    won: Flag = True


def raise_one_step(stage_two: int, capability: int) -> int:
    """DET-8: a win raises the stage-two state one step, never above the observer's capability (DET-3)."""
    return max(stage_two, min(stage_two + 1, capability))


@dataclass(frozen=True, slots=True)
class Standing:
    """DET-8: a pair's level once its standing stage-three result is applied, and whether that
    result is stale (its stage two changed, or the target lost its anti-detection: drop it)."""

    level: int
    stale: bool


_STANDINGS = tuple((Standing(level, False), Standing(level, True)) for level in range(3))
"""Every `Standing` there is (three levels, stale or not), shared."""


def standing(
    stage_two: int, capability: Reach, distance2: float, anti: bool, result: ContestWin | None
) -> Standing:
    """DET-8: a win raises the stage two it was won against by one step (up to the capability at this
    distance); a kept loss raises nothing; a result won against another stage two, or against a
    target without anti-detection, is stale and raises nothing."""
    if result is None:
        return _STANDINGS[stage_two][False]
    if not anti or result.stage_two is not STATES[stage_two]:
        return _STANDINGS[stage_two][True]
    if not result.won:
        return _STANDINGS[stage_two][False]
    return _STANDINGS[raise_one_step(stage_two, capability.at(distance2))][False]


def contestable(stage_two: int, capability: int, anti: bool) -> bool:
    """DET-6/8: stage three applies to a pair whose target has anti-detection and whose stage two is
    below what the observer's means could reach (its capability)."""
    return anti and stage_two < capability


def spots_nothing(conditions: Mapping[str, bool]) -> bool:
    """DET-8 with HEALTH-3/5: an unconscious or dead observer makes no contest. Its stages one and two
    stand: they describe its means, not its attention."""
    return bool(conditions.get("unconscious") or conditions.get("dead"))


def contested_this_round(last: ContestWin | None, round_number: int) -> bool:
    """DET-8: in a combat round (1 or more) a pair has one contest, won or lost."""
    return round_number >= 1 and last is not None and last.round == round_number


def keeps_result(won: bool, round_number: int) -> bool:
    """DET-8: a win is kept until the next round's contest; a loss only in a combat round (round 1 or
    more), so the pair waits for the next round; out of combat a loss leaves nothing."""
    return won or round_number >= 1


def contest_level(stage_two: int, capability: int, won: bool) -> int:
    """DET-8: the pair's level after its contest: a win raises stage two by one step (DET-3 cap)."""
    return raise_one_step(stage_two, capability) if won else stage_two


def lapses(result: ContestWin, round_number: int) -> bool:
    """DET-8: a result holds until the next round's contest; one of another round whose pair ran no
    contest in this one (its observer out of range, out cold) lapses when this round's contests run."""
    return result.round != round_number


def standing_steps(
    result: ContestWin | None, now: Standing, round_number: int, anti: bool, stage_two: int
) -> list[Step]:
    """DET-8 explained for one pair: its standing win or kept loss, or that it has none."""
    state = STATES[now.level].value
    if result is not None and not now.stale and result.won:
        return [
            Step(
                rule="DET-8",
                text=f"stage three: won in round {result.round} against {result.stage_two.value}: {state}",
                data={"round": result.round, "result": state},
                key="DET-8.won",
            )
        ]
    if result is not None and not now.stale:
        this_round = contested_this_round(result, round_number)
        return [
            Step(
                rule="DET-8",
                text=f"stage three: lost in round {result.round}: {state}"
                + ("; no other contest this round" if this_round else ""),
                data={"lostIn": result.round, "result": state, "thisRound": this_round},
                key="DET-8.lostThisRound" if this_round else "DET-8.lost",
            )
        ]
    if anti and stage_two != PINPOINTED:
        return [
            Step(
                rule="DET-8",
                text="stage three: no standing win this round",
                data={"win": False},
                key="DET-8.noWin",
            )
        ]
    return []


@dataclass(frozen=True, slots=True)
class ContestModifier:
    """DET-9: one circumstance modifier of the stage-three contest, in dice (DP)."""

    side: Literal["observer", "hider"]
    dp: int
    text: str
    reason: str = ""
    """A stable key of the circumstance, for clients that localize it."""
    step_text: str = field(init=False, repr=False, compare=False)
    """The text of its DET-9 step (`pair_contest_steps`), made once: a round details thousands of
    contests that share one modifiers tuple."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "step_text", f"{self.side} {self.dp:+d} DP: {self.text}")


def spot_pool_base(perception: int, investigation: int) -> int:
    """DET-8: the observer's pool in a stage-three contest before modifiers, PER + Investigation."""
    return perception + investigation


def hide_pool_base(dexterity: int, stealth: int) -> int:
    """DET-8: the hider's pool in a stage-three contest before modifiers, DEX + Stealth."""
    return dexterity + stealth


def contest_modifiers(
    *,
    unlocated: bool,
    noisy: bool,
    hearing: bool,
    smell: bool,
    attacked: bool,
    made_sound: bool,
    unusual_smell: bool,
    moved_over_half_speed: bool,
    within_approximate_range: bool,
    within_sensory_range: bool,
    observer_wound_penalty: int = 0,
    hider_wound_penalty: int = 0,
) -> tuple[ContestModifier, ...]:
    """DET-9: every modifier that applies; they all stack (DICE-4). HEALTH-7's wound penalty (the
    optional rule: 0 while it is off) takes its dice from either side's roll, as from all rolls."""
    found: list[ContestModifier] = []
    if unlocated:
        found.append(
            ContestModifier("hider", 10, "the observer cannot locate the hider: it is invisible", "invisible")
        )
    if noisy and hearing:
        found.append(ContestModifier("observer", -2, "noisy surroundings", "noisy"))
    if attacked and hearing:
        found.append(
            ContestModifier("observer", 2, "the hider attacked or cast a spell last turn", "attacked")
        )
    if made_sound and hearing:
        found.append(ContestModifier("observer", 2, "the hider made a sound last turn", "sound"))
    if unusual_smell and smell:
        found.append(ContestModifier("observer", 2, "the hider gives off an unusual smell", "smell"))
    if moved_over_half_speed:
        found.append(
            ContestModifier("observer", 2, "the hider moved more than half its speed last turn", "moved")
        )
    if within_approximate_range:
        found.append(
            ContestModifier("observer", 1, "within the observer's approximate range", "approximateRange")
        )
    if within_sensory_range:
        found.append(ContestModifier("observer", 1, "within the observer's sensory range", "sensoryRange"))
    if observer_wound_penalty:
        found.append(ContestModifier("observer", -observer_wound_penalty, "wound penalty", "woundPenalty"))
    if hider_wound_penalty:
        found.append(ContestModifier("hider", -hider_wound_penalty, "wound penalty", "woundPenalty"))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class StageThreeContest:
    """DET-8: the pools after DET-9 modifiers, both rolls and who won."""

    observer_pool: int
    hider_pool: int
    modifiers: tuple[ContestModifier, ...]
    observer_roll: Roll
    hider_roll: Roll
    observer_wins: bool


def contest(
    observer_base: int,
    hider_base: int,
    modifiers: Sequence[ContestModifier],
    observer_roller: Roller,
    hider_roller: Roller,
) -> StageThreeContest:
    """DET-8: PER + Investigation (observer_base) against DEX + Stealth (hider_base), modified."""
    observer_dp, hider_dp = modifier_dice(modifiers)
    observer_roll = roll_pool(observer_base + observer_dp, observer_roller)
    hider_roll = roll_pool(hider_base + hider_dp, hider_roller)
    return contest_outcome(
        observer_base + observer_dp, hider_base + hider_dp, modifiers, observer_roll, hider_roll
    )


def modifier_dice(modifiers: Sequence[ContestModifier]) -> tuple[int, int]:
    """DET-9: the dice the modifiers add to the observer's pool and to the hider's (all stack)."""
    return (
        sum(m.dp for m in modifiers if m.side == "observer"),
        sum(m.dp for m in modifiers if m.side == "hider"),
    )


def contest_outcome(
    observer_pool: int,
    hider_pool: int,
    modifiers: Sequence[ContestModifier],
    observer_roll: Roll,
    hider_roll: Roll,
) -> StageThreeContest:
    """DET-8/DICE-5: a contest of the two pools with these rolls: the observer (the active side) wins
    with at least one success and at least the hider's."""
    return StageThreeContest(
        observer_pool=observer_pool,
        hider_pool=hider_pool,
        modifiers=tuple(modifiers),
        observer_roll=observer_roll,
        hider_roll=hider_roll,
        observer_wins=active_wins(observer_roll.successes, hider_roll.successes),
    )


_VALUES: tuple[str, str, str] = (STATES[0].value, STATES[1].value, STATES[2].value)
"""DET-4: the wire form of each level's state (an enum's `.value` is a Python-level property)."""


def _verdict(won: bool, tie: bool, before: int, result: int) -> tuple[str, str]:
    """DICE-5: a contest verdict's key and text (a tie the observer wins is `DICE-5.tie`)."""
    if won:
        key = "DICE-5.tie" if tie else "DICE-5.spotted"
        verdict = "the observer wins (ties go to the detecting side)" if tie else "the observer wins"
    else:
        key, verdict = "DICE-5.hidden", "the hider wins"
    return key, f"{verdict}: {_VALUES[before]} → {_VALUES[result]}"


_VERDICTS = {
    (won, tie, before, result): _verdict(won, tie, before, result)
    for won in (True, False)
    for tie in (True, False)
    for before in range(3)
    for result in range(3)
}
"""Every DICE-5 verdict's key and text, by (observer wins, tie, level before, level after)."""


def contest_steps(
    observer: str, target: str, outcome: StageThreeContest, stage_two: int, result: LocateState
) -> list[Step]:
    """DET-8/9 explained: each modifier, both pools and rolls, who won and the pair's new state."""
    return pair_contest_steps(
        observer,
        target,
        outcome.observer_pool,
        outcome.hider_pool,
        outcome.modifiers,
        outcome.observer_roll,
        outcome.hider_roll,
        stage_two,
        result.level,
    )


def pair_contest_steps(
    observer: str,
    target: str,
    observer_pool: int,
    hider_pool: int,
    modifiers: Sequence[ContestModifier],
    observer_roll: Roll,
    hider_roll: Roll,
    stage_two: int,
    result: int,
) -> list[Step]:
    """`contest_steps` of a contest given by its parts (the pools after DET-9 modifiers, both rolls,
    the stage-two level and the level after): what a round details for thousands of pairs, without
    a `StageThreeContest` per pair. The observer wins by DICE-5 (`active_wins`)."""
    steps = [
        make_step(
            "DET-9",
            m.step_text,
            {"observer": observer, "target": target, "side": m.side, "dp": m.dp, "reason": m.reason},
            "DET-9.modifier",
        )
        for m in modifiers
    ]
    spotted, hidden = observer_roll.successes, hider_roll.successes
    steps.append(
        make_step(
            "DET-8",
            f"{observer} PER + Investigation {observer_pool} DP: "
            f"{counted(spotted, 'success', 'successes')} vs "
            f"{target} DEX + Stealth {hider_pool} DP: {counted(hidden, 'success', 'successes')}",
            {
                "observer": observer,
                "target": target,
                "observerPool": observer_pool,
                "observerDice": list(observer_roll.dice),
                "observerSuccesses": spotted,
                "hiderPool": hider_pool,
                "hiderDice": list(hider_roll.dice),
                "hiderSuccesses": hidden,
            },
            "DET-8.contest",
        )
    )
    won = active_wins(spotted, hidden)
    tie = spotted == hidden
    key, text = _VERDICTS[won, tie, stage_two, result]
    steps.append(
        make_step(
            "DICE-5",
            text,
            {
                "observer": observer,
                "target": target,
                "observerWins": won,
                "tie": tie,
                "before": _VALUES[stage_two],
                "result": _VALUES[result],
            },
            key,
        )
    )
    return steps


ROUND_DETAIL_LIMIT = 20
"""A round with more stage-three contests than this details only those that changed a pair's state
(a 500-token scene runs thousands each round); the GM can `explain` any other pair."""


def details_every_contest(contests: int) -> bool:
    """Whether a round details each of its `contests` (few) or only those that changed a pair."""
    return contests <= ROUND_DETAIL_LIMIT


def round_steps(round_number: int, contests: int, changed: int, detailed: int, lapsed: int) -> list[Step]:
    """DET-8 for a whole round: the earlier results that lapse (none: no step), then how many
    contests ran (none: no step), how many changed a pair's state and how many are detailed (all of
    them while few, `details_every_contest`, else those that changed)."""
    steps: list[Step] = []
    if lapsed:
        steps.append(
            Step(
                rule="DET-8",
                text=f"{lapsed} stage-three results of earlier rounds lapse: no contest of theirs this round",
                data={"lapsed": lapsed},
                key="DET-8.lapsed",
            )
        )
    if contests:
        every = details_every_contest(contests)
        steps.append(
            Step(
                rule="DET-8",
                text=f"stage three, round {round_number}: {counted(contests, 'contest')}, {changed} changed "
                f"a pair's state" + ("" if every else f"; the {detailed} that changed are detailed"),
                data={"round": round_number, "contests": contests, "changed": changed, "detailed": detailed},
                key="DET-8.round",
            )
        )
    return steps


def check_contest(
    observer: str,
    target: str,
    *,
    conditions: Mapping[str, bool],
    anti: bool,
    stage_two: int,
    capability: int,
    last: ContestWin | None,
    round_number: int,
) -> None:
    """DET-6/8: whether `observer` may contest `target` now; refused, in this order, when the observer
    spots nothing (unconscious or dead), the target has no anti-detection (stage one exposes it),
    stage two already gives what the observer's means allow, or the pair had its contest of this
    combat round."""
    if spots_nothing(conditions):
        raise RuleViolation("DET-8", f"{observer} is unconscious or dead: it spots nothing", ("observer",))
    if not anti:
        raise RuleViolation("DET-6", f"{target} has no anti-detection: no contest is needed", ("target",))
    if not contestable(stage_two, capability, anti):
        raise RuleViolation(
            "DET-8", f"{observer} already locates {target} as well as its means allow", ("observer",)
        )
    if contested_this_round(last, round_number):
        raise RuleViolation(
            "DET-8",
            f"{observer} already contested {target} in round {round_number}: once per round",
            ("target",),
        )
