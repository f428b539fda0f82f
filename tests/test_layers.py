"""The layers of ARCHITECTURE.md, kept: every import of every module (function-local and
type-checking ones too, read with `ast`) goes only to a layer below its own, or within its own folder;
no two modules import each other, directly or round a circle; the rules import nothing but the
standard library's pure parts, pydantic and themselves. There is no allow-list.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "vtt_bridge"

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "vtt_bridge",
        "vtt_bridge.engine",
        "vtt_bridge.store",
        "vtt_bridge.server",
        "vtt_bridge.web",
        "vtt_bridge.cli",
    ),
    ("vtt_bridge.errors",),
    ("vtt_bridge.rules",),
    ("vtt_bridge.document",),
    ("vtt_bridge.actions", "vtt_bridge.engine.protocol", "vtt_bridge.engine.patch"),
    ("vtt_bridge.engine.refusals",),
    ("vtt_bridge.engine.history",),
    ("vtt_bridge.engine.world", "vtt_bridge.store.log"),
    (
        "vtt_bridge.server.limits",
        "vtt_bridge.server.tokenfile",
        "vtt_bridge.server.outbox",
        "vtt_bridge.server.hostcheck",
        "vtt_bridge.server.framecap",
        "vtt_bridge.server.heap",
        "vtt_bridge.web.module_files",
        "vtt_bridge.web.step_words",
        "vtt_bridge.cli.startup",
    ),
    ("vtt_bridge.server.bridge",),
    ("vtt_bridge.server.endpoint", "vtt_bridge.web.pages"),
    ("vtt_bridge.cli.app",),
    ("vtt_bridge.cli.main",),
    ("vtt_bridge.__main__",),
)
"""Bottom to top. A module may import a unit of a lower row, or a module of its own folder; units of
one row (the server and the pages, say) never import each other. `vtt_bridge` itself is its version."""

RULES_MAY_IMPORT = frozenset({"pydantic", "pydantic_core", "typing_extensions"})
"""Besides the standard library and `vtt_bridge.rules`."""

NOT_PURE = frozenset(
    {
        "asyncio",
        "io",
        "logging",
        "os",
        "pathlib",
        "random",
        "secrets",
        "shutil",
        "socket",
        "sqlite3",
        "subprocess",
        "sys",
        "tempfile",
        "threading",
        "time",
    }
)
"""Standard-library modules the pure rules never use: I/O, time, randomness, the process."""


@dataclass(frozen=True)
class Import:
    """One imported module, and where the import statement is."""

    source: str
    target: str
    line: int


def module_name(path: Path, root: Path) -> str:
    """`vtt_bridge/rules/dice.py` -> `vtt_bridge.rules.dice`; a package is its `__init__`."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package under `root`, by dotted name."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    """Every module `name` imports, at any depth of its code (functions, `if TYPE_CHECKING:`), once."""
    seen: set[str] = set()
    for found in _imports(name, path, known):
        if found.target not in seen:
            seen.add(found.target)
            yield found


def _imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield Import(name, submodule if submodule in known else base, node.lineno)


def unit(name: str) -> str:
    """The layer unit a module belongs to: the longest member of LAYERS it is or lies under, else its
    folder under `vtt_bridge` (or itself at the top)."""
    placed = [
        member
        for row in LAYERS
        for member in row
        if name == member or (member != "vtt_bridge" and name.startswith(member + "."))
    ]
    return max(placed, key=len) if placed else ".".join(name.split(".")[:2])


def layer(name: str) -> int:
    """The row of LAYERS a module belongs to (KeyError: a module nobody placed)."""
    for index, row in enumerate(LAYERS):
        if unit(name) in row:
            return index
    raise KeyError(f"{name} is in no layer of LAYERS: place it")


def problems(root: Path) -> list[str]:
    """Every breach of the layers in the package under `root`, one line each."""
    known = modules(root)
    found: list[str] = []
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        try:
            own = layer(name)
        except KeyError as exc:
            found.append(str(exc.args[0]))
            continue
        for imp in imports(name, path, known):
            where = f"{path.relative_to(root.parent)}:{imp.line}"
            top = imp.target.split(".")[0]
            if top != "vtt_bridge":
                if unit(name) == "vtt_bridge.rules" and (
                    top in NOT_PURE or (top not in sys.stdlib_module_names and top not in RULES_MAY_IMPORT)
                ):
                    found.append(f"{where}: the pure rules import {imp.target}")
                continue
            target = imp.target if imp.target in known else imp.target.rpartition(".")[0]
            if target not in known:
                found.append(f"{where}: {imp.target} is no module of the package")
                continue
            if target != name:
                graph[name].add(target)
            if unit(target) == unit(name) and unit(name) != name:
                continue  # within one folder
            if target == "vtt_bridge":
                continue
            try:
                theirs = layer(target)
            except KeyError:
                continue  # reported for the module itself
            if theirs >= own:
                found.append(f"{where}: {name} (layer {own}) imports {target} (layer {theirs})")
    found.extend(f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(graph))
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle of imports per strongly connected group of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [[*group, group[0]] for group in groups]


def test_every_import_goes_down_a_layer_and_no_modules_import_each_other() -> None:
    assert problems(PACKAGE) == []


def test_every_layer_of_the_architecture_has_its_folder() -> None:
    names = modules(PACKAGE)
    for row in LAYERS:
        for member in row:
            assert member in names, f"{member} is a layer without a module"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "vtt_bridge"
    for relative, text in {"__init__.py": "", **files}.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "rules/__init__.py": "",
                "rules/a.py": "def f():\n    from vtt_bridge.engine import world\n",
                "engine/__init__.py": "",
                "engine/world.py": "",
            },
            "vtt_bridge.rules.a (layer 2) imports vtt_bridge.engine.world (layer 7)",
            id="a function-local import of a higher layer",
        ),
        pytest.param(
            {
                "server/__init__.py": "",
                "server/endpoint.py": "import vtt_bridge.web.pages\n",
                "web/__init__.py": "",
                "web/pages.py": "",
            },
            "vtt_bridge.server.endpoint (layer 10) imports vtt_bridge.web.pages (layer 10)",
            id="two units of one row",
        ),
        pytest.param(
            {
                "rules/__init__.py": "",
                "rules/a.py": "from vtt_bridge.rules.b import x\n",
                "rules/b.py": "from vtt_bridge.rules import a\n",
            },
            "import cycle: vtt_bridge.rules.a -> vtt_bridge.rules.b -> vtt_bridge.rules.a",
            id="two modules of one folder importing each other",
        ),
        pytest.param(
            {"rules/__init__.py": "", "rules/dice.py": "import random\n"},
            "the pure rules import random",
            id="randomness in the rules",
        ),
        pytest.param(
            {
                "rules/__init__.py": "",
                "rules/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from vtt_bridge.document.models import Actor\n",
                "document/__init__.py": "",
                "document/models.py": "",
            },
            "vtt_bridge.rules.x (layer 2) imports vtt_bridge.document.models (layer 3)",
            id="a type-checking import counts too",
        ),
        pytest.param({"odd.py": ""}, "vtt_bridge.odd is in no layer", id="a module nobody placed"),
    ],
)
def test_the_layer_check_finds_each_kind_of_breach(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    found = problems(_tree(tmp_path, files))
    assert any(expected in line for line in found), found
