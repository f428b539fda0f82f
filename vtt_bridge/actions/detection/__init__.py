"""Detection (DET-1..10), one slice per concept: `handlers` (move, contest, the GM's pins and
reveals), `queries` (explain, pins), `round` (the round's stage-three contests, called by the round
handler); attack resolution (`attackCheck`, DET-10) is `actions.attack`'s, registered here. The
decisions are `rules.detection`'s; the matrix and its caches are the world's
`document.visibility.VisibilityIndex` (`Context.visibility`).
"""

from __future__ import annotations

from vtt_bridge.actions import Handler, QueryHandler
from vtt_bridge.actions.attack import AttackCheckQuery, attack_check
from vtt_bridge.actions.detection.handlers import (
    ApproveRevealAction,
    ContestAction,
    MoveAction,
    PinLocateAction,
    ReleaseLocateAction,
    approve_reveal,
    contest_action,
    move,
    pin_locate,
    release_locate,
)
from vtt_bridge.actions.detection.queries import ExplainQuery, PinsQuery, explain_query, pins_query
from vtt_bridge.rules.common import RuleModel

ACTIONS: dict[str, tuple[type[RuleModel], Handler]] = {
    "approveReveal": (ApproveRevealAction, approve_reveal),
    "move": (MoveAction, move),
    "contest": (ContestAction, contest_action),
    "pinLocate": (PinLocateAction, pin_locate),
    "releaseLocate": (ReleaseLocateAction, release_locate),
}
"""Action kind -> (payload model, handler). `round` is shared: the round handler calls
`round.round_contests`."""


QUERIES: dict[str, tuple[type[RuleModel], QueryHandler]] = {
    "explain": (ExplainQuery, explain_query),
    "pins": (PinsQuery, pins_query),
    "attackCheck": (AttackCheckQuery, attack_check),
}
"""Query kind -> (payload model, handler returning the `result` body as a model)."""
