"""The Ranks rules' immunities (RANK-5, RANK-9..13): `{kind, subject?, rank?, source?}` on actors."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.common import RuleModel, Slug
from vtt_bridge.rules.ranks import Rank


class Immunity(RuleModel):
    """A Ranks-rules immunity: `{kind: "poison", rank: "C"}`, `{kind: "damage", subject: "fire"}`."""

    kind: Slug
    subject: Slug | None = None
    rank: Rank = Rank.UNRANKED
    source: Annotated[str, Field(strict=True, max_length=200)] | None = None


class SaveBonuses(RuleModel):
    """RANK-13: perfect bonuses (DP) on the three saves, won by replacing an immunity."""

    reflex: Annotated[int, Field(strict=True, ge=0, le=1000)] = 0
    fortitude: Annotated[int, Field(strict=True, ge=0, le=1000)] = 0
    will: Annotated[int, Field(strict=True, ge=0, le=1000)] = 0
