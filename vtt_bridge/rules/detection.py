"""Detection and locating (DET-1..10): means, anti-detection, locate states, the three stages.

Levels: a locate state is also a number, unlocated 0 < approximate 1 < pinpointed 2 (DET-4), so
"best over means" is `max` and "worst for the observer" is `min`. Distances are compared squared
(scene units²) everywhere, so the matrix fast path and the explanation never disagree at a boundary.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from vtt_bridge.rules.common import Count, Distance, Flag, RuleModel, Step, counted, make_step
from vtt_bridge.rules.dice import Roll, Roller, active_wins, kept_extra_successes, roll_pool
from vtt_bridge.rules.ranks import Priced, PricedRank, Rank

MeansName = Annotated[str, Field(strict=True, min_length=1, max_length=100)]


class Essence(StrEnum):
    """DET-1: the four Essences of a means of detection or anti-detection."""

    NATURAL = "natural"
    TECHNOLOGICAL = "technological"
    MAGICAL = "magical"
    ANOMALOUS = "anomalous"


class Sense(StrEnum):
    """The sense a means of detection works through (DET-5 blinds sight, deafens hearing)."""

    SIGHT = "sight"
    HEARING = "hearing"
    SMELL = "smell"
    TOUCH = "touch"
    OTHER = "other"


class Capability(StrEnum):
    """DET-3: the best a means can do."""

    PINPOINT = "pinpoint"
    APPROXIMATE = "approximate"


class LocateState(StrEnum):
    """DET-4: locate states, ordered unlocated < approximate < pinpointed (better for the observer
    is greater). The value is the wire form."""

    PINPOINTED = "pinpointed"
    """The observer knows exactly where the target is."""
    APPROXIMATE = "approximate"
    """The observer knows roughly where: attacks on it are halved (DET-10)."""
    UNLOCATED = "unlocated"
    """The observer does not know where it is."""

    @property
    def level(self) -> int:
        """DET-4: unlocated 0, approximate 1, pinpointed 2 (higher is better for the observer)."""
        return _LEVELS[self]

    @classmethod
    def from_level(cls, level: int) -> LocateState:
        """The state of a level 0..2."""
        return STATES[level]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] < _LEVELS[other]

    def __le__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] <= _LEVELS[other]

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] > _LEVELS[other]

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, LocateState):
            return NotImplemented
        return _LEVELS[self] >= _LEVELS[other]


class DetectionMeans(Priced):
    """DET-1/3: a means of detection; `name` is the table's own word for it (only `sense`, `essence`,
    `rank`, `capability` and `range` decide); `range` in scene units, None for unlimited; `rank` also
    takes a price (RANK-2)."""

    name: MeansName
    sense: Sense
    essence: Essence = Essence.NATURAL
    rank: PricedRank = Rank.UNRANKED
    capability: Capability = Capability.PINPOINT
    range: Distance | None = None


class AntiDetectionMeans(Priced):
    """DET-1: a means of anti-detection `{name, essence, rank}`; `name` is the table's own word for it
    ("invisibility"): only `essence` and `rank` decide; `rank` also takes a price (RANK-2)."""

    name: MeansName
    essence: Essence = Essence.NATURAL
    rank: PricedRank = Rank.UNRANKED


ORDINARY_SENSES: tuple[DetectionMeans, ...] = (
    DetectionMeans(name="sight", sense=Sense.SIGHT, capability=Capability.PINPOINT),
    DetectionMeans(name="hearing", sense=Sense.HEARING, capability=Capability.APPROXIMATE),
)
"""DET-5: an ordinary eye (natural unranked sight, pinpoint) and ear (hearing, approximate)."""

UNLOCATED = 0
APPROXIMATE = 1
PINPOINTED = 2

STATES: tuple[LocateState, LocateState, LocateState] = (
    LocateState.UNLOCATED,
    LocateState.APPROXIMATE,
    LocateState.PINPOINTED,
)
"""DET-4: the locate state of each level, indexed by level."""

_LEVELS = {state: level for level, state in enumerate(STATES)}

AntiKey = tuple[tuple[Essence, int], ...]
"""A target's anti-detection reduced to what matters: sorted distinct (Essence, Rank number) pairs.
Empty: the target has no anti-detection (stage one)."""


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


# --- DET-1..7: one means against one anti-detection ------------------------------------------------


def anti_key(anti_detection: Iterable[AntiDetectionMeans]) -> AntiKey:
    """DET-1: the target's anti-detection means as sorted distinct (Essence, Rank number) pairs."""
    return tuple(sorted({(anti.essence, anti.rank.number) for anti in anti_detection}))


