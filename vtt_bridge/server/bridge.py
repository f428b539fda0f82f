"""The bridge: the sidecar's configuration, its worlds and the store they are kept in, who is
connected to which, and the engine's seeded dice (`engine/roller.py`, DICE-6). The websocket endpoint
(`endpoint.py`) and the pages (`web/pages.py`) each work on the bridge; the pages are a layer above the
server, which never imports them. `cli/app.py` puts them together.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import sqlite3
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import LARGEST_KEPT_REPLY, RECENT_REPLIES, RECENT_REPLY_BYTES, World, area_dice
from vtt_bridge.server.limits import Backoff, Limits, RateLimitedLog
from vtt_bridge.server.outbox import Message, Outbox
from vtt_bridge.server.tokenfile import load_or_create_token
from vtt_bridge.store.log import Store

log = logging.getLogger("vtt_bridge")

T = TypeVar("T")


DEFAULT_ORIGINS = ("http://localhost:*", "http://127.0.0.1:*", "https://localhost:*")
"""Browser origins allowed by default (PROTOCOL.md Transport); `--allow-origin` adds more."""


@dataclass(frozen=True)
class Config:
    """What `vtt-bridge serve` runs with."""

    data_dir: Path
    token: str
    host: str = "127.0.0.1"
    port: int = 30500
    allow_origins: tuple[str, ...] = ()
    max_frame: int = 1 << 20
    """The largest text frame a client may send (bytes); larger ones get `too_large`."""
    heartbeat: float = 20.0
    """Seconds of silence before a ping; another such interval without a frame closes the connection."""
    rate_limit: float = 10_000.0
    """Messages per second a connection may send on average."""
    rate_burst: float = 10_000.0
    """Messages a connection may send at once before the rate applies."""
    seed: int | None = None
    """Seed of the engine's own dice (DICE-6); None: seeded from the OS."""
    sync_interval: float = 1.0
    """Seconds between WAL checkpoints (what a power loss can cost at most)."""
    recent_replies: int = RECENT_REPLIES
    """Replies each world keeps in memory for retried action ids (older ones: read from the store)."""
    module_dir: Path | None = None
    """The Foundry module folder `/module.zip` is built from (None: `pages.default_module_dir()`)."""
    allow_hosts: tuple[str, ...] = ()
    """Host names served beside the loopback ones (`--allow-host`; the Host check, `endpoint.middleware`)."""
    limits: Limits = field(default_factory=Limits)
    """What a connection, a world and an unauthenticated socket may cost (`limits.py`)."""

    @property
    def origins(self) -> tuple[str, ...]:
        """Every allowed browser origin pattern."""
        return DEFAULT_ORIGINS + self.allow_origins


