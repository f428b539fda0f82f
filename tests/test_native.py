"""The modules setup.py compiles with mypyc (`NATIVE`): loaded compiled, never stale, and ruling
exactly as their source does (the same replies, byte for byte)."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

NATIVE = (
    "vtt_bridge.rules.areas",
    "vtt_bridge.document.areas",
    "vtt_bridge.document.visibility",
    "vtt_bridge.engine.patch",
)
"""setup.py's `NATIVE`, as module names."""


def _plain_why() -> str | None:
    """Why setup.py built the package as plain Python (`_native_extensions`), or None: it compiled."""
    if os.environ.get("VTT_BRIDGE_PURE", "") not in ("", "0"):
        return "VTT_BRIDGE_PURE: installed as plain Python"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()
    if os.name == "nt" or not compiler or shutil.which(compiler[0]) is None:
        return "no C compiler here: setup.py built plain Python"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return "no Python headers here: setup.py built plain Python"
    return None


PLAIN = _plain_why()

RULINGS = """
import hashlib, importlib.util, sys
from pathlib import Path
root, mode, native = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
if mode == "source":  # each compiled module read from its .py instead
    class FromSource:
        def find_spec(self, name, path=None, target=None):
            if name not in native:
                return None
            return importlib.util.spec_from_file_location(name, root / (name.replace(".", "/") + ".py"))
    sys.meta_path.insert(0, FromSource())
sys.path.insert(0, str(root))
from benchmarks.bench_detection_rules import scene
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.server.commit import dumped_result
state = scene(300, seed=7).model_dump(mode="json")
ids = list(state["tokens"])
world = World("native")
digest = hashlib.sha256()
def ruled(pending):
    data = dumped_result(pending.result).data
    digest.update(data)
    world.commit(pending, data)
ruled(world.prepare_sync({"state": {k: state[k] for k in ("scene", "settings", "actors", "tokens")}}))
for i in range(40):
    payload = {"kind": "move", "token": ids[i % len(ids)], "x": (i * 37) % 4000, "y": (i * 53) % 4000}
    ruled(world.prepare_action(f"m{i}", payload, SeededRoller(i)))
ruled(world.prepare_action("r1", {"kind": "round", "round": 1}, SeededRoller(99)))
for i in range(40, 60):
    payload = {"kind": "move", "token": ids[i % len(ids)], "x": (i * 41) % 3000, "y": (i * 29) % 3000}
    ruled(world.prepare_action(f"m{i}", payload, SeededRoller(i)))
files = [sys.modules[name].__file__ for name in native]
print(digest.hexdigest(), *(Path(f).suffix for f in files))
"""


def test_native_modules_are_compiled_and_fresh() -> None:
    """Every `NATIVE` module is loaded compiled where setup.py compiles (`_plain_why`), and an
    extension built beside its source (an editable install) is newer than it, whatever the install:
    an edited source whose old extension would shadow it fails here, with what to do."""
    stale, plain = [], []
    for name in NATIVE:
        path = Path(importlib.import_module(name).__file__ or "")
        if path.suffix == ".py":
            plain.append(name)
            continue
        source = path.with_name(path.name.split(".", 1)[0] + ".py")
        if source.exists() and source.stat().st_mtime > path.stat().st_mtime:
            stale.append(name)
    assert not stale, f"{stale} changed since they were compiled: run `make test` (or pip install -e .) again"
    if PLAIN is not None:
        pytest.skip(PLAIN)
    assert not plain, f"{plain} are not compiled: run `make test` (or pip install -e .)"


def test_setup_compiles_these_modules() -> None:
    """setup.py's list, the Makefile's (what makes it build again) and this one name the same files."""
    text = (ROOT / "setup.py").read_text()
    for name in NATIVE:
        assert f'"{name.replace(".", "/")}.py"' in text
    assert text.count('.py",') == len(NATIVE)
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    line = next(line for line in makefile.splitlines() if line.startswith("NATIVE :="))
    assert line.split(":=", 1)[1].split() == [f"{name.replace('.', '/')}.py" for name in NATIVE]


@pytest.mark.skipif(PLAIN is not None, reason=PLAIN or "")
def test_compiled_modules_rule_as_their_source() -> None:
    """The same sync, far moves and combat round, ruled by the compiled modules and by their
    sources (each read from its .py): the same results, byte for byte."""
    outputs = {}
    for mode in ("compiled", "source"):
        run = subprocess.run(
            [sys.executable, "-c", RULINGS, str(ROOT), mode, ",".join(NATIVE)],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        assert run.returncode == 0, run.stderr
        outputs[mode] = run.stdout.split()
    assert outputs["compiled"][1:] == [".so"] * len(NATIVE)
    assert outputs["source"][1:] == [".py"] * len(NATIVE)
    assert outputs["compiled"][0] == outputs["source"][0]
