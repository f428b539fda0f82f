"""A long message written as a fragmented websocket message (RFC 6455 section 5.4) from its parts
(`server/outbox.py` `Outbox`): the frames on the wire, read raw, with control frames between fragments; the
very bytes of the unfragmented message in a real aiohttp client; a peer that closes or stops reading
mid-message; the order of messages kept. A raw peer never answers the server's pings, so the tests
not about the heartbeat turn it off: a loaded machine may run one past its interval."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import struct
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import TOKEN, client_frame, welcomed, world_state
from vtt_bridge.server.bridge import BRIDGE, Client
from vtt_bridge.server.outbox import (
    DEFLATE_FROM,
    OPCODE_CONTINUATION,
    OPCODE_TEXT,
    Message,
    Outbox,
    fragments,
    frame_header,
)

OPCODE_CLOSE, OPCODE_PING, OPCODE_PONG = 0x8, 0x9, 0xA
"""RFC 6455 section 5.2's control opcodes."""


# --- the frame header and the cut, against RFC 6455 -------------------------------------------


def test_frame_headers_are_rfc_6455s_examples() -> None:
    """Section 5.7's examples, as text frames: "Hello" in one frame, "Hel" + "lo" fragmented, a
    256-byte and a 64 KiB payload (16- and 64-bit lengths)."""
    assert frame_header(OPCODE_TEXT, True, 5) + b"Hello" == bytes.fromhex("810548656c6c6f")
    assert frame_header(OPCODE_TEXT, False, 3) + b"Hel" == bytes.fromhex("010348656c")
    assert frame_header(OPCODE_CONTINUATION, True, 2) + b"lo" == bytes.fromhex("80026c6f")
    assert frame_header(OPCODE_TEXT, True, 256) == bytes.fromhex("817e0100")
    assert frame_header(OPCODE_TEXT, True, 65536) == bytes.fromhex("817f0000000000010000")
    assert frame_header(OPCODE_CONTINUATION, False, 125) == bytes.fromhex("007d")
    assert frame_header(OPCODE_CONTINUATION, False, 126) == bytes.fromhex("007e007e")


texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=6), st.integers(1, 40))
def test_fragments_are_the_message_cut_between_characters(texts: list[str], size: int) -> None:
    """Joined, the fragments are the parts joined; none is empty or longer than `size` (at least
    4); each is UTF-8 on its own (never cut inside a character); they are views (no copies)."""
    parts: list[bytes | memoryview] = [text.encode() for text in texts]
    parts[1::2] = [memoryview(part) for part in parts[1::2]]
    cut = list(fragments(parts, size))
    message = b"".join(bytes(part) for part in parts)
    assert b"".join(b"".join(piece) for piece in cut) == message
    for piece in cut:
        length = sum(len(view) for view in piece)
        assert 0 < length <= max(size, 4)
        b"".join(piece).decode()
        assert all(isinstance(view, memoryview) for view in piece)


# --- a raw websocket: the frames as they come -------------------------------------------------


@dataclass
class Frame:
    fin: bool
    opcode: int
    data: bytes


