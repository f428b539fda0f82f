"""The lean wire (issue 33): a combat round over the wire at 50, 200, 1,000 and 2,000 tokens and on
the harsher 1,000-token scene, each in a fresh sidecar, by a client without and one with
permessage-deflate (RFC 7692, as browsers ask for it): the time from sending the round to its reply,
the reply's bytes as the client reads them and as they cross the socket, the sidecar's CPU until the
reply is in, the client's to parse it, and the sidecar's memory after the last round.

The bytes on the socket are counted by a proxy in this process between the client and the sidecar
(it copies bytes, nothing else; the times are taken without it). Run it on another tree's package
(`PYTHONPATH=that/tree`) for the "before" rows: the sidecar is `python -m vtt_bridge`.

    python -m benchmarks.bench_lean_wire [--tokens 50 200 1000 2000] [--harsh 1000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time
from typing import Any

import aiohttp

from benchmarks.bench_big_scenes import _rss_mb
from benchmarks.bench_detection_rules import scene
from benchmarks.bench_scene import _sync_frames
from benchmarks.common import TOKEN, cpu_seconds, sidecar

SETTLE_S = 3.0
"""Seconds after the last round before the sidecar's memory is read (its packing and hand-back done)."""


class Counted:
    """A TCP proxy on loopback that counts the bytes the server sends through it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.down = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._pipe, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)

        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter, counted: bool) -> None:
            while data := await src.read(1 << 20):
                if counted:
                    self.down += len(data)
                dst.write(data)
                await dst.drain()
            dst.close()

        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await asyncio.gather(copy(reader, up_writer, False), copy(up_reader, writer, True))

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


async def _one(
    tokens: int, hide_every: int | None, compress: bool, rounds: int, proxied: bool
) -> list[dict[str, Any]]:
    state = scene(tokens, seed=7, hide_every=hide_every).model_dump(mode="json")
    state = {key: state[key] for key in ("scene", "settings", "actors", "tokens")}
    rows: list[dict[str, Any]] = []
    with sidecar("--seed", "7") as server:  # the same dice each run: the same bytes
        proxy = Counted(server.port)
        port = await proxy.start() if proxied else server.port
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(
                f"ws://127.0.0.1:{port}/ws", max_msg_size=0, compress=15 if compress else 0
            )
            hello = {"token": TOKEN, "world": "big", "client": {"name": "bench"}}
            await ws.send_str(json.dumps({"v": 1, "id": "h", "type": "hello", "payload": hello}))
            assert json.loads((await ws.receive()).data)["type"] == "welcome"
            for frame in _sync_frames(state, limit=900_000):
                await ws.send_str(frame)
                assert json.loads((await ws.receive()).data)["type"] == "result"
            for number in range(1, rounds + 1):
                frame = json.dumps(
                    {
                        "v": 1,
                        "id": f"r{number}",
                        "type": "action",
                        "payload": {"kind": "round", "round": number},
                    }
                )
                with open("/proc/loadavg") as load:
                    loadavg = float(load.read().split()[0])
                down, cpu = proxy.down, cpu_seconds(server.pid) or 0.0
                start = time.perf_counter()
                await ws.send_str(frame)
                message = await ws.receive()
                seconds = time.perf_counter() - start
                used = (cpu_seconds(server.pid) or 0.0) - cpu
                start = time.process_time()
                reply = json.loads(message.data)
                parse = time.process_time() - start
                assert reply["type"] == "result", reply["payload"]
                payload = reply["payload"]
                summary = payload.get("summary") or {}
                rows.append(
                    {
                        "round": number,
                        "seconds": seconds,
                        "cpu": used,
                        "parse": parse,
                        "bytes": len(message.data.encode()),
                        "socket": proxy.down - down if proxied else None,
                        "steps": summary.get("steps", len(payload["log"])),
                        "rolls": summary.get("rolls", len(payload["rolls"])),
                        "load": loadavg,
                    }
                )
            await asyncio.sleep(SETTLE_S)
            rows[-1]["memory"] = _rss_mb(server.pid)
            await ws.close()
        proxy.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, nargs="*", default=[50, 200, 1000, 2000])
    parser.add_argument("--harsh", type=int, nargs="*", default=[1000], help="every third actor hides")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("a combat round over the wire, each scene in a fresh sidecar (one run; load average beside each)")
    print(
        f"  {'scene':>7} {'deflate':>7} {'round':>5} {'time':>7} {'sidecar CPU':>11} {'reply':>10} "
        f"{'on socket':>10} {'parse':>7} {'steps':>7} {'rolls':>7} {'load':>5} {'memory':>7}"
    )
    runs = [(tokens, None) for tokens in args.tokens] + [(tokens, 3) for tokens in args.harsh]
    for tokens, hide_every in runs:
        label = f"{tokens}" if hide_every is None else f"{tokens}h{hide_every}"
        for compress in (False, True):
            timed = asyncio.run(_one(tokens, hide_every, compress, args.rounds, proxied=False))
            counted = asyncio.run(_one(tokens, hide_every, compress, 1, proxied=True))
            for row in timed:
                socket = counted[0]["socket"] if row["round"] == 1 else None
                memory = row.get("memory")
                deflate = "yes" if compress else "no"
                print(
                    f"  {label:>7} {deflate:>7} {row['round']:>5} {row['seconds']:>6.2f}s "
                    f"{row['cpu']:>10.2f}s {row['bytes'] / 1e6:>7.2f} MB "
                    + (f"{socket / 1e6:>7.2f} MB " if socket is not None else f"{'':>10} ")
                    + f"{row['parse'] * 1000:>5.0f}ms {row['steps']:>7} {row['rolls']:>7} "
                    + f"{row['load']:>5.1f} "
                    + (f"{memory:>4.0f} MB" if memory is not None else "")
                )


if __name__ == "__main__":
    main()