def effective_rank(means_essence: Essence, means_rank: int, anti_essence: Essence) -> int:
    """DET-2: the detecting means counts one Rank higher when the Essences differ (S+1 = 6 beats S)."""
    return means_rank + (1 if means_essence is not anti_essence else 0)


def capability_level(means: DetectionMeans, humanoid: bool) -> int:
    """DET-3: the best a means can do; a human-based observer pinpoints only by sight."""
    if means.capability is Capability.PINPOINT and (not humanoid or means.sense is Sense.SIGHT):
        return PINPOINTED
    return APPROXIMATE


def versus_level(means: DetectionMeans, essence: Essence, rank: int, humanoid: bool) -> int:
    """DET-7: one means against one anti-detection: higher → pinpointed (capped, DET-3), equal →
    approximate, lower → unlocated."""
    effective = effective_rank(means.essence, means.rank.number, essence)
    if effective > rank:
        return capability_level(means, humanoid)
    if effective == rank:
        return APPROXIMATE
    return UNLOCATED


def means_level(means: DetectionMeans, key: AntiKey, humanoid: bool) -> int:
    """DET-6/7: a usable means against a target: at its capability without anti-detection (stage
    one), else against the anti-detection means worst for the observer."""
    if not key:
        return capability_level(means, humanoid)
    return min(versus_level(means, essence, rank, humanoid) for essence, rank in key)


def condition_allows(means: DetectionMeans, blinded: bool, deafened: bool) -> bool:
    """DET-5: blinded loses sight-based means, deafened loses hearing-based means."""
    if blinded and means.sense is Sense.SIGHT:
        return False
    return not (deafened and means.sense is Sense.HEARING)


def range_squared(means: DetectionMeans) -> float:
    """A means' range squared, in scene units²; unlimited is infinity."""
    return math.inf if means.range is None else means.range * means.range


def distance_squared(dx: float, dy: float, dz: float, scale_squared: float) -> float:
    """Token distance squared in scene units²: canvas pixels (dx, dy) times (gridDistance /
    gridSize)², plus the elevation difference dz (scene units) squared: 3D Euclidean."""
    return (dx * dx + dy * dy) * scale_squared + dz * dz


def in_range(means: DetectionMeans, distance2: float) -> bool:
    """DET-5 reading: a means reaches a target at a distance not above its range."""
    return distance2 <= range_squared(means)


# --- DET-7 over all means as a function of distance -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reach:
    """The best level over an observer's usable means as a step function of distance².

    `limits` are the ranges² of the steps, ascending; `levels` the level of each step, descending,
    and last the level beyond every step (what the unlimited means give). The level at d² is that
    of the first step whose range² is at least d²: `levels[bisect_left(limits, d²)]`, the one lookup
    the index's fast paths use too.
    """

    limits: tuple[float, ...]
    levels: tuple[int, ...]

    @property
    def beyond(self) -> int:
        """The level past every finite range."""
        return self.levels[-1]

    @property
    def varies(self) -> bool:
        """Whether the level depends on distance at all."""
        return bool(self.limits)

    def at(self, distance2: float) -> int:
        """The level at this distance²."""
        return self.levels[bisect_left(self.limits, distance2)]


def build_reach(entries: Iterable[tuple[float, int]]) -> Reach:
    """DET-7 "best over all usable means": from (range², level) per means, the step function."""
    beyond = UNLOCATED
    finite: dict[float, int] = {}
    for limit, level in entries:
        if limit == math.inf:
            beyond = max(beyond, level)
        else:
            finite[limit] = max(finite.get(limit, UNLOCATED), level)
    steps: list[tuple[float, int]] = []
    best = beyond
    for limit in sorted(finite, reverse=True):
        best = max(best, finite[limit])
        if steps and steps[-1][1] == best:
            continue
        if best > beyond:
            steps.append((limit, best))
    steps.reverse()
    return Reach(limits=tuple(limit for limit, _ in steps), levels=(*(level for _, level in steps), beyond))