class RawPeer:
    """A websocket opened by hand (receive buffer `rcvbuf` bytes): sends masked frames, reads the
    server's frames one by one, unjoined."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, rcvbuf: int = 1 << 16) -> RawPeer:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.connect(("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 24)
        writer.write(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert b" 101 " in head.split(b"\r\n")[0], head
        return cls(reader, writer)

    async def send(self, data: bytes, opcode: int = OPCODE_TEXT) -> None:
        self.writer.write(client_frame(data, opcode))
        await self.writer.drain()

    async def request(self, type_: str, payload: Any, msg_id: str) -> None:
        await self.send(json.dumps({"v": 1, "id": msg_id, "type": type_, "payload": payload}).encode())

    async def frame(self) -> Frame:
        """The next frame (RFC 6455 section 5.2), checked to be unmasked with no RSV bit."""
        first, second = await asyncio.wait_for(self.reader.readexactly(2), 10)
        assert first & 0x70 == 0 and second & 0x80 == 0, "no RSV bit, and a server does not mask"
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
        return Frame(
            bool(first & 0x80), first & 0x0F, await asyncio.wait_for(self.reader.readexactly(length), 10)
        )

    async def message(self) -> tuple[bytes, list[Frame]]:
        """The next data message, joined, and every frame it came in, with the control frames that
        came between them."""
        frames = [await self.frame()]
        while not (frames[-1].fin and frames[-1].opcode < 0x8):
            frames.append(await self.frame())
        return b"".join(f.data for f in frames if f.opcode < 0x8), frames

    def freeze(self) -> None:
        """Read nothing more from the socket (its stream would otherwise buffer megabytes)."""
        transport = self.writer.transport
        assert isinstance(transport, asyncio.ReadTransport)
        transport.pause_reading()

    def close(self) -> None:
        self.writer.close()


async def raw_welcomed(server: Any, world: str = "w1", rcvbuf: int = 1 << 16) -> RawPeer:
    """A `RawPeer` welcomed into `world`, the server's socket to it sending `rcvbuf` bytes at most
    ahead of what it read (so that a long message cannot vanish into the kernel's buffers)."""
    peer = await RawPeer.open(server.port, rcvbuf)
    await peer.request("hello", {"token": TOKEN, "world": world, "client": {"name": "raw"}}, "h")
    data, _ = await peer.message()
    assert json.loads(data)["type"] == "welcome"
    ours = raw_client(server, world)
    assert ours.transport is not None
    ours.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, rcvbuf)
    return peer


def raw_client(server: Any, world: str = "w1") -> Client:
    """The server's side of the world's `RawPeer` (its client is named "raw")."""
    client: Client = next(c for c in server.app[BRIDGE].clients[world] if c.name == "raw")
    return client


async def until_let_go(server: Any, client: Client, world: str = "w1") -> None:
    """Wait until `client` has left the world and its socket is closed; fail when either is not so
    (after 30 s: a bound against a hang only)."""
    assert client.transport is not None
    sock = client.transport.get_extra_info("socket")
    for _ in range(1500):  # (30 s: a bound against a hang only)
        if client not in server.app[BRIDGE].clients[world] and sock.fileno() == -1:
            break
        await asyncio.sleep(0.02)
    assert client not in server.app[BRIDGE].clients[world], "the frozen reader is still in the world"
    assert sock.fileno() == -1, "the frozen reader's socket is still open"


async def until_alone(server: Any, world: str = "w1") -> None:
    """Wait until the world has one client left; fail when it has more (after 30 s: a bound against
    a hang only)."""
    clients = server.app[BRIDGE].clients[world]
    for _ in range(1500):  # (30 s: a bound against a hang only)
        if len(clients) == 1:
            return
        await asyncio.sleep(0.02)
    assert len(clients) == 1, clients


def wordy_state(actors: int, tokens: int = 4) -> dict[str, Any]:
    """`world_state` with `tokens` of its `actors` on the map and long names, of characters of one
    to four bytes (a fragment's cut falls inside some)."""
    state = world_state(actors=actors)
    state["tokens"] = dict(list(state["tokens"].items())[:tokens])
    for i, actor in enumerate(state["actors"].values()):
        actor["name"] = (f"{i} Zoë 战士 \U0001f3b2 " * 20)[: 197 + i % 4]
    return state


# --- on the wire ------------------------------------------------------------------------------


