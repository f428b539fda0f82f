"""The areas' cost counted in instructions, not seconds (a loaded machine moves seconds, hardly
instructions): one process syncs the generated scene (seed 7), rules `--rounds` combat rounds as
the server's worker does, then `--moves` moves as `bench_scene` makes them (each far, to a new
place), the cycle collector set as `serve` sets it, with or without the area step
(`World._finish` without `rule_areas`, as `bench_areas` does). Run it under `valgrind
--tool=callgrind` (or `perf stat -e instructions:u` where the machine has the counter) with 0 and
N rounds or moves, both ways; their instructions are the difference (docs/benchmarks.md, areas).

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python -m benchmarks.instr_areas --tokens 1000 --rounds 3 --areas off

`--step sync` or `--step rulings` runs the area step's own functions (`rule_areas`, `area_ops`,
`_write_areas`) of the sync, or of the rounds and moves after it, inside `functools.reduce`, so
that callgrind counts them alone (`--collect-atstart=no --toggle-collect=functools_reduce`).
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

import orjson

from benchmarks.bench_detection_rules import scene


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--moves", type=int, default=0)
    parser.add_argument("--areas", choices=("on", "off"), default="on")
    parser.add_argument("--step", choices=("none", "sync", "rulings"), default="none")
    args = parser.parse_args()
    from vtt_bridge.document import models
    from vtt_bridge.engine import patch as patch_module
    from vtt_bridge.engine import world as world_module
    from vtt_bridge.engine.roller import SeededRoller
    from vtt_bridge.engine.world import Pending, World
    from vtt_bridge.server.commit import dumped_result, ruled_in_worker
    from vtt_bridge.server.heap import collect_young_less_often

    collect_young_less_often()  # as `serve` sets the cycle collector

    if args.areas == "off":
        setattr(world_module, "rule_areas", lambda before, after, *a, **k: after)  # noqa: B010
    syncing = [True]

    def counted(function: Callable[..., Any]) -> Callable[..., Any]:
        def inside(*a: Any, **k: Any) -> Any:
            if syncing[0] != (args.step == "sync"):
                return function(*a, **k)
            return functools.reduce(lambda _, __: function(*a, **k), [0], None)

        return inside

    if args.step != "none":
        for module, name in (
            (world_module, "rule_areas"),
            (patch_module, "area_ops"),
            (models, "_write_areas"),
        ):
            setattr(module, name, counted(getattr(module, name)))
    state = scene(args.tokens, seed=7).model_dump(mode="json")
    world = World("bench")
    pending = world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}})
    world.commit(pending, orjson.dumps(pending.result))
    syncing[0] = False
    for number in range(1, args.rounds + 1):
        ruled, dumped = ruled_in_worker(
            world.prepare_action, f"r{number}", {"kind": "round", "round": number}, SeededRoller(number + 1)
        )
        assert isinstance(ruled, Pending) and dumped is not None
        world.commit(ruled, dumped.data)
    ids = list(world.state.tokens)
    for i in range(args.moves):  # as bench_scene moves them
        payload = {"kind": "move", "token": ids[i % len(ids)], "x": (i * 37) % 4000, "y": (i * 53) % 4000}
        moved = world.prepare_action(f"m{i}", payload, SeededRoller(i))
        assert isinstance(moved, Pending)
        world.commit(moved, dumped_result(moved.result).data)


if __name__ == "__main__":
    main()
