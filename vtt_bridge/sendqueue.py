"""A client's outgoing messages: one bounded queue and one writer per connection.

Invariant: `Outbox.put` never waits. A message is written at once when the socket takes it (the
common case costs no task switch); otherwise it waits in the queue for the connection's one writer,
so a ruling never waits on a slow or frozen client's socket. A queue past its bound (messages or
bytes) is not grown: the outbox is marked overflowed and `on_overflow` runs once (the server closes
that client, "unable to keep up").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import WSMsgType, web

_GONE = (ConnectionResetError, RuntimeError)
"""What writing to a socket that closed under us raises (aiohttp): the message is dropped."""


class Outbox:
    """Messages waiting to be written to one websocket, oldest first."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        max_messages: int,
        max_bytes: int,
        on_overflow: Callable[[Outbox], Coroutine[Any, Any, None]],
    ) -> None:
        self.ws = ws
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._on_overflow = on_overflow
        self._queue: deque[str | bytes] = deque()
        self.queued_bytes = 0
        self._writer: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self.overflowed = False
        self._closed = False

    def __len__(self) -> int:
        """Messages not yet handed to the socket (the one being written included)."""
        return len(self._queue) + (0 if self._writer is None else 1)

    def put(self, text: str | bytes) -> bool:
        """Queue one message (never waits), as text or as its UTF-8 (a text frame either way).
        False: dropped (overflowed or closed)."""
        if self._closed or self.overflowed:
            return False
        if self._writer is None and not self._queue:
            self._start(text)
            return True
        if len(self._queue) + 1 > self.max_messages or self.queued_bytes + len(text) > self.max_bytes:
            self.overflowed = True
            asyncio.get_running_loop().create_task(self._on_overflow(self))
            return False
        self._queue.append(text)
        self.queued_bytes += len(text)
        return True

    def _start(self, text: str | bytes) -> None:
        """Write `text` now; when the socket is full, hand the rest of the write to the writer task."""
        coro = _sent(self.ws, text)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return  # written without waiting: the common case
        except _GONE:
            return
        self._idle.clear()
        self._writer = asyncio.get_running_loop().create_task(self._write(coro, waiting))

    async def _write(self, coro: Coroutine[Any, Any, None], waiting: Any) -> None:
        """The connection's one writer: finish the write in flight, then the queue, in order."""
        try:
            await _resume(coro, waiting)
            while self._queue and not self._closed:
                text = self._queue.popleft()
                self.queued_bytes -= len(text)
                with contextlib.suppress(*_GONE):
                    await _sent(self.ws, text)
        finally:
            self._writer = None
            self._idle.set()

    async def flush(self, timeout: float) -> bool:
        """Wait (at most `timeout` s) until every queued message is written; whether it was."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        """Drop what is queued and stop the writer."""
        self._closed = True
        self._queue.clear()
        self.queued_bytes = 0
        if self._writer is not None:
            self._writer.cancel()


def _sent(ws: web.WebSocketResponse, text: str | bytes) -> Coroutine[Any, Any, None]:
    """The write of one text frame, from a str or from its UTF-8 (not encoded again)."""
    if isinstance(text, str):
        return ws.send_str(text)
    return ws.send_frame(text, WSMsgType.TEXT)


async def _resume(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run a coroutine started by hand (`coro.send(None)`) to its end: wait for what it yielded,
    then step it again, until it returns. A write the socket refuses ends it quietly."""
    try:
        while True:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                await asyncio.wait([waiting])
            waiting = coro.send(None)
    except StopIteration:
        return
    except _GONE:
        return
    except asyncio.CancelledError:
        coro.close()
        raise
