"""The docs tell the truth: the protocol reference is the generated one, every action is listed
(in the schema and in the README's protocol in brief)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from vtt_bridge.actions.registry import (
    ACTION_ADAPTER,
    ACTION_KINDS,
    HANDLERS,
    QUERIES,
    QUERY_ADAPTER,
    QUERY_KINDS,
)
from vtt_bridge.engine.protocol import json_schema, reference_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_protocol_doc_ends_with_the_generated_reference() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    marker = "## Reference (generated)\n"
    assert marker in text
    assert text.split(marker, 1)[1].strip() == reference_markdown(ACTION_KINDS, QUERY_KINDS).strip(), (
        "docs/protocol.md is stale: run `make docs`"
    )


def test_every_action_and_query_kind_is_in_the_schema() -> None:
    schema = json.dumps(json_schema(ACTION_ADAPTER, QUERY_ADAPTER))
    for kind in [*HANDLERS, *QUERIES]:
        assert f'"{kind}"' in schema, kind


def test_schema_command_prints_json_schema() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "vtt_bridge", "schema"], check=True, capture_output=True, text=True
    ).stdout
    schema = json.loads(out)
    assert schema["title"] == "vtt-bridge protocol v1"
    assert {"hello", "sync", "upsert", "action", "query"} <= set(schema["client"])


def test_readme_lists_every_action_and_query_kind() -> None:
    """The README's protocol in brief names each action kind and each query kind, and no other."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    actions = re.search(r"`action \{kind, \.\.\.\}` asks for a ruling\.(.*?)The reply is", text, re.S)
    assert actions, "README: the protocol in brief lost its list of action kinds"
    assert set(re.findall(r"`(\w+)`", actions.group(1))) == set(ACTION_KINDS)
    queries = re.search(r"`query \{kind: (.*?)\}`", text, re.S)
    assert queries, "README: the protocol in brief lost its list of query kinds"
    assert set(re.findall(r'"(\w+)"', queries.group(1))) == set(QUERY_KINDS)
