"""The baseline: an aiohttp websocket server that parses each frame and answers it, doing nothing else."""

from __future__ import annotations

import json
import sys

from aiohttp import WSMsgType, web


async def websocket(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(compress=False, max_msg_size=4 << 20)
    await ws.prepare(request)
    async for msg in ws:
        if msg.type == WSMsgType.TEXT:
            message = json.loads(msg.data)
            reply = {"v": 1, "id": "s", "re": message.get("id"), "type": "result", "payload": {"rev": 0}}
            await ws.send_str(json.dumps(reply))
    return ws


def main() -> None:
    app = web.Application()
    app.router.add_get("/ws", websocket)
    port = int(sys.argv[1])

    def ready(_: object) -> None:
        print(f"reply-only server on ws://127.0.0.1:{port}/ws", flush=True)

    web.run_app(app, host="127.0.0.1", port=port, print=ready)


if __name__ == "__main__":
    main()
