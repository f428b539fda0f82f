"""Round trip of a `damage` action against a reply-only websocket server, interleaved, in one run.

    python -m benchmarks.bench_roundtrip [--rounds 7] [--count 400]

Both servers run in processes of their own; this process is the client. Rounds alternate which
server goes first, so the machine's noise falls on both alike. The ratio of medians is the number
that matters (aim: at most 2x).
"""

from __future__ import annotations

import argparse
import asyncio
import json

import aiohttp

from benchmarks.common import TOKEN, baseline, interleave, sidecar
from vtt_bridge.rules.health import MAX_HEALTH

HITS_PER_HERO = MAX_HEALTH - 1000
"""Requests per hero: every hit lands on a healthy box (the largest track holds 10,000), so each
ruling does the same work however many requests a run makes."""

WARM_UP = 200


def _damage(i: int) -> str:
    target = f"hero{i // HITS_PER_HERO}"
    payload = {"kind": "damage", "target": target, "instances": [{"amount": 1, "grade": "B"}]}
    return json.dumps({"v": 1, "id": f"d{i}", "type": "action", "payload": payload})


async def _setup_world(ws: aiohttp.ClientWebSocketResponse, requests: int) -> None:
    """A world with a hero for every `HITS_PER_HERO` of the run's request indices."""
    hello = {"token": TOKEN, "world": "bench", "client": {"name": "bench"}}
    await ws.send_json({"v": 1, "id": "h", "type": "hello", "payload": hello})
    assert json.loads((await ws.receive()).data)["type"] == "welcome"
    heroes = {
        f"hero{n}": {"name": f"Hero {n}", "health": {"max": MAX_HEALTH}}
        for n in range(requests // HITS_PER_HERO + 1)
    }
    state = {
        "scene": {"id": "s", "round": 1},
        "actors": {**heroes, "foe": {"name": "Foe"}},
        "tokens": {"t1": {"actor": "hero0"}, "t2": {"actor": "foe", "x": 300}},
    }
    await ws.send_json({"v": 1, "id": "s", "type": "sync", "payload": {"state": state}})
    reply = json.loads((await ws.receive()).data)
    assert reply["type"] == "result", reply


async def run(rounds: int, count: int) -> None:
    with sidecar() as bridge_server, baseline() as base_server:
        async with aiohttp.ClientSession() as session:
            bridge = await session.ws_connect(f"ws://127.0.0.1:{bridge_server.port}/ws")
            base = await session.ws_connect(f"ws://127.0.0.1:{base_server.port}/ws")
            # the running index covers both servers, in both placements
            await _setup_world(bridge, requests=4 * (WARM_UP + rounds * count))

            async def on_bridge(i: int) -> None:
                await bridge.send_str(_damage(i))
                reply = json.loads((await bridge.receive()).data)
                assert reply["type"] == "result", reply

            async def on_base(i: int) -> None:
                await base.send_str(_damage(i))
                json.loads((await base.receive()).data)  # a client reads every reply, as above

            results = await interleave(
                on_bridge, on_base, (bridge_server.pid, base_server.pid), rounds, count, warm_up=WARM_UP
            )
            await bridge.close()
            await base.close()
    print("damage action round trip, interleaved, one run")
    for result in results:
        print("\n".join(result.report()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--count", type=int, default=400)
    args = parser.parse_args()
    asyncio.run(run(args.rounds, args.count))


if __name__ == "__main__":
    main()
