"""The GM's word on locating: pins on locate states (PIN, over DET-4), when one may be set or
released, and the answer to a reveal held for approval (DET-8); each with the step that explains
it. The pins and reveals themselves live in the document (`document.models`); these functions
decide from plain values, so the handlers only read the document and apply the result.
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


def reveal_answered_step(observer: str, target: str, accept: bool, *, held: bool) -> Step:
    """DET-8: the GM accepts (the observer pinpoints the target) or refuses (the contest counts as
    lost) a reveal held for approval; none held (`held` False) is refused."""
    if not held:
        raise RuleViolation("DET-8", f"no reveal of {target} to {observer} waits for approval", ("target",))
    verdict = "accepted" if accept else "refused: the contest counts as lost"
    return Step(
        rule="DET-8",
        text=f"the GM {verdict} ({observer} → {target})",
        data={"observer": observer, "target": target, "accepted": accept},
        key="DET-8.accepted" if accept else "DET-8.refused",
    )


def pin_explained_step(
    observer: str, target: str, pinned: str, rules_state: str, by: str, until: str | Mapping[str, Any]
) -> Step:
    """PIN in an explanation: the pair is pinned to `pinned` by `by` (empty: the GM) until `until`,
    over the rules' own state `rules_state`."""
    return Step(
        rule="PIN",
        text=f"pinned by {by or 'the GM'}: {observer} locates {target}: {pinned}",
        data={
            "observer": observer,
            "target": target,
            "result": pinned,
            "rules": rules_state,
            "by": by,
            "until": until,
        },
        key="PIN.explain",
    )


def held_step(observer: str, target: str, shown: str) -> Step:
    """DET-8 with `settings.approveReveals`: a stage-three win that would let `observer` pinpoint
    `target` is held until the GM answers; meanwhile the pair shows `shown` (its state before)."""
    return Step(
        rule="DET-8",
        text=f"{observer} would pinpoint {target}: held until the GM accepts or refuses it",
        data={"held": True, "observer": observer, "target": target, "shown": shown},
        key="DET-8.held",
    )


def restart_ended_step(observer: str | None, target: str, until_round: int) -> Step:
    """PIN: a restart of the round count ends a pin held until round `until_round` of the old count
    (`observer` None: the pin for every observer)."""
    return Step(
        rule="PIN",
        text=f"the round count restarted: the pin on how {_who(observer)} locates {target} "
        f"until round {until_round} ends",
        data={"observer": observer, "target": target, "untilRound": until_round},
        key="PIN.restart",
    )
