"""Shared fixtures: a real aiohttp server on loopback with a real SQLite file, and a real client."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from vtt_bridge.app import create_app
from vtt_bridge.bridge import Config

TOKEN = "test-token-0123456789"


def actor(max_health: int = 7, **extra: Any) -> dict[str, Any]:
    """An actor as the VTT sends it."""
    return {"name": "Guard", "health": {"max": max_health}, **extra}


def world_state(actors: int = 2, max_health: int = 7) -> dict[str, Any]:
    """A small scene: `actors` actors, one token each, in a row."""
    return {
        "scene": {"id": "scene1", "round": 1},
        "actors": {f"actor{i}": actor(max_health, name=f"Actor {i}") for i in range(actors)},
        "tokens": {f"token{i}": {"actor": f"actor{i}", "x": 100 * i, "y": 0} for i in range(actors)},
    }


class Peer:
    """A websocket client speaking protocol v1, one request at a time."""

    _ids = itertools.count(1)

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    async def send(self, type_: str, payload: Any, msg_id: str | None = None) -> str:
        msg_id = msg_id or f"c{next(self._ids)}"
        await self.ws.send_str(json.dumps({"v": 1, "id": msg_id, "type": type_, "payload": payload}))
        return msg_id

    async def receive(self) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=10)
        assert msg.type == aiohttp.WSMsgType.TEXT, f"expected a text frame, got {msg.type} {msg.data!r}"
        reply: dict[str, Any] = json.loads(msg.data)
        return reply

    async def request(self, type_: str, payload: Any, msg_id: str | None = None) -> dict[str, Any]:
        """Send and return the reply to it (replies answer in order)."""
        sent = await self.send(type_, payload, msg_id)
        reply = await self.receive()
        assert reply.get("re") == sent, reply
        return reply

    async def action(self, payload: dict[str, Any], msg_id: str | None = None) -> dict[str, Any]:
        return await self.request("action", payload, msg_id)

    async def state(self) -> dict[str, Any]:
        reply = await self.request("query", {"kind": "state"})
        assert reply["type"] == "result", reply
        state: dict[str, Any] = reply["payload"]["state"]
        return state


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(data_dir=tmp_path / "data", token=TOKEN, heartbeat=30.0, sync_interval=0.05)


Connect = Callable[..., Awaitable[Peer]]


@pytest.fixture
async def server(config: Config) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    client = TestClient(TestServer(create_app(config), host="127.0.0.1"))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
def connect(server: TestClient[web.Request, web.Application]) -> Connect:
    """Open a websocket; with `hello=True` (default) send hello and check the welcome."""

    async def _connect(world: str = "w1", token: str = TOKEN, hello: bool = True, **kwargs: Any) -> Peer:
        ws = await server.ws_connect("/ws", **kwargs)
        peer = Peer(ws)
        if hello:
            reply = await peer.request(
                "hello", {"token": token, "world": world, "client": {"name": "pytest"}}
            )
            assert reply["type"] == "welcome", reply
        return peer

    return _connect