async def test_a_long_reply_goes_as_fragments_and_a_ping_is_answered_between_them(start: Any) -> None:
    """A 2 MB sync reply to a reader whose socket takes 16 KiB at a time: the first frame is text
    without FIN, then continuation frames, the last with FIN, each at most the fragment size and
    UTF-8 on its own; a ping sent after the first fragment is answered (aiohttp's pong) before the
    last one, between two fragments; the joined data is the reply."""
    server = await start(max_frame=8 << 20, heartbeat=0, limits={"fragment_bytes": 64 << 10})
    peer = await raw_welcomed(server, rcvbuf=16 << 10)
    try:
        await peer.request("sync", {"state": wordy_state(4000)}, "big")
        first = await peer.frame()
        assert (first.fin, first.opcode) == (False, OPCODE_TEXT)
        await peer.send(b"mid-message", OPCODE_PING)
        await asyncio.sleep(0.3)  # the server's writer waits on the full socket meanwhile
        data, rest = await peer.message()
        frames = [first, *rest]
        data = first.data + data
        kinds = [(f.fin, f.opcode) for f in frames]
        assert kinds[-1] == (True, OPCODE_CONTINUATION)
        pong = kinds.index((True, OPCODE_PONG))
        assert 0 < pong < len(frames) - 1, "the pong came between two fragments"
        assert frames[pong].data == b"mid-message"
        fragments_seen = [f for f in frames if f.opcode < 0x8]
        assert all((f.fin, f.opcode) == (False, OPCODE_CONTINUATION) for f in fragments_seen[1:-1])
        assert len(fragments_seen) >= 30
        for f in fragments_seen:
            assert 0 < len(f.data) <= 64 << 10
            f.data.decode()
        reply = json.loads(data)
        assert reply["type"] == "result" and reply["re"] == "big"
        assert len(data) > 2_000_000
        # the connection goes on: a short reply in one frame
        await peer.request("query", {"kind": "state"}, "q")
        data, frames = await peer.message()
        assert json.loads(data)["re"] == "q" and len(frames) >= 2  # the state is long too
    finally:
        peer.close()


async def test_a_long_reply_and_its_pushed_patch_are_the_unfragmented_messages_bytes(start: Any) -> None:
    """The same requests to a server that fragments past 4 KiB and to one that never does: a real
    aiohttp client in each receives the very same bytes, its world-mate the same pushed patches,
    among them messages of hundreds of fragments (a sync, a query's text, a damage)."""
    received: list[list[bytes]] = []
    for fragment_bytes in (4096, 0):
        server = await start(max_frame=8 << 20, seed=7, limits={"fragment_bytes": fragment_bytes})
        gm, mate = await welcomed(server, max_msg_size=0), await welcomed(server, max_msg_size=0)
        seen: list[bytes] = []
        for type_, payload in (
            ("sync", {"state": wordy_state(1000, 30)}),
            ("action", {"kind": "damage", "target": "actor3", "instances": [{"amount": 2, "grade": "L"}]}),
            ("upsert", {"path": "/scene/round", "value": 2}),
            ("query", {"kind": "state"}),
        ):
            await gm.send(type_, payload, f"{type_}-1")
            seen.append((await gm.ws.receive(timeout=10)).data.encode())
            if type_ != "query":
                seen.append((await mate.ws.receive(timeout=10)).data.encode())
        received.append(seen)
        for peer in (gm, mate):
            await peer.ws.close()
    assert received[0] == received[1]
    assert sum(len(message) > 100 * 4096 for message in received[0]) >= 3
    assert [json.loads(m)["type"] for m in received[0]] == ["result", "patch"] * 3 + ["result"]


async def test_a_peer_that_closes_mid_message_gets_no_data_frame_after_the_close(start: Any) -> None:
    """A reader closes (code 1000) after a long reply's first fragment: the server answers with its
    close frame and sends no data frame after it (RFC 6455 section 5.5.1), drops the rest, and
    serves the world's other client on."""
    server = await start(max_frame=8 << 20, heartbeat=0, limits={"fragment_bytes": 16 << 10})
    gm = await welcomed(server, max_msg_size=0)
    peer = await raw_welcomed(server, rcvbuf=16 << 10)
    try:
        await peer.request("sync", {"state": wordy_state(4000)}, "big")
        first = await peer.frame()
        assert (first.fin, first.opcode) == (False, OPCODE_TEXT)
        await peer.send(struct.pack("!H", 1000), OPCODE_CLOSE)
        frames = [await peer.frame()]
        while frames[-1].opcode != OPCODE_CLOSE:
            frames.append(await peer.frame())
        assert frames[-1].data[:2] == struct.pack("!H", 1000)
        assert not any(f.fin for f in frames if f.opcode < 0x8), "the message was cut short"
        assert await asyncio.wait_for(peer.reader.read(), 5) == b"", "nothing after the close"
        # the GM's copy, whole: pushed once the answer it waited for was dropped with the connection
        assert (await asyncio.wait_for(gm.receive(), 30))["type"] == "patch"
        await until_alone(server)
        assert (await gm.request("upsert", {"path": "/scene/round", "value": 3}))["type"] == "result"
    finally:
        peer.close()


