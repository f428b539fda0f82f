"""What the areas of approximate pairs (DET-4 on the map, `document.areas`) cost, in process: the
generated scene synced and ruled through combat rounds 1 to 3 and a move, as the server's worker
rules them, once with areas and once with the area step left out (`World._finish` without
`rule_areas`), alternating, each run in a fresh process; and the areas' bytes on the wire (the
sync's `/areas` value, per area, and what a move's and a round's patch carry of them).

Then the same rounds paired: in each fresh process two worlds of the same scene, one ruled with
areas and one without, take turns round by round (which goes first alternates from process to
process), each round's thread CPU time and wall time read for both, so a ratio compares two rounds
ruled in the same process a moment apart: the spread between processes (a round without areas
takes 0.35 to 0.49 s from one process to the next on this machine) cancels out of it.

    python -m benchmarks.bench_areas [--tokens 500 1000] [--runs 2] [--paired 9]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from typing import Any

import orjson

from benchmarks.bench_detection_rules import scene


def _area_bytes(patch: list[dict[str, Any]]) -> tuple[int, int]:
    """(ops naming areas, their bytes as JSON)."""
    ops = [op for op in patch if op["path"].startswith("/areas")]
    return len(ops), sum(len(orjson.dumps(op)) for op in ops)


def one(tokens: int, areas: bool) -> dict[str, Any]:
    """Sync, rounds 1..3 and a move of the generated scene (seed 7) in this process."""
    from vtt_bridge.engine import world as world_module
    from vtt_bridge.engine.roller import SeededRoller
    from vtt_bridge.engine.world import Pending, World
    from vtt_bridge.server.commit import ruled_in_worker

    if not areas:
        setattr(world_module, "rule_areas", lambda before, after, *args, **kwargs: after)  # noqa: B010
    state = scene(tokens, seed=7).model_dump(mode="json")
    world = World("bench")
    start = time.perf_counter()
    pending = world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}})
    reply = orjson.dumps(pending.result)
    out: dict[str, Any] = {"sync_s": time.perf_counter() - start, "sync_mb": len(reply) / 1e6}
    areas_value = next(op["value"] for op in pending.result["patch"] if op["path"] == "/areas")
    out["areas"] = sum(len(row) for row in areas_value.values())
    out["approximate"] = sum(
        1 for row in pending.result["patch"][5]["value"].values() for code in row.values() if code == "a"
    )
    out["areas_bytes"] = len(orjson.dumps(areas_value))
    world.commit(pending, reply)
    rounds = []
    for number in (1, 2, 3):
        start = time.perf_counter()
        ruled, dumped = ruled_in_worker(
            world.prepare_action, f"r{number}", {"kind": "round", "round": number}, SeededRoller(number + 1)
        )
        rounds.append(time.perf_counter() - start)
        assert isinstance(ruled, Pending) and dumped is not None
        out[f"round{number}_area_ops"], out[f"round{number}_area_bytes"] = _area_bytes(ruled.result["patch"])
        world.commit(ruled, dumped.data)
    out["rounds_s"] = rounds
    target = next(iter(world.state.areas), "t0")
    token = world.state.tokens[target]
    start = time.perf_counter()
    moved = world.prepare_action(
        "m1", {"kind": "move", "token": target, "x": token.x + 5000, "y": token.y}, SeededRoller(1)
    )
    assert isinstance(moved, Pending)
    out["move_s"] = time.perf_counter() - start
    out["move_area_ops"], out["move_area_bytes"] = _area_bytes(moved.result["patch"])
    return out


def paired(tokens: int, areas_first: bool) -> list[dict[str, float]]:
    """Rounds 1..3 of two worlds of the generated scene in this process, one with areas and one
    without (the area step left out while it rules), in turns; each round's times for both."""
    from vtt_bridge.document.areas import rule_areas as with_areas
    from vtt_bridge.engine import world as world_module
    from vtt_bridge.engine.roller import SeededRoller
    from vtt_bridge.engine.world import Pending, World
    from vtt_bridge.server.commit import ruled_in_worker

    def without_areas(before: Any, after: Any, *args: Any, **kwargs: Any) -> Any:
        return after

    state = scene(tokens, seed=7).model_dump(mode="json")
    sync = {"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}}
    worlds = {True: World("with"), False: World("without")}
    order = (True, False) if areas_first else (False, True)
    for areas in order:
        setattr(world_module, "rule_areas", with_areas if areas else without_areas)  # noqa: B010
        pending = worlds[areas].prepare_sync(sync)
        worlds[areas].commit(pending, orjson.dumps(pending.result))
    out = []
    for number in (1, 2, 3):
        times: dict[str, float] = {}
        for areas in order:
            setattr(world_module, "rule_areas", with_areas if areas else without_areas)  # noqa: B010
            world = worlds[areas]
            cpu, wall = time.thread_time(), time.perf_counter()
            action = {"kind": "round", "round": number}
            dice = SeededRoller(number + 1)
            ruled, dumped = ruled_in_worker(world.prepare_action, f"r{number}", action, dice)
            times["cpu_with" if areas else "cpu_without"] = time.thread_time() - cpu
            times["wall_with" if areas else "wall_without"] = time.perf_counter() - wall
            assert isinstance(ruled, Pending) and dumped is not None
            world.commit(ruled, dumped.data)
        out.append(times)
    setattr(world_module, "rule_areas", with_areas)  # noqa: B010
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, nargs="+", default=[500, 1000])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--paired", type=int, default=6, help="processes of paired rounds (0: none)")
    args = parser.parse_args()
    spawn = multiprocessing.get_context("spawn")
    for tokens in args.tokens:
        runs: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
        for _ in range(args.runs):
            for areas in (False, True):
                with spawn.Pool(1) as pool:
                    runs[areas].append(pool.apply(one, (tokens, areas)))
        on, off = runs[True], runs[False]
        first = on[0]
        print(
            f"{tokens} tokens: {first['approximate']:,} approximate pairs, {first['areas']:,} areas; "
            f"sync's /areas {first['areas_bytes'] / 1e6:.2f} MB = "
            f"{first['areas_bytes'] / max(1, first['areas']):.1f} bytes an area"
        )

        def med(rows: list[dict[str, Any]], key: str, at: int | None = None) -> float:
            return float(statistics.median(r[key] if at is None else r[key][at] for r in rows))

        print(f"  sync: {med(off, 'sync_s'):.3f} s without areas, {med(on, 'sync_s'):.3f} s with")
        for at in range(3):
            without, with_ = med(off, "rounds_s", at), med(on, "rounds_s", at)
            print(
                f"  round {at + 1}: {without:.3f} s without, {with_:.3f} s with "
                f"({(with_ / without - 1) * 100:+.1f}%); "
                f"area ops {first[f'round{at + 1}_area_ops']}, {first[f'round{at + 1}_area_bytes']:,} bytes"
            )
        print(
            f"  move far of an approximate target: {med(off, 'move_s') * 1e3:.1f} ms without, "
            f"{med(on, 'move_s') * 1e3:.1f} ms with; area ops {first['move_area_ops']}, "
            f"{first['move_area_bytes']:,} bytes"
        )

        if args.paired:
            pairs = []
            for run in range(args.paired):
                with spawn.Pool(1) as pool:
                    pairs.append(pool.apply(paired, (tokens, run % 2 == 0)))
            print(f"  paired in one process ({args.paired} processes; median, lowest and highest ratio):")
            for at in range(3):
                line = []
                for kind in ("cpu", "wall"):
                    ratios = sorted(p[at][f"{kind}_with"] / p[at][f"{kind}_without"] - 1 for p in pairs)
                    middle, low, high = (statistics.median(ratios), ratios[0], ratios[-1])
                    line.append(f"{kind} {middle * 100:+.1f}% ({low * 100:+.1f}..{high * 100:+.1f}%)")
                without = statistics.median(p[at]["wall_without"] for p in pairs)
                print(f"    round {at + 1}: {without:.3f} s without; with areas " + ", ".join(line))


if __name__ == "__main__":
    main()
