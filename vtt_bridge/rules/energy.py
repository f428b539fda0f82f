"""Energy Pools and Gauges (EP-1..9)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.common import Count, Flag, RuleModel, Slug

Name = Annotated[str, Field(strict=True, min_length=1, max_length=200)]


class Attribute(StrEnum):
    """The nine Attributes, in their three groups (EP-1)."""

    STR = "STR"
    DEX = "DEX"
    STA = "STA"
    INT = "INT"
    PER = "PER"
    RES = "RES"
    PRE = "PRE"
    MAN = "MAN"
    COM = "COM"


class PoolCategory(StrEnum):
    """EP-1: general (Eastern, Western or both) or special."""

    GENERAL = "general"
    SPECIAL = "special"


class Region(StrEnum):
    """EP-1: a general pool's region."""

    EASTERN = "eastern"
    WESTERN = "western"
    BOTH = "both"


class CompatibilityMode(StrEnum):
    """EP-2: how a pool rejects others (no entry: no rejection)."""

    ONLY_WITH = "onlyWith"
    INCOMPATIBLE_WITH = "incompatibleWith"
    REJECTS_GAUGES = "rejectsGauges"


class Compatibility(RuleModel):
    """EP-2: one compatibility mode against a class (eastern, western, special, physical, ...)."""

    mode: CompatibilityMode
    class_: Slug = Field(alias="class")


class EnergyPool(RuleModel):
    """EP-1..8: one Energy Pool on an actor, keyed by its id in `energyPools`."""

    name: Name
    category: PoolCategory
    region: Region | None = None
    key_attributes: tuple[Attribute, ...]
    max: Count
    current: Count
    sources: tuple[Name, ...] = ()
    variant_of: Slug | None = None
    counts_as_pool: Flag = True
    compatibility: tuple[Compatibility, ...] = ()


class Gauge(RuleModel):
    """EP-9: a Gauge, not a pool: from one resource, its own max rules."""

    name: Name
    max: Count
    current: Count
    source: Name
    nature: Slug | None = None