class ObserverProfile:
    """An observer's detection, summarised once and shared by every observer with the same senses:
    its usable means (DET-5) and, per target anti-detection, a `Reach` (memoised per instance)."""

    __slots__ = ("_reaches", "capability", "hearing", "humanoid", "smell", "usable")

    def __init__(
        self, detection: Sequence[DetectionMeans], *, humanoid: bool, blinded: bool, deafened: bool
    ) -> None:
        self.humanoid = humanoid
        self.usable = tuple(m for m in detection if condition_allows(m, blinded, deafened))
        self._reaches: dict[AntiKey, Reach] = {}
        self.capability = build_reach((range_squared(m), capability_level(m, humanoid)) for m in self.usable)
        """DET-3/8: the best a stage-three win can reach, by distance."""
        self.hearing = build_reach((range_squared(m), 1) for m in self.usable if m.sense is Sense.HEARING)
        """DET-9: 1 where the observer has usable hearing."""
        self.smell = build_reach((range_squared(m), 1) for m in self.usable if m.sense is Sense.SMELL)
        """DET-9: 1 where the observer has a usable sense of smell."""

    def reach(self, key: AntiKey) -> Reach:
        """DET-6/7: the best level over usable means against a target with this anti-detection."""
        reach = self._reaches.get(key)
        if reach is None:
            reach = build_reach((range_squared(m), means_level(m, key, self.humanoid)) for m in self.usable)
            self._reaches[key] = reach
        return reach


@dataclass(frozen=True, slots=True)
class LocateExplanation:
    """DET-5..7: the state stages one and two give a pair, and the steps that reach it, the last of
    which names that state."""

    state: LocateState
    steps: tuple[Step, ...]


def locate(
    detection: Sequence[DetectionMeans],
    anti_detection: Sequence[AntiDetectionMeans],
    *,
    humanoid: bool,
    blinded: bool = False,
    deafened: bool = False,
    distance2: float = 0.0,
) -> LocateState:
    """DET-5..7: how an observer locates a target by stages one and two (no stage-three win)."""
    return explain_locate(
        detection, anti_detection, humanoid=humanoid, blinded=blinded, deafened=deafened, distance2=distance2
    ).state


