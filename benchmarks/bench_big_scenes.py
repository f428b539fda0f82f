"""Big scenes (issue 23), one run: in process, a combat round of the generated scene at 250, 500,
1,000 and 2,000 tokens and of the harsher 1,000-token scene where every third actor hides (time,
contests a second, reply size), the sync (time, reply size) and the process's memory after the
round, and round 3 after rounds 1 and 2 (the steady state at the table: every kept result is
rewritten, each row of `contests` replaced whole) and the memory after round 6, each scene in a
fresh process; over the wire, the round trip of a `damage` and of a `query` (the event loop alone:
nothing is stored) in another world while a 1,000-token world's rounds run, interleaved with the
reply-only baseline, and the sidecar's memory after each.

    python -m benchmarks.bench_big_scenes [--tokens 250 500 1000 2000] [--harsh 1000] [--wire 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import subprocess
import sys
import time
from typing import Any

import aiohttp
import orjson

from benchmarks.bench_detection_rules import scene
from benchmarks.bench_scene import _sync_frames
from benchmarks.common import TOKEN, baseline, sidecar

SETTLE_S = 3.0
"""Seconds the wire part waits after a long ruling before it reads the sidecar's memory: the
packing after the acknowledgement and the hand-back of freed memory (`server.RELEASE_AFTER`) done."""


def _rss_mb(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


LATER = 3
"""The later round measured: round 3, after rounds 1 and 2."""

LAST = 6
"""The last round ruled: the memory after it shows what the rounds after `LATER` still add."""


def _ruled_round(world: Any, number: int) -> dict[str, float]:
    """Combat round `number`, ruled as the server's worker rules it (`server.ruled_in_worker`: the live heap
    frozen, the cycle collector paused, the reply dumped), committed as the server commits it (its
    ops and inverse kept for undo as JSON in parts, `server._stored`), then settled as the server
    settles it after the acknowledgement: those packed (`server._pack_later`), the ruling and its
    reply dropped (sent), and the freed memory given back (`server.release_later`). Its time
    (`seconds`) covers the ruling and its reply; the packing's is `pack_s`."""
    from vtt_bridge.engine.history import packed_ops, stored_ops
    from vtt_bridge.engine.roller import SeededRoller
    from vtt_bridge.engine.world import Pending
    from vtt_bridge.server import heap
    from vtt_bridge.server.workers import ruled_in_worker

    start = time.perf_counter()
    ruled, dumped = ruled_in_worker(
        world.prepare_action, f"r{number}", {"kind": "round", "round": number}, SeededRoller(number + 1)
    )
    seconds = time.perf_counter() - start
    assert isinstance(ruled, Pending) and dumped is not None and ruled.entry is not None
    kept = stored_ops(ruled.entry)
    assert kept is not None
    world.commit(ruled, dumped.data, kept)
    start = time.perf_counter()
    world.history.repack(ruled.result["rev"], kept, packed_ops(kept))
    pack_s = time.perf_counter() - start
    # its JSON as stored: the reply (its log cut) and its log and rolls in parts (`Dumped.stored_bytes`)
    stored_mb = dumped.stored_bytes() / 1e6
    done = {"seconds": seconds, "pack_s": pack_s, "contests": _contests(ruled), "mb": stored_mb}
    del ruled, dumped, kept
    heap.release_freed_memory()
    return done


def one(tokens: int, hide_every: int | None = None) -> dict[str, Any]:
    """Sync and combat rounds 1 to `LAST` of the generated scene in this process, as the server
    rules them (`hide_every`: the harsher scene, `bench_detection_rules.scene`); the memory after
    rounds 1, `LATER` and `LAST`, each settled (`_ruled_round`)."""
    from vtt_bridge.engine.world import World

    state = scene(tokens, seed=7, hide_every=hide_every).model_dump(mode="json")
    world = World("bench")
    start = time.perf_counter()
    pending = world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}})
    sync_reply = orjson.dumps(pending.result)
    sync_s = time.perf_counter() - start
    sync_mb = len(sync_reply) / 1e6
    world.commit(pending, sync_reply)  # as the server does: the reply's UTF-8, not kept (no action id)
    del state, pending, sync_reply
    round_1 = _ruled_round(world, 1)
    first = {
        "tokens": tokens,
        "sync_s": sync_s,
        "sync_mb": sync_mb,
        "round_s": round_1["seconds"],
        "contests": round_1["contests"],
        "round_mb": round_1["mb"],
        "rss_mb": _rss_mb(),
    }
    for number in range(2, LATER + 1):
        later = _ruled_round(world, number)
    first.update(
        later_s=later["seconds"],
        later_contests=later["contests"],
        later_mb=later["mb"],
        later_rss_mb=_rss_mb(),
        pack_s=later["pack_s"],
    )
    for number in range(LATER + 1, LAST + 1):
        _ruled_round(world, number)
    first.update(last_rss_mb=_rss_mb())
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


