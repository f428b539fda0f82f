"""The GM's pins on locate states (PIN, over DET-4): when a pin may be set or released, and the step
that explains it. The pins themselves live in the document (`document.models.TargetPins`); these
functions decide from plain values, so the handlers only read the document and apply the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtt_bridge.rules.common import RuleViolation, Step


def _who(observer: str | None) -> str:
    return "every observer" if observer is None else observer


def check_pin_round(until_round: int | None, round_number: int) -> None:
    """PIN: a pin held through a round already past is refused (`until_round` None: not by round)."""
    if until_round is not None and until_round < round_number:
        raise RuleViolation(
            "PIN", f"round {until_round} is past: the scene is in round {round_number}", ("until", "round")
        )


def pinned_step(
    observer: str | None, target: str, state: str, until: str | Mapping[str, Any], by: str
) -> Step:
    """PIN: the GM (`by`, or "the GM") pins how `observer` (None: every observer) locates `target`
    to `state` until `until` (`"scene"`, `"move"` or `{"round": N}`)."""
    shown = until if isinstance(until, str) else f"the end of round {until['round']}"
    return Step(
        rule="PIN",
        text=f"{by or 'the GM'} pins how {_who(observer)} locates {target}: {state} until {shown}",
        data={
            "observer": observer,
            "target": target,
            "state": state,
            "until": until if isinstance(until, str) else dict(until),
            "by": by,
        },
        key="PIN.pinned",
    )


def released_step(observer: str | None, target: str, held: bool) -> Step:
    """PIN: the pin on how `observer` (None: every observer) locates `target` is released; a pin
    that is not held (`held` False) is refused."""
    if not held:
        raise RuleViolation("PIN", f"no pin on how {_who(observer)} locates {target}", ("target",))
    return Step(
        rule="PIN",
        text=f"the pin on how {_who(observer)} locates {target} is released",
        data={"observer": observer, "target": target, "released": True},
        key="PIN.released",
    )
