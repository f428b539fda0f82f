"""The README's two commands as a newcomer meets them: the first `make serve` installs without a
wall of packaging warnings, and `make test` runs both suites at once, each to its end whatever the
other does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_native import NATIVE

ROOT = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
BASH = shutil.which("bash") or "/bin/bash"

pytestmark = pytest.mark.skipif(MAKE is None, reason="no make on this computer")


def test_the_first_make_serve_installs_without_setuptools_editable_warning(tmp_path: Path) -> None:
    """What `make serve` runs before it starts the sidecar, into a fresh venv: a quiet install.
    Plain Python (`VTT_BRIDGE_PURE`): the compiled install is the suite's own venv, built by the
    same command, and tests/web/test_wheel.py builds the compiled wheel."""
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
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}, "VTT_BRIDGE_PURE": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    output = result.stdout + result.stderr
    assert (venv / "bin" / "vtt-bridge").exists()
    assert "Please be careful" not in output and "BuildBackendWarning" not in output, output[-3000:]


def _fake_checkout(tmp_path: Path, failing: str) -> dict[str, str]:
    """The Makefile beside stand-ins for what `make test` runs: a Python whose pytest and an npm
    whose test each note that they ran (`failing` of them exits 1). Each waits for the other to
    have started (a generous 60 s, a bound against a hang only): one suite run after the other
    would find the other not started. Returns the environment that finds the stand-in npm."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name in ("pyproject.toml", "setup.py", *(f"{m.replace('.', '/')}.py" for m in NATIVE)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")  # older than the stamps made below
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "install-system-deps.sh").write_text(f"#!{BASH}\n", encoding="utf-8")
    (tmp_path / "scripts" / "install-system-deps.sh").chmod(0o755)

    def suite(me: str, other: str) -> str:
        status = 1 if failing == me else 0
        return (
            f'touch "{tmp_path}/{me}-started"\n'
            f'for _ in $(seq 1200); do [ -e "{tmp_path}/{other}-started" ] && break; sleep 0.05; done\n'
            f'if [ -e "{tmp_path}/{other}-started" ]; then echo {me}-ran-beside-{other} >> "{tmp_path}/ran"\n'
            f'else echo {me}-ran-alone >> "{tmp_path}/ran"; fi\n'
            f"exit {status}\n"
        )

    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    python = venv_bin / "python"
    python.write_text(
        f'#!{BASH}\nif [ "$1" = -m ] && [ "$2" = pytest ]; then\n{suite("python", "js")}fi\nexit 0\n',
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
    (fake / "npm").write_text(f"#!{BASH}\n{suite('js', 'python')}", encoding="utf-8")
    (fake / "npm").chmod(0o755)
    return {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("failing", ["python", "js"])
def test_make_test_runs_both_suites_at_once_and_fails_when_either_does(tmp_path: Path, failing: str) -> None:
    """The Makefile's own `test` target: the Python and the JavaScript suites run at the same time
    (each saw the other started), each to its end when the other fails, and make fails; the closing
    line names the one that failed."""
    env = _fake_checkout(tmp_path, failing)
    result = subprocess.run(
        [str(MAKE), "--no-print-directory", "test"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode != 0, result.stdout
    ran = sorted((tmp_path / "ran").read_text(encoding="utf-8").split())
    assert ran == ["js-ran-beside-python", "python-ran-beside-js"], (ran, result.stderr)
    summary = result.stdout.splitlines()[-1]
    assert summary == (
        "make test: Python tests FAILED, JavaScript tests ok"
        if failing == "python"
        else "make test: Python tests ok, JavaScript tests FAILED"
    ), result.stdout
