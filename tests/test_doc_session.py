"""docs/protocol.md's example session is what the sidecar says: replayed against a fresh one, every
frame it shows is the frame received (`"…"` stands for any value, a list ending in `"…"` for more)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from vtt_bridge.actions.registry import ACTION_ADAPTER, QUERY_ADAPTER
from vtt_bridge.cli.app import create_app
from vtt_bridge.server.bridge import Config

ROOT = Path(__file__).resolve().parents[1]
ELIDED = "…"


def session() -> list[tuple[str, str, dict[str, Any]]]:
    """(client, "→" or "←", message) for each frame of the example, in order."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    block = text.split("## An example session", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    frames = []
    decoder = json.JSONDecoder()
    position = 0
    marker = re.compile(r"(\w+) (→|←) ")
    while position < len(block):
        match = marker.match(block, position)
        assert match is not None, block[position : position + 80]
        message, end = decoder.raw_decode(block, match.end())
        frames.append((match.group(1), match.group(2), message))
        position = end + 1  # the newline
    return frames


def matches(shown: Any, real: Any) -> bool:
    """Whether a frame as the doc shows it is the real one, `"…"` standing for what is left out."""
    if shown == ELIDED:
        return True
    if isinstance(shown, dict):
        return (
            isinstance(real, dict)
            and shown.keys() == real.keys()
            and all(matches(v, real[k]) for k, v in shown.items())
        )
    if isinstance(shown, list):
        if not isinstance(real, list):
            return False
        if shown and shown[-1] == ELIDED:
            head = shown[:-1]
            return len(real) >= len(head) and all(matches(s, r) for s, r in zip(head, real, strict=False))
        return len(shown) == len(real) and all(matches(s, r) for s, r in zip(shown, real, strict=True))
    return type(shown) is type(real) and shown == real


def test_the_matcher_can_fail() -> None:
    assert matches({"a": [1, ELIDED], "b": ELIDED}, {"a": [1, 2, 3], "b": {"x": 1}})
    assert not matches({"a": [1, ELIDED]}, {"a": [2, 3]})
    assert not matches({"a": 1}, {"a": 1, "b": 2})
    assert not matches([1], [1, 2])
    assert not matches(200, 200.0)


async def test_the_example_session_is_what_the_sidecar_says(tmp_path: Path) -> None:
    frames = session()
    kinds = {(who, arrow, m["type"]) for who, arrow, m in frames}
    for type_ in ("hello", "sync", "action", "query"):
        assert ("gm", "→", type_) in kinds, type_
    for type_ in ("welcome", "result", "error"):
        assert ("gm", "←", type_) in kinds, type_
    assert ("watcher", "←", "patch") in kinds
    hello = next(m for who, arrow, m in frames if arrow == "→")
    config = Config(data_dir=tmp_path, token=hello["payload"]["token"], seed=7)
    client = TestClient(TestServer(create_app(config), host="127.0.0.1"))
    await client.start_server()
    sockets: dict[str, aiohttp.ClientWebSocketResponse] = {}
    try:
        for index, (who, arrow, shown) in enumerate(frames):
            if who not in sockets:
                sockets[who] = await client.ws_connect("/ws")
            if arrow == "→":
                await sockets[who].send_str(json.dumps(shown))
                continue
            real = json.loads((await sockets[who].receive(timeout=10)).data)
            assert matches(shown, real), (
                f"frame {index} ({who} ←) is not what the sidecar sent:\n{json.dumps(real)}"
            )
        for who, ws in sockets.items():  # and nothing the doc does not show came
            with pytest.raises(asyncio.TimeoutError):
                extra = await ws.receive(timeout=0.2)
                raise AssertionError(f"{who} got a frame the example does not show: {extra.data}")
    finally:
        await client.close()


def test_the_protocol_doc_and_the_schema_cite_only_files_in_the_repository() -> None:
    """A reader of the repository can open every file the contract names."""
    from vtt_bridge.engine.protocol import json_schema

    for name, text in (
        ("docs/protocol.md", (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")),
        ("the schema", json.dumps(json_schema(ACTION_ADAPTER, QUERY_ADAPTER))),
    ):
        cited = set(re.findall(r"[\w./-]+\.(?:md|py|mjs|json)\b", text))
        assert cited, name
        for path in cited:
            candidates = [ROOT / path, ROOT / "docs" / path, ROOT / "vtt_bridge" / path]
            if path.startswith("module."):
                continue  # module.json, module.zip: served URLs
            assert any(c.is_file() for c in candidates), (
                f"{name} cites {path}, which is not in the repository"
            )
