"""Willpower (WP-1..6). Logic follows below the model."""

from __future__ import annotations

from pydantic import model_validator

from vtt_bridge.rules.common import Flag, RuleModel
from vtt_bridge.rules.health import Boxes


class Willpower(RuleModel):
    """WP-1: max Willpower (= Will = RES + COM plus changes), what is left, and temporary Willpower (WP-4)."""

    max: Boxes
    current: Boxes
    temporary: Boxes = 0
    kept_conscious: Flag = False

    @model_validator(mode="after")
    def _current_fits(self) -> Willpower:
        if self.current > self.max:
            raise ValueError(f"current ({self.current}) exceeds max ({self.max})")
        return self
