"""Detection queries: `explain` (DET-4..8, how an observer locates a target, rule by rule, and the
GM's pin over it) and `pins` (the GM's pins now, for the module's panel of observers and targets).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from vtt_bridge.document.areas import area_steps
from vtt_bridge.document.models import (
    Id,
    Scene,
    WorldState,
)
from vtt_bridge.document.pins import pin_for
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.rules.common import RuleModel, Step, about, payloads
from vtt_bridge.rules.detection import (
    STATES,
    explain_locate,
    standing_steps,
)

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
    distance = math.sqrt(pair.distance2)
    units = (state.scene or _DEFAULT_SCENE).grid_units
    result = state.contests.get(observer, {}).get(target)
    now = pair.standing(result)
    round_number = state.scene.round if state.scene is not None else 0
    located = STATES[now.level].value
    best_means = stages.steps[-1].data.get("means") if stages.steps else None
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
        *about(
            (*stages.steps, *standing_steps(result, now, round_number, bool(pair.key), stages.state.level)),
            observer=observer,
            target=target,
        ),
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
                data={
                    "observer": observer,
                    "target": target,
                    "result": pin.state.value,
                    "rules": located,
                    "by": pin.by,
                    "until": until,
                },
                key="PIN.explain",
            )
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
