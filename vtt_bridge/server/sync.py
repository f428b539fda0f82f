"""A `sync` in parts: each part checked as it comes against the sync budgets and the world's limits,
merged into what the connection sent before, and the whole handed on with the last part. A refused
part refuses the whole sync.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from vtt_bridge.engine.protocol import ErrorCode, ErrorDetail
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.server.bridge import Bridge, Client
from vtt_bridge.server.limits import Limits

log = logging.getLogger("vtt_bridge")


def drop_sync_parts(bridge: Bridge, client: Client, why: str | None = None) -> None:
    """Drop the connection's buffered sync parts (and a refused sync's memory of its refusal)."""
    bridge.sync_bytes -= client.sync_bytes
    if client.sync_timer is not None:
        client.sync_timer.cancel()
        client.sync_timer = None
    if why is not None and (client.sync_parts is not None or client.sync_refused is not None):
        log.warning("dropped the unfinished sync of %s (%d bytes): %s", client.remote, client.sync_bytes, why)
    client.sync_parts, client.sync_bytes, client.sync_refused = None, 0, None


SYNC_FIELDS = frozenset(("state", "more"))


def _part_problem(payload: dict[str, Any]) -> str | None:
    """Why one part of a sync in parts is refused as it comes (its state's content is validated with
    the whole, at the last part)."""
    unknown = payload.keys() - SYNC_FIELDS
    if unknown:
        return f"{sorted(unknown)[0]!r} is not a field of a sync (state, more)"
    if type(payload.get("more", False)) is not bool:
        return "more is true or false"
    if not isinstance(payload.get("state"), dict):
        return "state is an object"
    return None


def _refuse_part(bridge: Bridge, client: Client, error: RequestError, last: bool) -> RequestError:
    """A part of a sync in parts refused: the parts before it are dropped, and unless it was the last
    the connection remembers the refusal, so that the sync's last part is refused too (a sync is
    ruled whole or not at all: its later parts never stand alone)."""
    drop_sync_parts(bridge, client)
    if not last:
        client.sync_refused = error.message
        limits = bridge.config.limits
        client.sync_timer = asyncio.get_running_loop().call_later(
            limits.sync_timeout, drop_sync_parts, bridge, client, f"no part for {limits.sync_timeout:.0f} s"
        )
    return error


def merge_sync_part(bridge: Bridge, client: Client, payload: dict[str, Any], size: int) -> dict[str, Any]:
    """Merge a `sync` part (`size` bytes of frame) into what the connection sent before; the merged
    payload when it is the last. The parts count against `Limits.sync_budget` and the world's
    token and actor limits as they come, and are dropped when the next is `Limits.sync_timeout` late.
    A refused part refuses the whole sync: every later part of it up to its last is refused too."""
    limits = bridge.config.limits
    more = payload.get("more")
    last = more is None or more is False
    if client.sync_refused is not None:
        earlier = client.sync_refused
        if last:
            drop_sync_parts(bridge, client)
        else:  # remembered while its parts keep coming, as the parts of a sync are
            _refuse_part(bridge, client, RequestError(ErrorCode.INVALID, earlier), last)
        raise RequestError(
            ErrorCode.INVALID,
            f"an earlier part of this sync was refused ({earlier}): the whole sync is refused and "
            "nothing was changed; send it again from its first part",
            [ErrorDetail(path=["more"], message="a part of a refused sync")],
        )
    in_parts = client.sync_parts is not None or not last
    if not in_parts:
        state = payload.get("state")
        if isinstance(state, dict):
            check_counts(limits, state)
        return payload  # one whole sync: validation reports what is wrong with it
    problem = _part_problem(payload)
    if problem is not None:
        error = RequestError(ErrorCode.INVALID, f"a part of a sync in parts is refused: {problem}")
        raise _refuse_part(bridge, client, error, last)
    state = payload["state"]
    merged = client.sync_parts if client.sync_parts is not None else {"actors": {}, "tokens": {}}
    client.sync_bytes += size
    bridge.sync_bytes += size
    if client.sync_bytes > limits.sync_budget:
        error = RequestError(
            ErrorCode.TOO_LARGE, f"a sync is at most {limits.sync_budget} bytes in all its parts (budget)"
        )
        raise _refuse_part(bridge, client, error, last)
    if bridge.sync_bytes > limits.sync_budget_total:
        error = RequestError(
            ErrorCode.TOO_LARGE,
            f"the sidecar holds at most {limits.sync_budget_total} bytes of unfinished syncs, all "
            "connections together; send it again once the others are done",
        )
        raise _refuse_part(bridge, client, error, last)
    for key, value in state.items():
        if key in ("actors", "tokens") and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key].update(value)
        else:
            merged[key] = value
    try:
        check_counts(limits, merged)
    except RequestError as error:
        raise _refuse_part(bridge, client, error, last) from None
    if not last:
        client.sync_parts = merged
        if client.sync_timer is not None:
            client.sync_timer.cancel()
        client.sync_timer = asyncio.get_running_loop().call_later(
            limits.sync_timeout, drop_sync_parts, bridge, client, f"no part for {limits.sync_timeout:.0f} s"
        )
        return payload
    drop_sync_parts(bridge, client)
    return {**payload, "state": merged}


def check_counts(limits: Limits, state: Any) -> None:
    """`too_large` naming the limit when a state (a document, or a sync's state) holds more tokens
    or actors than a world may."""
    for name, limit in (("tokens", limits.max_tokens), ("actors", limits.max_actors)):
        members = state.get(name) if isinstance(state, dict) else getattr(state, name, None)
        if isinstance(members, dict) and len(members) > limit:
            raise RequestError(
                ErrorCode.TOO_LARGE,
                f"a world holds at most {limit} {name} (--max-{name}); this one would hold {len(members)}",
            )
