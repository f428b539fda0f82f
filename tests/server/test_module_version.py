"""The Foundry module says its version in `hello`; the sidecar logs when it is not its own."""

from __future__ import annotations

import logging

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from tests.conftest import TOKEN, Peer
from vtt_bridge import __version__
from vtt_bridge.server.hello import MODULE_CLIENT

Client = TestClient[web.Request, web.Application]


async def hello(server: Client, name: str, version: str) -> dict[str, object]:
    peer = Peer(await server.ws_connect("/ws"))
    reply = await peer.request(
        "hello", {"token": TOKEN, "world": "w1", "client": {"name": name, "version": version}}
    )
    assert reply["type"] == "welcome", reply
    payload: dict[str, object] = reply["payload"]
    return payload


async def test_a_module_of_another_version_is_logged_naming_both(
    server: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="vtt_bridge"):
        welcome = await hello(server, MODULE_CLIENT, "0.0.1")
    assert welcome["server"] == {"name": "vtt-bridge", "version": __version__}, "the module compares this"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert f"the Foundry module is version 0.0.1, this sidecar {__version__}" in warnings[0]
    assert "update the module" in warnings[0]


@pytest.mark.parametrize(
    ("name", "version"),
    [
        pytest.param(MODULE_CLIENT, __version__, id="the same version"),
        pytest.param(MODULE_CLIENT, "", id="the module does not say"),
        pytest.param("a-python-client", "9.9.9", id="another client"),
    ],
)
async def test_no_version_warning(
    server: Client, caplog: pytest.LogCaptureFixture, name: str, version: str
) -> None:
    with caplog.at_level(logging.WARNING, logger="vtt_bridge"):
        await hello(server, name, version)
    assert not [r for r in caplog.records if "Foundry module is version" in r.getMessage()]
