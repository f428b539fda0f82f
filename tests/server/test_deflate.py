"""permessage-deflate (RFC 7692) for a client that asks: a long message goes compressed (RSV1 set,
one frame), a short one as it is; the handshake demands `client_no_context_takeover`, so the frame
parser put in after `welcome` inflates what the client compresses."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import zlib
from typing import Any

import aiohttp
import pytest

from tests.conftest import TOKEN, client_frame, welcomed, world_state
from tests.server.test_fragments import wordy_state
from vtt_bridge.server.bridge import BRIDGE
from vtt_bridge.server.outbox import DEFLATE_FROM, Outbox, message_size

TAIL = b"\x00\x00\xff\xff"
"""What RFC 7692 section 7.2.1 has a sender strip from each compressed message (and a reader put back)."""


class DeflatePeer:
    """A websocket opened by hand that offers permessage-deflate: it reads each frame's RSV1 and
    inflates the compressed ones with one window for the whole connection (the server keeps its
    context, section 7.2.2), as a browser does."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, agreed: str) -> None:
        self.reader, self.writer, self.agreed = reader, writer, agreed
        self.inflate = zlib.decompressobj(-15)

    @classmethod
    async def open(cls, port: int) -> DeflatePeer:
        sock = socket.create_connection(("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 24)
        writer.write(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n".encode()
        )
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)).decode()
        assert " 101 " in head.split("\r\n")[0], head
        agreed = next(
            (
                line.split(":", 1)[1].strip()
                for line in head.split("\r\n")
                if line.lower().startswith("sec-websocket-extensions:")
            ),
            "",
        )
        return cls(reader, writer, agreed)

    async def send(self, payload: Any, compress: bool) -> None:
        data = json.dumps(payload).encode()
        if not compress:
            self.writer.write(client_frame(data))
        else:  # each message on its own window: the server asked for client_no_context_takeover
            deflate = zlib.compressobj(1, zlib.DEFLATED, -15)
            body = (deflate.compress(data) + deflate.flush(zlib.Z_SYNC_FLUSH)).removesuffix(TAIL)
            frame = bytearray(client_frame(body))
            frame[0] |= 0x40  # RSV1: this message is compressed
            self.writer.write(bytes(frame))
        await self.writer.drain()

    async def message(self) -> tuple[bool, dict[str, Any]]:
        """The next message (one frame: the server does not fragment on such a connection): whether
        it came compressed, and its JSON."""
        first, second = await asyncio.wait_for(self.reader.readexactly(2), 10)
        assert first & 0x80 and first & 0x0F == 0x1, "one text frame, FIN set"
        assert first & 0x30 == 0 and second & 0x80 == 0
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
        data = await asyncio.wait_for(self.reader.readexactly(length), 10)
        compressed = bool(first & 0x40)
        if compressed:
            data = self.inflate.decompress(data + TAIL)
        message: dict[str, Any] = json.loads(data)
        return compressed, message


async def test_a_client_that_asks_gets_long_messages_compressed_and_short_ones_as_they_are(
    start: Any,
) -> None:
    server = await start(max_frame=8 << 20)
    peer = await DeflatePeer.open(server.port)
    assert peer.agreed.startswith("permessage-deflate") and "client_no_context_takeover" in peer.agreed
    hello = {"token": TOKEN, "world": "w1", "client": {"name": "deflate"}}
    await peer.send({"v": 1, "id": "h", "type": "hello", "payload": hello}, compress=True)
    compressed, welcome = await peer.message()
    assert welcome["type"] == "welcome" and not compressed
    # after welcome (a new frame parser): compressed and plain messages alike
    state = wordy_state(300)
    await peer.send({"v": 1, "id": "s", "type": "sync", "payload": {"state": state}}, compress=True)
    compressed, synced = await peer.message()
    assert synced["type"] == "result" and synced["re"] == "s"
    assert compressed, "a long result goes compressed"
    hit = {"kind": "damage", "target": "actor3", "instances": [{"amount": 1, "grade": "B"}]}
    for i, deflated in enumerate((False, True, True)):
        await peer.send({"v": 1, "id": f"d{i}", "type": "action", "payload": hit}, compress=deflated)
        compressed, answer = await peer.message()
        assert answer["type"] == "result" and answer["re"] == f"d{i}"
        assert not compressed, "a short answer goes as it is"
    await peer.send({"v": 1, "id": "q", "type": "query", "payload": {"kind": "state"}}, compress=False)
    compressed, queried = await peer.message()
    assert compressed and len(json.dumps(queried)) > DEFLATE_FROM
    assert queried["payload"]["state"]["actors"].keys() == state["actors"].keys()
    peer.writer.close()


