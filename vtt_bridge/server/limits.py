"""The sidecar's bounds: what one connection, one world and one unauthenticated socket may cost.

Every bound here is a number in `Limits` (docs/security.md says what each one defends against); a
request past one is refused with `too_large` (or the socket closed) and changes nothing. The
endpoint applies the frame's bounds (`endpoint.too_deep`); the wrong tokens' back-off and the
rate-limited warnings are here.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

MIN_TOKEN_LENGTH = 16
"""The shortest shared secret the sidecar runs with (a generated one has 43 characters)."""


@dataclass(frozen=True)
class Limits:
    """The bounds one sidecar runs with (defaults hold a 2,000-token scene comfortably)."""

    hello_timeout: float = 10.0
    """Seconds a new socket has to send a valid `hello`."""
    hello_max_frame: int = 4096
    """The largest frame (bytes) a socket may send before it is welcomed."""
    max_unauthenticated: int = 32
    """Sockets open at once that have not been welcomed yet; more are answered 503."""
    auth_backoff: float = 0.05
    """Seconds the next `hello` from an address waits after its first wrong token (doubling)."""
    auth_backoff_max: float = 2.0
    """...and at most this long."""
    outbox_messages: int = 1024
    """Messages one client's outgoing queue holds; a client past it is closed ("unable to keep up")."""
    outbox_bytes: int = 64 << 20
    """...and characters of them."""
    fragment_bytes: int = 1 << 20
    """A message the sidecar sends longer than this goes as a fragmented websocket message, in
    fragments of at most this many bytes, one per turn of the event loop (0: never)."""
    max_tokens: int = 5000
    """Tokens one world may hold."""
    max_actors: int = 5000
    """Actors one world may hold."""
    sync_budget: int = 32 << 20
    """Bytes of `sync` parts (`more: true`) one connection may have buffered."""
    sync_budget_total: int = 64 << 20
    """...and all connections together (buffered parts take some twice their bytes in memory)."""
    max_clients: int = 256
    """Welcomed connections at once, all worlds together; a right `hello` past it is refused."""
    sync_timeout: float = 60.0
    """Seconds between two parts of a `sync` after which the buffered parts are dropped."""
    max_depth: int = 32
    """The deepest nesting of objects and arrays a frame may have."""


def token_problem(token: str) -> str | None:
    """Why a shared secret is refused (None: it is fine)."""
    if len(token) < MIN_TOKEN_LENGTH:
        return (
            f"the token has {len(token)} characters; use at least {MIN_TOKEN_LENGTH} "
            "(or leave it unset and the sidecar makes one)"
        )
    return None


@dataclass
class Backoff:
    """Wrong tokens per address: each makes the next wrong `hello` from that address wait twice as
    long (from `base` up to `cap` seconds) before it is refused. A right token never waits, and leaves
    the address's back-off as it was (guessers beside the GM gain nothing from its connects)."""

    base: float
    cap: float
    _next: dict[str, tuple[int, float]] = field(default_factory=dict)

    def wait(self, address: str) -> float:
        """Seconds a wrong `hello` from this address must wait before it is refused."""
        entry = self._next.get(address)
        return 0.0 if entry is None else max(0.0, entry[1] - time.monotonic())

    def failed(self, address: str) -> None:
        """A wrong token from this address."""
        count = self._next.get(address, (0, 0.0))[0] + 1
        delay = min(self.cap, self.base * 2 ** (count - 1))
        self._next[address] = (count, time.monotonic() + delay)
        if len(self._next) > 4096:  # addresses are cheap to forge on a LAN: keep the newest
            for stale in list(self._next)[:1024]:
                del self._next[stale]


class RateLimitedLog:
    """A warning logged once per `interval` seconds for each distinct message (a failing disk or a
    flood of sockets would otherwise write one line per request); how many were held back is said."""

    def __init__(self, logger: logging.Logger, interval: float) -> None:
        self.logger = logger
        self.interval = interval
        self._last: dict[str, tuple[float, int]] = {}

    def warn(self, message: str) -> None:
        now = time.monotonic()
        last = self._last.get(message)
        if last is not None and now - last[0] < self.interval:
            self._last[message] = (last[0], last[1] + 1)
            return
        held = 0 if last is None else last[1]
        self._last[message] = (now, 0)
        if len(self._last) > 256:
            self._last = {message: (now, 0)}
        self.logger.warning("%s%s", message, f" ({held} more like it not logged)" if held else "")
