"""Benchmark of the detection rules' pure part (DET-5..8): the visibility matrix of a generated scene.

Run: `.venv/bin/python benchmarks/bench_detection_rules.py [--tokens 500] [--moves 2000] [--seed 7]`.
Reports, in one run: the full recompute (a `sync`'s derivation) and the median time of one `move`
handler call (token update + incremental refresh), plus a full recompute past the frame cap.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from vtt_bridge.actions import Context
from vtt_bridge.actions.detection.handlers import MoveAction, move
from vtt_bridge.document.models import Actor, Scene, Token, WorldState
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.rules.detection import (
    ORDINARY_SENSES,
    AntiDetectionMeans,
    Capability,
    DetectionMeans,
    Essence,
    Sense,
)
from vtt_bridge.rules.ranks import Rank

WIDTH_PX = 6000.0
"""The generated scene is 6000 by 6000 px: 60 by 60 squares of 1.5 m (90 m a side)."""


def _actor(rng: random.Random, hides: bool | None = None) -> Actor:
    """A mixed cast: ordinary humans, darkvision, magical sight, beasts, the blinded; some hidden
    (about one in seven), or, with `hides`, exactly those it says (its means drawn as for the rest)."""
    roll = rng.random()
    detection: tuple[DetectionMeans, ...] = ORDINARY_SENSES
    humanoid = True
    conditions: dict[str, bool] = {}
    if roll < 0.15:
        detection = (
            DetectionMeans(name="darkvision", sense=Sense.SIGHT, rank=Rank.D, range=rng.choice([18.0, 27.0])),
            ORDINARY_SENSES[1],
        )
    elif roll < 0.25:
        detection = (
            *ORDINARY_SENSES,
            DetectionMeans(name="see invisibility", sense=Sense.SIGHT, essence=Essence.MAGICAL, rank=Rank.C),
        )
    elif roll < 0.35:
        humanoid = False
        detection = (
            DetectionMeans(name="sight", sense=Sense.SIGHT, range=40.0),
            DetectionMeans(name="keen hearing", sense=Sense.HEARING, rank=Rank.D, range=30.0),
            DetectionMeans(
                name="scent", sense=Sense.SMELL, rank=Rank.C, capability=Capability.APPROXIMATE, range=12.0
            ),
        )
    elif roll < 0.40:
        conditions = {"blinded": True}
    elif roll < 0.42:
        detection = (
            *ORDINARY_SENSES,
            DetectionMeans(
                name="thermal scope",
                sense=Sense.OTHER,
                essence=Essence.TECHNOLOGICAL,
                rank=Rank.B,
                range=60.0,
            ),
        )
    hide = rng.random()
    if hides is not None:
        hide = hide * 0.14 if hides else 1.0
    anti: tuple[AntiDetectionMeans, ...] = ()
    if hide < 0.08:
        anti = (AntiDetectionMeans(name="invisibility", essence=Essence.MAGICAL, rank=Rank.B),)
    elif hide < 0.12:
        anti = (AntiDetectionMeans(name="optic camouflage", essence=Essence.TECHNOLOGICAL, rank=Rank.C),)
    elif hide < 0.14:
        anti = (
            AntiDetectionMeans(name="shadow veil", essence=Essence.ANOMALOUS, rank=Rank.A),
            AntiDetectionMeans(name="silence", essence=Essence.MAGICAL, rank=Rank.D),
        )
    return Actor(
        name="npc",
        humanoid=humanoid,
        detection=detection,
        anti_detection=anti,
        conditions=conditions,
        approximate_range=rng.choice([None, 10.0]),
        sensory_range=rng.choice([None, 3.0]),
    )


def scene(tokens: int, seed: int, hide_every: int | None = None) -> WorldState:
    """A seeded scene of `tokens` tokens, one actor each, without its matrix. With `hide_every` n,
    every n-th actor hides and no other does (the harsher scene: `hide_every=3`)."""
    rng = random.Random(seed)
    actors = {
        f"a{i}": _actor(rng, None if hide_every is None else i % hide_every == 0) for i in range(tokens)
    }
    placed = {
        f"t{i}": Token(
            actor=f"a{i}",
            x=rng.uniform(0, WIDTH_PX),
            y=rng.uniform(0, WIDTH_PX),
            elevation=rng.choice([0.0, 0.0, 0.0, 3.0]),
        )
        for i in range(tokens)
    }
    return WorldState(scene=Scene(id="bench"), actors=actors, tokens=placed)


def _timed_full(state: WorldState, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        fresh = state.model_copy(update={"actors": {k: v.model_copy() for k, v in state.actors.items()}})
        start = time.perf_counter()
        VisibilityIndex().recompute_visibility(fresh)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--large", type=int, default=1200)
    args = parser.parse_args()
    base = scene(args.tokens, args.seed)
    pairs = args.tokens * (args.tokens - 1)
    full = _timed_full(base, 5)
    index = VisibilityIndex()
    state = index.refresh(WorldState(), base)
    ctx = Context(roller=SeededRoller(args.seed), visibility=index)
    rng = random.Random(args.seed + 1)
    ids = list(state.tokens)
    times = []
    for _ in range(args.moves):
        action = MoveAction(
            kind="move", token=rng.choice(ids), x=rng.uniform(0, WIDTH_PX), y=rng.uniform(0, WIDTH_PX)
        )
        start = time.perf_counter()
        state = move(state, action, ctx).state
        times.append(time.perf_counter() - start)
    assert state.visibility == VisibilityIndex().recompute_visibility(state), (
        "incremental matrix drifted from a full recompute"
    )
    large = _timed_full(scene(args.large, args.seed), 3)
    print(f"tokens={args.tokens} pairs={pairs} seed={args.seed}")
    print(f"full recompute (cold actors): median {full * 1000:.1f} ms ({full / pairs * 1e9:.0f} ns/pair)")
    print(
        f"move (handler + incremental refresh): median {statistics.median(times) * 1e6:.0f} us, "
        f"p95 {sorted(times)[int(len(times) * 0.95)] * 1e6:.0f} us over {args.moves} moves"
    )
    print(f"full recompute at {args.large} tokens: median {large * 1000:.1f} ms")


if __name__ == "__main__":
    main()