async def test_an_aiohttp_client_with_compression_is_served_as_one_without(start: Any) -> None:
    """aiohttp's own client, offering permessage-deflate: the same answers as a client without it."""
    server = await start(seed=3)
    answers: list[list[Any]] = []
    for compress in (15, 0):
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(f"http://127.0.0.1:{server.port}/ws", compress=compress)
            assert bool(ws.compress) == bool(compress)
            got: list[Any] = []
            world = f"w{compress}"
            for msg_id, type_, payload in (
                ("h", "hello", {"token": TOKEN, "world": world, "client": {"name": "c"}}),
                ("s", "sync", {"state": world_state(40)}),
                (
                    "d",
                    "action",
                    {"kind": "damage", "target": "actor1", "instances": [{"amount": 2, "grade": "L"}]},
                ),
                ("q", "query", {"kind": "state"}),
            ):
                await ws.send_str(json.dumps({"v": 1, "id": msg_id, "type": type_, "payload": payload}))
                reply = json.loads((await ws.receive(timeout=10)).data)
                got.append((reply["type"], reply["payload"].get("patch"), reply["payload"].get("state")))
            answers.append(got)
            await ws.close()
    assert answers[0][1:] == answers[1][1:]
    assert answers[0][0][0] == "welcome"


async def test_a_long_compressed_answer_is_written_before_the_world_s_other_clients_get_its_patch(
    start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The asker and a world-mate negotiate permessage-deflate (aiohttp's client, `compress=15`), a
    third client does not: a long answer, compressed in one frame (no fragments), is written whole to
    the asker before the ruling's patch is written to either other client (`Outbox.answers_first`),
    whose writes would otherwise start while aiohttp deflates the answer in a worker thread."""
    events: list[tuple[str, str]] = []
    real = Outbox._sent
    names: dict[int, str] = {}

    def traced(self: Outbox, message: Any) -> Any:
        write = real(self, message)
        if message_size(message) < DEFLATE_FROM:
            return write
        name = names.get(id(self), "?")

        async def recorded() -> None:
            events.append((name, "start"))
            await write
            events.append((name, "end"))

        return recorded()

    monkeypatch.setattr(Outbox, "_sent", traced)
    server = await start(max_frame=8 << 20)
    peers = {}
    for name, compress in (("asker", 15), ("deflated mate", 15), ("plain mate", 0)):
        before = set(server.app[BRIDGE].clients.get("w1", ()))
        peers[name] = await welcomed(server, compress=compress)
        assert bool(peers[name].ws.compress) == bool(compress)
        [newest] = server.app[BRIDGE].clients["w1"] - before
        assert newest.outbox is not None and newest.outbox.deflate == bool(compress)
        names[id(newest.outbox)] = name
    answer = await peers["asker"].request("sync", {"state": wordy_state(300)})
    assert answer["type"] == "result"
    for name in ("deflated mate", "plain mate"):
        pushed = await asyncio.wait_for(peers[name].receive(), 30)  # a liveness bound only
        assert pushed["type"] == "patch" and pushed["payload"]["patch"] == answer["payload"]["patch"]
    assert events[:2] == [("asker", "start"), ("asker", "end")], events
    assert sorted(events[2:]) == sorted(
        [("deflated mate", "start"), ("deflated mate", "end"), ("plain mate", "start"), ("plain mate", "end")]
    )
