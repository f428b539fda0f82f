"""The app factory: the bridge, the websocket route of `server.py`, the pages of `pages.py`, the
store's checkpoints in the background, and the sockets closed on shutdown (aiohttp's idioms).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator

from aiohttp import WSCloseCode, web

from vtt_bridge import pages, server
from vtt_bridge.bridge import BRIDGE, Bridge, Config

log = logging.getLogger("vtt_bridge")


async def _checkpoints(app: web.Application) -> AsyncIterator[None]:
    """Fsync the WAL every `sync_interval` seconds when something was written (bounds power-loss cost)."""
    bridge = app[BRIDGE]

    async def loop() -> None:
        while True:
            await asyncio.sleep(bridge.config.sync_interval)
            if bridge.dirty:
                try:
                    bridge.store.flush()
                except sqlite3.Error as exc:  # a full or failing disk: try again next time
                    log.warning(
                        "could not checkpoint the store (%s); trying again in %.1f s",
                        exc,
                        bridge.config.sync_interval,
                    )
                else:
                    bridge.dirty = False

    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    bridge.close()


async def _close_sockets(app: web.Application) -> None:
    for ws in set(app[BRIDGE].sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


def create_app(config: Config) -> web.Application:
    """The aiohttp application: `/ws`, and the pages of `pages.py`."""
    app = web.Application()
    app[BRIDGE] = Bridge(config)
    app.router.add_get("/ws", server.websocket)
    pages.setup(app, config.module_dir)
    app.cleanup_ctx.append(_checkpoints)
    app.on_shutdown.append(_close_sockets)
    return app
