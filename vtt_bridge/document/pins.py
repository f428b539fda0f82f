"""The GM's pins (`pinLocate`) laid over the computed visibility matrix, and their ends.

The matrix the index computes is the rules' answer (DET-4..8); a pin is the GM's word on one cell (or
on a target's whole column, `every`), kept in its own field `pins` so that however the matrix is
computed or stored the pin survives. After every ruling the world calls `apply_pins`: pins whose end
came (the scene changed, round N+1 began, either token moved, a token left) are released, every
standing pin is written into its cells, and a cell no pin holds any more gets the rules' state back.
"""

from __future__ import annotations

from collections.abc import Iterable

from vtt_bridge.document.models import (
    LocatePin,
    TargetPins,
    Token,
    UntilRound,
    WorldState,
    pending_cells,
    settled,
)
from vtt_bridge.document.visibility import Pairs, VisibilityIndex
from vtt_bridge.rules.common import Step
from vtt_bridge.rules.detection import STATES, LocateState
from vtt_bridge.rules.pins import held_step, restart_ended_step


def pin_for(pins: TargetPins | None, observer: str) -> LocatePin | None:
    """The pin that holds `observer -> target`: the observer's own, else the one for every observer."""
    if pins is None:
        return None
    return pins.observers.get(observer, pins.every)


def _moved(before: Token | None, after: Token | None) -> bool:
    return before is not None and (
        after is None or (before.x, before.y, before.elevation) != (after.x, after.y, after.elevation)
    )


def _ended(pin: LocatePin, moved: bool, round_number: int, scene_changed: bool) -> bool:
    until = pin.until
    if isinstance(until, UntilRound):
        return round_number > until.round
    if until == "move":
        return moved
    return scene_changed


def released(before: WorldState, after: WorldState) -> dict[str, TargetPins]:
    """`after.pins` without the pins whose end came between the two states and those that name a token
    no longer on the scene (the same dict when none ended)."""
    pins = after.pins
    if not pins:
        return pins
    scene_changed = (before.scene is None) != (after.scene is None) or (
        before.scene is not None and after.scene is not None and before.scene.id != after.scene.id
    )
    round_number = after.scene.round if after.scene is not None else 0
    tokens, old = after.tokens, before.tokens

    def moved(token: str) -> bool:
        return _moved(old.get(token), tokens.get(token))

    out: dict[str, TargetPins] = {}
    changed = False
    for target, target_pins in pins.items():
        if target not in tokens:
            changed = True
            continue
        every = target_pins.every
        if every is not None and _ended(every, moved(target), round_number, scene_changed):
            every = None
        observers = {
            observer: pin
            for observer, pin in target_pins.observers.items()
            if observer in tokens
            and not _ended(pin, moved(target) or moved(observer), round_number, scene_changed)
        }
        if every is target_pins.every and len(observers) == len(target_pins.observers):
            out[target] = target_pins
            continue
        changed = True
        if every is not None or observers:
            out[target] = TargetPins(every=every, observers=observers)
    return out if changed else pins


def restart_ends_round_pins(state: WorldState) -> tuple[WorldState, list[Step]]:
    """A restart of the round count (a `round` to 0 or 1 at or below the scene's round: a new combat)
    ends every `{"round": N}` pin: the rounds it counted are gone. One `PIN.restart` step per pin
    ended; the same state when none is."""
    if not state.pins:
        return state, []
    steps: list[Step] = []
    out: dict[str, TargetPins] = {}
    for target, target_pins in state.pins.items():
        every = target_pins.every
        ended: list[tuple[str | None, LocatePin]] = []
        if every is not None and isinstance(every.until, UntilRound):
            ended.append((None, every))
            every = None
        observers: dict[str, LocatePin] = {}
        for observer, pin in target_pins.observers.items():
            if isinstance(pin.until, UntilRound):
                ended.append((observer, pin))
            else:
                observers[observer] = pin
        if not ended:
            out[target] = target_pins
            continue
        if every is not None or observers:
            out[target] = TargetPins(every=every, observers=observers)
        for who, pin in ended:
            until = pin.until.round if isinstance(pin.until, UntilRound) else 0
            steps.append(restart_ended_step(who, target, until))
    if not steps:
        return state, []
    return state.model_copy(update={"pins": out}), steps


def _cells(state: WorldState, pins: dict[str, TargetPins]) -> Iterable[tuple[str, str]]:
    for target, target_pins in pins.items():
        if target not in state.tokens:
            continue
        if target_pins.every is not None:
            yield from ((observer, target) for observer in state.tokens if observer != target)
        else:
            yield from ((observer, target) for observer in target_pins.observers if observer in state.tokens)


