"""scripts/install-system-deps.sh decides from `node --version` (20 or newer kept) and apt's
candidate for `nodejs` what to install: run in `--dry-run` on a PATH of fakes, it prints its plan
and installs nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-system-deps.sh"
BASH = shutil.which("bash") or "/bin/bash"


def fake_bin(tmp_path: Path, node: str | None, candidate: str | None, npm: bool = True) -> Path:
    """A PATH folder with the few real tools the script reads with (sed, head), a fake `node`
    printing `node` (absent when None), a fake `apt-cache` offering `candidate`, npm and chromium."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("sed", "head"):
        real = shutil.which(tool)
        assert real, tool
        (folder / tool).symlink_to(real)

    def script(name: str, body: str) -> None:
        path = folder / name
        path.write_text(f"#!{BASH}\n{body}\n", encoding="utf-8")
        path.chmod(0o755)

    if node is not None:
        script("node", f"echo {node}")
    if candidate is not None:
        script("apt-cache", f'printf "nodejs:\\n  Installed: (none)\\n  Candidate: {candidate}\\n"')
    if npm:
        script("npm", "echo 10.0.0")
    script("chromium", "echo Chromium 1")
    return folder


def run(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BASH, *command], env={"PATH": str(folder)}, capture_output=True, text=True, timeout=30, check=False
    )


@pytest.mark.parametrize(
    ("node", "ok"),
    [
        ("v18.20.4", False),
        ("v19.9.0", False),
        ("v20.1.0", True),
        ("v22.20.0", True),
        ("v100.0.0", True),
        ("garbled", False),
        ("", False),
    ],
)
def test_node_ok_reads_the_major_version_of_node_on_path(tmp_path: Path, node: str, ok: bool) -> None:
    folder = fake_bin(tmp_path, node, None)
    answer = run(folder, "-c", f'source "{SCRIPT}"; if node_ok; then echo ok; else echo old; fi')
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == ("ok" if ok else "old")


@pytest.mark.parametrize(
    ("node", "candidate", "npm", "planned"),
    [
        ("v20.1.0", "18.20.4+dfsg-1~deb12u3", True, []),  # a Node 20 on PATH is kept
        ("v18.20.4", "18.20.4+dfsg-1~deb12u3", True, ["wheel"]),  # Debian 12: apt has only 18
        ("v18.20.4", "20.19.2+dfsg-1", True, ["apt nodejs", "apt npm"]),  # Debian 13: apt has 20
        (None, "1:22.3.0-1", True, ["apt nodejs", "apt npm"]),  # no node; an epoch in the version
        (None, None, True, ["wheel"]),  # no node, no apt
        ("v20.1.0", "18.20.4+dfsg-1~deb12u3", False, ["wheel"]),  # node 20 without npm
    ],
)
def test_the_plan_installs_node_20_only_when_missing_or_too_old(
    tmp_path: Path, node: str | None, candidate: str | None, npm: bool, planned: list[str]
) -> None:
    folder = fake_bin(tmp_path, node, candidate, npm)
    answer = run(folder, str(SCRIPT), "--dry-run")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.splitlines() == planned


def test_a_missing_chromium_is_planned_from_apt(tmp_path: Path) -> None:
    folder = fake_bin(tmp_path, "v20.1.0", None)
    (folder / "chromium").unlink()
    answer = run(folder, str(SCRIPT), "--dry-run")
    assert answer.stdout == "apt chromium\n", answer
