"""The build step: the wheel carries the Foundry module's runtime files as package data, and the
modules of a ruling's hot path compiled to C by mypyc.

`build_py` copies what `/module.zip` ships of `foundry_module/` (`module_files.runtime_files`, imported
from the source tree: the package is not installed at build time) into `vtt_bridge/foundry_module/`
of the build, so any install (`pip install`, `pipx install`, the wheel) serves the module with no flag.
An editable install copies nothing: it serves the checkout's `foundry_module/` itself.

`NATIVE` are compiled with mypyc (a part of mypy, a build requirement) into one extension,
`vtt_bridge.native__mypyc`, and a small extension per module that Python imports in place of its
`.py` (an editable install builds them into the checkout, beside their sources). The compiled code
rules exactly as the source does (the same replies, byte for byte: tests/test_native.py). With
`VTT_BRIDGE_PURE=1`, or without a C compiler and Python's headers, the package is plain Python.
Everything else about the project is in pyproject.toml.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "foundry_module"
TARGET = Path("vtt_bridge", "foundry_module")

NATIVE = (
    "vtt_bridge/rules/areas.py",
    "vtt_bridge/document/areas.py",
    "vtt_bridge/document/visibility.py",
    "vtt_bridge/engine/patch.py",
)
"""The modules compiled with mypyc: a `move`'s areas and visibility, and every ruling's diff
(tests/test_native.py holds an installed package to them)."""


def _can_compile() -> bool:
    """Whether this Python's C compiler and headers are here (Windows: not tried, plain Python)."""
    if os.name == "nt":
        return False
    compiler = (sysconfig.get_config_var("CC") or "cc").split()
    headers = Path(sysconfig.get_paths()["include"], "Python.h")
    return bool(compiler) and shutil.which(compiler[0]) is not None and headers.is_file()


BUILDS_CODE = frozenset(
    ("build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop", "bdist_egg")
)
"""The setup commands that build the extensions; the others (`sdist`, `egg_info`, `dist_info`:
the sdist and the metadata a build asks for first) are not slowed by mypyc's type check."""

OPT_LEVEL = "1"
"""The C compiler's optimization of the compiled modules: -O1 runs a `move` in 1% more instructions
than -O3 and compiles in half the time (14 s against 29: docs/benchmarks.md)."""


def _native_extensions() -> list[Extension]:
    """`NATIVE` as mypyc's extensions; none (plain Python, one line says why) with
    `VTT_BRIDGE_PURE=1`, without mypyc, or without a C compiler and Python's headers; none for a
    command that builds no code (`BUILDS_CODE`)."""
    if os.environ.get("VTT_BRIDGE_PURE", "") not in ("", "0") or not BUILDS_CODE & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("vtt-bridge: mypyc is not installed: built as plain Python (slower)", file=sys.stderr)
        return []
    if not _can_compile():
        print(
            "vtt-bridge: no C compiler or no Python headers (python3-dev): built as plain Python (slower)",
            file=sys.stderr,
        )
        return []
    return list(mypycify(list(NATIVE), group_name="vtt_bridge.native", opt_level=OPT_LEVEL))


def _module_files() -> ModuleType:
    """`vtt_bridge.web.module_files` of this source tree: it needs only the standard library and the
    error tree, so it imports before anything is installed."""
    sys.path.insert(0, str(ROOT))
    try:
        return importlib.import_module("vtt_bridge.web.module_files")
    finally:
        sys.path.remove(str(ROOT))


class BuildWithModule(build_py):
    """`build_py`, then the module's runtime files into the build's `vtt_bridge/foundry_module/`."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / TARGET
        if target.exists():
            shutil.rmtree(target)
        for relative in _module_files().runtime_files(SOURCE):
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(SOURCE / relative, destination)


setup(cmdclass={"build_py": BuildWithModule}, ext_modules=_native_extensions())
