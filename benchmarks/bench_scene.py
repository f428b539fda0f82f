"""A generated 500-token scene over the wire: full `sync` time, a `move`'s round trip interleaved
with the same reply-only baseline as the spine's benchmark, then a combat round's time and the
`move` round trip again with the round's stage-three results standing, in one run.

    python -m benchmarks.bench_scene [--tokens 500] [--rounds 5] [--count 100]

Aims (issue 4): a move within 5x the baseline; a 500-token sync under half a second; scenes past
the frame cap (~1,200 tokens) still sync (the sync is then sent in parts: see `--tokens 1200`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import aiohttp

from benchmarks.bench_detection_rules import scene
from benchmarks.common import TOKEN, baseline, interleave, sidecar


def _sync_state(tokens: int) -> dict[str, Any]:
    state = scene(tokens, seed=7).model_dump(mode="json")
    return {key: state[key] for key in ("scene", "settings", "actors", "tokens")}


def _sync_frames(state: dict[str, Any], limit: int) -> list[str]:
    """The sync as frames of at most about `limit` bytes: parts with `more: true`, then the last."""
    parts: list[dict[str, Any]] = [
        {"scene": state["scene"], "settings": state["settings"], "actors": {}, "tokens": {}}
    ]
    used = 0
    for key in ("actors", "tokens"):
        for item_id, item in state[key].items():
            size = len(json.dumps(item)) + len(item_id) + 8
            if used + size > limit:
                parts.append({"actors": {}, "tokens": {}})
                used = 0
            parts[-1][key][item_id] = item
            used += size
    return [
        json.dumps(
            {"v": 1, "id": f"sync{i}", "type": "sync", "payload": {"state": part, "more": i < len(parts) - 1}}
        )
        for i, part in enumerate(parts)
    ]


async def run(tokens: int, rounds: int, count: int) -> None:
    state = _sync_state(tokens)
    token_ids = list(state["tokens"])
    with sidecar() as bridge_server, baseline() as base_server:
        async with aiohttp.ClientSession() as session:
            bridge = await session.ws_connect(f"ws://127.0.0.1:{bridge_server.port}/ws", max_msg_size=0)
            base = await session.ws_connect(f"ws://127.0.0.1:{base_server.port}/ws")
            hello = {"token": TOKEN, "world": "scene", "client": {"name": "bench"}}
            await bridge.send_json({"v": 1, "id": "h", "type": "hello", "payload": hello})
            assert json.loads((await bridge.receive()).data)["type"] == "welcome"
            frames = _sync_frames(state, limit=900_000)
            start = time.perf_counter()
            for frame in frames:
                await bridge.send_str(frame)
                reply = json.loads((await bridge.receive()).data)
                assert reply["type"] == "result", reply["payload"]
            sync_ms = (time.perf_counter() - start) * 1000
            size = sum(len(frame) for frame in frames)

            phase, shift = "m", 0

            def move(i: int) -> str:
                token = token_ids[i % len(token_ids)]
                x, y = (i * 37 + shift) % 4000, (i * 53 + shift) % 4000
                return json.dumps(
                    {
                        "v": 1,
                        "id": f"{phase}{i}",
                        "type": "action",
                        "payload": {"kind": "move", "token": token, "x": x, "y": y},
                    }
                )

            async def on_bridge(i: int) -> None:
                await bridge.send_str(move(i))
                answer = json.loads((await bridge.receive()).data)
                assert answer["type"] == "result", answer

            async def on_base(i: int) -> None:
                await base.send_str(move(i))
                json.loads((await base.receive()).data)  # a client reads every reply, as above

            pids = (bridge_server.pid, base_server.pid)
            results = await interleave(on_bridge, on_base, pids, rounds, count, warm_up=30)
            # A combat round: every eligible pair contests (DET-8), and the results stand.
            next_round = int(state["scene"].get("round", 0)) + 1
            action = {"kind": "round", "round": next_round}
            start = time.perf_counter()
            await bridge.send_str(json.dumps({"v": 1, "id": "round", "type": "action", "payload": action}))
            answer = (await bridge.receive()).data
            round_ms = (time.perf_counter() - start) * 1000
            round_reply = json.loads(answer)
            assert round_reply["type"] == "result", round_reply
            contests = next(
                step["data"]["contests"]
                for step in round_reply["payload"]["log"]
                if "contests" in step["data"]
            )
            # new action ids (a repeated one would get its stored reply), and new places (the
            # same ones would move many tokens to where they already stand)
            phase, shift = "c", 2000
            in_combat = await interleave(on_bridge, on_base, pids, rounds, count, warm_up=30)
            await bridge.close()
            await base.close()
    print(f"{tokens}-token scene ({size / 1e6:.2f} MB of sync in {len(frames)} frames), one run")
    print(f"  sync: {sync_ms:.0f} ms to the result")
    print("  move round trip, interleaved:")
    for result in results:
        print("\n".join(result.report()))
    megabytes = len(answer) / 1e6
    print(f"  round {next_round}: {contests} contests, {round_ms:.0f} ms to the result ({megabytes:.2f} MB)")
    print("  move round trip after that round (its results standing), interleaved:")
    for result in in_combat:
        print("\n".join(result.report()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(run(args.tokens, args.rounds, args.count))


if __name__ == "__main__":
    main()
