"""Every action and query kind the server knows, gathered from the handler modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vtt_bridge.actions import Context, Ruling, detection, effects, energy, health, roll, round
from vtt_bridge.models import WorldState
from vtt_bridge.rules.common import RuleModel

Handler = Callable[[WorldState, Any, Context], Ruling]
"""A handler: state and a validated payload in, a ruling out."""

QueryHandler = Callable[[WorldState, Any], dict[str, Any]]
"""A query handler: state and a validated payload in, the answer's data out (no state change)."""

HANDLERS: dict[str, tuple[type[RuleModel], Handler]] = {
    "round": (round.RoundAction, round.new_round),
    **health.ACTIONS,
    **effects.ACTIONS,
    **energy.ACTIONS,
    **detection.ACTIONS,
    **roll.ACTIONS,
}
"""Action kind -> (payload model, handler)."""

QUERIES: dict[str, tuple[type[RuleModel], QueryHandler]] = {**detection.QUERIES}
"""Query kind -> (payload model, handler); `state` is answered by the world itself."""

ACTION_MODELS: tuple[type[RuleModel], ...] = tuple(model for model, _ in HANDLERS.values())
QUERY_MODELS: tuple[type[RuleModel], ...] = tuple(model for model, _ in QUERIES.values())
