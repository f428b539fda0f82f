"""The layers of ARCHITECTURE.md, kept: the folders are the layers. Every import of every module
(function-local and type-checking ones too, read with `ast`) goes only to a layer below its own, or
within its own folder; no two modules import each other, directly or round a circle; the package root
holds only `__init__`, `__main__` and the error tree; the rules import nothing but the standard
library's pure parts, pydantic, the error tree and themselves. There is no allow-list.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "vtt_bridge"

LAYERS: tuple[str, ...] = (
    "vtt_bridge",
    "vtt_bridge.errors",
    "vtt_bridge.rules",
    "vtt_bridge.document",
    "vtt_bridge.actions",
    "vtt_bridge.engine",
    "vtt_bridge.store",
    "vtt_bridge.server",
    "vtt_bridge.web",
    "vtt_bridge.cli",
    "vtt_bridge.__main__",
)
"""Bottom to top, one unit each: a folder (every module in it), or one of the root's modules. A
module may import a unit below its own, or a module of its own folder. `vtt_bridge` itself is its
version."""

ROOT_MODULES = frozenset({"vtt_bridge", "vtt_bridge.__main__", "vtt_bridge.errors"})
"""The only modules at the package root: everything else lives in the folder of its layer."""

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
    """The layer unit a module belongs to: its folder under `vtt_bridge`, or itself at the top."""
    parts = name.split(".")
    return ".".join(parts[:2])


def layer(name: str) -> int:
    """The row of LAYERS a module belongs to (KeyError: a module nobody placed)."""
    try:
        return LAYERS.index(unit(name))
    except ValueError:
        raise KeyError(f"{name} is in no layer of LAYERS: place it") from None


def problems(root: Path) -> list[str]:
    """Every breach of the layers in the package under `root`, one line each."""
    known = modules(root)
    found: list[str] = []
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        if path.parent == root and name not in ROOT_MODULES:
            found.append(f"{name} is a module at the package root: only {sorted(ROOT_MODULES)} may be")
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


def test_every_layer_is_a_folder_and_the_root_holds_only_three_modules() -> None:
    names = modules(PACKAGE)
    for member in LAYERS:
        if member in ROOT_MODULES:
            assert member in names, f"{member} is a layer without its module"
        else:
            folder = PACKAGE / member.removeprefix("vtt_bridge.")
            assert (folder / "__init__.py").is_file(), f"{member} is a layer without its folder"
    assert {module_name(path, PACKAGE) for path in PACKAGE.glob("*.py")} == ROOT_MODULES


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
            "vtt_bridge.rules.a (layer 2) imports vtt_bridge.engine.world (layer 5)",
            id="a function-local import of a higher layer",
        ),
        pytest.param(
            {
                "server/__init__.py": "",
                "server/endpoint.py": "import vtt_bridge.web.pages\n",
                "web/__init__.py": "",
                "web/pages.py": "",
            },
            "vtt_bridge.server.endpoint (layer 7) imports vtt_bridge.web.pages (layer 8)",
            id="the server importing the web pages above it",
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
        pytest.param(
            {"odd.py": ""}, "vtt_bridge.odd is a module at the package root", id="a fourth module at the root"
        ),
        pytest.param(
            {"extra/__init__.py": "", "extra/a.py": ""},
            "vtt_bridge.extra.a is in no layer",
            id="a folder nobody placed",
        ),
    ],
)
def test_the_layer_check_finds_each_kind_of_breach(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    found = problems(_tree(tmp_path, files))
    assert any(expected in line for line in found), found
