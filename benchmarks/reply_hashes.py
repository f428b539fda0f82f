"""The replies of a seeded session, hashed: a check that a change to the shell's structure changes no
byte a client receives.

In process, a real server on loopback (`cli/app.py` `create_app`, a real SQLite file in a temporary
folder, the engine's dice seeded) and two real websocket clients of one world: the acting one sends
the sync (in parts), rounds 1-4, an undo of round 4 and a few damages; the other one only takes the
pushed patches. For each scene (the generated 250- and 1,000-token scenes and the harsher 1,000-token
one where every third actor hides, `bench_detection_rules.scene`) it prints the sha256 of each reply
and of each pushed frame, and one sha256 over all of them. Run it with a fixed hash seed, on two
commits, and compare the output:

    PYTHONHASHSEED=0 .venv/bin/python -m benchmarks.reply_hashes [--seed 1] [--tokens 250 1000] [--harsh 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
from typing import Any

from benchmarks.bench_detection_rules import scene
from benchmarks.bench_scene import _sync_frames
from benchmarks.common import TOKEN, served

DAMAGES = 6
"""Damages after the undo, each on another actor."""


def _frame(msg_id: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"v": 1, "id": msg_id, "type": kind, "payload": payload})


def _digest(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


async def session(tokens: int, hide_every: int | None, seed: int) -> list[tuple[str, str]]:
    """(name, sha256) of each reply to the acting client and of each frame pushed to the other."""
    state = scene(tokens, seed=seed, hide_every=hide_every).model_dump(mode="json")
    state = {key: state[key] for key in ("scene", "settings", "actors", "tokens")}
    actor_ids = list(state["actors"])
    found: list[tuple[str, str]] = []
    async with served(seed=seed, heartbeat=60.0) as (http, url):
        acting = await http.ws_connect(url, max_msg_size=0)
        watcher = await http.ws_connect(url, max_msg_size=0)
        for ws in (acting, watcher):
            hello = {"token": TOKEN, "world": "hashed", "client": {"name": "hashes"}}
            await ws.send_str(_frame("h", "hello", hello))
            assert json.loads((await ws.receive()).data)["type"] == "welcome"

        async def ask(name: str, frame: str) -> None:
            await acting.send_str(frame)
            reply = (await acting.receive()).data
            assert json.loads(reply)["type"] == "result", reply[:400]
            found.append((name, _digest(reply)))

        async def pushed(name: str) -> None:
            found.append((f"pushed after {name}", _digest((await watcher.receive()).data)))

        for number, frame in enumerate(_sync_frames(state, limit=900_000)):
            await ask(f"sync part {number}", frame)
        await pushed("sync")
        steps: list[tuple[str, dict[str, Any]]] = [
            *((f"round {n}", {"kind": "round", "round": n}) for n in range(1, 5)),
            ("undo of round 4", {"kind": "undo", "action": "round 4"}),
            *(
                (
                    f"damage {n}",
                    {
                        "kind": "damage",
                        "target": actor_ids[n * 7 % len(actor_ids)],
                        "instances": [{"amount": 2 + n, "grade": "BLA"[n % 3]}],
                    },
                )
                for n in range(DAMAGES)
            ),
        ]
        for name, payload in steps:
            await ask(name, _frame(name, "action", payload))
            await pushed(name)
        await acting.close()
        await watcher.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="the scene's and the engine's dice seed")
    parser.add_argument("--tokens", type=int, nargs="*", default=[250, 1000])
    parser.add_argument("--harsh", type=int, nargs="*", default=[1000], help="every third actor hides")
    args = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":
        sys.exit("run with PYTHONHASHSEED=0")
    runs = [(tokens, None) for tokens in args.tokens] + [(tokens, 3) for tokens in args.harsh]
    everything = hashlib.sha256()
    for tokens, hide_every in runs:
        label = f"{tokens}-token" if hide_every is None else f"harsher {tokens}-token"
        found = asyncio.run(session(tokens, hide_every, args.seed))
        each = hashlib.sha256()
        for name, digest in found:
            print(f"{label} {name}: {digest}")
            each.update(digest.encode())
        everything.update(each.hexdigest().encode())
        print(f"{label} all {len(found)} frames: {each.hexdigest()}")
    print(f"all scenes: {everything.hexdigest()}")


if __name__ == "__main__":
    main()
