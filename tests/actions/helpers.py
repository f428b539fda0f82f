"""What the handler tests share: one action ruled as the world rules it (the registry's payload
model, then its handler), without the world around it; a detection `contest` with chosen dice."""

from __future__ import annotations

from typing import Any

from tests.detection_scenes import ctx
from vtt_bridge.actions import Context, Ruling
from vtt_bridge.actions.detection.handlers import ContestAction, contest_action
from vtt_bridge.actions.registry import HANDLERS
from vtt_bridge.document.models import WorldState
from vtt_bridge.engine.roller import SeededRoller


def run(state: Any, payload: dict[str, Any], ctx: Context | None = None) -> Ruling:
    """`payload` validated by its kind's model and ruled on `state`; `ctx` by default a fresh one
    with seeded dice (seed 0)."""
    model, handler = HANDLERS[payload["kind"]]
    return handler(state, model.model_validate(payload), ctx or Context(roller=SeededRoller(0)))


def contest_dice(observer: list[int], target: list[int]) -> dict[str, Any]:
    """A contest's supplied dice: the observer's and the target's (DICE-6)."""
    return {"observer": observer, "target": target}


def run_contest(state: WorldState, observer: str, target: str, dice: dict[str, Any] | None = None) -> Any:
    """A `contest` of `observer` against `target` ruled on `state` (engine dice unless `dice`)."""
    action = ContestAction.model_validate(
        {"kind": "contest", "observer": observer, "target": target, "dice": dice}
    )
    return contest_action(state, action, ctx())
