"""Health (HEALTH-1..13): the track of boxes, damage, status, recovery. Logic follows below the models."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field, model_validator

from vtt_bridge.rules.common import Flag, RuleModel

MAX_HEALTH = 10_000
"""The largest Health track the engine accepts (a sane bound; no rulebook creature comes near)."""

Boxes = Annotated[int, Field(strict=True, ge=0, le=MAX_HEALTH)]
EffectId = Annotated[str, Field(strict=True, min_length=1, max_length=100)]
MaxChange = Annotated[int, Field(strict=True, ge=-MAX_HEALTH, le=MAX_HEALTH)]


class Grade(StrEnum):
    """HEALTH-1: damage grades, lightest first."""

    BASHING = "B"
    LETHAL = "L"
    AGGRAVATED = "A"

    @property
    def weight(self) -> int:
        """HEALTH-6: bashing-equivalents of one box of this grade (B 1, L 2, A 3)."""
        return {"B": 1, "L": 2, "A": 3}[self.value]


class HealthStatus(StrEnum):
    """HEALTH-6: what a creature's Health reads as."""

    UNHARMED = "unharmed"
    LIGHTLY = "lightly"
    MODERATELY = "moderately"
    BADLY = "badly"
    DYING = "dying"
    DEAD = "dead"


class HealthTrack(RuleModel):
    """HEALTH-1: `max` boxes, each healthy, B, L or A; kept as counts, healthy = max - B - L - A."""

    max: Boxes
    bashing: Boxes = 0
    lethal: Boxes = 0
    aggravated: Boxes = 0
    temp_hp: Boxes = 0
    temporary_max: dict[
        Annotated[str, Field(min_length=1, max_length=100)],
        Annotated[int, Field(strict=True, ge=-MAX_HEALTH, le=MAX_HEALTH)],
    ] = Field(default_factory=dict)
    stabilized: Flag = False

    @model_validator(mode="after")
    def _boxes_fit(self) -> HealthTrack:
        if self.bashing + self.lethal + self.aggravated > self.max:
            raise ValueError(
                f"bashing + lethal + aggravated ({self.bashing + self.lethal + self.aggravated}) "
                f"exceeds max ({self.max})"
            )
        return self

    @property
    def healthy(self) -> int:
        """Boxes with no damage."""
        return self.max - self.bashing - self.lethal - self.aggravated
