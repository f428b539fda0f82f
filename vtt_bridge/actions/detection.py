"""Detection actions (DET-1..10): `move`, `contest`, the round's stage-three contests, and the
`explain` / `attackCheck` queries. The decisions are `rules.detection`'s; the matrix and its caches
are the world's `document.visibility.VisibilityIndex` (`Context.visibility`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from vtt_bridge.actions import Context, Handler, QueryHandler, Ruling
from vtt_bridge.document.models import Id, NotFound, Scene, WorldState, pending_cells, replaced
from vtt_bridge.document.visibility import Contests, Pair, Pairs, Visibility, VisibilityIndex, token_actor
from vtt_bridge.rules.common import Count, RuleModel, RuleViolation, Step
from vtt_bridge.rules.detection import (
    STATES,
    AttackConsequence,
    LocateState,
    SpellKind,
    StageThreeContest,
    attack_consequence,
    contest,
    contest_level,
    contest_modifiers,
    contest_steps,
    contestable,
    contested_this_round,
    explain_locate,
    keeps_result,
    lapses,
    spots_nothing,
    standing_steps,
)
from vtt_bridge.rules.dice import Roll, Roller, SuppliedDice
from vtt_bridge.rules.energy import Attribute

TokenId = Id
"""A document id (`document.models.Id`)."""
Coordinate = Annotated[float, Field(strict=True, ge=-1e9, le=1e9, allow_inf_nan=False)]
D10 = Annotated[int, Field(strict=True, ge=1, le=10)]

_DEFAULT_SCENE = Scene(id="default")


def explain(state: WorldState, observer: str, target: str, index: VisibilityIndex) -> list[Step]:
    """How the observer token locates the target token, rule by rule, with the numbers."""
    pair = index.pair(state, observer, target, ("observer", "target"))
    conditions = pair.observer.conditions
    stage_two, steps = explain_locate(
        pair.observer.detection,
        pair.target.anti_detection,
        humanoid=pair.observer.humanoid,
        blinded=conditions.get("blinded", False),
        deafened=conditions.get("deafened", False),
        distance2=pair.distance2,
    )
    distance = math.sqrt(pair.distance2)
    units = (state.scene or _DEFAULT_SCENE).grid_units
    result = state.contests.get(observer, {}).get(target)
    now = pair.standing(result)
    round_number = state.scene.round if state.scene is not None else 0
    located = STATES[now.level].value
    best_means = (steps[-1].data or {}).get("means") if steps else None
    decided = "DET-8" if now.level != stage_two.level else (steps[-1].rule if steps else "DET-6")
    summary = {"observer": observer, "target": target, "result": located, "means": best_means}
    return [
        Step(
            rule="DET-4",
            text=f"{observer} locates {target} {located}"
            + (f": {best_means}, {decided}" if best_means else f": {decided}"),
            data={**summary, "decidedBy": decided},
            key="DET-4.summary",
        ),
        Step(
            rule="DET-5",
            text=f"{observer} → {target}: distance {distance:.2f} {units} (3D, elevation included)",
            data={"observer": observer, "target": target, "distance": distance, "units": units},
            key="DET-5.distance",
        ),
        *steps,
        *standing_steps(result, now, round_number, bool(pair.key), stage_two.level),
        Step(
            rule="DET-4",
            text=f"{observer} locates {target}: {located}",
            data=summary,
            key="DET-4.locate",
        ),
    ]


def _within(limit: float | None, distance2: float) -> bool:
    return limit is not None and distance2 <= limit * limit


def _run_contest(
    state: WorldState,
    pair: Pair,
    current: LocateState,
    observer_roller: Roller,
    hider_roller: Roller,
) -> StageThreeContest:
    """DET-8/9 for one pair: pools, modifiers, rolls."""
    profile = pair.senses.profile
    noisy = state.scene.noisy if state.scene is not None else False
    last = pair.target.last_turn
    modifiers = contest_modifiers(
        unlocated=current is LocateState.UNLOCATED,
        noisy=noisy,
        hearing=profile.hearing.at(pair.distance2) > 0,
        # a human has a nose though smell is none of its means of detection (DET-3); other creatures
        # smell with a means of theirs
        smell=profile.humanoid or profile.smell.at(pair.distance2) > 0,
        attacked=last.attacked,
        made_sound=last.made_sound,
        unusual_smell=pair.target.unusual_smell,
        moved_over_half_speed=last.moved_over_half_speed,
        within_approximate_range=_within(pair.observer.approximate_range, pair.distance2),
        within_sensory_range=_within(pair.observer.sensory_range, pair.distance2),
        observer_wound_penalty=pair.observer.wound_penalty,
        hider_wound_penalty=pair.target.wound_penalty,
    )
    observer_base = pair.observer.attributes.get(Attribute.PER, 0) + pair.observer.skills.get(
        "investigation", 0
    )
    hider_base = pair.target.attributes.get(Attribute.DEX, 0) + pair.target.skills.get("stealth", 0)
    return contest(observer_base, hider_base, modifiers, observer_roller, hider_roller)


def _record(
    index: VisibilityIndex,
    visibility: Visibility,
    contests: Contests,
    pair: Pair,
    stage_two: int,
    capability: int,
    won: bool,
    round_number: int,
) -> LocateState:
    """DET-8: write a contest's result and the pair's new state into the matrix being built."""
    level = contest_level(stage_two, capability, won)
    wins = dict(contests.get(pair.observer_id, {}))
    if keeps_result(won, round_number):
        wins[pair.target_id] = index.result(STATES[stage_two], round_number, won)
    else:
        wins.pop(pair.target_id, None)
    if wins:
        contests[pair.observer_id] = wins
    else:
        contests.pop(pair.observer_id, None)
    row = visibility.get(pair.observer_id, {})
    if row.get(pair.target_id) is not STATES[level]:
        row = dict(row)
        row[pair.target_id] = STATES[level]
        visibility[pair.observer_id] = row
    return STATES[level]


class MoveAction(RuleModel):
    """`move` `{token, x, y, elevation?}`: canvas pixels; elevation in scene units."""

    kind: Literal["move"]
    token: TokenId
    x: Coordinate
    y: Coordinate
    elevation: Coordinate | None = None


def move(state: WorldState, action: MoveAction, ctx: Context) -> Ruling:
    """Move a token; recompute only the pairs that involve it (DET-5..8)."""
    token = state.tokens.get(action.token)
    if token is None:
        raise NotFound(("token",), f"no token {action.token!r} on the scene")
    elevation = token.elevation if action.elevation is None else action.elevation
    moved = token.model_copy(update={"x": action.x, "y": action.y, "elevation": elevation})
    tokens = replaced(state.tokens, action.token, moved)
    after, cells = ctx.visibility.refresh_tokens(
        state, state.model_copy(update={"tokens": tokens}), (action.token,), ctx.unapplied_cells
    )
    if cells is None:
        cells = [
            (observer, target)
            for observer, row in after.visibility.items()
            for target, located in row.items()
            if state.visibility.get(observer, {}).get(target) is not located
        ]
    changed = len(cells) + sum(len(row) for row in pending_cells(after.visibility).values())
    log = (
        Step(
            rule="DET-5",
            text=(
                f"{action.token} moved to ({action.x}, {action.y}, elevation {elevation}); "
                f"{changed} pairs changed"
            ),
            data={"token": action.token, "changedPairs": changed},
        ),
    )
    return Ruling(state=after, log=log)


class ContestDice(RuleModel):
    """DICE-6: the VTT's dice for both sides, in rolling order (10-again rerolls included)."""

    observer: tuple[D10, ...]
    target: tuple[D10, ...]


