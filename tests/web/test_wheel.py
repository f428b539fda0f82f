"""The package as a user installs it: sdist, wheel from the sdist, a fresh venv outside the checkout,
`vtt-bridge serve` from there, and the Foundry module it serves with no flag."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

from tests.cli.test_cli import Running
from tests.test_native import NATIVE, PLAIN
from tests.web.test_pages import named_files
from vtt_bridge import __version__
from vtt_bridge.web import module_files

ROOT = Path(__file__).resolve().parents[2]

NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "node_modules",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    "*.so",
)
"""What a clean clone does not have: the copy the sdist is built from leaves these out."""


def _run(*args: str | Path, cwd: Path) -> None:
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{args}: {result.stdout}\n{result.stderr}"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    bin: Path
    """The venv's scripts folder."""


def outside_env() -> dict[str, str]:
    """The environment with nothing pointing back at the checkout."""
    return {k: v for k, v in os.environ.items() if not k.startswith("VTT_BRIDGE_") and k != "PYTHONPATH"}


@dataclass(frozen=True)
class Build:
    """`python -m build` of a copy of the checkout, running in the background."""

    base: Path
    process: subprocess.Popen[bytes]
    log: Path
    """Its output, both streams."""


_BUILDS: list[Build] = []


def _lower_priority() -> None:
    os.nice(10)  # the tests first, the build on what they leave idle


def start_build() -> None:
    """Copy the checkout and start building its sdist and the wheel from it, once a session: the
    compiled modules (setup.py NATIVE) take a C compiler tens of seconds, so conftest starts this
    as soon as collection finds this module's tests, at a low priority, and the build runs beside
    the other tests (on the core the JavaScript suite leaves idle once it is done)."""
    if _BUILDS:
        return
    base = Path(tempfile.mkdtemp(prefix="vtt-bridge-wheel-"))
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    log_path = base / "build.log"
    with log_path.open("wb") as log:
        # `python -m build`: the sdist first, then the wheel built from the unpacked sdist
        process = subprocess.Popen(
            [sys.executable, "-m", "build", "--outdir", str(base / "dist"), str(source)],
            cwd=base,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_lower_priority if os.name != "nt" else None,
        )
    _BUILDS.append(Build(base, process, log_path))


