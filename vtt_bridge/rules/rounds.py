"""The combat round count (ROUND): which round a scene may enter next, and the step that says a
round began. What happens between two rounds is each rule's own (HEALTH-4/10, WP-3, IWR-5, DET-8).
"""

from __future__ import annotations

from dataclasses import dataclass

from vtt_bridge.rules.common import RuleViolation, Step


@dataclass(frozen=True, slots=True)
class RoundStart:
    """A round that begins: its number, whether it restarts the count, and the step that says so."""

    round: int
    restarted: bool
    steps: tuple[Step, ...]


def begin_round(current: int | None, requested: int) -> RoundStart:
    """ROUND: a scene in round `current` enters round `requested`: the next one, or a restart of the
    count at 0 or 1 (a restart is a round not after the current one). No scene (`current` None), or
    any other round, is refused at `round`."""
    if current is None:
        raise RuleViolation(
            "ROUND", "there is no scene to advance; send `sync` with a scene first", ("round",)
        )
    if requested not in (current + 1, 0, 1):
        raise RuleViolation(
            "ROUND",
            f"the scene is at round {current}: the next round is {current + 1} (0 or 1 restarts)",
            ("round",),
        )
    step = Step(rule="ROUND", text=f"round {requested} begins", data={"round": requested}, key="ROUND.begins")
    return RoundStart(round=requested, restarted=requested <= current, steps=(step,))
