"""The frame cap of a websocket, raised once the client is welcomed.

aiohttp fixes a connection's largest message when the socket is opened, and refuses a frame by
the length its header declares, before buffering any of it. A socket starts with the small cap of
the unauthenticated phase (`Limits.hello_max_frame`); `raise_frame_cap` gives the connection a new
frame parser with the full cap after `welcome`. The protocol has a client wait for `welcome`
before its next frame, so no frame is half-read at that moment.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp._websocket.reader import WebSocketReader


def raise_frame_cap(request: web.Request, ws: web.WebSocketResponse, max_msg_size: int) -> None:
    """Let `ws` (the upgrade of `request`) receive messages of up to `max_msg_size` bytes from now on."""
    old: Any = getattr(ws, "_parser", None)
    protocol: Any = request.protocol
    queue: Any = getattr(ws, "_reader", None)
    if old is None or protocol is None or queue is None or protocol._payload_parser is not old:
        raise RuntimeError("this aiohttp keeps its websocket parser elsewhere: cannot raise the frame cap")
    parser = WebSocketReader(queue, max_msg_size, compress=False, decode_text=True)
    ws._parser = parser
    protocol._payload_parser = parser