WIRE_RULINGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("round 1", {"kind": "round", "round": 1}),
    ("round 2", {"kind": "round", "round": 2}),
    ("round 3", {"kind": "round", "round": 3}),
    ("undo of round 3", {"kind": "undo", "action": "round 3"}),
)
"""The long rulings the wire part times, in order, each on the world the last one left (its action
id is its name: the undo names round 3's)."""

SYNC_NAME = "the sync in parts"
"""The first long ruling the wire part times: the big world's sync, sent in parts."""


def _big_world(port: int, tokens: int, hide_every: int | None, conn: Any) -> None:
    """In a process of its own (so that what its clients read and parse never delays the damages
    being timed): the big world's two clients, its sync in parts, then each of `WIRE_RULINGS`,
    reported on `conn` as ("start", name, 0) and ("done", name, seconds) (the sync's name is
    `SYNC_NAME`), each sent once `conn` says go."""

    async def run() -> None:
        state = scene(tokens, seed=7, hide_every=hide_every).model_dump(mode="json")
        state = {key: state[key] for key in ("scene", "settings", "actors", "tokens")}
        async with aiohttp.ClientSession() as session:
            url = f"ws://127.0.0.1:{port}/ws"
            big = await session.ws_connect(url, max_msg_size=0)
            watcher = await session.ws_connect(url, max_msg_size=0)
            for ws in (big, watcher):
                hello = {"token": TOKEN, "world": "big", "client": {"name": "bench"}}
                await ws.send_str(_frame("h", "hello", hello))
                assert json.loads((await ws.receive()).data)["type"] == "welcome"
            pushed = 0

            async def watch() -> None:
                nonlocal pushed
                async for _ in watcher:
                    pushed += 1

            watching = asyncio.ensure_future(watch())
            loop = asyncio.get_running_loop()
            frames = _sync_frames(state, limit=900_000)
            await loop.run_in_executor(None, conn.recv)
            conn.send(("start", SYNC_NAME, 0))
            start = time.perf_counter()
            for frame in frames:
                await big.send_str(frame)
                reply = json.loads((await big.receive()).data)
                assert reply["type"] == "result", reply["payload"]
            conn.send(("done", SYNC_NAME, time.perf_counter() - start))
            for name, payload in WIRE_RULINGS:
                await loop.run_in_executor(None, conn.recv)  # the timing side's go
                conn.send(("start", name, 0))
                start = time.perf_counter()
                await big.send_str(_frame(name, "action", payload))
                answer = await big.receive()
                seconds = time.perf_counter() - start
                assert json.loads(answer.data)["type"] == "result"
                conn.send(("done", name, seconds))
            for _ in range(1000):  # the last pushed patch follows the last answer (10 s at most)
                if pushed >= 1 + len(WIRE_RULINGS):
                    break
                await asyncio.sleep(0.01)
            await big.close()
            await watcher.close()
            await watching
            conn.send(("pushed", pushed, 0))

    asyncio.run(run())