def explain_locate(
    detection: Sequence[DetectionMeans],
    anti_detection: Sequence[AntiDetectionMeans],
    *,
    humanoid: bool,
    blinded: bool = False,
    deafened: bool = False,
    distance2: float = 0.0,
) -> LocateExplanation:
    """DET-5..7 one means at a time, with a step per decision a GM may want to check."""
    steps: list[Step] = []
    key = anti_key(anti_detection)
    distance = math.sqrt(distance2)
    if key:
        names = ", ".join(f"{a.name} ({a.essence.value} {a.rank.value})" for a in anti_detection)
        steps.append(
            Step(
                rule="DET-1",
                text=f"stage one: the target has anti-detection: {names}",
                data={
                    "anti": [a.name for a in anti_detection],
                    "antiDetection": [
                        {"name": a.name, "essence": a.essence.value, "rank": a.rank.value}
                        for a in anti_detection
                    ],
                },
                key="DET-1.anti",
            )
        )
    else:
        steps.append(
            Step(
                rule="DET-6",
                text="stage one: the target has no anti-detection; it is exposed",
                data={"exposed": True},
                key="DET-6.exposed",
            )
        )
    best = UNLOCATED
    best_name: str | None = None
    for means in detection:
        label = f"{means.name} ({means.sense.value}, {means.essence.value} {means.rank.value})"
        if not condition_allows(means, blinded, deafened):
            why = "blinded" if means.sense is Sense.SIGHT else "deafened"
            steps.append(
                Step(
                    rule="DET-5",
                    text=f"{label}: unusable, the observer is {why}",
                    data={"means": means.name, "unusable": why},
                    key="DET-5.unusable",
                )
            )
            continue
        if not in_range(means, distance2):
            steps.append(
                Step(
                    rule="DET-5",
                    text=f"{label}: out of range ({distance:.2f} > {means.range})",
                    data={"means": means.name, "distance": distance, "range": means.range},
                    key="DET-5.outOfRange",
                )
            )
            continue
        cap = capability_level(means, humanoid)
        if means.capability is Capability.PINPOINT and cap == APPROXIMATE:
            steps.append(
                Step(
                    rule="DET-3",
                    text=f"{label}: a human-based observer pinpoints only by sight",
                    data={"means": means.name},
                    key="DET-3.humanoid",
                )
            )
        level = means_level(means, key, humanoid)
        if key:
            for essence, rank in key:
                effective = effective_rank(means.essence, means.rank.number, essence)
                versus = versus_level(means, essence, rank, humanoid)
                bump = " (Essences differ: one Rank higher)" if effective != means.rank.number else ""
                if effective > rank and versus == APPROXIMATE:
                    bump += " (capped at approximate by its capability, DET-3)"
                steps.append(
                    Step(
                        rule="DET-2" if effective != means.rank.number else "DET-7",
                        text=(
                            f"{label} counts as Rank {effective}{bump} vs {essence.value} anti-detection "
                            f"Rank {rank}: {STATES[versus].value}"
                        ),
                        data={
                            "means": means.name,
                            "effectiveRank": effective,
                            "antiRank": rank,
                            "result": STATES[versus].value,
                        },
                        key="DET-2.versus" if effective != means.rank.number else "DET-7.versus",
                    )
                )
            worst = STATES[level].value
            steps.append(
                Step(
                    rule="DET-7",
                    text=f"{label}: the anti-detection worst for it gives {worst}",
                    data={"means": means.name, "result": worst},
                    key="DET-7.worst",
                )
            )
        else:
            steps.append(
                Step(
                    rule="DET-6",
                    text=f"{label}: at its capability: {STATES[level].value}",
                    data={"means": means.name, "result": STATES[level].value},
                    key="DET-6.means",
                )
            )
        if best_name is None or level > best:
            best, best_name = level, means.name
    steps.append(
        Step(
            rule="DET-7" if key else "DET-6",
            text=f"best over usable means: {STATES[best].value}" + (f" ({best_name})" if best_name else ""),
            data={"result": STATES[best].value, "means": best_name if best else None},
            key="DET-7.best" if key else "DET-6.best",
        )
    )
    return LocateExplanation(STATES[best], tuple(steps))


# --- DET-8/9: stage three ---------------------------------------------------------------------------


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


# --- DET-10: consequences ---------------------------------------------------------------------------


class SpellKind(StrEnum):
    """DET-10: a spell that targets ("target X targets") or covers an area ("each target within")."""

    TARGETED = "targeted"
    AREA = "area"


class AttackConsequence(RuleModel):
    """DET-10: what an attack or spell on a target counts for, given how the attacker locates it."""

    locate: LocateState
    guessed_position_only: Flag
    """Unlocated: the attack goes at a guessed position; a right guess counts as approximate."""
    halved: Flag
    successes: Count
    extra_successes: Count
    effect_points: Count
    spell: SpellKind | None = None
    spell_allowed: Flag = True
    spell_chance: Annotated[float, Field(ge=0, le=1)] = 1.0


