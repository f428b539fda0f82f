"""The `round` action: a new combat round (HEALTH-4 worsening, HEALTH-10 fast healing, WP-3, DET-8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from vtt_bridge.actions import Context, Ruling
from vtt_bridge.actions.detection.round import round_contests
from vtt_bridge.actions.health import round_health
from vtt_bridge.document.models import Scene, WorldState, with_actor
from vtt_bridge.document.pins import restart_ends_round_pins
from vtt_bridge.rules.common import Count, RuleModel, Step
from vtt_bridge.rules.dice import Roll
from vtt_bridge.rules.iwr import lapse_temporary_immunities
from vtt_bridge.rules.rounds import begin_round


class RoundAction(RuleModel):
    """`round {round}`: the scene enters round `round` (the next one, or a restart at 0 or 1)."""

    kind: Literal["round"]
    round: Count


def new_round(state: WorldState, action: RoundAction, ctx: Context) -> Ruling:
    """Advance the scene's round, then run every rule that happens between two rounds."""
    scene = state.scene
    start = begin_round(scene.round if scene is not None else None, action.round)
    assert scene is not None  # begin_round refuses a world without a scene
    after = state.model_copy(
        update={"scene": Scene.model_validate({**scene.model_dump(), "round": action.round})}
    )
    log = list(start.steps)
    restarted = start.restarted
    after, ended = end_temporary_immunities(after, restarted=restarted)
    log.extend(ended)
    if restarted:  # the GM's pins until a round of the old count end with it
        after, released = restart_ends_round_pins(after)
        log.extend(released)
    rolls: list[Roll] = []
    for phase in ROUND_PHASES:
        ruling = phase(after, ctx)
        after = ruling.state
        log.extend(ruling.log)
        rolls.extend(ruling.rolls)
    return Ruling(state=after, log=tuple(log), rolls=tuple(rolls))


def end_temporary_immunities(state: WorldState, restarted: bool) -> tuple[WorldState, list[Step]]:
    """IWR-5 for every actor (`rules.iwr.lapse_temporary_immunities`), in actor id order."""
    round_number = state.scene.round if state.scene is not None else 0
    steps: list[Step] = []
    for actor_id in sorted(state.actors):
        actor = state.actors[actor_id]
        lapse = lapse_temporary_immunities(actor_id, actor.temporary_immunities, round_number, restarted)
        if lapse.steps:
            state = with_actor(state, actor_id, actor.model_copy(update={"temporary_immunities": lapse.kept}))
            steps.extend(lapse.steps)
    return state, steps


Phase = Callable[[WorldState, Context], Ruling]

ROUND_PHASES: tuple[Phase, ...] = (round_health, round_contests)
"""What happens between two rounds, in order."""
