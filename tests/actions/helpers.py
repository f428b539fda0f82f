"""What the handler tests share: one action ruled as the world rules it (the registry's payload
model, then its handler), without the world around it."""

from __future__ import annotations

from typing import Any

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.actions.registry import HANDLERS
from vtt_bridge.engine.roller import SeededRoller


def run(state: Any, payload: dict[str, Any], ctx: Context | None = None) -> Ruling:
    """`payload` validated by its kind's model and ruled on `state`; `ctx` by default a fresh one
    with seeded dice (seed 0)."""
    model, handler = HANDLERS[payload["kind"]]
    return handler(state, model.model_validate(payload), ctx or Context(roller=SeededRoller(0)))