class ContestAction(RuleModel):
    """`contest` `{observer, target, dice?}`: one stage-three contest now (DET-8), once a round a pair.

    In a combat round a pair that has had its contest of the round, won or lost, is refused.
    """

    kind: Literal["contest"]
    observer: TokenId
    target: TokenId
    dice: ContestDice | None = None


def contest_action(state: WorldState, action: ContestAction, ctx: Context) -> Ruling:
    """DET-8/9: one stage-three contest between two tokens, with engine dice or the VTT's."""
    index = ctx.visibility
    base = index.refresh(state, state)
    pair = index.pair(base, action.observer, action.target, ("observer", "target"))
    if spots_nothing(pair.observer.conditions):
        raise RuleViolation(
            "DET-8", f"{action.observer} is unconscious or dead: it spots nothing", ("observer",)
        )
    if not pair.key:
        raise RuleViolation(
            "DET-6", f"{action.target} has no anti-detection: no contest is needed", ("target",)
        )
    stage_two, capability = pair.stage_two, pair.capability
    if not contestable(stage_two, capability, bool(pair.key)):
        raise RuleViolation(
            "DET-8",
            f"{action.observer} already locates {action.target} as well as its means allow",
            ("observer",),
        )
    round_number = base.scene.round if base.scene is not None else 0
    if contested_this_round(base.contests.get(action.observer, {}).get(action.target), round_number):
        raise RuleViolation(
            "DET-8",
            f"{action.observer} already contested {action.target} in round {round_number}: once per round",
            ("target",),
        )
    current = base.visibility[action.observer][action.target]
    if action.dice is None:
        outcome = _run_contest(base, pair, current, ctx.roller, ctx.roller)
    else:
        observer_dice = SuppliedDice(action.dice.observer, ("dice", "observer"))
        hider_dice = SuppliedDice(action.dice.target, ("dice", "target"))
        outcome = _run_contest(base, pair, current, observer_dice, hider_dice)
        observer_dice.used_up(outcome.observer_roll)
        hider_dice.used_up(outcome.hider_roll)
    visibility = dict(base.visibility)
    contests = dict(base.contests)
    result = _record(
        index, visibility, contests, pair, stage_two, capability, outcome.observer_wins, round_number
    )
    cells: Pairs | None = None
    if base is state:
        cells = [(action.observer, action.target)] if result is not current else []
    after = index.mark_fresh(
        base.model_copy(update={"visibility": visibility, "contests": contests}), state, cells
    )
    log = contest_steps(action.observer, action.target, outcome, stage_two, result)
    return Ruling(state=after, log=tuple(log), rolls=_named_rolls(action.observer, action.target, outcome))


