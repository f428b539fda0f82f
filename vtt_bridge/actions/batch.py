"""The `batch` action: several rulings ruled as one, atomically: `damage` (one per target of an attack
or a selection) and the GM's pins (`pinLocate`, `releaseLocate`: many pairs at once, one card and one
undo): each item is ruled on the state the items before it left, every actor derived again
between them, and either every item stands (one rev, one patch, one undo) or the first refusal
refuses the whole batch, its field path under `actions[i]`, and nothing changes.

The log is each item's log after a `BATCH.item` step `{index, number, count, kind, target}` (`kind`
the item's; `target` the damaged actor, None for an attack at a square that hit nobody, or a pin's
target token), so a reader can split it per item.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.actions.attack import token_at_guess
from vtt_bridge.actions.detection.handlers import (
    PinLocateAction,
    ReleaseLocateAction,
    pin_locate,
    release_locate,
)
from vtt_bridge.actions.health import DamageAction, damage
from vtt_bridge.document.derive import derive
from vtt_bridge.document.models import NotFound, WorldState
from vtt_bridge.rules.common import RuleModel, RuleViolation, Step
from vtt_bridge.rules.dice import Roll

BATCH_LIMIT = 64
"""Items a batch holds at most (a scene's worth of targets; more is a mistake, not an attack)."""


BatchItem = Annotated[DamageAction | PinLocateAction | ReleaseLocateAction, Field(discriminator="kind")]
"""One item of a batch, told apart by its `kind`."""


class BatchAction(RuleModel):
    """`batch` `{actions: [damage | pinLocate | releaseLocate, ...]}`: 1 to 64 actions ruled as one,
    all or nothing."""

    kind: Literal["batch"]
    actions: Annotated[tuple[BatchItem, ...], Field(min_length=1, max_length=BATCH_LIMIT)]


def _item_step(index: int, count: int, kind: str, target: str | None) -> Step:
    what = f"damage to {target or 'nobody (a missed square)'}" if kind == "damage" else f"{kind} on {target}"
    return Step(
        rule="BATCH",
        text=f"item {index + 1} of {count}: {what}",
        data={"index": index, "number": index + 1, "count": count, "kind": kind, "target": target},
        key="BATCH.item",
    )


def _damaged(state: WorldState, item: BatchItem) -> str | None:
    """The actor a damage item damages: its `target`, else (an attack at a square, DET-10) the actor
    of the token standing there (None: nobody); a pin's target token."""
    if not isinstance(item, DamageAction) or item.target is not None or item.attack is None:
        return item.target
    token = token_at_guess(state, item.attack)
    return None if token is None else state.tokens[token].actor


def batch(state: WorldState, action: BatchAction, ctx: Context) -> Ruling:
    """Rule each item in order on the state the ones before it left (derived again between items);
    a refused item refuses the batch, its path under `("actions", i)`."""
    plain = Context(roller=ctx.roller, visibility=ctx.visibility, unapplied_cells=False)
    log: list[Step] = []
    rolls: list[Roll] = []
    count = len(action.actions)
    for index, item in enumerate(action.actions):
        try:
            ruling = _rule(state, item, plain)
        except RuleViolation as exc:
            raise RuleViolation(
                exc.rule, f"actions[{index}]: {exc.message}", ("actions", index, *exc.path)
            ) from None
        except NotFound as exc:
            raise NotFound(("actions", index, *exc.path), f"actions[{index}]: {exc.message}") from None
        log.append(_item_step(index, count, item.kind, _damaged(state, item)))
        log.extend(ruling.log)
        rolls.extend(ruling.rolls)
        state = derive(state, ruling.state, ruling.derived)
    return Ruling(state=state, log=tuple(log), rolls=tuple(rolls))


def _rule(state: WorldState, item: BatchItem, ctx: Context) -> Ruling:
    if isinstance(item, DamageAction):
        return damage(state, item, ctx)
    if isinstance(item, PinLocateAction):
        return pin_locate(state, item, ctx)
    return release_locate(state, item, ctx)


ACTIONS = {"batch": (BatchAction, batch)}
"""Action kind -> (payload model, handler)."""
