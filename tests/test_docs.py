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


def _reference() -> str:
    return reference_markdown(ACTION_KINDS, QUERY_KINDS)


def test_the_reference_says_each_kind_s_summary_whole() -> None:
    """Each action's and query's line carries its docstring's whole first paragraph, never the
    first line of it only (undo, redo and attackCheck were cut mid-sentence)."""
    lines = _reference().splitlines()
    for kind, model in [*ACTION_KINDS.items(), *QUERY_KINDS.items()]:
        paragraph = " ".join((model.__doc__ or "").strip().split("\n\n", 1)[0].split())
        assert f"- `{kind}`: {paragraph}" in lines, kind
    entries = [line for line in lines if line.startswith("- `")]
    assert entries and all(line.endswith((".", ")")) for line in entries), [
        line for line in entries if not line.endswith((".", ")"))
    ]


def test_the_reference_shows_every_shape_a_client_sends() -> None:
    """Every object and enumeration a `hello`, `sync`, `action` or `query` payload names, however
    deep (detection means, anti-detection, IWR entries, pools, gauges, immunities...), has its own
    entry, with its fields."""
    schema = json_schema(ACTION_ADAPTER, QUERY_ADAPTER)
    defs = schema["$defs"]
    reached: set[str] = set()
    todo = [schema["client"][type_]["$ref"] for type_ in ("hello", "sync", "action", "query")]
    while todo:
        name = todo.pop().removeprefix("#/$defs/")
        if name in reached:
            continue
        reached.add(name)
        todo.extend(re.findall(r'"\$ref": "(#/\$defs/[^"]+)"', json.dumps(defs[name])))
    kinds = {model.__name__ for model in [*ACTION_KINDS.values(), *QUERY_KINDS.values()]}
    shapes = reached - kinds - {"Action", "Query", "ExpectRev", "Hello", "Sync"}
    assert {
        "AntiDetectionMeans",
        "DetectionMeans",
        "Iwr",
        "Weakness",
        "EnergyPool",
        "Gauge",
        "Immunity",
    } <= shapes
    text = _reference().split("### Shapes inside them", 1)[1]
    missing = sorted(name for name in shapes if f"\n- `{name}`" not in text)
    assert missing == []
    anti = text.split("\n- `AntiDetectionMeans`", 1)[1].split("\n- `", 1)[0]
    assert "`name` (required)" in anti and "`essence` (optional" in anti and "`rank` (optional" in anti


def test_the_docs_cite_only_files_the_project_has() -> None:
    """The readings live in the docs themselves: a page never cites a rules file, a "brief" or any
    other Markdown file the project does not hold (docs/rules cited RULES.md and "the brief")."""
    have = {
        path.name
        for path in ROOT.rglob("*.md")
        if not any(part.startswith(".") or part == "node_modules" for part in path.relative_to(ROOT).parts)
    }
    pages = [ROOT / "README.md", ROOT / "foundry_module" / "README.md", *(ROOT / "docs").rglob("*.md")]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        cited = set(re.findall(r"\b[\w.-]+\.md\b", text))
        assert cited <= have, (page.name, sorted(cited - have))
        assert not re.search(r"\bthe brief\b", text, re.IGNORECASE), page.name
