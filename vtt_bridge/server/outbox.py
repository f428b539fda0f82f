"""A client's outgoing messages: one bounded queue and one writer per connection.

Invariant: `Outbox.put` never waits. A message is written at once when the socket takes it (the
common case costs no task switch); otherwise it waits in the queue for the connection's one writer,
so a ruling never waits on a slow or frozen client's socket. A queue past its bound (messages or
bytes) is not grown: the outbox is marked overflowed and `on_overflow` runs once (the server closes
that client, "unable to keep up").

A message longer than `fragment_bytes` is written as a fragmented websocket message (RFC 6455
section 5.4), one fragment per turn of the event loop, from the parts it is made of (never joined
into one), the writer waiting while the transport's buffer holds more than a fragment: no single
callback copies more than about one fragment, however long the message. Only the outbox writes
data frames to its connection, one message at a time, so no other data frame comes between a
message's fragments; aiohttp's control frames (pong, ping, close) may, as section 5.4 allows.

A message may be put `after` a future (another client's message written: a long ruling's answer
before its patch to the world's other clients); the messages behind it wait with it, so each
connection's messages stay in the order put, and it waits `AFTER_WAIT_S` at most.
"""

from __future__ import annotations

import asyncio
import struct
from collections import deque
from collections.abc import Callable, Coroutine, Iterator, Sequence
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.abc import AbstractStreamWriter

_GONE = (ConnectionError, RuntimeError)
"""What writing to a socket that closed under us raises (aiohttp; its drain raises `ConnectionError`
when the connection is lost): the message is dropped."""

Part = bytes | memoryview
"""A slice of a message's UTF-8; each part of a message starts and ends on a character boundary."""

Message = str | bytes | list[Part]
"""One text message: as text, as its UTF-8, or as the UTF-8 parts it is the concatenation of."""

OPCODE_CONTINUATION = 0x0
OPCODE_TEXT = 0x1
"""RFC 6455 section 5.2's opcodes of a text message's first frame and of the frames after it."""

FIN = 0x80
"""RFC 6455 section 5.2: the first byte's high bit, set on a message's last frame only."""

DEFLATE_FROM = 16 << 10
"""On a connection that negotiated permessage-deflate (RFC 7692), a message of this many bytes or more
is sent compressed (by aiohttp, which compresses one this long in a worker thread, never on the
event loop); a shorter one goes as it is (RSV1 clear, which section 6 allows per message): a
`damage`'s kilobyte would save less than a millisecond of loopback for the deflate it costs. On
every connection a message shorter than this (and not in fragments) is framed and written by the
outbox itself in one call (`Outbox._plain_frame`), not through aiohttp's two coroutines."""

ANSWER_FIRST_FROM = DEFLATE_FROM
"""An answer of this many bytes or more (or one sent in fragments) is written to the client that asked
before the ruling's patch is written to the world's other clients (`Outbox.answers_first`): from this
length on its write may take more than the call that puts it (its fragments, or aiohttp's deflate
in a worker thread); a shorter one is written at once, or waits behind the asker's own messages,
and holds nobody up."""

AFTER_WAIT_S = 2.0
"""The longest a message put `after` another client's message waits for that one to be written (a
frozen peer's socket holds nobody else up longer)."""


class _Item:
    """A queued message, the future it waits for before it is written (`after`: another client's
    message written, or `AFTER_WAIT_S`), and the future it resolves once written or dropped."""

    __slots__ = ("after", "message", "written")

    def __init__(
        self, message: Message, after: asyncio.Future[None] | None, written: asyncio.Future[None] | None
    ) -> None:
        self.message = message
        self.after = after
        self.written = written


def _resolve(written: asyncio.Future[None] | None) -> None:
    if written is not None and not written.done():
        written.set_result(None)


def frame_header(opcode: int, fin: bool, length: int) -> bytes:
    """An unmasked frame's header (RFC 6455 section 5.2; a server's frames are not masked, section
    5.1): FIN, RSV1-3 clear (no extension is negotiated: compression is off), the opcode, then the
    payload length in 7 bits, or 126 and 16 bits, or 127 and 64 bits (its high bit 0), big-endian."""
    first = (FIN if fin else 0) | opcode
    if length < 126:
        return struct.pack("!BB", first, length)
    if length < 1 << 16:
        return struct.pack("!BBH", first, 126, length)
    return struct.pack("!BBQ", first, 127, length)


