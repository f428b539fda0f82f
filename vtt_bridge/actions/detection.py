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
from vtt_bridge.document.models import (
    Actor,
    Id,
    LocatePin,
    NotFound,
    PinUntil,
    Scene,
    TargetPins,
    UntilRound,
    WorldState,
    pending_cells,
    replaced,
)
from vtt_bridge.document.pins import pin_for
from vtt_bridge.document.visibility import (
    Contests,
    Pair,
    Pairs,
    Visibility,
    VisibilityIndex,
    scale_squared,
    token_actor,
)
from vtt_bridge.rules.common import Count, Flag, RuleModel, RuleViolation, Step
from vtt_bridge.rules.detection import (
    STATES,
    AttackConsequence,
    ContestModifier,
    ContestWin,
    LocateState,
    ObserverProfile,
    SpellKind,
    StageThreeContest,
    attack_consequence,
    attack_on_guess,
    contest,
    contest_level,
    contest_modifiers,
    contest_steps,
    contestable,
    contested_this_round,
    explain_locate,
    guess_is_right,
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
    stages = explain_locate(
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
    best_means = (stages.steps[-1].data or {}).get("means") if stages.steps else None
    decided = (
        "DET-8" if now.level != stages.state.level else (stages.steps[-1].rule if stages.steps else "DET-6")
    )
    summary = {"observer": observer, "target": target, "result": located, "means": best_means}
    out = [
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
        *stages.steps,
        *standing_steps(result, now, round_number, bool(pair.key), stages.state.level),
        Step(
            rule="DET-4",
            text=f"{observer} locates {target}: {located}",
            data=summary,
            key="DET-4.locate",
        ),
    ]
    pin = pin_for(state.pins.get(target), observer)
    if pin is not None:
        until = pin.until if isinstance(pin.until, str) else pin.until.model_dump(mode="json")
        out.append(
            Step(
                rule="PIN",
                text=f"pinned by {pin.by or 'the GM'}: {observer} locates {target}: {pin.state.value}",
                data={"result": pin.state.value, "rules": located, "by": pin.by, "until": until},
            )
        )
    return out


def _within(limit: float | None, distance2: float) -> bool:
    return limit is not None and distance2 <= limit * limit


def _modifier_args(
    observer: Actor, target: Actor, profile: ObserverProfile, distance2: float, unlocated: bool, noisy: bool
) -> tuple[bool | int, ...]:
    """DET-9's circumstances of one pair, in `contest_modifiers`' order (a key: pairs with the same
    ones share one modifiers tuple)."""
    last = target.last_turn
    return (
        unlocated,
        noisy,
        profile.hearing.at(distance2) > 0,
        # a human has a nose though smell is none of its means of detection (DET-3); other creatures
        # smell with a means of theirs
        profile.humanoid or profile.smell.at(distance2) > 0,
        last.attacked,
        last.made_sound,
        target.unusual_smell,
        last.moved_over_half_speed,
        _within(observer.approximate_range, distance2),
        _within(observer.sensory_range, distance2),
        observer.wound_penalty,
        target.wound_penalty,
    )


def _modifiers(args: tuple[bool | int, ...]) -> tuple[ContestModifier, ...]:
    """`contest_modifiers` of `_modifier_args`."""
    unlocated, noisy, hearing, smell, attacked, sound, smelly, moved, approx, sensory, o_wound, h_wound = args
    return contest_modifiers(
        unlocated=bool(unlocated),
        noisy=bool(noisy),
        hearing=bool(hearing),
        smell=bool(smell),
        attacked=bool(attacked),
        made_sound=bool(sound),
        unusual_smell=bool(smelly),
        moved_over_half_speed=bool(moved),
        within_approximate_range=bool(approx),
        within_sensory_range=bool(sensory),
        observer_wound_penalty=int(o_wound),
        hider_wound_penalty=int(h_wound),
    )


def _bases(observer: Actor, target: Actor) -> tuple[int, int]:
    """DET-8: PER + Investigation against DEX + Stealth."""
    return (
        observer.attributes.get(Attribute.PER, 0) + observer.skills.get("investigation", 0),
        target.attributes.get(Attribute.DEX, 0) + target.skills.get("stealth", 0),
    )


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
    args = _modifier_args(pair.observer, pair.target, pair.senses.profile, pair.distance2, unlocated, noisy)
    observer_base, hider_base = _bases(pair.observer, pair.target)
    return contest(observer_base, hider_base, _modifiers(args), observer_roller, hider_roller)


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

    observer: str
    target: str
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
    counts them and details each (dice included) while there are few, else those that changed.

    A pair whose reveal is held for the GM (`settings.approveReveals`) runs no contest: the GM was
    asked once, and the held win stands until the answer (not re-rolled, re-asked or dropped).

    Pairs run observer by observer, targets in token order (the dice are drawn in that order); what
    depends on one token only (its senses, position, pool base) is looked up once, and pairs with the
    same DET-9 circumstances share one modifiers tuple."""
    index = ctx.visibility
    base = index.refresh(state, state)
    old_visibility = base.visibility
    visibility = dict(old_visibility)
    contests = dict(base.contests)
    round_number = base.scene.round if base.scene is not None else 0
    noisy = base.scene.noisy if base.scene is not None else False
    scale2 = scale_squared(base.scene)
    roller = ctx.roller
    result_of = index.result
    keep = keeps_result  # DET-8: a win always, a loss in a combat round
    unlocated = LocateState.UNLOCATED
    cells: Pairs = []
    ran = 0
    first: list[_Held] = []
    """The round's first contests, while there are few enough to detail every one."""
    changed: list[_Held] = []
    """The contests that changed a pair's state."""
    senses = {tid: index.senses(token_actor(base, tid, tok)) for tid, tok in base.tokens.items()}
    hiders = [
        (tid, tok.x, tok.y, tok.elevation, senses[tid]) for tid, tok in base.tokens.items() if senses[tid].key
    ]
    modifiers: dict[tuple[bool | int, ...], tuple[ContestModifier, ...]] = {}
    held = base.reveals
    for observer, token in base.tokens.items() if hiders else ():
        seen = senses[observer]
        observer_actor = seen.actor
        if spots_nothing(observer_actor.conditions):
            continue
        profile = seen.profile
        capability_at = profile.capability.at
        old_row = old_visibility[observer]
        row: dict[str, LocateState] | None = None
        old_wins = contests.get(observer)
        wins: dict[str, ContestWin] | None = None
        ox, oy, oz = token.x, token.y, token.elevation
        for target, tx, ty, tz, hidden in hiders:
            if target == observer or (held and observer in held.get(target, ())):
                continue  # a reveal held for the GM: its win waits for the answer, not for dice
            dx, dy, dz = ox - tx, oy - ty, oz - tz
            distance2 = (dx * dx + dy * dy) * scale2 + dz * dz
            stage_two = profile.reach(hidden.key).at(distance2)
            capability = capability_at(distance2)
            if not contestable(stage_two, capability, True):
                continue
            current = old_row[target]
            hider = hidden.actor
            args = _modifier_args(observer_actor, hider, profile, distance2, current is unlocated, noisy)
            mods = modifiers.get(args)
            if mods is None:
                mods = modifiers[args] = _modifiers(args)
            observer_base, hider_base = _bases(observer_actor, hider)
            outcome = contest(observer_base, hider_base, mods, roller, roller)
            won = outcome.observer_wins
            if wins is None:
                wins = dict(old_wins) if old_wins else {}
            if keep(won, round_number):
                wins[target] = result_of(STATES[stage_two], round_number, won)
            else:
                wins.pop(target, None)
            result = STATES[contest_level(stage_two, capability, won)]
            ran += 1
            if result is not current:
                if row is None:
                    row = visibility[observer] = dict(old_row)
                row[target] = result
                cells.append((observer, target))
            if result is not current or ran <= ROUND_DETAIL_LIMIT:
                entry = _Held(observer, target, outcome, stage_two, result)
                if ran <= ROUND_DETAIL_LIMIT:
                    first.append(entry)
                if result is not current:
                    changed.append(entry)
        if wins is not None:
            if wins:
                contests[observer] = wins
            else:
                contests.pop(observer, None)
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
            outcome = entry.outcome
            log.extend(contest_steps(entry.observer, entry.target, outcome, entry.stage_two, entry.result))
            rolls.extend(_named_rolls(entry.observer, entry.target, outcome))
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
    out of range, out cold) lapses too, and the pair is back at its stage two. A win whose reveal is
    held for the GM (`reveals`) waits for the answer instead. Returns how many lapsed."""
    lapsed = 0
    held = base.reveals
    for observer, wins in list(contests.items()):
        old = [
            target
            for target, win in wins.items()
            if lapses(win, round_number) and not (held and observer in held.get(target, ()))
        ]
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


class Guess(RuleModel):
    """A guessed position `{x, y}` in canvas pixels (DET-10: the square it falls in)."""

    x: Coordinate
    y: Coordinate


class AttackCheckQuery(RuleModel):
    """`query` `{kind: "attackCheck", attacker, target, successes, extraSuccesses?, effectPoints?,
    spell?, guess?}` (DET-10); `guess` the square an attack on an unlocated target goes at."""

    kind: Literal["attackCheck"]
    attacker: TokenId
    target: TokenId
    successes: Count
    extra_successes: Count = 0
    effect_points: Count = 0
    spell: SpellKind | None = None
    guess: Guess | None = None


class Attack(RuleModel):
    """`damage.attack` `{attacker, token, successes, extraSuccesses?, effectPoints?, guess?}`: the
    attack the damage comes from (DET-10): the attacker's token, the target's token (showing the
    damaged actor), the attack's successes, and for an unlocated target the guessed square."""

    attacker: TokenId
    token: TokenId | None = None
    """None: whoever stands at the guessed square (an attack at a square, the target unknown)."""
    successes: Count
    extra_successes: Count = 0
    effect_points: Count = 0
    guess: Guess | None = None


def token_at_guess(state: WorldState, attack: Attack) -> str | None:
    """DET-10: the token an attack at a guessed square (no `token` named) lands on: the first other
    token standing in that square, or None (nobody there: a miss). A guess off the scene is refused."""
    if attack.guess is None:
        raise RuleViolation(
            "DET-10", "an attack that names no target token needs a guessed square", ("attack", "guess")
        )
    scene = state.scene or _DEFAULT_SCENE
    _check_on_scene(scene, attack.guess, ("attack", "guess"))
    for token_id, token in state.tokens.items():
        if token_id != attack.attacker and guess_is_right(
            token.x, token.y, scene.grid_size, attack.guess.x, attack.guess.y
        ):
            return token_id
    return None


def locate_now(
    state: WorldState, attacker: str, target: str, index: VisibilityIndex, paths: tuple[str, str]
) -> LocateState:
    """How the attacker locates the target now: the GM's pin if one holds, else stages one to three."""
    pair = index.pair(state, attacker, target, paths)
    pin = pin_for(state.pins.get(target), attacker)
    if pin is not None:
        return pin.state
    win = state.contests.get(attacker, {}).get(target)
    return STATES[pair.standing(win).level]


def _check_on_scene(scene: Scene, guess: Guess, path: tuple[str | int, ...]) -> None:
    outside = guess.x < 0 or guess.y < 0
    if scene.width is not None and guess.x >= scene.width:
        outside = True
    if scene.height is not None and guess.y >= scene.height:
        outside = True
    if outside:
        raise RuleViolation(
            "DET-10", f"the guessed position ({guess.x}, {guess.y}) is outside the scene", path
        )


def _guess_right(
    state: WorldState, target: str, guess: Guess | None, path: tuple[str | int, ...]
) -> bool | None:
    """Whether the guessed square is the target's (None: no guess); a guess off the scene is refused."""
    if guess is None:
        return None
    scene = state.scene or _DEFAULT_SCENE
    _check_on_scene(scene, guess, path)
    token = state.tokens[target]
    return guess_is_right(token.x, token.y, scene.grid_size, guess.x, guess.y)


def rule_attack(
    state: WorldState, attack: Attack, index: VisibilityIndex
) -> tuple[AttackConsequence | None, list[Step]]:
    """DET-10 for the attack a damage comes from: what it counts for (None: a miss, a wrong or missing
    guess at an unlocated target), with the steps that say why."""
    if attack.token is None:
        raise RuleViolation("DET-10", "name the target's token", ("attack", "token"))
    for field, token in (("attacker", attack.attacker), ("token", attack.token)):
        if token not in state.tokens:
            raise NotFound(("attack", field), f"no token {token!r} on the scene")
    if attack.attacker == attack.token:
        raise RuleViolation(
            "DET-4", "an attacker and its target must be two different tokens", ("attack", "token")
        )
    located = locate_now(state, attack.attacker, attack.token, index, ("attacker", "token"))
    right = _guess_right(state, attack.token, attack.guess, ("attack", "guess"))
    consequence = attack_on_guess(
        located, right, attack.successes, attack.extra_successes, attack.effect_points
    )
    steps = [_locate_step(attack.attacker, attack.token, located)]
    if located is LocateState.UNLOCATED:
        steps.append(_guess_step(right))
    if consequence is not None:
        steps.append(_verdict_step(consequence, None))
    return consequence, steps


def _locate_step(attacker: str, target: str, located: LocateState) -> Step:
    return Step(
        rule="DET-4", text=f"{attacker} locates {target}: {located.value}", data={"locate": located.value}
    )


def _guess_step(right: bool | None) -> Step:
    """`DET-10.guess` `{guessed, right}`: an attack at a guessed square on an unlocated target."""
    if right is None:
        text = "unlocated and no square guessed: the attack misses"
    elif right:
        text = "the guessed square is right: the attack counts as against an approximate target"
    else:
        text = "the guessed square is wrong: the attack misses"
    return Step(
        rule="DET-10",
        text=text,
        data={"guess": "DET-10.guess", "guessed": right is not None, "right": bool(right)},
    )


def _verdict_step(consequence: AttackConsequence, spell: SpellKind | None) -> Step:
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
    return Step(
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
    )


def attack_check(state: WorldState, query: AttackCheckQuery, index: VisibilityIndex) -> dict[str, Any]:
    """DET-10: what the attack or spell counts for, from how the attacker locates the target now (the
    GM's pin included). The answer is an `AttackConsequence` plus `hit` (false: a wrong or missing
    guess at an unlocated target) and a `log` of steps."""
    consequence = check_attack(state, query, index)
    located = consequence.locate
    log = [_locate_step(query.attacker, query.target, located)]
    hit = True
    if query.spell is None and located is LocateState.UNLOCATED and query.guess is not None:
        right = _guess_right(state, query.target, query.guess, ("guess",))
        log.append(_guess_step(right))
        guessed = attack_on_guess(located, right, query.successes, query.extra_successes, query.effect_points)
        hit = guessed is not None
        if guessed is not None:
            consequence = guessed.model_copy(update={"locate": located, "guessed_position_only": True})
    log.append(_verdict_step(consequence, query.spell))
    return {**consequence.model_dump(mode="json"), "hit": hit, "log": [step.payload() for step in log]}


def check_attack(state: WorldState, query: AttackCheckQuery, index: VisibilityIndex) -> AttackConsequence:
    """DET-10 as a model: the attacker's current locate state (stages one to three, or the GM's pin)."""
    level = locate_now(state, query.attacker, query.target, index, ("attacker", "target"))
    return attack_consequence(level, query.successes, query.extra_successes, query.effect_points, query.spell)


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
        if observer == target:
            raise RuleViolation(
                "DET-4", "an observer and its target must be two different tokens", ("target",)
            )


def _who(observer: str | None) -> str:
    return "every observer" if observer is None else observer


def pin_locate(state: WorldState, action: PinLocateAction, ctx: Context) -> Ruling:
    """Pin a pair (or a target against every observer) to a state; the world lays it over the matrix
    (`document.pins`). A round already past is refused."""
    _pin_tokens(state, action.observer, action.target)
    round_number = state.scene.round if state.scene is not None else 0
    until = action.until
    if isinstance(until, UntilRound) and until.round < round_number:
        raise RuleViolation(
            "PIN", f"round {until.round} is past: the scene is in round {round_number}", ("until", "round")
        )
    pin = LocatePin(state=action.state, until=until, by=action.by)
    old = state.pins.get(action.target, TargetPins())
    pins = (
        TargetPins(every=pin, observers=old.observers)
        if action.observer is None
        else TargetPins(every=old.every, observers={**old.observers, action.observer: pin})
    )
    shown = until if isinstance(until, str) else f"the end of round {until.round}"
    step = Step(
        rule="PIN",
        text=f"{action.by or 'the GM'} pins how {_who(action.observer)} locates {action.target}: "
        f"{action.state.value} until {shown}",
        data={
            "observer": action.observer,
            "target": action.target,
            "state": action.state.value,
            "until": until if isinstance(until, str) else until.model_dump(mode="json"),
            "by": action.by,
        },
    )
    return Ruling(state=state.model_copy(update={"pins": {**state.pins, action.target: pins}}), log=(step,))


def release_locate(state: WorldState, action: ReleaseLocateAction, ctx: Context) -> Ruling:
    """Release a pin; the pair gets the rules' state back. A pin that is not there is refused."""
    _pin_tokens(state, action.observer, action.target)
    old = state.pins.get(action.target)
    held = (
        None
        if old is None
        else (old.every if action.observer is None else old.observers.get(action.observer))
    )
    if old is None or held is None:
        raise RuleViolation(
            "PIN", f"no pin on how {_who(action.observer)} locates {action.target}", ("target",)
        )
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
    step = Step(
        rule="PIN",
        text=f"the pin on how {_who(action.observer)} locates {action.target} is released",
        data={"observer": action.observer, "target": action.target, "released": True},
    )
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
    if action.observer not in row:
        raise RuleViolation(
            "DET-8", f"no reveal of {action.target} to {action.observer} waits for approval", ("target",)
        )
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
    verdict = "accepted" if action.accept else "refused: the contest counts as lost"
    step = Step(
        rule="DET-8",
        text=f"the GM {verdict} ({action.observer} → {action.target})",
        data={"observer": action.observer, "target": action.target, "accepted": action.accept},
    )
    return Ruling(state=state.model_copy(update=update), log=(step,))


ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "approveReveal": (ApproveRevealAction, approve_reveal),
    "move": (MoveAction, move),
    "contest": (ContestAction, contest_action),
    "pinLocate": (PinLocateAction, pin_locate),
    "releaseLocate": (ReleaseLocateAction, release_locate),
}
"""Action kind -> (payload model, handler). `round` is shared: the round handler calls `round_contests`."""


QUERIES: dict[str, tuple[type[RuleModel], QueryHandler]] = {
    "explain": (ExplainQuery, explain_query),
    "attackCheck": (AttackCheckQuery, attack_check),
}
"""Query kind -> (payload model, handler returning the `result` body as a model)."""
