"""The README's two commands as a newcomer meets them: the first `make serve` installs without a
wall of packaging warnings, and `make test` runs the JavaScript tests even when a Python test fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
BASH = shutil.which("bash") or "/bin/bash"

pytestmark = pytest.mark.skipif(MAKE is None, reason="no make on this computer")


def test_the_first_make_serve_installs_without_setuptools_editable_warning(tmp_path: Path) -> None:
    """What `make serve` runs before it starts the sidecar, into a fresh venv: a quiet install."""
    venv = tmp_path / "venv"
    result = subprocess.run(
        [
            str(MAKE),
            "--no-print-directory",
            f"VENV={venv}",
            f"PYTHON={sys.executable}",
            f"{venv}/.serve-installed",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    output = result.stdout + result.stderr
    assert (venv / "bin" / "vtt-bridge").exists()
    assert "Please be careful" not in output and "BuildBackendWarning" not in output, output[-3000:]


def test_make_test_runs_the_javascript_tests_after_a_python_test_failed(tmp_path: Path) -> None:
    """The Makefile's own `test` target, with a Python that fails its tests and an npm that notes
    it ran: both run, and make fails."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name in ("pyproject.toml", "setup.py"):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "install-system-deps.sh").write_text(f"#!{BASH}\n", encoding="utf-8")
    (tmp_path / "scripts" / "install-system-deps.sh").chmod(0o755)
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    python = venv_bin / "python"
    python.write_text(
        f'#!{BASH}\nif [ "$1" = -m ] && [ "$2" = pytest ]; then\n'
        f'  echo python-ran >> "{tmp_path}/ran"; exit 1\nfi\nexit 0\n',
        encoding="utf-8",
    )
    python.chmod(0o755)
    modules = tmp_path / "foundry_module" / "node_modules"
    modules.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        (tmp_path / "foundry_module" / name).write_text("{}", encoding="utf-8")
    for stamp in (tmp_path / ".venv" / ".created", tmp_path / ".venv" / ".installed", modules / ".installed"):
        stamp.write_text("", encoding="utf-8")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "npm").write_text(f'#!{BASH}\necho js-ran >> "{tmp_path}/ran"\n', encoding="utf-8")
    (fake / "npm").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        [str(MAKE), "--no-print-directory", "test"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode != 0, result.stdout
    assert (tmp_path / "ran").read_text(encoding="utf-8").split() == ["python-ran", "js-ran"], result.stderr
