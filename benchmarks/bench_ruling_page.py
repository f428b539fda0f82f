"""What a page of a ruling's log costs (`query {kind: "ruling"}`, `Store.ruling_page`), against
reading the whole: rounds 1-3 of the harsher 1,000-token scene (every third actor hides) ruled in
this process as the server's worker rules them, each written to a real SQLite store as the server
writes it (store layout 10: the reply cut, the log and rolls in parts), and to a second store as
layout 9 kept them (the whole reply in the row, no parts: a page of it reads the whole reply, as
every page was read before layout 10).

For each round and for a page of 500 at its start, middle and end: the process's CPU seconds (best of
`--repeat`) and the bytes read by the first of them, in a store just opened (`rchar` of
/proc/self/io: every read of SQLite's, of the file or of its temporary files, served from the page
cache or not); and for each round what each store keeps, the CPU seconds of packing it and the wall
seconds of its write.
A loaded machine slows both alike: compare the two columns, not the seconds with other runs.

    python -m benchmarks.bench_ruling_page [--tokens 1000] [--rounds 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.bench_detection_rules import scene
from vtt_bridge.document.models import settled
from vtt_bridge.engine.history import stored_ops
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.server.replies import json_default
from vtt_bridge.server.workers import ruled_in_worker
from vtt_bridge.store.log import Store
from vtt_bridge.store.pages import packed_parts
from vtt_bridge.store.rows import pack, snapshot_of

PAGE = 500
"""Steps (and rolls) a page holds: what the module asks for a click."""


def _rchar() -> int:
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


def _write(stores: tuple[Store, Store], world: World, pending: Pending, dumped: Any) -> dict[str, float]:
    """Write one ruling to both stores, as `server.commit` does (the reply cut, its log and rolls in
    parts) and as layout 9 kept it (the whole reply, no parts), then commit it; the CPU seconds of
    packing and the wall seconds of each write, and the bytes each stored."""
    kept = None if pending.entry is None else stored_ops(pending.entry)
    start = time.process_time()
    reply = pack(dumped.data)
    parts = packed_parts(dumped.parts) if dumped.parts and pending.action_id is not None else []
    pack_s = time.process_time() - start
    whole = orjson.dumps(pending.result, default=json_default)
    start = time.process_time()
    whole_reply = pack(whole)
    whole_pack_s = time.process_time() - start
    snapshot = snapshot_of(settled(pending.state)) if pending.snapshot else None
    inverse = None if kept is None else pack(kept[1].data())
    kind = None if pending.entry is None else pending.entry.kind
    target = pending.message_id if pending.entry is None or pending.entry.action_id is None else None
    written: list[float] = []
    for store, stored, stored_parts in ((stores[0], reply, parts), (stores[1], whole_reply, [])):
        start = time.perf_counter()
        store.append(
            world.id,
            pending.result["rev"],
            pending.action_id,
            stored,
            snapshot,
            pending.digest,
            kind=kind,
            target=target,
            inverse=inverse,
            parts=stored_parts,
        )
        written.append(time.perf_counter() - start)
    world.commit(pending, dumped.data, kept)
    return {
        "pack_s": pack_s,
        "whole_pack_s": whole_pack_s,
        "append_s": written[0],
        "whole_append_s": written[1],
        "reply_mb": len(reply) / 1e6,
        "parts_mb": sum(len(part.data) for part in parts) / 1e6,
        "whole_mb": len(whole_reply) / 1e6,
    }


def _page_cost(path: Path, action: str, offset: int, repeat: int) -> tuple[float, int, int]:
    """The best CPU seconds of `repeat` pages at `offset`, the bytes read from the file for one, and
    the steps the ruling has."""
    store = Store(path)
    try:
        best = float("inf")
        read = 0
        steps = 0
        for turn in range(repeat):
            before, start = _rchar(), time.process_time()
            page = store.ruling_page("bench", action, offset, PAGE)
            best = min(best, time.process_time() - start)
            if turn == 0:  # the store just opened: nothing of the ruling in SQLite's cache yet
                read = _rchar() - before
            assert page is not None
            steps = page.steps
    finally:
        store.close()
    return best, read, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    state = scene(args.tokens, seed=7, hide_every=3).model_dump(mode="json")
    folder = Path(tempfile.mkdtemp(prefix="bench-page-"))
    try:
        path, whole = folder / "paged.sqlite3", folder / "whole.sqlite3"
        stores = (Store(path), Store(whole))
        world = World("bench")
        sync = world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}})
        _, dumped = ruled_in_worker(lambda: sync)
        _write(stores, world, sync, dumped)
        written: dict[str, dict[str, float]] = {}
        for number in range(1, args.rounds + 1):
            action = f"round-{number}"
            pending, dumped = ruled_in_worker(
                world.prepare_action, action, {"kind": "round", "round": number}, SeededRoller(number)
            )
            assert isinstance(pending, Pending) and dumped is not None
            written[action] = _write(stores, world, pending, dumped)
            del pending, dumped
        for store in stores:
            store.close()
        print(f"harsher {args.tokens}-token scene, rounds 1-{args.rounds}; a page of {PAGE} steps and rolls")
        print("| round | steps | page at | CPU: page / whole | bytes read: page / whole |")
        print("|---|---|---|---|---|")
        for action in written:
            steps = _page_cost(path, action, 0, 1)[2]
            for offset in (0, steps // 2, max(0, steps - PAGE)):
                page_s, page_read, _ = _page_cost(path, action, offset, args.repeat)
                whole_s, whole_read, _ = _page_cost(whole, action, offset, args.repeat)
                print(
                    f"| {action} | {steps:,} | {offset:,} | {page_s * 1e3:.1f} / {whole_s * 1e3:.0f} ms | "
                    f"{page_read / 1e3:,.0f} kB / {whole_read / 1e6:.1f} MB |"
                )
        print("| round | stored: reply + parts / whole | packing (CPU) | the store's write (wall) |")
        print("|---|---|---|---|")
        for action, w in written.items():
            print(
                f"| {action} | {w['reply_mb']:.2f} + {w['parts_mb']:.2f} / {w['whole_mb']:.2f} MB | "
                f"{w['pack_s'] * 1e3:.0f} / {w['whole_pack_s'] * 1e3:.0f} ms | "
                f"{w['append_s'] * 1e3:.1f} / {w['whole_append_s'] * 1e3:.1f} ms |"
            )
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