async def test_a_peer_that_goes_away_mid_message_leaves_the_server_serving(
    start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A reader's socket is reset after a long pushed patch's first fragment: its writer ends
    quietly (no error logged), the connection is gone, and the world's rulings go on."""
    caplog.set_level(logging.WARNING)
    server = await start(max_frame=8 << 20, heartbeat=0, limits={"fragment_bytes": 16 << 10})
    gm = await welcomed(server, max_msg_size=0)
    peer = await raw_welcomed(server, rcvbuf=16 << 10)
    await gm.request("sync", {"state": wordy_state(4000)})
    first = await peer.frame()
    assert (first.fin, first.opcode) == (False, OPCODE_TEXT)
    sock = peer.writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    peer.writer.transport.abort()  # RST, mid-message
    await until_alone(server)
    for value in range(3):
        assert (await gm.request("upsert", {"path": "/scene/round", "value": value}))["type"] == "result"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.records


async def test_a_peer_that_does_not_read_long_messages_is_closed_when_its_queue_is_full(
    start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A world-mate reads the first long patch pushed to it, then stops reading while more are
    pushed in fragments: what waits behind the one being written counts against its queue, which
    overflows; it is closed ("unable to keep up"), its socket let go of (aborted, not kept open to
    flush into a reader that is gone), and the GM's rulings were never held up."""
    caplog.set_level(logging.WARNING, "vtt_bridge")
    server = await start(
        max_frame=8 << 20, heartbeat=0, limits={"fragment_bytes": 16 << 10, "outbox_messages": 8}
    )
    gm = await welcomed(server, max_msg_size=0)
    mate_peer = await raw_welcomed(server, rcvbuf=4096)
    try:
        bridge = server.app[BRIDGE]
        mate = raw_client(server)
        assert mate.outbox is not None
        state = wordy_state(200)

        async def sync(i: int) -> None:
            for actor in state["actors"].values():  # every name changes: each patch is long
                actor["name"] = f"{i:03d}{actor['name'][3:]}"
            assert (await asyncio.wait_for(gm.request("sync", {"state": state}), 5))["type"] == "result"

        await sync(0)
        await sync(1)  # queued behind the first
        data, frames = await mate_peer.message()
        assert json.loads(data)["type"] == "patch" and len(frames) > 2
        mate_peer.freeze()  # reads nothing more: the writer waits on the second one's fragments
        for i in range(2, 40):
            await sync(i)
            if mate not in bridge.clients["w1"]:
                break
            assert len(mate.outbox) <= 9
        await until_let_go(server, mate)
        assert mate.outbox.overflowed
        assert any("unable to keep up" in r.getMessage() for r in caplog.records)
    finally:
        mate_peer.close()


async def test_messages_keep_their_order_whatever_their_length(start: Any) -> None:
    """Requests sent at once, long and short answers mixed: the replies come in the order asked,
    the pushed patches to the world-mate in the order ruled, each whole."""
    server = await start(max_frame=8 << 20, heartbeat=0, limits={"fragment_bytes": 1024})
    gm, mate = await welcomed(server, max_msg_size=0), await welcomed(server, max_msg_size=0)
    asked = []
    for i in range(12):
        if i % 3 == 0:
            asked.append(await gm.send("sync", {"state": wordy_state(30 + i)}, f"m{i}"))
        elif i % 3 == 1:
            asked.append(await gm.send("upsert", {"path": "/scene/round", "value": i}, f"m{i}"))
        else:
            asked.append(await gm.send("query", {"kind": "state"}, f"m{i}"))
    replies = [await gm.receive() for _ in asked]
    assert [reply["re"] for reply in replies] == asked
    assert all(reply["type"] == "result" for reply in replies)
    revs = [(await mate.receive())["payload"]["rev"] for _ in range(8)]
    assert revs == sorted(revs) and len(set(revs)) == 8


async def test_short_messages_and_a_server_that_never_fragments_send_one_frame(start: Any) -> None:
    """A message at most the fragment size, and any message when fragments are off (0), is one
    text frame with FIN."""
    for fragment_bytes, expect_fragments in ((1 << 20, False), (0, False), (4096, True)):
        server = await start(max_frame=8 << 20, heartbeat=0, limits={"fragment_bytes": fragment_bytes})
        peer = await raw_welcomed(server)
        try:
            await peer.request("sync", {"state": wordy_state(300)}, "s")
            data, frames = await peer.message()
            assert len(data) > 100_000 and json.loads(data)["re"] == "s"
            assert (len(frames) > 1) == expect_fragments
            if not expect_fragments:
                assert [(f.fin, f.opcode) for f in frames] == [(True, OPCODE_TEXT)]
        finally:
            peer.close()


async def test_pings_answered_while_the_writer_waits_on_a_full_socket_keep_the_connection(
    start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A world-mate stops reading in the middle of a long pushed patch, so its writer waits for the
    socket to drain, then sends pings enough that the server's pongs wait for it too (aiohttp waits
    once it has written 256 KiB since): every wait is on aiohttp's one drain waiter, and a pong's
    must not fail for the writer's (the flag asyncio's Task clears, `sendqueue._handed`). Once the
    mate reads again it gets the whole patch and every pong, and stays in the world."""
    caplog.set_level(logging.WARNING)
    server = await start(max_frame=8 << 20, limits={"fragment_bytes": 256 << 10})
    gm = await welcomed(server, max_msg_size=0)
    mate = await raw_welcomed(server, rcvbuf=4096)
    try:
        mate.freeze()  # fragments past the transport's high-water mark (64 KiB): aiohttp pauses
        assert (await gm.request("sync", {"state": wordy_state(2000)}))["type"] == "result"
        await asyncio.sleep(0.2)  # the patch's first fragments fill the socket: the writer waits
        pings = 2600  # pongs of 127 bytes, 330 KB: past aiohttp's 256 KiB, so a pong waits too
        for i in range(pings):
            mate.writer.write(client_frame(f"{i:03d}".encode().ljust(125, b"."), OPCODE_PING))
        await mate.writer.drain()
        await asyncio.sleep(0.3)
        transport = mate.writer.transport
        assert isinstance(transport, asyncio.ReadTransport)
        transport.resume_reading()
        data, frames = await mate.message()
        pongs = sum(f.opcode == OPCODE_PONG for f in frames)
        assert json.loads(data)["type"] == "patch" and len(frames) > 2
        for _ in range(pings - pongs):
            frame = await mate.frame()
            assert frame.opcode == OPCODE_PONG, frame
        await mate.request("query", {"kind": "state"}, "after")
        data, _ = await mate.message()
        assert json.loads(data)["re"] == "after"
        assert len(server.app[BRIDGE].clients["w1"]) == 2, "the mate stayed"
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.records
    finally:
        mate.close()


async def test_a_frozen_reader_that_stops_answering_pings_is_let_go_of(start: Any) -> None:
    """A world-mate stops reading while a long patch is pushed to it (its queue does not overflow):
    the heartbeat's ping goes unanswered, the connection is closed, and its socket is aborted, not
    kept open to flush the rest into a reader that is gone."""
    server = await start(max_frame=8 << 20, heartbeat=0.3, limits={"fragment_bytes": 64 << 10})
    gm = await welcomed(server, max_msg_size=0)
    mate_peer = await raw_welcomed(server, rcvbuf=4096)
    try:
        mate = raw_client(server)
        assert mate.outbox is not None
        mate_peer.freeze()
        await gm.send("sync", {"state": wordy_state(2000)}, "big")
        answer = await gm.ws.receive(timeout=30)
        # the GM's result, or its own close should this machine's load have let it answer the 0.3 s
        # heartbeat late: the ruling and its patch to the mate are the server's either way
        assert answer.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED) or (
            json.loads(answer.data)["type"] == "result"
        )
        await until_let_go(server, mate)
        assert not mate.outbox.overflowed
        later = await welcomed(server, max_msg_size=0)  # (the GM, not reading meanwhile, went too)
        assert (await later.request("upsert", {"path": "/scene/round", "value": 2}))["type"] == "result"
    finally:
        mate_peer.close()


async def test_a_long_answer_is_written_before_the_world_s_other_clients_get_its_patch(
    start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long ruling's answer (a message in fragments) is written whole to the client that asked
    before its patch is written to any other client of the world (`Outbox.put`'s `after`): the asker
    gets it first, not at the pace of every socket at once; the patch is the same, whole."""
    events: list[tuple[str, str]] = []
    real = Outbox._fragmented

    async def fragmented(self: Outbox, parts: list[Any]) -> None:
        name = "asker" if self is asked.outbox else "other"
        events.append((name, "start"))
        await real(self, parts)
        events.append((name, "end"))

    monkeypatch.setattr(Outbox, "_fragmented", fragmented)
    server = await start(max_frame=8 << 20, limits={"fragment_bytes": 16 << 10})
    asker = await welcomed(server, max_msg_size=0)
    [asked] = server.app[BRIDGE].clients["w1"]
    other = await welcomed(server, max_msg_size=0)
    answer = await asker.request("sync", {"state": wordy_state(4000)})
    patch = await asyncio.wait_for(other.receive(), 5)
    assert answer["type"] == "result" and patch["type"] == "patch"
    assert patch["payload"]["patch"] == answer["payload"]["patch"]
    assert events == [("asker", "start"), ("asker", "end"), ("other", "start"), ("other", "end")]


async def test_a_frozen_asker_holds_the_world_s_other_clients_up_for_a_bounded_time(
    start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client that asked stops reading mid-answer: the other clients get the ruling's patch
    once `AFTER_WAIT_S` has passed (0.3 s here), not when (or if) that answer is ever written."""
    monkeypatch.setattr("vtt_bridge.server.outbox.AFTER_WAIT_S", 0.3)
    server = await start(max_frame=8 << 20, heartbeat=0, limits={"fragment_bytes": 16 << 10})
    other = await welcomed(server, max_msg_size=0)
    frozen = await raw_welcomed(server, rcvbuf=16 << 10)
    try:
        await frozen.request("sync", {"state": wordy_state(4000)}, "big")
        first = await frozen.frame()
        assert (first.fin, first.opcode) == (False, OPCODE_TEXT)
        frozen.freeze()
        # the patch comes while the asker's answer is still unwritten: it waited `AFTER_WAIT_S` for
        # it, not for the answer (30 s: a liveness bound only, a loaded machine is slower)
        assert (await asyncio.wait_for(other.receive(), 30))["type"] == "patch"
        outbox = raw_client(server).outbox
        assert outbox is not None and len(outbox) == 1, "the frozen asker's answer is still being written"
    finally:
        frozen.close()


async def test_short_messages_are_one_plain_frame_each_at_every_length_encoding(start: Any) -> None:
    """A short message (under `DEFLATE_FROM`), which the outbox frames and writes itself, as text,
    as its UTF-8 or in parts, is one unmasked text frame with FIN and no RSV bit, its length in 7
    bits up to 125 bytes and in 16 bits from 126 (RFC 6455 section 5.2), its bytes as put."""
    server = await start(heartbeat=0)
    peer = await raw_welcomed(server)
    try:
        client = raw_client(server)
        for length in (0, 1, 125, 126, 127, 1000, 65535 % DEFLATE_FROM, DEFLATE_FROM - 1):
            text = ("é" * length)[: length // 2] + "x" * (length - 2 * (length // 2))
            data = text.encode()
            messages: list[Message] = [
                text,
                data,
                [data[: len(data) // 2], memoryview(data)[len(data) // 2 :]],
            ]
            for message in messages:
                client.send(message)
                frame = await peer.frame()
                assert (frame.fin, frame.opcode, frame.data) == (True, OPCODE_TEXT, data)
    finally:
        peer.close()
