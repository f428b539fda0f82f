"""Shared fixtures: a real aiohttp server on loopback with a real SQLite file, and a real client."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import struct
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import jsonschema
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import settings

from vtt_bridge.actions.registry import ACTION_ADAPTER, QUERY_ADAPTER
from vtt_bridge.cli.app import create_app
from vtt_bridge.engine.protocol import json_schema
from vtt_bridge.server.bridge import Config

TOKEN = "test-token-0123456789"

settings.register_profile("vtt-bridge", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, database=None)
settings.load_profile("ci" if os.environ.get("CI") else "vtt-bridge")
"""No time limit on a Hypothesis example (its default is 200 ms, which a loaded machine breaks):
loaded here, before any test module makes its own `settings`, which take the rest from it. On a
developer's machine the examples are drawn at random (a property may find a new counterexample in
any run: it is kept in `.hypothesis/` and tried first next time); in CI (`CI` set, as `.ci/run`
does) they are the same every run, so a commit's CI verdict does not depend on the draw."""


SCHEMA = json_schema(ACTION_ADAPTER, QUERY_ADAPTER)
SERVER_MESSAGE = jsonschema.Draft202012Validator({"$ref": "#/$defs/ServerMessage", "$defs": SCHEMA["$defs"]})
"""`vtt-bridge schema`'s definition of what the server sends."""
CLIENT_MESSAGE = jsonschema.Draft202012Validator({"$ref": "#/$defs/ClientMessage", "$defs": SCHEMA["$defs"]})
"""`vtt-bridge schema`'s definition of what a client sends."""


def schema_error(validator: jsonschema.Draft202012Validator, message: Any) -> str | None:
    """Why `message` does not match (the best of jsonschema's reasons), None when it does."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(message))
    if error is None:
        return None
    return f"at /{'/'.join(str(p) for p in error.absolute_path)}: {error.message}"


class FrameCheck:
    """Every text frame a websocket client of the tests receives is checked against the schema."""

    checked = 0

    @classmethod
    def check(cls, text: str) -> None:
        """Raise when `text` is not a server message as `vtt-bridge schema` defines it."""
        why = schema_error(SERVER_MESSAGE, json.loads(text))
        if why is not None:
            raise AssertionError(f"the server sent a frame the schema refuses, {why}\n{text[:2000]}")
        cls.checked += 1


@pytest.fixture(autouse=True, scope="session")
def every_frame_received_matches_the_schema() -> Iterator[None]:
    """aiohttp's client `receive` (under `receive_str`, `receive_json` and `async for`), checked."""
    original = aiohttp.ClientWebSocketResponse.receive

    async def receive(
        self: aiohttp.ClientWebSocketResponse, timeout: float | None = None
    ) -> aiohttp.WSMessage:
        msg = await original(self, timeout)
        if msg.type == aiohttp.WSMsgType.TEXT:
            FrameCheck.check(msg.data)
        return msg

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(aiohttp.ClientWebSocketResponse, "receive", receive)
        yield


@pytest.fixture(autouse=True)
def status_page_rebuilt_after_every_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine may take `PAGE_SLOW` to build even a small status page, and the page would
    then be shown a while behind the worlds; only the tests of that throttle (which set
    `PAGE_SLOW` themselves) see it."""
    from vtt_bridge.web import pages

    monkeypatch.setattr(pages, "PAGE_SLOW", float("inf"))


def actor(max_health: int = 7, **extra: Any) -> dict[str, Any]:
    """An actor as the VTT sends it."""
    return {"name": "Guard", "health": {"max": max_health}, **extra}


def damage(target: str = "actor0", amount: Any = 2, grade: Any = "L") -> dict[str, Any]:
    """A `damage` action's payload: one instance of `amount` of `grade` to `target` (any values: the
    refusals of bad ones are tested with it too)."""
    return {"kind": "damage", "target": target, "instances": [{"amount": amount, "grade": grade}]}


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
        """Send and return the reply to it (replies answer in order). A request the server accepted
        matches the schema's client message: the schema accepts what the server accepts."""
        sent = await self.send(type_, payload, msg_id)
        reply = await self.receive()
        assert reply.get("re") == sent, reply
        if reply["type"] != "error":
            why = schema_error(CLIENT_MESSAGE, {"v": 1, "id": sent, "type": type_, "payload": payload})
            assert why is None, f"the server accepted a {type_} the schema refuses, {why}: {payload}"
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

    async def _connect(
        world: str = "w1", token: str = TOKEN, hello: bool = True, contests: bool = False, **kwargs: Any
    ) -> Peer:
        ws = await server.ws_connect("/ws", **kwargs)
        peer = Peer(ws)
        if hello:
            payload = {"token": token, "world": world, "client": {"name": "pytest"}}
            reply = await peer.request("hello", {**payload, "contests": True} if contests else payload)
            assert reply["type"] == "welcome", reply
        return peer

    return _connect


Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def start(config: Config) -> AsyncIterator[Any]:
    """Start the real app with some fields of the config (or its limits) replaced; each in a data
    folder of its own unless `data_dir` is given."""
    started: list[Client] = []

    async def _start(limits: dict[str, Any] | None = None, **fields: Any) -> Client:
        fields.setdefault("data_dir", config.data_dir / str(len(started)))
        changed = dataclasses.replace(config, **fields)
        if limits:
            changed = dataclasses.replace(changed, limits=dataclasses.replace(changed.limits, **limits))
        client = TestClient(TestServer(create_app(changed), host="127.0.0.1"))
        await client.start_server()
        started.append(client)
        return client

    yield _start
    for client in started:
        await client.close()


async def welcomed(
    client: Client, world: str = "w1", token: str = TOKEN, contests: bool = False, **kwargs: Any
) -> Peer:
    """A welcomed connection (`contests`: it asks for `/contests` ops in its patches)."""
    peer = Peer(await client.ws_connect("/ws", **kwargs))
    payload = {"token": token, "world": world, "client": {"name": "pytest"}}
    reply = await peer.request("hello", {**payload, "contests": True} if contests else payload)
    assert reply["type"] == "welcome", reply
    return peer


def client_frame(data: bytes, opcode: int = 0x1) -> bytes:
    """A masked client frame, FIN set (RFC 6455 section 5.2; a client masks every frame, 5.3)."""
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x80 | opcode]) + (
        bytes([0x80 | n])
        if n < 126
        else bytes([0x80 | 126]) + struct.pack(">H", n)
        if n < 65536
        else bytes([0x80 | 127]) + struct.pack(">Q", n)
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def pytest_collection_finish(session: pytest.Session) -> None:
    """The wheel's build starts in the background as soon as its tests are selected
    (tests/web/test_wheel.py `start_build`): a C compiler's tens of seconds beside the other tests."""
    if any(item.path.name == "test_wheel.py" for item in session.items):
        from tests.web.test_wheel import start_build

        start_build()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A wheel's build still running is stopped and its folder removed."""
    wheel_tests = sys.modules.get("tests.web.test_wheel")
    if wheel_tests is not None:
        wheel_tests.end_build()
