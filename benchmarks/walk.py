"""The walk of one ruling through the package: which files of `vtt_bridge/` a `damage` and a `round`
run through, how often the way moves from one file to another, and how often it climbs back up a
layer (docs/architecture.md, "How many files a ruling crosses").

Counted, not estimated: a real server on loopback (`cli/app.py` `create_app`, SQLite in a temporary
folder), a real websocket client in the same process, a small world (4 actors, 4 tokens). A
`damage` and a `round` are ruled twice first (lazy imports done, caches warm); the third of each is
walked. A profiler set in every thread (`sys.setprofile`, and `threading.setprofile` before any
thread of the server starts) records each call and return of Python code from the moment the
ruling's frame is sent until 0.3 s after its reply arrived (the commit's tail: packing, the pushed
patch). Counted from those events:

- files: the distinct files under `vtt_bridge/` that ran;
- moves: a call from code in one file of the package into another, or a return from one into
  another (calls from the event loop, aiohttp or the standard library into the package and back are
  not moves between its files);
- up: the moves whose target is in a higher layer than their source (the order of
  `tests/test_layers.py`: errors, rules, document, actions, engine, store, server, web, cli);
- endpoint entered: the moves into `server/endpoint.py`.

Run: `.venv/bin/python -m benchmarks.walk [--files]` (`--files`: list each file with its count of
entries, and the moves between layers). It walks the package beside it; for an older commit, put
this file into that commit's `benchmarks/` (it also knows the flat layout before the folders).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import aiohttp
from aiohttp.test_utils import TestServer

PACKAGE = Path(__file__).resolve().parent.parent / "vtt_bridge"
TOKEN = "walk-token-0123456789"
LAYERS = ("errors", "rules", "document", "actions", "engine", "store", "server", "web", "cli")
"""Bottom to top, as `tests/test_layers.py` orders them (the package root's `__init__` counts as
the errors' floor: both import nothing of the package)."""

TAIL_S = 0.3
"""Seconds after the reply arrived that the walk still counts (the commit's tail)."""

ACTORS = 4


FLAT = {
    **dict.fromkeys(("world", "history", "patch", "protocol", "refusals", "codec", "roller"), "engine"),
    "store": "store",
    **dict.fromkeys(
        ("server", "bridge", "sendqueue", "limits", "hostcheck", "framecap", "heap", "tokenfile", "hello"),
        "server",
    ),
    **dict.fromkeys(("pages", "module_files", "step_words"), "web"),
    **dict.fromkeys(("cli", "startup", "app"), "cli"),
}
"""The layout before the folders (its modules flat at the package root): the folder each module
moved to, so an older commit's walk counts its layers as today's does."""


def layer(path: str) -> int:
    """The layer of a file under `vtt_bridge/` (its folder; a flat module's later folder, `FLAT`; the
    root's other modules at the bottom)."""
    parts = Path(path).relative_to(PACKAGE).parts
    if len(parts) > 1:
        return LAYERS.index(parts[0])
    return LAYERS.index(FLAT.get(Path(parts[0]).stem, "errors"))


def endpoint_file() -> str:
    """The transport's module: `server/endpoint.py`, or `server.py` in the flat layout."""
    folders = PACKAGE / "server" / "endpoint.py"
    return str(folders if folders.exists() else PACKAGE / "server.py")


@dataclass
class Walk:
    """What the profiler saw while `on`."""

    on: bool = False
    files: Counter[str] = field(default_factory=Counter)
    moves: Counter[tuple[str, str]] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if not self.on or event not in ("call", "return"):
            return
        here = frame.f_code.co_filename
        caller = frame.f_back
        there = caller.f_code.co_filename if caller is not None else ""
        ours, theirs = here.startswith(PREFIX), there.startswith(PREFIX)
        if not ours:
            return
        with self.lock:
            if event == "call":
                self.files[here] += 0  # ran, whoever called it
                if theirs and there != here:
                    self.moves[(there, here)] += 1
                    self.files[here] += 1
            elif theirs and there != here:
                self.moves[(here, there)] += 1
                self.files[there] += 1


PREFIX = str(PACKAGE) + "/"


def _frame(msg_id: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"v": 1, "id": msg_id, "type": kind, "payload": payload})


