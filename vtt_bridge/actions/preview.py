"""The `preview` query's payload: an action to rule on and throw away (`engine/preview.py` answers it)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from vtt_bridge.rules.common import RuleModel


class PreviewQuery(RuleModel):
    """`preview` `{action}`: the patch, log and rolls the action would give now; nothing is kept."""

    kind: Literal["preview"]
    action: dict[str, Any] = Field(
        description="An action's payload as `action` takes it (`expectRev` too), checked as that action is."
    )
