"""The build step: the wheel carries the Foundry module's runtime files as package data.

`build_py` copies what `/module.zip` ships of `foundry_module/` (`module_files.runtime_files`, imported
from the source tree: the package is not installed at build time) into `vtt_bridge/foundry_module/`
of the build, so any install (`pip install`, `pipx install`, the wheel) serves the module with no flag.
An editable install copies nothing: it serves the checkout's `foundry_module/` itself.
Everything else about the project is in pyproject.toml.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "foundry_module"
TARGET = Path("vtt_bridge", "foundry_module")


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


setup(cmdclass={"build_py": BuildWithModule})
