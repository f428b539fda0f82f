"""Every action and query kind the server knows, gathered from the handler modules."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter

from vtt_bridge.actions import (
    Handler,
    QueryHandler,
    batch,
    detection,
    effects,
    energy,
    health,
    preview,
    roll,
    round,
)
from vtt_bridge.actions.undo import HISTORY_ACTIONS
from vtt_bridge.rules.common import RuleModel

HANDLERS: dict[str, tuple[type[RuleModel], Handler]] = {
    "round": (round.RoundAction, round.new_round),
    **health.ACTIONS,
    **effects.ACTIONS,
    **energy.ACTIONS,
    **detection.ACTIONS,
    **roll.ACTIONS,
    **batch.ACTIONS,
}
"""Action kind -> (payload model, handler)."""

QUERIES: dict[str, tuple[type[RuleModel], QueryHandler]] = {**detection.QUERIES}
"""Query kind -> (payload model, handler); `state` is answered by the world itself, `ruling` by the
server from the store."""


class StateQuery(RuleModel):
    """`{kind: "state"}`: the whole document."""

    kind: Literal["state"]


RULING_PAGE = 100
"""The steps and rolls a `ruling` query answers with when it names no `limit`."""

RULING_PAGE_MAX = 1000
"""The most steps (and rolls) one `ruling` query answers with."""


class RulingQuery(RuleModel):
    """`{kind: "ruling", action, offset?, limit?}`: a page of an acknowledged ruling's whole log
    and rolls, as the store keeps them."""

    kind: Literal["ruling"]
    action: Annotated[str, Field(strict=True, min_length=1, max_length=200)]
    """The ruling's action id (the envelope id of the action that made it)."""
    offset: Annotated[int, Field(strict=True, ge=0, le=2**53 - 1)] = 0
    """The first step (and roll) of the page, counted from 0."""
    limit: Annotated[int, Field(strict=True, ge=1, le=RULING_PAGE_MAX)] = RULING_PAGE
    """How many steps (and rolls) at most, from `offset`."""


ACTION_KINDS: dict[str, type[RuleModel]] = {
    **{kind: model for kind, (model, _) in HANDLERS.items()},
    **HISTORY_ACTIONS,
}
"""Action kind -> payload model (`undo` and `redo` included: the world rules on those itself)."""

QUERY_KINDS: dict[str, type[RuleModel]] = {
    "state": StateQuery,
    "preview": preview.PreviewQuery,
    "ruling": RulingQuery,
    **{kind: model for kind, (model, _) in QUERIES.items()},
}
"""Query kind -> payload model, `state` and `preview` included (the world and the server answer those)."""


def _tagged_union(models: tuple[type[RuleModel], ...]) -> TypeAdapter[Any]:
    """One validator for several payload models, discriminated on their `kind` literal."""
    if len(models) == 1:
        return TypeAdapter(models[0])
    union: Any = Union[models]  # noqa: UP007
    return TypeAdapter(Annotated[union, Field(discriminator="kind")])


ACTION_ADAPTER = _tagged_union(tuple(ACTION_KINDS.values()))
"""Every action kind (PROTOCOL.md `action`)."""

QUERY_ADAPTER = _tagged_union(tuple(QUERY_KINDS.values()))
"""Every query kind (PROTOCOL.md `query`)."""
