"""Detection actions (DET-5..9): `move`, one `contest`, the GM's pins (`pinLocate`, `releaseLocate`)
and the answer to a held reveal (`approveReveal`). The decisions are `rules.detection`'s; the matrix
and its caches are the world's `document.visibility.VisibilityIndex` (`Context.visibility`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.document.circumstances import modifier_args, modifiers_of, pool_bases
from vtt_bridge.document.models import (
    Id,
    LocatePin,
    NotFound,
    PinUntil,
    TargetPins,
    UntilRound,
    WorldState,
    pending_cells,
    replaced,
)
from vtt_bridge.document.visibility import (
    Contests,
    Pair,
    Pairs,
    Visibility,
    VisibilityIndex,
)
from vtt_bridge.rules.common import Flag, RuleModel
from vtt_bridge.rules.detection import (
    STATES,
    LocateState,
    StageThreeContest,
    check_contest,
    check_two_tokens,
    contest,
    contest_level,
    contest_steps,
    keeps_result,
    moved_step,
)
from vtt_bridge.rules.dice import Roll, Roller, SuppliedDice
from vtt_bridge.rules.pins import check_pin_round, pinned_step, released_step, reveal_answered_step

TokenId = Id
"""A document id (`document.models.Id`)."""
Coordinate = Annotated[float, Field(strict=True, ge=-1e9, le=1e9, allow_inf_nan=False)]
D10 = Annotated[int, Field(strict=True, ge=1, le=10)]


def _run_contest(
    state: WorldState,
    pair: Pair,
    current: LocateState,
    observer_roller: Roller,
    hider_roller: Roller,
) -> StageThreeContest:
    """DET-8/9 for one pair: pools, modifiers, rolls."""
    noisy = state.scene.noisy if state.scene is not None else False
    unlocated = current is LocateState.UNLOCATED
    args = modifier_args(pair.observer, pair.target, pair.senses.profile, pair.distance2, unlocated, noisy)
    observer_base, hider_base = pool_bases(pair.observer, pair.target)
    return contest(observer_base, hider_base, modifiers_of(args), observer_roller, hider_roller)


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
    changed = len(cells) + sum(map(len, pending_cells(after.visibility).values()))
    return Ruling(state=after, log=(moved_step(action.token, action.x, action.y, elevation, changed),))


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
    stage_two, capability = pair.stage_two, pair.capability
    round_number = base.scene.round if base.scene is not None else 0
    check_contest(
        action.observer,
        action.target,
        conditions=pair.observer.conditions,
        anti=bool(pair.key),
        stage_two=stage_two,
        capability=capability,
        last=base.contests.get(action.observer, {}).get(action.target),
        round_number=round_number,
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


def _named_rolls(observer: str, target: str, outcome: StageThreeContest) -> tuple[Roll, Roll]:
    """DET-8: the contest's two rolls, each named: the observer's to spot, the hider's to hide."""
    return outcome.observer_roll.of(observer, "spot"), outcome.hider_roll.of(target, "hide")


class PinLocateAction(RuleModel):
    """`pinLocate` `{observer?, target, state, until, by?}`: the GM pins how a token locates another.

    No `observer`: every observer. The pin is laid over the rules' state until `until` (`"scene"`,
    `{"round": N}`: released when round N+1 begins, `"move"`: when either token moves). `by` names
    who set it."""

    kind: Literal["pinLocate"]
    observer: TokenId | None = None
    target: TokenId
    state: LocateState
    until: PinUntil
    by: Annotated[str, Field(strict=True, max_length=200)] = ""


class ReleaseLocateAction(RuleModel):
    """`releaseLocate` `{observer?, target}`: end a pin (no `observer`: the one for every observer)."""

    kind: Literal["releaseLocate"]
    observer: TokenId | None = None
    target: TokenId


def _pin_tokens(state: WorldState, observer: str | None, target: str) -> None:
    if target not in state.tokens:
        raise NotFound(("target",), f"no token {target!r} on the scene")
    if observer is not None:
        if observer not in state.tokens:
            raise NotFound(("observer",), f"no token {observer!r} on the scene")
        check_two_tokens("observer", observer, target, ("target",))


def pin_locate(state: WorldState, action: PinLocateAction, ctx: Context) -> Ruling:
    """Pin a pair (or a target against every observer) to a state; the world lays it over the matrix
    (`document.pins`). A round already past is refused."""
    _pin_tokens(state, action.observer, action.target)
    round_number = state.scene.round if state.scene is not None else 0
    until = action.until
    check_pin_round(until.round if isinstance(until, UntilRound) else None, round_number)
    pin = LocatePin(state=action.state, until=until, by=action.by)
    old = state.pins.get(action.target, TargetPins())
    pins = (
        TargetPins(every=pin, observers=old.observers)
        if action.observer is None
        else TargetPins(every=old.every, observers={**old.observers, action.observer: pin})
    )
    step = pinned_step(
        action.observer,
        action.target,
        action.state.value,
        until if isinstance(until, str) else until.model_dump(mode="json"),
        action.by,
    )
    return Ruling(state=state.model_copy(update={"pins": {**state.pins, action.target: pins}}), log=(step,))


def release_locate(state: WorldState, action: ReleaseLocateAction, ctx: Context) -> Ruling:
    """Release a pin; the pair gets the rules' state back. A pin that is not there is refused."""
    _pin_tokens(state, action.observer, action.target)
    old = state.pins.get(action.target, TargetPins())
    held = old.every if action.observer is None else old.observers.get(action.observer)
    step = released_step(action.observer, action.target, held is not None)
    if action.observer is None:
        left = TargetPins(observers=old.observers)
    else:
        left = TargetPins(
            every=old.every, observers={o: p for o, p in old.observers.items() if o != action.observer}
        )
    pins = dict(state.pins)
    if left.every is None and not left.observers:
        del pins[action.target]
    else:
        pins[action.target] = left
    return Ruling(state=state.model_copy(update={"pins": pins}), log=(step,))


class ApproveRevealAction(RuleModel):
    """`approveReveal` `{observer, target, accept}`: the GM's answer to a reveal held for approval.

    Accepted, the observer pinpoints the target as the contest said (DET-8); refused, the contest
    counts as lost (kept as the pair's contest of the round in a combat round)."""

    kind: Literal["approveReveal"]
    observer: TokenId
    target: TokenId
    accept: Flag


def approve_reveal(state: WorldState, action: ApproveRevealAction, ctx: Context) -> Ruling:
    """Release a held reveal (`settings.approveReveals`): accepted or refused. None held: refused."""
    _pin_tokens(state, action.observer, action.target)
    row = state.reveals.get(action.target, {})
    step = reveal_answered_step(action.observer, action.target, action.accept, held=action.observer in row)
    reveals = dict(state.reveals)
    left = {o: shown for o, shown in row.items() if o != action.observer}
    if left:
        reveals[action.target] = left
    else:
        del reveals[action.target]
    update: dict[str, Any] = {"reveals": reveals}
    if not action.accept:
        contests = dict(state.contests)
        wins = dict(contests.get(action.observer, {}))
        win = wins.pop(action.target, None)
        round_number = state.scene.round if state.scene is not None else 0
        if win is not None and keeps_result(False, round_number):
            wins[action.target] = ctx.visibility.result(win.stage_two, win.round, False)
        if wins:
            contests[action.observer] = wins
        else:
            contests.pop(action.observer, None)
        update["contests"] = contests
    return Ruling(state=state.model_copy(update=update), log=(step,))