@dataclass(frozen=True, slots=True)
class _Held:
    """One contest of a round that its log details."""

    pair: Pair
    outcome: StageThreeContest
    stage_two: int
    result: LocateState


ROUND_DETAIL_LIMIT = 20
"""A round with more stage-three contests than this details only those that changed a pair's state
(a 500-token scene runs thousands each round); the GM can `explain` any other pair."""


def round_contests(state: WorldState, ctx: Context) -> Ruling:
    """DET-8: the new round's stage-three contests, for every pair whose target has anti-detection and
    whose observer (awake and alive) has not pinpointed it in stage two but could; each replaces the
    last result, and in a combat round a loss is kept as the pair's contest of the round. The log
    counts them and details each (dice included) while there are few, else those that changed."""
    index = ctx.visibility
    base = index.refresh(state, state)
    visibility = dict(base.visibility)
    contests = dict(base.contests)
    round_number = base.scene.round if base.scene is not None else 0
    cells: Pairs = []
    ran = 0
    first: list[_Held] = []
    """The round's first contests, while there are few enough to detail every one."""
    changed: list[_Held] = []
    """The contests that changed a pair's state."""
    hiders = [tid for tid, tok in base.tokens.items() if index.senses(token_actor(base, tid, tok)).key]
    if hiders:
        for observer, token in base.tokens.items():
            if spots_nothing(token_actor(base, observer, token).conditions):
                continue
            for target in hiders:
                if target == observer:
                    continue
                pair = index.pair(base, observer, target, ("observer", "target"))
                stage_two, capability = pair.stage_two, pair.capability
                if not contestable(stage_two, capability, bool(pair.key)):
                    continue
                current = base.visibility[observer][target]
                outcome = _run_contest(base, pair, current, ctx.roller, ctx.roller)
                result = _record(
                    index,
                    visibility,
                    contests,
                    pair,
                    stage_two,
                    capability,
                    outcome.observer_wins,
                    round_number,
                )
                if result is not current:
                    cells.append((observer, target))
                ran += 1
                if result is not current or ran <= ROUND_DETAIL_LIMIT:
                    entry = _Held(pair, outcome, stage_two, result)
                    if ran <= ROUND_DETAIL_LIMIT:
                        first.append(entry)
                    if result is not current:
                        changed.append(entry)
    lapsed = _lapse_old_results(index, base, visibility, contests, round_number, cells)
    log: list[Step] = []
    rolls: list[Roll] = []
    if lapsed:
        log.append(
            Step(
                rule="DET-8",
                text=f"{lapsed} stage-three results of earlier rounds lapse: no contest of theirs this round",
                data={"lapsed": lapsed},
                key="DET-8.lapsed",
            )
        )
    if ran:
        every = ran <= ROUND_DETAIL_LIMIT
        shown = first if every else changed
        log.append(
            Step(
                rule="DET-8",
                text=f"stage three, round {round_number}: {ran} contests, {len(cells)} changed "
                f"a pair's state" + ("" if every else f"; the {len(shown)} that changed are detailed"),
                data={"round": round_number, "contests": ran, "changed": len(cells), "detailed": len(shown)},
                key="DET-8.round",
            )
        )
        for entry in shown:
            pair, outcome = entry.pair, entry.outcome
            log.extend(
                contest_steps(pair.observer_id, pair.target_id, outcome, entry.stage_two, entry.result)
            )
            rolls.extend(_named_rolls(pair.observer_id, pair.target_id, outcome))
    after = index.mark_fresh(
        base.model_copy(update={"visibility": visibility, "contests": contests}),
        state,
        cells if base is state else None,
    )
    return Ruling(state=after, log=tuple(log), rolls=tuple(rolls))


def _named_rolls(observer: str, target: str, outcome: StageThreeContest) -> tuple[Roll, Roll]:
    """DET-8: the contest's two rolls, each named: the observer's to spot, the hider's to hide."""
    return outcome.observer_roll.of(observer, "spot"), outcome.hider_roll.of(target, "hide")


