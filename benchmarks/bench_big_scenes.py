"""Big scenes (issue 23), one run: in process, a combat round of the generated scene at 250, 500,
1,000 and 2,000 tokens and of the harsher 1,000-token scene where every third actor hides (time,
contests a second, reply size), the sync (time, reply size) and the process's memory after the
round, and round 3 after rounds 1 and 2 (the steady state at the table: every kept result is
rewritten, each row of `contests` replaced whole), each scene in a fresh process; over the wire,
the round trip of a `damage` in another world while a 1,000-token round runs, interleaved with the
reply-only baseline.

    python -m benchmarks.bench_big_scenes [--tokens 250 500 1000 2000] [--harsh 1000] [--wire 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from typing import Any

import aiohttp
import orjson

from benchmarks.bench_detection_rules import scene
from benchmarks.bench_scene import _sync_frames, _sync_state
from benchmarks.common import TOKEN, baseline, sidecar


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


LATER = 3
"""The later round measured: round 3, after rounds 1 and 2."""


def _ruled_round(world: Any, number: int) -> tuple[Any, bytes, float]:
    """Combat round `number`, ruled as the server's worker rules it (`server._dumped`: the live heap
    frozen, the cycle collector paused, the reply dumped), then committed as the server commits it
    (its ops and inverse kept for undo as JSON in parts, `server._stored`); its time covers
    the ruling and its reply."""
    from vtt_bridge import heap
    from vtt_bridge.bridge import SeededRoller
    from vtt_bridge.history import JsonOps
    from vtt_bridge.server import _dumped
    from vtt_bridge.world import Pending

    start = time.perf_counter()
    ruled, dumped = _dumped(
        world.prepare_action, f"r{number}", {"kind": "round", "round": number}, SeededRoller(number + 1)
    )
    seconds = time.perf_counter() - start
    assert isinstance(ruled, Pending) and dumped is not None and ruled.entry is not None
    kept = (
        None
        if ruled.entry.inverse is None
        else (JsonOps.of(ruled.entry.forward), JsonOps.of(ruled.entry.inverse))
    )
    world.commit(ruled, dumped.data, kept)
    heap.release_freed_memory()  # as the server does after a long ruling (server._release_later)
    return ruled, dumped.data, seconds


def one(tokens: int, hide_every: int | None = None) -> dict[str, Any]:
    """Sync and combat rounds 1 to `LATER` of the generated scene in this process, as the server
    rules them (`hide_every`: the harsher scene, `bench_detection_rules.scene`); the memory after
    round 1 and after round `LATER`."""
    from vtt_bridge.world import World

    state = scene(tokens, seed=7, hide_every=hide_every).model_dump(mode="json")
    world = World("bench")
    start = time.perf_counter()
    pending = world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}})
    sync_reply = orjson.dumps(pending.result)
    sync_s = time.perf_counter() - start
    sync_mb = len(sync_reply) / 1e6
    world.commit(pending, sync_reply)  # as the server does: the reply's UTF-8, not kept (no action id)
    del state, pending, sync_reply
    ruled, reply, round_s = _ruled_round(world, 1)
    first = {
        "tokens": tokens,
        "sync_s": sync_s,
        "sync_mb": sync_mb,
        "round_s": round_s,
        "contests": _contests(ruled),
        "round_mb": len(reply) / 1e6,
        "rss_mb": _rss_mb(),
    }
    del ruled, reply
    for number in range(2, LATER + 1):
        ruled, reply, later_s = _ruled_round(world, number)
    first.update(
        later_s=later_s, later_contests=_contests(ruled), later_mb=len(reply) / 1e6, later_rss_mb=_rss_mb()
    )
    return first


def _contests(ruled: Any) -> int:
    """The contests a round ran, from its log."""
    return int(
        next(s["data"]["contests"] for s in ruled.result["log"] if "contests" in (s.get("data") or {}))
    )


def _frame(msg_id: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"v": 1, "id": msg_id, "type": kind, "payload": payload})


SMALL = {
    "scene": {"id": "small"},
    "actors": {"Actor.a": {"name": "A", "health": {"max": 400}}, "Actor.b": {"name": "B"}},
    "tokens": {"ta": {"actor": "Actor.a", "x": 0, "y": 0}, "tb": {"actor": "Actor.b", "x": 300, "y": 0}},
}


async def wire(tokens: int) -> None:
    """A `damage` in another world, and the baseline's reply, while a big world's round runs."""
    state = _sync_state(tokens)
    with sidecar() as bridge_server, baseline() as base_server:
        async with aiohttp.ClientSession() as session:
            url = f"ws://127.0.0.1:{bridge_server.port}/ws"
            big = await session.ws_connect(url, max_msg_size=0)
            small = await session.ws_connect(url, max_msg_size=0)
            base = await session.ws_connect(f"ws://127.0.0.1:{base_server.port}/ws")
            for ws, name in ((big, "big"), (small, "small")):
                hello = {"token": TOKEN, "world": name, "client": {"name": "bench"}}
                await ws.send_str(_frame("h", "hello", hello))
                assert json.loads((await ws.receive()).data)["type"] == "welcome"
            await small.send_str(_frame("s", "sync", {"state": SMALL}))
            assert json.loads((await small.receive()).data)["type"] == "result"
            for frame in _sync_frames(state, limit=900_000):
                await big.send_str(frame)
                reply = json.loads((await big.receive()).data)
                assert reply["type"] == "result", reply["payload"]
            count = 0

            async def damage() -> tuple[float, float]:
                nonlocal count
                count += 1
                hit = {"kind": "damage", "target": "Actor.a", "instances": [{"amount": 1, "grade": "B"}]}
                frame = _frame(f"d{count}", "action", hit)
                start = time.perf_counter()
                await small.send_str(frame)
                answer = json.loads((await small.receive()).data)
                elapsed = time.perf_counter() - start
                assert answer["type"] == "result", answer
                start = time.perf_counter()
                await base.send_str(frame)
                await base.receive()
                return elapsed, time.perf_counter() - start

            idle = [await damage() for _ in range(50)]
            start = time.perf_counter()
            await big.send_str(_frame("r", "action", {"kind": "round", "round": 1}))
            round_reply = asyncio.ensure_future(big.receive())
            during: list[tuple[float, float]] = []
            while not round_reply.done():
                during.append(await damage())
                await asyncio.sleep(0.02)
            round_s = time.perf_counter() - start
            assert json.loads(round_reply.result().data)["type"] == "result"
            for ws in (big, small, base):
                await ws.close()

    def row(name: str, times: list[tuple[float, float]]) -> str:
        ours = sorted(t for t, _ in times)
        theirs = sorted(t for _, t in times)
        return (
            f"  {name}: {len(ours)} damages, median {statistics.median(ours) * 1000:.1f} ms, "
            f"max {ours[-1] * 1000:.1f} ms (reply-only baseline median "
            f"{statistics.median(theirs) * 1000:.2f} ms, max {theirs[-1] * 1000:.1f} ms)"
        )

    print(f"damage round trip in another world, {tokens}-token round on the wire ({round_s:.1f} s), one run")
    print(row("idle", idle))
    print(row("during the round", during))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--harsh", type=int, nargs="*", default=[1000], help="every third actor hides")
    parser.add_argument("--wire", type=int, default=1000)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--hide-every", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.hide_every)))
        return
    with open("/proc/loadavg") as load:
        print(f"load average at the start: {load.read().split()[0]} (2 shared cores)")
    print("combat round 1 of the generated scene, in process (sync, then the round), one run each")
    print("  (NNNNh3: the harsher scene, every third actor hides; µs each: the round's time per contest)")
    print(
        f"  {'tokens':>8} {'sync':>8} {'sync reply':>11} {'round':>8} {'contests':>9} "
        f"{'contests/s':>11} {'µs each':>8} {'reply':>9} {'memory':>8}"
    )
    runs = [(tokens, None) for tokens in args.tokens] + [(tokens, 3) for tokens in args.harsh]
    later: list[tuple[str, dict[str, Any]]] = []
    for tokens, hide_every in runs:
        extra = [] if hide_every is None else ["--hide-every", str(hide_every)]
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_big_scenes", "--one", str(tokens), *extra],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(out.stdout)
        label = f"{tokens}" if hide_every is None else f"{tokens}h{hide_every}"
        later.append((label, r))
        print(
            f"  {label:>8} {r['sync_s']:>7.2f}s {r['sync_mb']:>8.2f} MB {r['round_s']:>7.2f}s "
            f"{r['contests']:>9} {r['contests'] / r['round_s']:>11.0f} "
            f"{r['round_s'] / r['contests'] * 1e6:>8.1f} "
            f"{r['round_mb']:>6.2f} MB "
            f"{r['rss_mb']:>5.0f} MB"
        )
    print(f"combat round {LATER} after rounds 1 and 2 (the steady state at the table), same processes")
    print(
        f"  {'tokens':>8} {'round':>8} {'contests':>9} {'contests/s':>11} {'µs each':>8} {'reply':>9} "
        f"{'memory':>8}"
    )
    for label, r in later:
        print(
            f"  {label:>8} {r['later_s']:>7.2f}s {r['later_contests']:>9} "
            f"{r['later_contests'] / r['later_s']:>11.0f} "
            f"{r['later_s'] / r['later_contests'] * 1e6:>8.1f} {r['later_mb']:>6.2f} MB "
            f"{r['later_rss_mb']:>5.0f} MB"
        )
    if args.wire:
        asyncio.run(wire(args.wire))


if __name__ == "__main__":
    main()