def end_build() -> None:
    """Stop a build still running and remove its folder (the session's end)."""
    for build in _BUILDS:
        if build.process.poll() is None:
            build.process.kill()
            build.process.wait()
        shutil.rmtree(build.base, ignore_errors=True)
    _BUILDS.clear()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A fresh venv outside the checkout with the wheel built from the sdist (`start_build`; pip's
    cache is reused)."""
    start_build()  # when collection did not start it
    build = _BUILDS[0]
    status = build.process.wait(timeout=900)
    assert status == 0, build.log.read_text(errors="replace")[-4000:]
    base = tmp_path_factory.mktemp("wheel")
    dist = build.base / "dist"
    wheels = list(dist.glob("vtt_bridge-*.whl"))
    # compiled (setup.py NATIVE): a wheel for this Python and platform; else one for any
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    tags = ["py3", "none"] if PLAIN else [tag, tag]
    assert [w.name.split("-")[:4] for w in wheels] == [["vtt_bridge", __version__, *tags]], wheels
    assert list(dist.glob(f"vtt_bridge-{__version__}.tar.gz"))
    target = base / "venv"
    venv.create(target, with_pip=False)  # this pip installs into it (`--python`): ensurepip costs 7 s
    bin_dir = target / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "-q",
        "--disable-pip-version-check",
        wheels[0],
        cwd=base,
    )
    return Installed(wheels[0], bin_dir)


def test_the_wheel_serves_the_module_and_the_zip_holds_every_file_the_manifest_names(
    installed: Installed, tmp_path: Path
) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        carried = {name for name in wheel.namelist() if name.startswith("vtt_bridge/foundry_module/")}
    args = ["--port", "0", "--data-dir", str(tmp_path / "data")]
    running = Running(args, outside_env(), [str(installed.bin / "vtt-bridge")], cwd=tmp_path)
    try:
        manifest_url = running.field("manifest URL")
        with urllib.request.urlopen(manifest_url, timeout=10) as response:
            manifest = json.loads(response.read())
        assert manifest["version"] == __version__
        assert manifest["manifest"] == manifest_url
        with urllib.request.urlopen(manifest["download"], timeout=10) as response:
            data = response.read()
        # the status page's script is package data too (its Undo and Redo buttons)
        script_url = manifest_url.replace("/module.json", "/status.js")
        with urllib.request.urlopen(script_url, timeout=10) as response:
            assert b"sessionStorage" in response.read()
    finally:
        running.stop()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path / "modules")
    installed_module = tmp_path / "modules" / manifest["id"]
    named = named_files(manifest)
    assert named and manifest.get("license") == "LICENSE"
    for relative in [*named, "LICENSE", "module.json"]:
        assert (installed_module / relative).is_file(), f"module.json names {relative}, not in the zip"
    # the same files as the checkout's own module would ship: nothing lost on the way into the wheel
    shipped = {str(p) for p in module_files.runtime_files(ROOT / "foundry_module")}
    in_zip = {str(PurePosixPath(*PurePosixPath(n).parts[1:])) for n in names if not n.endswith("/")}
    assert in_zip == shipped
    assert {f"vtt_bridge/foundry_module/{name}" for name in shipped} == carried


def test_the_installed_package_serves_its_own_copy_of_the_module(
    installed: Installed, tmp_path: Path
) -> None:
    code = "from vtt_bridge.web import module_files; print(module_files.default_module_dir())"
    found = subprocess.run(
        [installed.bin / "python", "-c", code],
        capture_output=True,
        text=True,
        env=outside_env(),
        cwd=tmp_path,
        timeout=60,
        check=True,
    ).stdout.strip()
    assert installed.bin.parent in Path(found).parents, found
    assert ROOT not in Path(found).parents


def _run_installed(installed: Installed, cwd: Path, script: str, *args: str) -> list[str]:
    """The lines `script` prints, run by the wheel's venv outside the checkout (it must succeed)."""
    result = subprocess.run(
        [str(installed.bin / "python"), "-c", script, *args],
        cwd=cwd,
        env=outside_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_installed_wheel_words_a_step_from_the_module_it_carries(
    installed: Installed, tmp_path: Path
) -> None:
    """The status page's sentences come from the wheel's own copy of the module: its sentence code
    and its language files."""
    script = (
        "import json\n"
        "from vtt_bridge.web.module_files import default_module_dir\n"
        "folder = default_module_dir()\n"
        "print(folder)\n"
        "assert (folder / 'scripts' / 'core' / 'chat-cards.mjs').is_file()\n"
        "assert (folder / 'scripts' / 'core' / 'rolls.mjs').is_file()\n"
        "words = json.loads((folder / 'lang' / 'de.json').read_text())\n"
        "print(words['VTTBRIDGE']['Step']['DICE-1']['toRoll'])\n"
    )
    folder, sentence = _run_installed(installed, tmp_path, script)
    assert Path(folder).is_relative_to(installed.bin.parent), folder
    assert sentence == "{actor}: {pool} zu werfen"


@pytest.mark.skipif(PLAIN is not None, reason=PLAIN or "")
def test_the_installed_wheel_rules_with_its_compiled_modules(installed: Installed, tmp_path: Path) -> None:
    """setup.py's NATIVE modules are compiled in the wheel, and the installed package loads them so."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
    script = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    print(importlib.import_module(name).__file__)\n"
    )
    for name, file in zip(NATIVE, _run_installed(installed, tmp_path, script, *NATIVE), strict=True):
        path = Path(file)
        assert path.suffix == ".so" and path.is_relative_to(installed.bin.parent), (name, file)
        assert f"{name.replace('.', '/')}.py" in names  # its source ships beside it
    assert any(n.startswith("vtt_bridge/native__mypyc.") for n in names), names
