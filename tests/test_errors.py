"""One exception tree: every exception class of the package derives from `VttBridgeError`, and the
tree drawn in `errors.py`'s docstring is the real one (each class under its real base, in the module
the drawing names)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import vtt_bridge
from vtt_bridge import errors
from vtt_bridge.errors import VttBridgeError

DRAWN_LINE = re.compile(r"^(?P<indent>[│ ]*(?:├── |└── )?)(?P<name>\w+)(?:\s+(?P<module>[\w/]+\.py|here))?\b")


def package_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of the package, by name."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(vtt_bridge.__path__, "vtt_bridge."):
        if info.name == "vtt_bridge.__main__":
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                assert found.get(name, value) is value, f"two exception classes named {name}"
                found[name] = value
    return found


def drawn_tree(doc: str) -> dict[str, tuple[str | None, str]]:
    """The docstring's drawing: each class name with its drawn parent (None: the root) and module."""
    drawing = doc.split("```")[1].strip("\n").splitlines()
    tree: dict[str, tuple[str | None, str]] = {}
    path: list[str] = []
    for line in drawing:
        match = DRAWN_LINE.match(line)
        assert match, f"a line of the drawing that names no class: {line!r}"
        depth = len(match["indent"]) // 4
        del path[depth:]
        module = match["module"] or "here"
        where = (
            "vtt_bridge.errors"
            if module == "here"
            else "vtt_bridge." + module.removesuffix(".py").replace("/", ".")
        )
        tree[match["name"]] = (path[-1] if path else None, where)
        path.append(match["name"])
    return tree


def test_every_exception_of_the_package_is_under_the_one_root() -> None:
    outside = [name for name, cls in package_exceptions().items() if not issubclass(cls, VttBridgeError)]
    assert outside == []


def test_the_drawn_tree_is_the_real_tree() -> None:
    assert errors.__doc__ is not None
    drawn = drawn_tree(errors.__doc__)
    real = package_exceptions()
    assert set(drawn) == set(real), "the drawing and the package name different exception classes"
    for name, (parent, module) in drawn.items():
        cls = real[name]
        assert cls.__module__ == module, f"{name} is drawn in {module}, defined in {cls.__module__}"
        base = cls.__bases__[0]
        assert (None if base is Exception else base.__name__) == parent, f"{name} is drawn under {parent}"


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        pytest.param(
            "```\nVttBridgeError   here\n└── Stray   here\n```",
            "name different exception classes",
            id="a class drawn that is not",
        ),
        pytest.param(
            "```\nVttBridgeError   here\n└── Refusal   here\n    └── StoreBusy   here\n```",
            "name different exception classes",
            id="classes left out of the drawing",
        ),
    ],
)
def test_a_wrong_drawing_is_found(monkeypatch: pytest.MonkeyPatch, doc: str, problem: str) -> None:
    monkeypatch.setattr(errors, "__doc__", doc)
    with pytest.raises(AssertionError, match=problem):
        test_the_drawn_tree_is_the_real_tree()


def test_a_class_drawn_under_the_wrong_parent_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    assert errors.__doc__ is not None
    wrong = errors.__doc__.replace("│   ├── StoreBusy  ", "├── StoreBusy      ")
    assert wrong != errors.__doc__
    monkeypatch.setattr(errors, "__doc__", wrong)
    with pytest.raises(AssertionError, match="StoreBusy is drawn under VttBridgeError"):
        test_the_drawn_tree_is_the_real_tree()
