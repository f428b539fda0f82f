"""The bridge: the sidecar's configuration, its worlds and the store they are kept in, who is
connected to which, and the engine's own seeded dice (DICE-6). The websocket server (`server.py`) and
the pages (`pages.py`) each work on the bridge; neither imports the other. `app.py` puts them together.
"""

from __future__ import annotations

import itertools
import logging
import random
import sqlite3
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from vtt_bridge.store import Store
from vtt_bridge.world import RECENT_REPLIES, World

log = logging.getLogger("vtt_bridge")


class SeededRoller:
    """DICE-6: the engine's own dice, reproducible from a seed (the rules take any `Roller`)."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def d10(self) -> int:
        """One die, 1..10."""
        return self._random.randint(1, 10)


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
    seen: float = field(default_factory=time.monotonic)
    """When the last frame (a pong included) came in: `_watch` pings and drops a silent peer."""


@dataclass
class RulingRecord:
    """A recent ruling, for the status page."""

    world: str
    rev: int
    kind: str
    log: list[dict[str, Any]]
    at: float


class Bridge:
    """The server's state: the store, the worlds, who is connected to which."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store = Store(config.data_dir / "vtt-bridge.sqlite3")
        if self.store.moved:
            log.info("moved the %d rulings of an earlier version's log into this version's", self.store.moved)
        self.worlds: dict[str, World] = {}
        self.clients: dict[str, set[Client]] = {}
        self.sockets: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()
        self.roller = SeededRoller(config.seed)
        self.recent: deque[RulingRecord] = deque(maxlen=50)
        self._ids = itertools.count(1)
        self.dirty = False
        for world_id in self.store.worlds():
            self.world(world_id)

    def next_id(self) -> str:
        """A fresh id for a server-sent message."""
        return f"s{next(self._ids)}"

    def world(self, world_id: str) -> World:
        """The world with this id, recovered from the store the first time it is asked for."""
        world = self.worlds.get(world_id)
        if world is None:
            recovered = self.store.recover(world_id, self.config.recent_replies)
            world = World(
                world_id, recovered.state, recovered.replies, recovered.answered, self.config.recent_replies
            )
            self.worlds[world_id] = world
        return world

    def close(self) -> None:
        """Flush and close the store."""
        try:
            self.store.close()
        except sqlite3.Error as exc:
            log.warning("could not checkpoint the store on shutdown (%s); its WAL keeps every ruling", exc)


BRIDGE = web.AppKey("bridge", Bridge)