def natural(state: WorldState, observer: str, target: str, index: VisibilityIndex) -> LocateState:
    """The rules' state of a pair, no pin considered (stages one to three, DET-4..8)."""
    pair = index.pair(state, observer, target, ("observer", "target"))
    win = state.contests.get(observer, {}).get(target)
    return STATES[pair.standing(win).level]


def held_reveals(
    before: WorldState, after: WorldState, index: VisibilityIndex, pins: dict[str, TargetPins]
) -> dict[str, dict[str, LocateState]]:
    """The reveals held for the GM after this ruling (`settings.approveReveals`): those still held
    whose win stands, and each new stage-three win that raises an unpinned pair to pinpointed (the
    state shown meanwhile: the one before the contest). The same dict when nothing changed."""
    reveals = after.reveals
    kept: dict[str, dict[str, LocateState]] = {}
    for target, row in reveals.items():
        for observer, shown in row.items():
            win = after.contests.get(observer, {}).get(target)
            if win is not None and win is before.contests.get(observer, {}).get(target):
                kept.setdefault(target, {})[observer] = shown
    if after.settings.approve_reveals and after.contests is not before.contests:
        old_visibility = settled(before).visibility
        for observer, wins in after.contests.items():
            old_wins = before.contests.get(observer, {})
            if wins is old_wins:
                continue
            for target, win in wins.items():
                if win is old_wins.get(target) or not win.won or target not in after.tokens:
                    continue
                if observer not in after.tokens or pin_for(pins.get(target), observer) is not None:
                    continue
                was = old_visibility.get(observer, {}).get(target)
                if was is None or was is LocateState.PINPOINTED:
                    continue
                if natural(after, observer, target, index) is LocateState.PINPOINTED:
                    kept.setdefault(target, {})[observer] = was
    return reveals if kept == reveals else kept


def apply_pins(
    before: WorldState, after: WorldState, index: VisibilityIndex, pairs: Pairs | None
) -> tuple[WorldState, Pairs | None]:
    """`after` with its ended pins released, the reveals held for the GM, and the matrix as the
    standing pins and held reveals say; `pairs` (the cells the ruling changed, None: diff every
    row) with the cells this changed added."""
    pins = released(before, after)
    quiet = not before.reveals and not after.reveals and not after.settings.approve_reveals
    if not pins and not before.pins and not after.pins and quiet:
        return after, pairs
    reveals = held_reveals(before, after, index, pins)
    wanted: dict[tuple[str, str], LocateState] = {}
    for target, row in reveals.items():
        for observer, shown in row.items():
            wanted[(observer, target)] = shown
    for observer, target in _cells(after, pins):
        pin = pin_for(pins[target], observer)
        if pin is not None:
            wanted[(observer, target)] = pin.state
    dropped = [(o, t) for t, row in before.reveals.items() for o in row]
    for observer, target in [*_cells(after, before.pins), *dropped]:
        if (observer, target) not in wanted and target in after.tokens and observer in after.tokens:
            wanted[(observer, target)] = natural(after, observer, target, index)
    pending = pending_cells(after.visibility)

    def now(observer: str, target: str) -> LocateState | None:
        changed = pending.get(observer)
        if changed is not None and target in changed:
            return changed[target]
        return after.visibility.get(observer, {}).get(target)

    writes = {cell: state for cell, state in wanted.items() if now(*cell) is not state}
    if not writes and pins is after.pins and reveals is after.reveals:
        return after, pairs
    state = after.model_copy(update={"pins": pins, "reveals": reveals})
    if not writes:
        return state, pairs
    out_pairs: Pairs | None = None
    if pairs is not None:
        out_pairs = list(pairs)
        out_pairs.extend((o, t) for o, row in pending.items() for t in row)
    state = settled(state)
    matrix = dict(state.visibility)
    copied: set[str] = set()
    for (observer, target), located in writes.items():
        if observer not in copied:
            matrix[observer] = dict(matrix[observer])
            copied.add(observer)
        matrix[observer][target] = located
        if out_pairs is not None:
            out_pairs.append((observer, target))
    return state.model_copy(update={"visibility": matrix}), out_pairs


def held_steps(before: WorldState, after: WorldState) -> list[Step]:
    """One `DET-8` step `{held: true, observer, target, shown}` per reveal newly held for the GM."""
    return [
        held_step(observer, target, shown.value)
        for target, row in after.reveals.items()
        for observer, shown in row.items()
        if observer not in before.reveals.get(target, {})
    ]
