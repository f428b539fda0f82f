"""The `explain` answer for one pair (DET-4..8): how the observer locates the target, the one-line
answer first, then the distance, stages one to three step by step, and the state again.
"""

from __future__ import annotations

import math

from vtt_bridge.rules.common import Step, about
from vtt_bridge.rules.detection.contests import ContestWin, Standing, standing_steps
from vtt_bridge.rules.detection.locating import LocateExplanation
from vtt_bridge.rules.detection.means import STATES


def deciding_rule(stages: LocateExplanation, now: Standing) -> str:
    """DET-4: the rule that decided a pair's state: DET-8 when a standing stage-three result raised
    it above stages one and two, else the rule of their last step (DET-6 exposed, DET-7 compared)."""
    if now.level != stages.state.level:
        return "DET-8"
    return stages.steps[-1].rule if stages.steps else "DET-6"


def explain_pair(
    observer: str,
    target: str,
    stages: LocateExplanation,
    now: Standing,
    result: ContestWin | None,
    *,
    round_number: int,
    anti: bool,
    distance2: float,
    units: str,
) -> list[Step]:
    """DET-4..8 explained for a pair: the answer (`DET-4.summary`: the state, the best means, the
    deciding rule), the 3D distance (DET-5), the steps of stages one and two (`stages`) and of stage
    three (`result` standing as `now`), and last the state (`DET-4.locate`). Every step names the
    pair."""
    located = STATES[now.level].value
    best_means = stages.steps[-1].data.get("means") if stages.steps else None
    decided = deciding_rule(stages, now)
    distance = math.sqrt(distance2)
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
        *about(
            (*stages.steps, *standing_steps(result, now, round_number, anti, stages.state.level)),
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