STATE = {
    "scene": {"id": "walk", "round": 1},
    "actors": {f"actor{i}": {"name": f"Actor {i}", "health": {"max": 40}} for i in range(ACTORS)},
    "tokens": {f"token{i}": {"actor": f"actor{i}", "x": 100 * i, "y": 0} for i in range(ACTORS)},
}

RULINGS: dict[str, list[dict[str, Any]]] = {
    "damage": [
        {"kind": "damage", "target": f"actor{n}", "instances": [{"amount": 2, "grade": "L"}]}
        for n in range(3)
    ],
    "round": [{"kind": "round", "round": n} for n in range(1, 4)],
}
"""Each kind's three rulings: two to warm up, the third walked."""


async def walks() -> dict[str, Walk]:
    try:
        from vtt_bridge.cli.app import create_app
        from vtt_bridge.server.bridge import Config
    except ImportError:  # the flat layout, for the walk before the folders
        from vtt_bridge.app import create_app  # type: ignore[import-not-found,no-redef]
        from vtt_bridge.bridge import Config  # type: ignore[import-not-found,no-redef]

    found = {kind: Walk() for kind in RULINGS}
    current: list[Walk] = [Walk()]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        current[0].profile(frame, event, arg)

    threading.setprofile(profile)
    with tempfile.TemporaryDirectory() as folder:
        config = Config(data_dir=Path(folder), token=TOKEN, heartbeat=60.0, seed=1)
        server = TestServer(create_app(config), host="127.0.0.1")
        await server.start_server()
        try:
            async with aiohttp.ClientSession() as http:
                url = f"ws://127.0.0.1:{server.port}/ws"
                acting = await http.ws_connect(url)
                watcher = await http.ws_connect(url)
                for ws in (acting, watcher):
                    hello = {"token": TOKEN, "world": "walk", "client": {"name": "walk"}}
                    await ws.send_str(_frame("h", "hello", hello))
                    assert json.loads((await ws.receive()).data)["type"] == "welcome"
                await acting.send_str(_frame("s", "sync", {"state": STATE}))
                assert json.loads((await acting.receive()).data)["type"] == "result"
                await watcher.receive()
                for number in range(3):
                    for kind, payloads in RULINGS.items():
                        if number == 2:
                            current[0] = found[kind]
                            sys.setprofile(profile)
                            current[0].on = True
                        await acting.send_str(_frame(f"{kind}{number}", "action", payloads[number]))
                        reply = json.loads((await acting.receive()).data)
                        assert reply["type"] == "result", reply
                        await watcher.receive()
                        await asyncio.sleep(TAIL_S)
                        current[0].on = False
                        sys.setprofile(None)
                await acting.close()
                await watcher.close()
        finally:
            threading.setprofile(None)
            await server.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="each file's entries, the moves between layers")
    args = parser.parse_args()
    found = asyncio.run(walks())
    endpoint = endpoint_file()
    print("| ruling | files | moves between files | moves up a layer | server's endpoint entered |")
    print("| --- | --- | --- | --- | --- |")
    for kind, walk in found.items():
        moves = sum(walk.moves.values())
        up = sum(count for (a, b), count in walk.moves.items() if layer(b) > layer(a))
        entered = sum(count for (_, b), count in walk.moves.items() if b == endpoint)
        print(f"| `{kind}` | {len(walk.files)} | {moves} | {up} | {entered} times |")
    if args.files:
        for kind, walk in found.items():
            print(f"\n{kind}:")
            for path, count in sorted(walk.files.items(), key=lambda item: (layer(item[0]), item[0])):
                print(f"  {Path(path).relative_to(PACKAGE)}: entered {count} times")
            between: Counter[tuple[str, str]] = Counter()
            for (a, b), count in walk.moves.items():
                between[(LAYERS[layer(a)], LAYERS[layer(b)])] += count
            for (a, b), count in sorted(between.items()):
                if a != b:
                    print(f"  {a} -> {b}: {count}")


if __name__ == "__main__":
    main()
