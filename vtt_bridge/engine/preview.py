"""The `preview` query: an action ruled exactly as `action` would rule it now, and thrown away.

Nothing is kept: the world's state, rev, history and answered ids stay as they were (the ruling is
prepared, never committed: `World.commit` is what changes a world), the store and the other clients
never see it, and the dice are a copy of the server's (DICE-6), so the server's own stay where they
were: the same action sent next draws the very dice the preview drew, unless another ruling on this
server rolls dice in between (`data.rolled` says whether the preview's values rest on dice at all).
The world's visibility caches may be warmed; they only spare work (`VisibilityIndex`).
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from pydantic import TypeAdapter, ValidationError

from vtt_bridge.actions.preview import PreviewQuery
from vtt_bridge.engine.protocol import ErrorCode, error_details
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.world import World
from vtt_bridge.rules.dice import Roller

_QUERY: TypeAdapter[PreviewQuery] = TypeAdapter(PreviewQuery)


def _fresh_id(world: World) -> str:
    """An action id the world never answered (so the action is ruled, not replayed)."""
    while (action_id := f"preview-{uuid.uuid4().hex}") in world.answered:
        continue
    return action_id


def preview(world: World, payload: dict[str, Any], roller: Roller) -> dict[str, Any]:
    """The `result` payload of a `preview` query: the world's rev, and under `data` the `rev`,
    `patch`, `log` and `rolls` the action would be answered with. An action the world would refuse
    is refused the same way, its field paths under `action`."""
    try:
        query = _QUERY.validate_python(payload)
    except ValidationError as exc:
        raise RequestError(ErrorCode.INVALID, "invalid preview query", error_details(exc)) from None
    try:
        pending = world.prepare_action(_fresh_id(world), query.action, copy.deepcopy(roller))
    except RequestError as error:
        if error.details is not None:
            error.details = [d.model_copy(update={"path": ["action", *d.path]}) for d in error.details]
        raise
    finally:
        world.visibility.committed(world.state)  # forget the states the preview marked fresh
    assert not isinstance(pending, bytes), "a fresh id is never replayed"
    result = pending.result
    return {
        "rev": world.rev,
        "patch": [],
        "log": [],
        "rolls": [],
        "data": {
            "kind": str(query.action.get("kind")),
            "rev": result["rev"],
            "patch": result["patch"],
            "log": result["log"],
            "rolls": result["rolls"],
            "rolled": bool(result["rolls"]),
        },
    }
