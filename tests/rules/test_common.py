"""The shared building blocks of the rules (`rules.common`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from vtt_bridge.rules.common import Step, about


def test_about_adds_the_subjects_to_each_step_keeping_every_other_field() -> None:
    """`about` builds each step with Step's own constructor: it equals `dataclasses.replace` with the
    subjects merged into the data, whatever fields a step has (a field added to Step must be kept)."""
    filled: dict[str, Any] = {f.name: f"{f.name}-value" for f in dataclasses.fields(Step)}
    filled["data"] = {"amount": 2}
    steps = [Step(**filled), Step(rule="HEALTH-6", text="status"), Step("X", "y", {}, "X.key")]
    for step, each in zip(steps, about(steps, actor="hero", track="first"), strict=True):
        assert each == dataclasses.replace(
            step, data={**(step.data or {}), "actor": "hero", "track": "first"}
        )
    made = about(steps, actor="hero")
    assert made[1].data is not made[2].data  # each step its own data
    assert steps[0].data == {"amount": 2}  # the steps given are left as they were