def attack_consequence(
    locate: LocateState,
    successes: int,
    extra_successes: int = 0,
    effect_points: int = 0,
    spell: SpellKind | None = None,
) -> AttackConsequence:
    """DET-10: approximate halves an attack's successes, extra successes and effect points (round
    down); a targeted spell on it works with a 50% chance; unlocated: attack only at a guessed
    position (a right guess counts as approximate), never a spell's target; area spells work.
    Extra successes add only to a roll left with a success (DICE-3)."""
    unlocated = locate is LocateState.UNLOCATED
    halved = spell is None and locate is not LocateState.PINPOINTED
    divisor = 2 if halved else 1
    allowed = True
    chance = 1.0
    if spell is SpellKind.TARGETED and locate is LocateState.APPROXIMATE:
        chance = 0.5
    elif spell is SpellKind.TARGETED and unlocated:
        allowed, chance = False, 0.0
    return AttackConsequence(
        locate=locate,
        guessed_position_only=unlocated and spell is None,
        halved=halved,
        successes=successes // divisor,
        extra_successes=kept_extra_successes(successes // divisor, extra_successes // divisor),
        effect_points=effect_points // divisor,
        spell=spell,
        spell_allowed=allowed,
        spell_chance=chance,
    )


def guess_is_right(target_x: float, target_y: float, square: float, guess_x: float, guess_y: float) -> bool:
    """DET-10: a guessed position is right when it falls in the square the target stands on (the
    target's top-left corner at `target_x`, `target_y`; `square` the grid size, same units)."""
    return target_x <= guess_x < target_x + square and target_y <= guess_y < target_y + square


def attack_on_guess(
    locate: LocateState,
    right: bool | None,
    successes: int,
    extra_successes: int = 0,
    effect_points: int = 0,
) -> AttackConsequence | None:
    """DET-10 for an attack (no spell) that may name a guessed square: an unlocated target is hit only
    where the guess is right (`right`; None: no guess), and then counts as approximate; a wrong or
    missing guess on an unlocated target is a miss (None). Any other target: `attack_consequence`."""
    if locate is not LocateState.UNLOCATED:
        return attack_consequence(locate, successes, extra_successes, effect_points)
    if not right:
        return None
    return attack_consequence(LocateState.APPROXIMATE, successes, extra_successes, effect_points)


# DET-10: the steps an attack's ruling writes


def locate_step(attacker: str, target: str, located: LocateState) -> Step:
    """DET-4: how the attacker locates the target as the attack is made."""
    return Step(
        rule="DET-4",
        text=f"{attacker} locates {target}: {located.value}",
        data={"attacker": attacker, "target": target, "locate": located.value},
        key="DET-4.attack",
    )


_GUESS_STEPS = {
    None: ("DET-10.noGuess", "unlocated and no square guessed: the attack misses"),
    True: (
        "DET-10.guessRight",
        "the guessed square is right: the attack counts as against an approximate target",
    ),
    False: ("DET-10.guessWrong", "the guessed square is wrong: the attack misses"),
}


def guess_step(attacker: str, target: str, right: bool | None) -> Step:
    """An attack at a guessed square on an unlocated target: right, wrong, or no square guessed."""
    key, text = _GUESS_STEPS[right]
    return Step(
        rule="DET-10",
        text=text,
        data={"attacker": attacker, "target": target, "guessed": right is not None, "right": bool(right)},
        key=key,
    )


def verdict_step(attacker: str, target: str, consequence: AttackConsequence) -> Step:
    """DET-10: what the attack or the targeted spell counts for (`attack_consequence`)."""
    if consequence.spell is not None:
        chance = f"works with a {consequence.spell_chance:.0%} chance"
        verdict = f"{consequence.spell.value} spell: " + (
            chance if consequence.spell_allowed else "not allowed"
        )
        key = "DET-10.spell" if consequence.spell_allowed else "DET-10.noSpell"
    elif consequence.halved:
        verdict = "attack: successes, extra successes and effect points halved (round down)"
        key = "DET-10.halved"
        if consequence.guessed_position_only:
            verdict += ", only at a guessed position (a right guess counts as approximate)"
            key = "DET-10.guessed"
    else:
        verdict = "attack: counts in full"
        key = "DET-10.full"
    return Step(
        rule="DET-10",
        text=verdict,
        data={
            "attacker": attacker,
            "target": target,
            "successes": consequence.successes,
            "extraSuccesses": consequence.extra_successes,
            "effectPoints": consequence.effect_points,
            "halved": consequence.halved,
            "guessedPositionOnly": consequence.guessed_position_only,
            "spell": None if consequence.spell is None else consequence.spell.value,
            "spellAllowed": consequence.spell_allowed,
            "spellChance": consequence.spell_chance,
        },
        key=key,
    )
