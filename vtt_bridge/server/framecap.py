"""The frame cap of a websocket, raised once the client is welcomed.

aiohttp fixes a connection's largest message when the socket is opened, and refuses a frame by
the length its header declares, before buffering any of it. A socket starts with the small cap of
the unauthenticated phase (`Limits.hello_max_frame`); `raise_frame_cap` gives the connection a new
frame parser with the full cap after `welcome`. The protocol has a client wait for `welcome`
before its next frame, so no frame is half-read at that moment.

With permessage-deflate (RFC 7692) the new parser inflates too, but with a fresh window: so the
server's handshake demands `client_no_context_takeover` (section 7.1.1.1 lets it, offered or not),
and each client message inflates on its own (`DeflateResponse`).
"""

from __future__ import annotations

from typing import Any

from aiohttp import hdrs, web
from aiohttp._websocket.reader import WebSocketReader


class DeflateResponse(web.WebSocketResponse):
    """aiohttp's websocket response, but when permessage-deflate is agreed its handshake also says
    `client_no_context_takeover`: the client compresses each message on its own, so the parser that
    `raise_frame_cap` puts in after `welcome` can inflate what follows (aiohttp's own handshake
    writes the extension's other parameters)."""

    def _handshake(self, request: web.BaseRequest) -> Any:
        headers, protocol, compress, notakeover = super()._handshake(request)
        agreed = headers.get(hdrs.SEC_WEBSOCKET_EXTENSIONS)
        if compress and agreed and "client_no_context_takeover" not in agreed:
            headers[hdrs.SEC_WEBSOCKET_EXTENSIONS] = f"{agreed}; client_no_context_takeover"
        return headers, protocol, compress, notakeover


def raise_frame_cap(request: web.Request, ws: web.WebSocketResponse, max_msg_size: int) -> None:
    """Let `ws` (the upgrade of `request`) receive messages of up to `max_msg_size` bytes from now on."""
    old: Any = getattr(ws, "_parser", None)
    protocol: Any = request.protocol
    queue: Any = getattr(ws, "_reader", None)
    if old is None or protocol is None or queue is None or protocol._payload_parser is not old:
        raise RuntimeError("this aiohttp keeps its websocket parser elsewhere: cannot raise the frame cap")
    parser = WebSocketReader(queue, max_msg_size, compress=bool(ws.compress), decode_text=True)
    ws._parser = parser
    protocol._payload_parser = parser
