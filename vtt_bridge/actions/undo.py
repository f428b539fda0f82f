"""The `undo` and `redo` actions: their payloads. The world rules on them itself (`engine/world.py`,
`engine/history.py`): they read the world's history of rulings, which no handler sees."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from vtt_bridge.rules.common import RuleModel

ActionId = Annotated[str, Field(strict=True, min_length=1, max_length=200)]
"""The id of an earlier action (the envelope id it was sent with)."""


class UndoAction(RuleModel):
    """`undo {action}`: restore every value the ruling `action` changed (when each is still what it
    set and no later ruling that stands wrote it); an undo of an undo is a redo."""

    kind: Literal["undo"]
    action: ActionId


class RedoAction(RuleModel):
    """`redo {action}`: apply the undone ruling `action` again (when each value its undo set is
    still what the undo set and no later ruling that stands wrote it)."""

    kind: Literal["redo"]
    action: ActionId


HISTORY_ACTIONS: dict[str, type[RuleModel]] = {"undo": UndoAction, "redo": RedoAction}
"""Action kinds the world rules on from its history."""