async def wire(tokens: int, hide_every: int | None = None) -> None:
    """A `damage` and a `query` in another world, and the baseline's reply, while each of a big
    world's long rulings runs (`WIRE_RULINGS`; its two clients in a process of their own, one of
    them taking the pushed patches); the sidecar's memory `SETTLE_S` after the sync and after each."""
    with sidecar() as bridge_server, baseline() as base_server:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        big = context.Process(target=_big_world, args=(bridge_server.port, tokens, hide_every, theirs))
        big.start()
        async with aiohttp.ClientSession() as session:
            url = f"ws://127.0.0.1:{bridge_server.port}/ws"
            small = await session.ws_connect(url, max_msg_size=0)
            base = await session.ws_connect(f"ws://127.0.0.1:{base_server.port}/ws")
            hello = {"token": TOKEN, "world": "small", "client": {"name": "bench"}}
            await small.send_str(_frame("h", "hello", hello))
            assert json.loads((await small.receive()).data)["type"] == "welcome"
            await small.send_str(_frame("s", "sync", {"state": SMALL}))
            assert json.loads((await small.receive()).data)["type"] == "result"
            count = 0

            async def damage() -> tuple[float, float, float]:
                """A damage's round trip, a query's (the event loop alone: nothing stored), and the
                reply-only server's."""
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
                await small.send_str(_frame(f"q{count}", "query", {"kind": "state"}))
                assert json.loads((await small.receive()).data)["type"] == "result"
                asked = time.perf_counter() - start
                start = time.perf_counter()
                await base.send_str(frame)
                await base.receive()
                return elapsed, asked, time.perf_counter() - start

            async def message() -> tuple[str, Any, float]:
                while not ours.poll():
                    await asyncio.sleep(0.005)
                received: tuple[str, Any, float] = ours.recv()
                return received

            idle = [await damage() for _ in range(50)]
            during: list[tuple[str, float, list[tuple[float, float, float]]]] = []
            settled: list[float] = []
            for _ in [SYNC_NAME, *WIRE_RULINGS]:
                ours.send("go")
                kind, name, _ = await message()
                assert kind == "start"
                times: list[tuple[float, float, float]] = []
                while not ours.poll():
                    times.append(await damage())
                    await asyncio.sleep(0.02)
                kind, name, seconds = ours.recv()
                assert kind == "done"
                during.append((name, seconds, times))
                await asyncio.sleep(SETTLE_S)
                settled.append(_rss_mb(bridge_server.pid))
            synced_mb = settled.pop(0)
            kind, pushed, _ = await message()
            for ws in (small, base):
                await ws.close()
        big.join(30)

    def row(name: str, times: list[tuple[float, float, float]]) -> str:
        ours = sorted(t for t, _, _ in times)
        asked = sorted(t for _, t, _ in times)
        theirs = sorted(t for _, _, t in times)
        return (
            f"  {name}: {len(ours)} damages, median {statistics.median(ours) * 1000:.1f} ms, "
            f"90th percentile {ours[int(len(ours) * 0.9)] * 1000:.1f} ms, max {ours[-1] * 1000:.1f} ms, "
            f"{sum(t > 0.1 for t in ours)} over 100 ms; queries median {statistics.median(asked) * 1000:.1f} "
            f"ms, max {asked[-1] * 1000:.1f} ms, {sum(t > 0.1 for t in asked)} over 100 ms (reply-only "
            f"baseline median {statistics.median(theirs) * 1000:.2f} ms, max {theirs[-1] * 1000:.1f} ms)"
        )

    label = f"{tokens}-token" if hide_every is None else f"harsher {tokens}-token"
    print(
        f"damage round trip in another world while a {label} world's long rulings run on the wire "
        f"(a second client of that world took {pushed} pushed patches), one run"
    )
    print(row("idle", idle))
    for name, seconds, times in during:
        print(row(f"during {name} ({seconds:.2f} s)", times))
    print(
        f"  the sidecar's memory after the sync {synced_mb:.0f} MB, {SETTLE_S:g} s after each of those: "
        + ", ".join(f"{mb:.0f}" for mb in settled)
        + " MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, nargs="*", default=[250, 500, 1000, 2000])
    parser.add_argument("--harsh", type=int, nargs="*", default=[1000], help="every third actor hides")
    parser.add_argument("--wire", type=int, default=1000)
    parser.add_argument("--wire-harsh", type=int, default=1000, help="the wire part on the harsher scene too")
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
        f"  (pack: its ops and inverse packed for undo after the acknowledgement; memory after round "
        f"{LAST} too)"
    )
    print(
        f"  {'tokens':>8} {'round':>8} {'contests':>9} {'contests/s':>11} {'µs each':>8} {'reply':>9} "
        f"{'pack':>7} {'memory':>8} {f'after {LAST}':>8}"
    )
    for label, r in later:
        print(
            f"  {label:>8} {r['later_s']:>7.2f}s {r['later_contests']:>9} "
            f"{r['later_contests'] / r['later_s']:>11.0f} "
            f"{r['later_s'] / r['later_contests'] * 1e6:>8.1f} {r['later_mb']:>6.2f} MB "
            f"{r['pack_s'] * 1000:>4.0f} ms {r['later_rss_mb']:>5.0f} MB {r['last_rss_mb']:>5.0f} MB"
        )
    if args.wire:
        asyncio.run(wire(args.wire))
    if args.wire_harsh:
        asyncio.run(wire(args.wire_harsh, 3))


if __name__ == "__main__":
    main()
