"""The Foundry side counted: the module's own patch-to-update code (`core/apply-patch.mjs`, in Node)
run on the sidecar's results for a `sync`, a `move` and a combat `round` of the generated scene at
50, 500 and 1,000 tokens, then the next round (`round2`, every kept result replaced) and a `damage`
after them: how many documents each updates, how many bytes of update data it sends to Foundry (the
first sync on a Foundry without the module's flags) and how long the module takes to plan it; and
of those writes, DET-4's areas: the token documents an area is written to (and those it is all that
is written to) and the bytes of the area entries.

    python -m benchmarks.bench_foundry [--tokens 50 500 1000]

The results are the sidecar's own (`World`, the code the server runs for each frame), one run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

import orjson

from benchmarks.bench_detection_rules import scene
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World

HERE = Path(__file__).resolve().parent


def _committed(world: World, pending: Pending | bytes) -> dict[str, Any]:
    assert isinstance(pending, Pending)
    reply = orjson.dumps(pending.result)
    world.commit(pending, reply)
    result: dict[str, Any] = json.loads(reply)
    return result


def results(tokens: int) -> dict[str, dict[str, Any]]:
    """The sidecar's results of a sync, a move and a round of a generated scene."""
    state = scene(tokens, seed=7).model_dump(mode="json")
    world = World("bench")
    sync = _committed(
        world, world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}})
    )
    move = {"kind": "move", "token": "t0", "x": 2500.0, "y": 2500.0}
    moved = _committed(world, world.prepare_action("m", move, SeededRoller(1)))
    next_round = world.state.scene.round + 1 if world.state.scene is not None else 1
    round_ = _committed(
        world, world.prepare_action("r", {"kind": "round", "round": next_round}, SeededRoller(2))
    )
    round2 = _committed(
        world, world.prepare_action("r2", {"kind": "round", "round": next_round + 1}, SeededRoller(3))
    )
    hit = {
        "kind": "damage",
        "target": world.state.tokens["t0"].actor,
        "instances": [{"amount": 1, "grade": "B"}],
    }
    damage = _committed(world, world.prepare_action("d", hit, SeededRoller(4)))
    return {"sync": sync, "move": moved, "round": round_, "round2": round2, "damage": damage}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, nargs="+", default=[50, 500, 1000])
    args = parser.parse_args()
    # the areas are counted apart ("area docs/only/bytes"), the other columns include them
    cases = [{"tokens": n, "results": results(n)} for n in args.tokens]
    out = subprocess.run(
        ["node", str(HERE / "foundry_updates.mjs")],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        check=True,
    )
    print(
        "Foundry updates from the module's own apply-patch code "
        "(first sync on a Foundry without flags), one run"
    )
    heads = (
        "tokens",
        "result",
        "sidecar reply",
        "documents",
        "update bytes",
        "of them tokens",
        "plan ms",
        "area docs",
        "area only",
        "area bytes",
    )
    widths = (6, 6, 14, 10, 13, 15, 8, 10, 10, 13)
    print("  " + " ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)))
    sizes = {(c["tokens"], step): len(orjson.dumps(r)) for c in cases for step, r in c["results"].items()}
    for line in out.stdout.splitlines():
        row = json.loads(line)
        size = sizes[(row["tokens"], row["step"])]
        print(
            f"  {row['tokens']:>6} {row['step']:>6} {size / 1e6:>11.2f} MB {row['documents']:>10} "
            f"{row['bytes'] / 1e6:>10.3f} MB {row['tokenBytes'] / 1e6:>12.3f} MB {row['ms']:>8} "
            f"{row['areaDocuments']:>10} {row['areaOnly']:>10} {row['areaBytes'] / 1e6:>10.3f} MB"
        )


if __name__ == "__main__":
    main()
