"""The app factory: the bridge, the websocket route of `server/endpoint.py`, the pages of `web/pages.py`, the
store's checkpoints in the background, and the sockets closed on shutdown (aiohttp's idioms).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator

from aiohttp import WSCloseCode, web

from vtt_bridge.server import endpoint as server
from vtt_bridge.server import heap
from vtt_bridge.server.bridge import BRIDGE, Bridge, Config
from vtt_bridge.store.files import StoreGone
from vtt_bridge.web import pages

log = logging.getLogger("vtt_bridge")


IDLE_RELEASE = 5.0
"""Seconds without a change (a ruling, a join or a leave) after which the memory the work before
freed is given back to the system (`heap.release_freed_memory`, once per quiet spell: a burst of
small rulings leaves freed pages in the allocator's heap, which it keeps for reuse otherwise)."""


async def _checkpoints(app: web.Application) -> AsyncIterator[None]:
    """Fsync the WAL every `sync_interval` seconds when something was written (bounds power-loss
    cost). A failed checkpoint stops rulings being acknowledged until one succeeds again."""
    bridge = app[BRIDGE]

    async def loop() -> None:
        seen, quiet, released = bridge.changes, 0.0, bridge.changes
        while True:
            await asyncio.sleep(bridge.config.sync_interval)
            # a burst's freed memory given back once it is over (`IDLE_RELEASE` without a change)
            quiet = quiet + bridge.config.sync_interval if bridge.changes == seen else 0.0
            seen = bridge.changes
            if quiet >= IDLE_RELEASE and released != seen:
                released = seen
                heap.release_freed_memory()
            if bridge.dirty or bridge.storage_fault is not None:
                await checkpoint(bridge)
            else:  # idle: still look that the file is there (a stat, on the loop)
                try:
                    bridge.store.check_file()
                except OSError as exc:
                    _fault(bridge, exc)

    task = asyncio.create_task(loop())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    bridge.close()


async def checkpoint(bridge: Bridge) -> None:
    """One checkpoint, in the store's writer thread (its fsync holds no other world up); a failure is
    remembered (`Bridge.storage_fault`) until one succeeds."""
    flush = bridge.store.flush

    def flushed() -> None:
        bridge.dirty = False  # as the store is taken: a ruling written from now on marks it again
        flush()

    try:
        await bridge.in_store(flushed, off_loop=True)
    except (sqlite3.Error, OSError) as exc:  # a full or failing disk: try again next time
        _fault(bridge, exc)
    else:
        if bridge.storage_fault is not None:
            log.warning("the store checkpointed again; rulings are taken again")
            bridge.storage_fault = None
            bridge.changes += 1


def _fault(bridge: Bridge, exc: sqlite3.Error | OSError) -> None:
    """A checkpoint (or the look at the file) failed: no ruling is acknowledged until one succeeds;
    said once, at ERROR, or CRITICAL when the store's file itself is gone (`store.StoreGone`)."""
    if bridge.storage_fault is None:
        if isinstance(exc, StoreGone):
            log.critical("%s", exc)
        else:
            log.error(
                "could not checkpoint the store (%s): rulings are refused until a checkpoint succeeds "
                "(trying every %.1f s)",
                exc,
                bridge.config.sync_interval,
            )
    bridge.storage_fault = str(exc) or type(exc).__name__
    bridge.changes += 1


async def _close_sockets(app: web.Application) -> None:
    """Close every connection at once (a frozen one is aborted after a second, never waited on)."""
    closing = [
        server.close_client(client, WSCloseCode.GOING_AWAY, b"server shutdown")
        for client in app[BRIDGE].sockets
    ]
    await asyncio.gather(*closing, return_exceptions=True)


def create_app(config: Config) -> web.Application:
    """The aiohttp application: `/ws`, and the pages of `web/pages.py`."""
    heap.share_one_arena()  # before any thread allocates
    app = web.Application(middlewares=[server.middleware(config.allow_hosts)])
    app[BRIDGE] = Bridge(config)
    app.router.add_get("/ws", server.websocket)
    pages.setup(app, config.module_dir)
    app.cleanup_ctx.append(_checkpoints)
    app.on_shutdown.append(_close_sockets)
    return app