def _lapse_old_results(
    index: VisibilityIndex,
    base: WorldState,
    visibility: Visibility,
    contests: Contests,
    round_number: int,
    cells: Pairs,
) -> int:
    """DET-8: a result holds until the next round's contest. The round's contests have replaced the
    results of the pairs they ran; a win of another round whose pair ran no contest now (its observer
    out of range, out cold) lapses too, and the pair is back at its stage two. Returns how many."""
    lapsed = 0
    for observer, wins in list(contests.items()):
        old = [target for target, win in wins.items() if lapses(win, round_number)]
        if not old:
            continue
        kept = {target: win for target, win in wins.items() if target not in old}
        if kept:
            contests[observer] = kept
        else:
            del contests[observer]
        for target in old:
            lapsed += 1
            if observer not in base.tokens or target not in base.tokens:
                continue
            level = index.pair(base, observer, target, ("observer", "target")).stage_two
            row = visibility[observer]
            if row.get(target) is not STATES[level]:
                row = visibility[observer] = dict(row)
                row[target] = STATES[level]
                cells.append((observer, target))
    return lapsed


class ExplainQuery(RuleModel):
    """`query` `{kind: "explain", observer, target}`."""

    kind: Literal["explain"]
    observer: TokenId
    target: TokenId


def explain_query(state: WorldState, query: ExplainQuery, index: VisibilityIndex) -> dict[str, Any]:
    """`explain`: how the observer locates the target, rule by rule: `{observer, target, locate, log}`."""
    steps = explain(state, query.observer, query.target, index)
    final = steps[-1].data or {}
    return {
        "observer": query.observer,
        "target": query.target,
        "locate": final["result"],
        "log": [step.payload() for step in steps],
    }


class AttackCheckQuery(RuleModel):
    """`query` `{kind: "attackCheck", attacker, target, successes, extraSuccesses?, effectPoints?,
    spell?}` (DET-10)."""

    kind: Literal["attackCheck"]
    attacker: TokenId
    target: TokenId
    successes: Count
    extra_successes: Count = 0
    effect_points: Count = 0
    spell: SpellKind | None = None


def attack_check(state: WorldState, query: AttackCheckQuery, index: VisibilityIndex) -> dict[str, Any]:
    """DET-10: what the attack or spell counts for, from how the attacker locates the target now.
    The answer is an `AttackConsequence` plus a `log` of steps."""
    consequence = check_attack(state, query, index)
    located = consequence.locate.value
    if consequence.spell is not None:
        chance = f"works with a {consequence.spell_chance:.0%} chance"
        verdict = f"{consequence.spell.value} spell: " + (
            chance if consequence.spell_allowed else "not allowed"
        )
    elif consequence.halved:
        verdict = "attack: successes, extra successes and effect points halved (round down)"
        if consequence.guessed_position_only:
            verdict += ", only at a guessed position (a right guess counts as approximate)"
    else:
        verdict = "attack: counts in full"
    log = [
        Step(
            rule="DET-4", text=f"{query.attacker} locates {query.target}: {located}", data={"locate": located}
        ),
        Step(
            rule="DET-10",
            text=verdict,
            data={
                "successes": consequence.successes,
                "extraSuccesses": consequence.extra_successes,
                "effectPoints": consequence.effect_points,
                "halved": consequence.halved,
                "guessedPositionOnly": consequence.guessed_position_only,
                "spell": None if consequence.spell is None else consequence.spell.value,
                "spellAllowed": consequence.spell_allowed,
                "spellChance": consequence.spell_chance,
            },
        ),
    ]
    return {**consequence.model_dump(mode="json"), "log": [step.payload() for step in log]}


def check_attack(state: WorldState, query: AttackCheckQuery, index: VisibilityIndex) -> AttackConsequence:
    """DET-10 as a model: the attacker's current locate state (stages one to three) applied."""
    pair = index.pair(state, query.attacker, query.target, ("attacker", "target"))
    win = state.contests.get(query.attacker, {}).get(query.target)
    level = pair.standing(win).level
    return attack_consequence(
        STATES[level], query.successes, query.extra_successes, query.effect_points, query.spell
    )


ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "move": (MoveAction, move),
    "contest": (ContestAction, contest_action),
}
"""Action kind -> (payload model, handler). `round` is shared: the round handler calls `round_contests`."""


QUERIES: dict[str, tuple[type[RuleModel], QueryHandler]] = {
    "explain": (ExplainQuery, explain_query),
    "attackCheck": (AttackCheckQuery, attack_check),
}
"""Query kind -> (payload model, handler returning the `result` body as a model)."""