@dataclass(eq=False)
class Client:
    """One websocket connection, and the world it joined once welcomed."""

    ws: web.WebSocketResponse
    remote: str
    world: World | None = None
    name: str = ""
    tokens: float = 0.0
    stamp: float = field(default_factory=time.monotonic)
    sync_parts: dict[str, Any] | None = None
    """The parts of a `sync` sent in several frames (`more: true`), merged so far."""
    sync_bytes: int = 0
    sync_refused: str | None = None
    """Why a part of the connection's sync in parts was refused: its later parts, up to its last,
    are refused too (`server.merge_sync_part`)."""
    seen: float = field(default_factory=time.monotonic)
    """When the last frame (a pong included) came in: `_watch` pings and drops a silent peer."""
    outbox: Outbox | None = None
    """The connection's bounded outgoing queue (`outbox.py`)."""
    request: web.Request | None = None
    transport: asyncio.Transport | None = None
    unauthenticated: bool = False
    """Counted in `Bridge.unauthenticated` (until welcomed or closed)."""
    spoke: bool = False
    """A text frame came in (before `welcome`: its `hello`); a socket that sent none (pings aside) is
    among the first to make room for a new one (`server._evictable`)."""
    refused: bool = False
    """Its `hello` had a wrong token: it waits out the address's back-off before it is refused."""
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the server starts closing the socket (a wrong token's back-off ends early)."""
    evicted: bool = False
    """Closed to make room for a new socket while it waited for `welcome`: never welcomed."""
    hello_timer: asyncio.TimerHandle | None = None
    """Closes the socket when no good `hello` came within `Limits.hello_timeout`."""
    sync_timer: asyncio.TimerHandle | None = None
    """Drops the buffered `sync` parts when the next part is late (`Limits.sync_timeout`)."""
    contests: bool = False
    """It asked for `/contests` ops in its copies of patches (`Hello.contests`)."""

    def send(
        self,
        message: Message,
        *,
        after: asyncio.Future[None] | None = None,
        written: asyncio.Future[None] | None = None,
    ) -> None:
        """Queue one message to this client, as text, as its UTF-8 or as its UTF-8 in parts (never
        waits on its socket); `after` and `written`: see `Outbox.put` (`written` is resolved at once
        for a client without an outbox)."""
        if self.outbox is not None:
            self.outbox.put(message, after=after, written=written)
        elif written is not None and not written.done():
            written.set_result(None)


RECORD_STEPS = 100
"""The most steps the status page keeps of one ruling (a crowded round has thousands); the rest are
only counted."""


RESTORED_PER_WORLD = 10
"""Rulings of each world the status page reads back from the store at start-up."""


@dataclass
class RulingRecord:
    """A recent ruling, for the status page: its first `RECORD_STEPS` steps and how many it had."""

    world: str
    rev: int
    kind: str
    log: list[dict[str, Any]]
    at: float | None
    """When it was ruled (None: read back from the store, which keeps no time)."""
    steps: int = -1
    """How many steps the ruling had (-1: as many as `log` holds)."""
    action_id: str | None = None
    """The id it was sent with (None: a sync or an upsert, or a row of an earlier layout)."""
    restored: bool = False
    """Read back from the store at start-up (`Store.latest`), not ruled since."""
    unread: bool = False
    """Restored without its steps (past what `Store.latest` reads back)."""

    def __post_init__(self) -> None:
        if self.steps < 0:
            self.steps = len(self.log)
        if len(self.log) > RECORD_STEPS:
            self.log = self.log[:RECORD_STEPS]


class Bridge:
    """The server's state: the store, the worlds, who is connected to which."""

    def __init__(self, config: Config) -> None:
        self.store = Store(config.data_dir / "vtt-bridge.sqlite3")
        if not config.token:  # made after the store's lock: two sidecars never make two tokens
            config = dataclasses.replace(config, token=load_or_create_token(config.data_dir))
        self.config = config
        for warning in self.store.warnings:
            log.warning("%s", warning)
        if self.store.moved:
            log.info("moved the %d rulings of an earlier version's log into this version's", self.store.moved)
        if self.store.upgraded:
            count = self.store.upgraded
            log.warning(
                "upgraded the store's %d %s to layout 11 (the areas keyed by target): their rulings "
                "made before that changed areas can no longer be undone",
                count,
                "world" if count == 1 else "worlds",
            )
        self.worlds: dict[str, World] = {}
        self.clients: dict[str, set[Client]] = {}
        self.sockets: weakref.WeakSet[Client] = weakref.WeakSet()
        """Every open connection, welcomed or not (closed on shutdown)."""
        self.roller = SeededRoller(config.seed)
        self.recent: deque[RulingRecord] = deque(maxlen=50)
        self.release: asyncio.TimerHandle | None = None
        """The pending hand-back of a long ruling's freed memory (`heap.release_later`)."""
        self._ids = itertools.count(1)
        self.dirty = False
        self.unauthenticated = 0
        """Sockets open now that have not been welcomed (at most `Limits.max_unauthenticated`)."""
        self.sync_bytes = 0
        """Bytes of sync parts all connections hold buffered (at most `Limits.sync_budget_total`)."""
        self.waiting: dict[Client, None] = {}
        """Those sockets, oldest first."""
        self.backoff = Backoff(config.limits.auth_backoff, config.limits.auth_backoff_max)
        self.storage_fault: str | None = None
        """Why the last checkpoint failed (None: the disk took it): no ruling is acknowledged until
        one succeeds again."""
        self.changes = 0
        """Counts what the status page shows changing (rulings, joins, leaves): its cache key."""
        self.storage_log = RateLimitedLog(log, 60.0)
        self.unauth_log = RateLimitedLog(log, 60.0)
        self._locks: dict[str, asyncio.Lock] = {}
        self._store_lock: asyncio.Lock | None = None
        self._store_turns = 0
        """Uses of the store through `in_store` that hold it or wait for it (0: it is idle)."""
        self._writer: ThreadPoolExecutor | None = None
        for world_id in self.store.worlds():
            self.world(world_id)
        self._read_back()

    def _read_back(self) -> None:
        """The last `RESTORED_PER_WORLD` rulings of each world, from the store, into `recent` (so
        the status page shows them after a restart), before every ruling made since."""
        for world_id in sorted(self.worlds):
            for stored in self.store.latest(world_id, RESTORED_PER_WORLD, RECORD_STEPS):
                self.recent.append(
                    RulingRecord(
                        world_id,
                        stored.rev,
                        stored.kind or "ruling",
                        stored.log,
                        None,
                        steps=max(stored.steps, 0),
                        action_id=stored.action_id,
                        restored=True,
                        unread=stored.steps < 0,
                    )
                )

    @property
    def store_lock(self) -> asyncio.Lock:
        """Held by every use of the store from the event loop while it runs: the store (one SQLite
        connection, not thread-safe) is used by one thread at a time, and never while its writer
        thread holds it (`in_store`)."""
        if self._store_lock is None:
            self._store_lock = asyncio.Lock()
        return self._store_lock

    def store_idle(self) -> bool:
        """Whether no use of the store holds it or waits for it (`in_store`): then the event loop may
        use it at once, in the same turn, and is still the first in the order asked."""
        return self._store_turns == 0

    async def in_store(self, work: Callable[..., T], *args: Any, off_loop: bool = False) -> T:
        """Run `work(*args)` on the store once no other store work runs: on the event loop, or with
        `off_loop` in the store's one writer thread, where SQLite's I/O (a commit of megabytes, a
        checkpoint's fsync) waits without holding the interpreter, so other worlds are served
        meanwhile. One at a time either way, in the order asked; work handed to the thread holds the
        store until it ends, even when the caller is cancelled. Work on the loop while the store is
        idle (`store_idle`) runs at once, without taking the lock: nothing else can use the store
        before it returns."""
        if not off_loop and self._store_turns == 0:
            return work(*args)
        lock = self.store_lock
        self._store_turns += 1
        try:
            await lock.acquire()
        except BaseException:
            self._store_turns -= 1
            raise
        if not off_loop:
            try:
                return work(*args)
            finally:
                self._free_store(lock)
        try:
            if self._writer is None:
                self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vtt-bridge-store")
            running = asyncio.get_running_loop().run_in_executor(self._writer, work, *args)
        except BaseException:
            self._free_store(lock)
            raise
        running.add_done_callback(lambda _: self._free_store(lock))
        return await asyncio.shield(running)

    def _free_store(self, lock: asyncio.Lock) -> None:
        lock.release()
        self._store_turns -= 1

    def lock(self, world_id: str) -> asyncio.Lock:
        """The lock one ruling of a world holds from its start to its commit (a long ruling runs in a
        worker thread; the world's next one waits for it)."""
        lock = self._locks.get(world_id)
        if lock is None:
            lock = self._locks[world_id] = asyncio.Lock()
        return lock

    def next_id(self) -> str:
        """A fresh id for a server-sent message."""
        return f"s{next(self._ids)}"

    def world(self, world_id: str) -> World:
        """The world with this id, recovered from the store the first time it is asked for."""
        world = self.worlds.get(world_id)
        if world is None:
            recovered = self.store.recover(
                world_id, self.config.recent_replies, RECENT_REPLY_BYTES, LARGEST_KEPT_REPLY
            )
            world = World(
                world_id,
                recovered.state,
                recovered.replies,
                recovered.answered,
                self.config.recent_replies,
                recovered.digests,
                recovered.history,
                dice=area_dice(world_id, self.config.seed),
            )
            self.worlds[world_id] = world
        return world

    def close(self) -> None:
        """Let the store's writer thread finish what it runs, then flush and close the store."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        try:
            self.store.close()
        except (sqlite3.Error, OSError) as exc:
            log.warning("could not checkpoint the store on shutdown (%s); its WAL keeps every ruling", exc)


BRIDGE = web.AppKey("bridge", Bridge)
