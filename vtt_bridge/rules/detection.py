"""Detection and locating (DET-1..10): means, anti-detection, locate states."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from vtt_bridge.rules.common import Distance, RuleModel
from vtt_bridge.rules.ranks import Rank

Name = Annotated[str, Field(strict=True, min_length=1, max_length=100)]


class Essence(StrEnum):
    """DET-1: the four Essences of a means of detection or anti-detection."""

    NATURAL = "natural"
    TECHNOLOGICAL = "technological"
    MAGICAL = "magical"
    ANOMALOUS = "anomalous"


class Sense(StrEnum):
    """The sense a means of detection works through (DET-5 blinds sight, deafens hearing)."""

    SIGHT = "sight"
    HEARING = "hearing"
    SMELL = "smell"
    TOUCH = "touch"
    OTHER = "other"


class Capability(StrEnum):
    """DET-3: the best a means can do."""

    PINPOINT = "pinpoint"
    APPROXIMATE = "approximate"


class LocateState(StrEnum):
    """DET-4: locate states, best to worst."""

    PINPOINTED = "pinpointed"
    APPROXIMATE = "approximate"
    UNLOCATED = "unlocated"


class DetectionMeans(RuleModel):
    """DET-1/3: a means of detection; `range` in scene units, None for unlimited."""

    name: Name
    sense: Sense
    essence: Essence = Essence.NATURAL
    rank: Rank = Rank.UNRANKED
    capability: Capability = Capability.PINPOINT
    range: Distance | None = None


class AntiDetectionMeans(RuleModel):
    """DET-1: a means of anti-detection `{name, essence, rank}`."""

    name: Name
    essence: Essence = Essence.NATURAL
    rank: Rank = Rank.UNRANKED


ORDINARY_SENSES: tuple[DetectionMeans, ...] = (
    DetectionMeans(name="sight", sense=Sense.SIGHT, capability=Capability.PINPOINT),
    DetectionMeans(name="hearing", sense=Sense.HEARING, capability=Capability.APPROXIMATE),
)
"""DET-5: an ordinary eye (natural unranked sight, pinpoint) and ear (hearing, approximate)."""
