"""Detection queries: `explain` (DET-4..8, how an observer locates a target, rule by rule, and the
GM's pin over it) and `pins` (the GM's pins now, for the module's panel of observers and targets).
"""

from __future__ import annotations

from typing import Any, Literal

from vtt_bridge.document.areas import area_steps
from vtt_bridge.document.models import (
    Id,
    Scene,
    WorldState,
)
from vtt_bridge.document.pins import pin_for
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.rules.common import RuleModel, Step, payloads
from vtt_bridge.rules.detection import STATES, explain_locate, explain_pair
from vtt_bridge.rules.pins import pin_explained_step

TokenId = Id
"""A document id (`document.models.Id`)."""

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
    result = state.contests.get(observer, {}).get(target)
    now = pair.standing(result)
    out = explain_pair(
        observer,
        target,
        stages,
        now,
        result,
        round_number=state.scene.round if state.scene is not None else 0,
        anti=bool(pair.key),
        distance2=pair.distance2,
        units=(state.scene or _DEFAULT_SCENE).grid_units,
    )
    pin = pin_for(state.pins.get(target), observer)
    if pin is not None:
        until = pin.until if isinstance(pin.until, str) else pin.until.model_dump(mode="json")
        out.append(
            pin_explained_step(observer, target, pin.state.value, STATES[now.level].value, pin.by, until)
        )
    return out


class ExplainQuery(RuleModel):
    """`query` `{kind: "explain", observer, target}`."""

    kind: Literal["explain"]
    observer: TokenId
    target: TokenId


def explain_query(state: WorldState, query: ExplainQuery, index: VisibilityIndex) -> dict[str, Any]:
    """`explain`: how the observer locates the target, rule by rule: `{observer, target, locate, log}`."""
    steps = explain(state, query.observer, query.target, index)
    final = steps[-1].data
    steps.extend(area_steps(state, query.observer, query.target))
    return {
        "observer": query.observer,
        "target": query.target,
        "locate": final["result"],
        "log": payloads(steps),
    }


class PinsQuery(RuleModel):
    """`query` `{kind: "pins"}`: the GM's pins now."""

    kind: Literal["pins"]


def pins_query(state: WorldState, query: PinsQuery, index: VisibilityIndex) -> dict[str, Any]:
    """`pins`: the document's `/pins` (target token -> `{every?, observers}`), as the state query
    dumps it, without the rest of a large document."""
    return {"pins": {target: pins.model_dump(mode="json") for target, pins in state.pins.items()}}
