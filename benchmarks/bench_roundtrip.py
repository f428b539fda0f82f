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
import statistics

import aiohttp

from benchmarks.common import TOKEN, baseline, pin_client, sidecar, summary, time_round_trips


def _damage(i: int) -> str:
    payload = {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "B"}]}
    return json.dumps({"v": 1, "id": f"d{i}", "type": "action", "payload": payload})


async def _setup_world(ws: aiohttp.ClientWebSocketResponse, boxes: int) -> None:
    hello = {"token": TOKEN, "world": "bench", "client": {"name": "bench"}}
    await ws.send_json({"v": 1, "id": "h", "type": "hello", "payload": hello})
    assert json.loads((await ws.receive()).data)["type"] == "welcome"
    state = {
        "scene": {"id": "s", "round": 1},
        "actors": {"hero": {"name": "Hero", "health": {"max": boxes}}, "foe": {"name": "Foe"}},
        "tokens": {"t1": {"actor": "hero"}, "t2": {"actor": "foe", "x": 300}},
    }
    await ws.send_json({"v": 1, "id": "s", "type": "sync", "payload": {"state": state}})
    reply = json.loads((await ws.receive()).data)
    assert reply["type"] == "result", reply


async def run(rounds: int, count: int) -> None:
    placement = pin_client()
    with sidecar() as bridge_port, baseline() as base_port:
        async with aiohttp.ClientSession() as session:
            bridge = await session.ws_connect(f"ws://127.0.0.1:{bridge_port}/ws")
            base = await session.ws_connect(f"ws://127.0.0.1:{base_port}/ws")
            await _setup_world(bridge, boxes=rounds * count + 1000)
            offset = 0

            async def on_bridge(i: int) -> None:
                await bridge.send_str(_damage(offset + i))
                reply = json.loads((await bridge.receive()).data)
                assert reply["type"] == "result", reply

            async def on_base(i: int) -> None:
                await base.send_str(_damage(offset + i))
                json.loads((await base.receive()).data)  # a client reads every reply, as above

            await time_round_trips(on_bridge, 200)  # warm-up
            await time_round_trips(on_base, 200)
            offset = 200
            bridge_times: list[float] = []
            base_times: list[float] = []
            ratios = []
            for r in range(rounds):
                pair = [(on_bridge, bridge_times), (on_base, base_times)]
                if r % 2:
                    pair.reverse()
                medians = {}
                for call, sink in pair:
                    times = await time_round_trips(call, count)
                    sink.extend(times)
                    medians[call] = statistics.median(times)
                offset += count
                ratios.append(medians[on_bridge] / medians[on_base])
            await bridge.close()
            await base.close()
    print("damage action round trip, interleaved, one run")
    print(f"  {placement}")
    print(f"  sidecar    {summary(bridge_times)}")
    print(f"  reply-only {summary(base_times)}")
    ratio = statistics.median(bridge_times) / statistics.median(base_times)
    print(f"  ratio of medians: {ratio:.2f}x   per-round ratios: {' '.join(f'{x:.2f}' for x in ratios)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--count", type=int, default=400)
    args = parser.parse_args()
    asyncio.run(run(args.rounds, args.count))


if __name__ == "__main__":
    main()