def fragments(parts: Sequence[Part], size: int) -> Iterator[list[memoryview]]:
    """A message's fragments in order, each the views of its parts it is made of (nothing copied):
    at most `size` bytes each, none empty, each cut before a byte that starts a UTF-8 character
    (backed up over at most three continuation bytes), so each is UTF-8 on its own (`size` is taken
    as at least 4, the longest character)."""
    size = max(size, 4)
    views = [memoryview(part).cast("B") for part in parts if len(part)]
    index, at = 0, 0
    while index < len(views):
        pieces: list[memoryview] = []
        room = size
        while index < len(views) and room:
            view = views[index]
            end = min(len(view), at + room)
            if end < len(view):
                while end > at and view[end] & 0xC0 == 0x80:
                    end -= 1
                room = 0
            else:
                room -= end - at
            if end > at:
                pieces.append(view[at:end])
            if end == len(view):
                index, at = index + 1, 0
            else:
                at = end
        yield pieces


def message_size(message: Message) -> int:
    """What a message counts against an outbox's bound: its characters, or its bytes."""
    if isinstance(message, list):
        return sum(map(len, message))
    return len(message)


class Outbox:
    """Messages waiting to be written to one websocket, oldest first.

    `stream` is what `ws.prepare()` returned (aiohttp's `AbstractStreamWriter` of the connection:
    its `drain()` waits while the transport's buffer is past its high-water mark) and `transport`
    the connection's transport (`request.transport`). Fragments are written to that transport
    directly, so this relies on one detail of aiohttp that is not its API: its websocket writer
    writes each frame to the same transport in one synchronous call (`_write_websocket_frame`,
    aiohttp 3.x), so its control frames land between our frames, never inside one. The tests read
    the raw frames of a fragmented message with a ping answered meanwhile
    (tests/server/test_fragments.py), so an aiohttp that broke this fails them."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        max_messages: int,
        max_bytes: int,
        on_overflow: Callable[[Outbox], Coroutine[Any, Any, None]],
        *,
        transport: asyncio.Transport | None = None,
        stream: AbstractStreamWriter | None = None,
        fragment_bytes: int = 0,
    ) -> None:
        self.ws = ws
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._on_overflow = on_overflow
        self._transport = transport
        self._stream = stream
        unframed = transport is None or stream is None or bool(ws.compress)
        self.fragment_bytes = 0 if unframed else fragment_bytes
        """A message longer than this goes in fragments of this size (0: never; always 0 on a
        connection with an extension, whose frames set RSV bits, or without a transport)."""
        self.deflate = bool(ws.compress) and transport is not None and stream is not None
        """The connection negotiated permessage-deflate: a message of `DEFLATE_FROM` bytes or more
        goes compressed (aiohttp's one frame), a shorter one as it is (`_plain`)."""
        self._queue: deque[_Item] = deque()
        self.queued_bytes = 0
        self._writer: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self.overflowed = False
        self._closed = False

    def __len__(self) -> int:
        """Messages not yet handed to the socket (the one being written included)."""
        return len(self._queue) + (0 if self._writer is None else 1)

    def put(
        self,
        message: Message,
        *,
        after: asyncio.Future[None] | None = None,
        written: asyncio.Future[None] | None = None,
    ) -> bool:
        """Queue one message (never waits), as text, as its UTF-8 or as its UTF-8 in parts (a text
        message any way); `after`: written once that future is done (another client's message
        written), or `AFTER_WAIT_S` at most; `written`: resolved once it is written or dropped.
        Messages stay in the order put. False: dropped (overflowed or closed)."""
        if self._closed or self.overflowed:
            _resolve(written)
            return False
        if after is not None and after.done():
            after = None
        if self._writer is None and not self._queue and after is None:
            if self._short(message_size(message)):
                self._write_now(message, written)
            else:
                self._start(message, written)
            return True
        size = message_size(message)
        if len(self._queue) + 1 > self.max_messages or self.queued_bytes + size > self.max_bytes:
            self.overflowed = True
            _resolve(written)
            asyncio.get_running_loop().create_task(self._on_overflow(self))
            return False
        self._queue.append(_Item(message, after, written))
        self.queued_bytes += size
        if self._writer is None:
            self._idle.clear()
            self._writer = asyncio.get_running_loop().create_task(self._write(None, None))
        return True

    def _short(self, size: int) -> bool:
        """Whether a message of `size` (`message_size`) goes as one plain frame this outbox writes
        itself (`_plain_frame`): shorter than `DEFLATE_FROM` and not in fragments, on a connection
        whose transport it holds."""
        return (
            size < DEFLATE_FROM
            and not 0 < self.fragment_bytes < size
            and self._transport is not None
            and self._stream is not None
        )

    def _write_now(self, message: Message, written: asyncio.Future[None] | None) -> None:
        """Write a short message (`_short`) at once, no coroutine made: the common case. When the
        transport's buffer is left holding more than `DEFLATE_FROM` bytes, the writer task waits for
        it to drain before anything else is written (as `_plain` would)."""
        try:
            self._plain_frame(message)
        except _GONE:
            _resolve(written)
            return
        transport, stream = self._transport, self._stream
        assert transport is not None and stream is not None
        if transport.get_write_buffer_size() <= DEFLATE_FROM:
            _resolve(written)
            return
        self._idle.clear()
        self._writer = asyncio.get_running_loop().create_task(self._write(stream.drain(), None, written))

    def _start(self, message: Message, written: asyncio.Future[None] | None) -> None:
        """Write `message` now (a long one: its first fragment); when the socket is full, or more
        fragments follow, hand the rest of the write to the writer task."""
        coro = self._sent(message)
        waiting = _started(coro)
        if waiting is _DONE:
            _resolve(written)
            return  # written without waiting: the common case
        self._idle.clear()
        self._writer = asyncio.get_running_loop().create_task(self._write(coro, waiting, written))

    async def _write(
        self,
        coro: Coroutine[Any, Any, None] | None,
        waiting: Any,
        written: asyncio.Future[None] | None = None,
    ) -> None:
        """The connection's one writer: finish the write in flight (`coro`, if any), then the queue,
        in order, each message once what it comes after is done. Each write is stepped by hand
        (`_resume`), so that stopping the writer never cancels what it waits on: aiohttp's drain
        waiter is shared with aiohttp's own writes (its close's)."""
        try:
            if coro is not None:
                await _resume(coro, waiting)
            _resolve(written)
            while self._queue and not self._closed:
                item = self._queue[0]
                if item.after is not None and not item.after.done():
                    await asyncio.wait([item.after], timeout=AFTER_WAIT_S)  # never cancels it
                    if self._closed:
                        break
                self._queue.popleft()
                self.queued_bytes -= message_size(item.message)
                coro = self._sent(item.message)
                waiting = _started(coro)
                if waiting is not _DONE:
                    await _resume(coro, waiting)
                _resolve(item.written)
        finally:
            _resolve(written)
            self._writer = None
            self._idle.set()

    def fragmented(self, message: Message) -> bool:
        """Whether `message` is written in fragments (longer than `fragment_bytes`, when set)."""
        return 0 < self.fragment_bytes < message_size(message)

    def answers_first(self, message: Message) -> bool:
        """Whether `message`, a ruling's answer to this client, is long enough that the ruling's
        patch to the world's other clients waits until it is written (`ANSWER_FIRST_FROM`, or sent
        in fragments), whether it goes compressed, in fragments or as it is: the asker hears first.
        Should it be written at once, the wait costs nothing (`put` drops an `after` already done)."""
        return self.fragmented(message) or message_size(message) >= ANSWER_FIRST_FROM

    def _sent(self, message: Message) -> Coroutine[Any, Any, None]:
        """The write of one text message: one frame (aiohttp's `send_str` or `send_frame`), or, past
        `fragment_bytes`, its fragments (`_fragmented`)."""
        if self.fragmented(message):
            if isinstance(message, str):
                message = [message.encode()]
            elif isinstance(message, bytes):
                message = [message]
            return self._fragmented(message)
        if self._short(message_size(message)):
            return self._plain(message)
        if isinstance(message, str):
            return self.ws.send_str(message)
        if isinstance(message, list):
            message = b"".join(message)
        return self.ws.send_frame(message, WSMsgType.TEXT)

    async def _plain(self, message: Message) -> None:
        """A short message (`_short`) as one plain frame (`_plain_frame`), then, when the transport's
        buffer holds more than `DEFLATE_FROM` bytes, a wait until it drains."""
        self._plain_frame(message)
        transport, stream = self._transport, self._stream
        assert transport is not None and stream is not None
        if transport.get_write_buffer_size() > DEFLATE_FROM:
            await stream.drain()

    def _plain_frame(self, message: Message) -> None:
        """A short message as one text frame, RSV bits clear, written to the transport in one call:
        on a deflate connection that is a frame not compressed (RFC 7692 section 6; aiohttp would
        compress every frame it sends on such a connection), on any other the frame aiohttp would
        write, without its coroutines. Written whole in one call, as aiohttp writes its frames, so
        its control frames never land inside. `ConnectionResetError` when the connection closes."""
        transport = self._transport
        assert transport is not None
        if self.ws.closed or transport.is_closing():
            raise ConnectionResetError("the connection is closing")
        if isinstance(message, str):
            message = message.encode()
        if isinstance(message, bytes):
            transport.write(frame_header(OPCODE_TEXT, True, len(message)) + message)
        else:  # the header and the parts joined at once: the message is copied once
            transport.write(b"".join([frame_header(OPCODE_TEXT, True, message_size(message)), *message]))

    async def _fragmented(self, parts: list[Part]) -> None:
        """One text message as fragments (RFC 6455 section 5.4: the first frame text with FIN
        clear, then continuation frames, the last with FIN set), one a loop turn, each once the
        transport's buffer holds at most one fragment (else once it has drained below its low-water
        mark): at most about two fragments wait in it. Ends quietly, the rest dropped, when the
        connection closes meanwhile (no data frame follows a close frame, section 5.5.1)."""
        transport, stream = self._transport, self._stream
        assert transport is not None and stream is not None
        opcode = OPCODE_TEXT
        pending = fragments(parts, self.fragment_bytes)
        piece = next(pending, None)
        while piece is not None:
            following = next(pending, None)
            if self.ws.closed or transport.is_closing():
                return
            length = sum(len(view) for view in piece)
            transport.writelines([frame_header(opcode, following is None, length), *piece])
            if following is None:
                return
            opcode, piece = OPCODE_CONTINUATION, following
            if transport.get_write_buffer_size() > self.fragment_bytes:
                await stream.drain()  # until the buffer is under the transport's low-water mark
            await asyncio.sleep(0)

    async def flush(self, timeout: float) -> bool:
        """Wait (at most `timeout` s) until every queued message is written; whether it was."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        """Drop what is queued and stop the writer (a message cut short between its fragments: the
        close frame that follows may come between fragments, RFC 6455 section 5.5)."""
        self._closed = True
        for item in self._queue:
            _resolve(item.written)
        self._queue.clear()
        self.queued_bytes = 0
        if self._writer is not None:
            self._writer.cancel()


_DONE = object()
"""What `_started` returns for a write that ended (or was refused) without waiting."""


def _handed(waiting: Any) -> Any:
    """What a coroutine stepped by hand yielded, taken as asyncio's `Task` takes it: a future comes
    flagged as being awaited (`_asyncio_future_blocking`, set by its `__await__`), and the task clears
    the flag before it waits. Left set, the next coroutine to await that same future fails ("await
    wasn't used with future"): aiohttp hands every write of a connection its one drain waiter, so a
    pong or a close written while the writer waits on it would fail its handler."""
    if getattr(waiting, "_asyncio_future_blocking", False):
        waiting._asyncio_future_blocking = False
    return waiting


def _started(coro: Coroutine[Any, Any, None]) -> Any:
    """Step a write's coroutine by hand to its first wait: what it waits on (None: a loop turn), or
    `_DONE` when it has ended already. A write the socket refuses ends it quietly."""
    try:
        return _handed(coro.send(None))
    except StopIteration:
        return _DONE
    except _GONE:
        return _DONE


async def _resume(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run a coroutine started by hand (`coro.send(None)`) to its end: wait for what it yielded,
    then step it again, until it returns. A write the socket refuses ends it quietly."""
    try:
        while True:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                await asyncio.wait([waiting])
            waiting = _handed(coro.send(None))
    except StopIteration:
        return
    except _GONE:
        return
    except asyncio.CancelledError:
        coro.close()
        if isinstance(waiting, asyncio.Future):  # aiohttp's drain waiter fails when the peer is gone
            waiting.add_done_callback(_retrieved)
        raise


def _retrieved(future: asyncio.Future[Any]) -> None:
    """A future's outcome taken, so that asyncio does not log an exception nobody awaits."""
    if not future.cancelled():
        future.exception()
