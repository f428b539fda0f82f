"""`vtt-bridge` as a user starts it, in a real subprocess: start-up mistakes, the banner, the stop."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_native import PLAIN
from vtt_bridge import __version__
from vtt_bridge.cli.startup import ENGINE_COMPILED, ENGINE_PLAIN, banner, lan_addresses

ENV_KEYS = (
    "HOST",
    "PORT",
    "DATA_DIR",
    "TOKEN",
    "ALLOW_ORIGIN",
    "MAX_FRAME",
    "FRAGMENT_BYTES",
    "LOG_LEVEL",
    "MODULE_DIR",
)
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without any VTT_BRIDGE_* variable, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VTT_BRIDGE_")}
    env.update(extra)
    return env


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vtt_bridge", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env if env is not None else clean_env(),
    )


def assert_startup_mistake(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit status 2, one line on stderr naming each of `words`, no traceback, nothing served."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("vtt-bridge: "), line
    for word in words:
        assert word in line, (word, line)
    assert "listening on" not in result.stdout
    return line


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        yield int(sock.getsockname()[1])


def test_a_port_another_program_holds_is_said_so_and_how_to_pick_another(
    tmp_path: Path, taken_port: int
) -> None:
    """Not a vtt-bridge (a socket that answers no HTTP): the line does not guess one runs there."""
    result = run("serve", "--port", str(taken_port), "--data-dir", str(tmp_path / "data"))
    line = assert_startup_mistake(result, f"port {taken_port} is taken by another program", "--port")
    assert "vtt-bridge already running" not in line and "?" not in line


def test_a_port_a_running_vtt_bridge_holds_points_at_it(tmp_path: Path) -> None:
    first = Running(["--port", "0", "--data-dir", str(tmp_path / "one")], clean_env())
    try:
        port = int(first.field("status page").rsplit(":", 1)[1].strip("/"))
        result = run("serve", "--port", str(port), "--data-dir", str(tmp_path / "two"))
        line = assert_startup_mistake(
            result, f"port {port} is taken by a vtt-bridge already running", "--port"
        )
        assert f"http://127.0.0.1:{port}/" in line
    finally:
        first.stop()


def test_a_second_sidecar_on_one_data_folder_is_told_what_to_do(tmp_path: Path) -> None:
    first = Running(["--port", "0", "--data-dir", str(tmp_path)], clean_env())
    try:
        result = run("serve", "--port", "0", "--data-dir", str(tmp_path))
        assert_startup_mistake(
            result, "in use by another vtt-bridge", "stop the other one", "--data-dir", "VTT_BRIDGE_DATA_DIR"
        )
    finally:
        first.stop()


@pytest.mark.parametrize(
    ("args", "env", "shown"),
    [
        pytest.param(["--allow-origin", "my.forge-vtt.com"], {}, "'my.forge-vtt.com'", id="no scheme"),
        pytest.param(["--allow-origin", "https://my.forge-vtt.com/game"], {}, "/game'", id="a path"),
        pytest.param(["--allow-origin", "*"], {}, "'*'", id="star"),
        pytest.param(
            [], {"VTT_BRIDGE_ALLOW_ORIGIN": "https://ok.example *"}, "VTT_BRIDGE_ALLOW_ORIGIN='*'", id="env"
        ),
    ],
)
def test_an_origin_that_could_never_match_or_would_match_any_is_refused(
    tmp_path: Path, args: list[str], env: dict[str, str], shown: str
) -> None:
    result = run("serve", "--port", "0", "--data-dir", str(tmp_path), *args, env=clean_env(**env))
    assert_startup_mistake(result, shown, "not a browser origin", "scheme://host[:port]")


def test_an_origin_as_a_browser_sends_it_is_taken(tmp_path: Path) -> None:
    args = ["--allow-origin", "https://my.forge-vtt.com", "--allow-origin", "http://192.168.1.20:*"]
    running = Running(["--port", "0", "--data-dir", str(tmp_path), *args], clean_env())
    running.stop()
    assert running.process.returncode == 0


def test_an_empty_token_is_refused_not_replaced(tmp_path: Path) -> None:
    result = run("serve", "--port", "0", "--data-dir", str(tmp_path), "--token", "")
    line = assert_startup_mistake(result, "--token is empty", "leave --token out")
    assert "process list" not in line
    assert not (tmp_path / "token").exists()


def test_schema_into_a_reader_that_leaves_early_ends_quietly() -> None:
    """`vtt-bridge schema | head`: the reader goes away after a few lines; no traceback, status 0."""
    for args in (["schema"], ["schema", "--markdown"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "vtt_bridge", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=clean_env(),
        )
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(200)
        process.stdout.close()
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 0, err
        assert err == "", err


def test_a_taken_port_from_the_environment(tmp_path: Path, taken_port: int) -> None:
    env = clean_env(VTT_BRIDGE_PORT=str(taken_port), VTT_BRIDGE_DATA_DIR=str(tmp_path / "data"))
    assert_startup_mistake(run("serve", env=env), f"port {taken_port} is taken", "VTT_BRIDGE_PORT")


@pytest.mark.parametrize(
    ("args", "env", "shown"),
    [
        pytest.param(["--port", "99999"], {}, "--port 99999", id="flag 99999"),
        pytest.param(["--port", "abc"], {}, "--port abc", id="flag abc"),
        pytest.param(["--port", "-1"], {}, "--port -1", id="flag -1"),
        pytest.param([], {"VTT_BRIDGE_PORT": "99999"}, "VTT_BRIDGE_PORT=99999", id="env 99999"),
        pytest.param([], {"VTT_BRIDGE_PORT": "abc"}, "VTT_BRIDGE_PORT=abc", id="env abc"),
    ],
)
def test_an_invalid_port(tmp_path: Path, args: list[str], env: dict[str, str], shown: str) -> None:
    result = run("serve", "--data-dir", str(tmp_path / "data"), *args, env=clean_env(**env))
    assert_startup_mistake(result, f"{shown} is not a port", "0 to 65535")
    assert not (tmp_path / "data").exists(), "nothing is created before the options are checked"


@pytest.mark.parametrize(
    ("args", "env", "shown"),
    [
        pytest.param(["--log-level", "loud"], {}, "--log-level loud", id="flag"),
        pytest.param([], {"VTT_BRIDGE_LOG_LEVEL": "verbose"}, "VTT_BRIDGE_LOG_LEVEL=verbose", id="env"),
    ],
)
def test_an_unknown_log_level(tmp_path: Path, args: list[str], env: dict[str, str], shown: str) -> None:
    result = run("serve", "--data-dir", str(tmp_path / "data"), *args, env=clean_env(**env))
    assert_startup_mistake(result, f"{shown} is not a log level", "debug, info, warning, error, critical")


def test_an_invalid_frame_cap_from_the_environment(tmp_path: Path) -> None:
    env = clean_env(VTT_BRIDGE_MAX_FRAME="1MB", VTT_BRIDGE_DATA_DIR=str(tmp_path))
    assert_startup_mistake(run("serve", env=env), "VTT_BRIDGE_MAX_FRAME=1MB")


@pytest.mark.parametrize(
    ("args", "env", "shown"),
    [
        pytest.param(["--fragment-bytes", "-1"], {}, "--fragment-bytes -1", id="flag"),
        pytest.param([], {"VTT_BRIDGE_FRAGMENT_BYTES": "1MiB"}, "VTT_BRIDGE_FRAGMENT_BYTES=1MiB", id="env"),
    ],
)
def test_an_invalid_fragment_size(tmp_path: Path, args: list[str], env: dict[str, str], shown: str) -> None:
    result = run("serve", "--data-dir", str(tmp_path / "data"), *args, env=clean_env(**env))
    assert_startup_mistake(result, f"{shown} is not a whole number of bytes")


def test_a_fragment_size_under_256_bytes(tmp_path: Path) -> None:
    result = run("serve", "--data-dir", str(tmp_path / "data"), "--fragment-bytes", "4", env=clean_env())
    assert_startup_mistake(result, "--fragment-bytes 4 is too small", "at least 256 bytes")


def test_a_data_path_that_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "data"
    path.write_text("not a folder\n", encoding="utf-8")
    result = run("serve", "--port", "0", "--data-dir", str(path))
    assert_startup_mistake(result, str(path), "is a file", "--data-dir", "VTT_BRIDGE_DATA_DIR")
    assert path.read_text(encoding="utf-8") == "not a folder\n"


def test_a_data_folder_that_cannot_be_created(tmp_path: Path) -> None:
    """Its parent is a file (as root too); without root, also a parent without write permission."""
    blocker = tmp_path / "file"
    blocker.write_text("x\n", encoding="utf-8")
    result = run("serve", "--port", "0", "--data-dir", str(blocker / "data"))
    assert_startup_mistake(result, "cannot create the data folder", str(blocker / "data"), "--data-dir")
    if not IS_ROOT:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        result = run("serve", "--port", "0", "--data-dir", str(locked / "data"))
        assert_startup_mistake(result, "cannot create the data folder", "Permission denied")


def _unwritable_folder(tmp_path: Path) -> Path:
    if not IS_ROOT:
        folder = tmp_path / "read-only"
        folder.mkdir(mode=0o500)
        return folder
    if Path("/sys/kernel").is_dir():
        return Path("/sys/kernel")  # sysfs refuses new files, even to root
    pytest.skip("no folder that root cannot write in on this system")


def test_a_data_folder_that_cannot_be_written(tmp_path: Path) -> None:
    folder = _unwritable_folder(tmp_path)
    result = run("serve", "--port", "0", "--data-dir", str(folder))
    assert_startup_mistake(result, "cannot write in the data folder", str(folder), "--data-dir")


@pytest.mark.parametrize("kind", ["a folder", "not text", "no permission"])
def test_an_unreadable_token_file(tmp_path: Path, kind: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    token = data / "token"
    if kind == "a folder":
        token.mkdir()
    elif kind == "not text":
        token.write_bytes(b"\xff\xfe\x00token")
    else:
        if IS_ROOT:
            pytest.skip("root reads a file without read permission")
        token.write_text("secret\n", encoding="utf-8")
        token.chmod(0)
    result = run("serve", "--port", "0", "--data-dir", str(data))
    assert_startup_mistake(result, "token file", str(token), "--token")


def test_help_and_schema_work_whatever_the_environment_holds(tmp_path: Path) -> None:
    junk = {f"VTT_BRIDGE_{key}": "\u00ff not valid \x01" for key in ENV_KEYS}
    junk["VTT_BRIDGE_PORT"] = "abc"
    junk["VTT_BRIDGE_DATA_DIR"] = str(tmp_path / "file")
    (tmp_path / "file").write_text("x\n", encoding="utf-8")
    env = clean_env(**junk)
    for args in (["--help"], ["serve", "--help"], ["--version"]):
        result = run(*args, env=env)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
    assert "--port" in run("serve", "--help", env=env).stdout
    schema = run("schema", env=env)
    assert schema.returncode == 0, schema.stderr
    assert json.loads(schema.stdout)["title"] == "vtt-bridge protocol v1"


def test_a_usage_mistake_is_one_line_with_status_2() -> None:
    assert_startup_mistake(run("serve", "--no-such-flag"), "--no-such-flag", "--help")
    assert_startup_mistake(run(), "command")


# --- the banner and the stop ----------------------------------------------------------------------


class Running:
    """`vtt-bridge serve` in a subprocess, read up to the end of its banner."""

    def __init__(
        self, args: list[str], env: dict[str, str], command: list[str] | None = None, cwd: Path | None = None
    ) -> None:
        self.process = subprocess.Popen(
            [*(command or [sys.executable, "-m", "vtt_bridge"]), "serve", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
        )
        self.banner: list[str] = []
        assert self.process.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.banner.append(line.rstrip("\n"))
            if line.lstrip().startswith("stop:"):  # the banner's last line
                return
        self.process.kill()
        raise AssertionError(f"no banner: {self.banner} {self.process.stderr and self.process.stderr.read()}")

    def field(self, label: str) -> str:
        for line in self.banner:
            match = re.match(rf"\s+{re.escape(label)}:\s+(\S+)", line)
            if match:
                return match.group(1)
        raise AssertionError(f"no {label!r} in the banner: {self.banner}")

    def stop(self) -> tuple[str, str]:
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=30)
        return out, err


def get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read()


def test_the_banner_names_every_url_the_token_the_folder_and_how_to_stop(tmp_path: Path) -> None:
    """With --port 0, every URL carries the real port; each answers; the token is the kept one."""
    data = tmp_path / "data"
    running = Running(["--port", "0", "--data-dir", str(data)], clean_env())
    try:
        match = re.fullmatch(
            rf"vtt-bridge {re.escape(__version__)} listening on ws://127\.0\.0\.1:(\d+)/ws", running.banner[0]
        )
        assert match is not None, running.banner[0]
        port = int(match.group(1))
        assert port != 0
        assert running.field("token") == (data / "token").read_text(encoding="utf-8").strip()
        assert running.field("data folder") == str(data)
        status_url = running.field("status page")
        assert status_url == f"http://127.0.0.1:{port}/"
        manifest_url = running.field("manifest URL")
        assert manifest_url == f"http://127.0.0.1:{port}/module.json"
        zip_url = running.field("module zip")
        assert zip_url == f"http://127.0.0.1:{port}/module.zip"
        assert get(status_url)[0] == 200
        status, body = get(manifest_url)
        assert status == 200 and json.loads(body)["download"] == zip_url
        assert get(zip_url)[0] == 200
        engine = next(line for line in running.banner if line.lstrip().startswith("rules engine:"))
        assert engine.split(":", 1)[1].strip() == (ENGINE_COMPILED if PLAIN is None else ENGINE_PLAIN)
        assert running.field("stop") == "Ctrl-C"
    finally:
        out, err = running.stop()
    assert running.process.returncode == 0, err
    assert "warning" not in err, "127.0.0.1 is loopback"
    assert out.splitlines() == ["vtt-bridge stopped: connections closed, every ruling stored"]
    assert "Traceback" not in err


def test_the_banner_says_when_the_rules_run_as_plain_python() -> None:
    """An install without a C compiler (setup.py) says so before the banner's last line, and how to
    compile it."""
    lines = banner("1.0", ["127.0.0.1"], 30500, "t", Path("/data"), "kept", compiled=False)
    assert lines[-2] == f"  rules engine:  {ENGINE_PLAIN}"
    assert "python3-dev" in ENGINE_PLAIN and lines[-1].lstrip().startswith("stop:")
    assert banner("1.0", ["127.0.0.1"], 30500, "t", Path("/data"), "kept")[-2].endswith(ENGINE_COMPILED)


def test_the_banner_warns_when_listening_beyond_this_computer(tmp_path: Path) -> None:
    """`--host 0.0.0.0`: the banner's URLs are the ones another computer uses (this computer's own
    address), each answers with that address as the Host, and the warning names `--allow-host`."""
    lan = lan_addresses(["0.0.0.0"])
    running = Running(["--host", "0.0.0.0", "--port", "0", "--data-dir", str(tmp_path)], clean_env())
    try:
        token = running.field("token").split()[0]
        status = running.field("status page")
        port = int(status.split("/")[2].rsplit(":", 1)[1])
        assert status.endswith(f"/?token={token}")  # off loopback the page asks for it
        shown = lan[0] if lan else "127.0.0.1"
        assert running.banner[0].endswith(f"listening on ws://{shown}:{port}/ws"), running.banner
        assert status == f"http://{shown}:{port}/?token={token}"
        assert get(status)[0] == 200
        assert get(f"http://127.0.0.1:{port}/?token={token}")[0] == 200
        manifest = running.field("manifest URL")
        assert manifest == f"http://{shown}:{port}/module.json"
        status_code, body = get(manifest)
        assert status_code == 200 and json.loads(body)["download"] == running.field("module zip")
        assert get(running.field("module zip"))[0] == 200
    finally:
        _, err = running.stop()
    warning = [line for line in err.splitlines() if "warning" in line]
    assert len(warning) == 1, err
    assert "listening on 0.0.0.0, reachable from other computers" in warning[0]
    assert "--allow-host" in warning[0] and "--host 127.0.0.1" in warning[0]


def test_this_computers_own_address_passes_the_host_check_a_name_does_not(tmp_path: Path) -> None:
    lan = lan_addresses(["0.0.0.0"])
    if not lan:
        pytest.skip("this computer has no address beyond loopback")
    running = Running(["--host", "0.0.0.0", "--port", "0", "--data-dir", str(tmp_path)], clean_env())
    try:
        port = int(running.banner[0].rsplit(":", 1)[1].split("/")[0])
        address = lan[0]
        for host, expected in ((f"{address}:{port}", 200), (f"gm-pc.example:{port}", 403)):
            request = urllib.request.Request(f"http://{address}:{port}/module.json", headers={"Host": host})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    code = response.status
            except urllib.error.HTTPError as refused:
                code = refused.code
            assert code == expected, host
    finally:
        running.stop()


def test_a_given_token_is_shown_as_given(tmp_path: Path) -> None:
    env = clean_env(VTT_BRIDGE_TOKEN="my-own-token-123")
    running = Running(["--port", "0", "--data-dir", str(tmp_path)], env)
    try:
        assert running.field("token") == "my-own-token-123"
        assert not (tmp_path / "token").exists()
    finally:
        running.stop()


def test_a_stop_after_the_reader_of_the_banner_left_is_quiet(tmp_path: Path) -> None:
    """`vtt-bridge serve | head`: the stop line has nowhere to go, and that is no traceback."""
    running = Running(["--port", "0", "--data-dir", str(tmp_path)], clean_env())
    assert running.process.stdout is not None and running.process.stderr is not None
    running.process.stdout.close()
    running.process.send_signal(signal.SIGTERM)
    err = running.process.stderr.read()
    assert running.process.wait(timeout=30) == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err


@pytest.mark.parametrize(
    ("args", "env", "most"),
    [
        pytest.param(["--fragment-bytes", "512"], {}, 512, id="flag"),
        pytest.param([], {"VTT_BRIDGE_FRAGMENT_BYTES": "0"}, None, id="env-never"),
    ],
)
async def test_the_fragment_size_is_the_flags_or_the_variables(
    tmp_path: Path, args: list[str], env: dict[str, str], most: int | None
) -> None:
    """A sync's reply of some 10 KB: in fragments of at most 512 bytes with `--fragment-bytes 512`,
    in one frame with `VTT_BRIDGE_FRAGMENT_BYTES=0`."""
    from tests.conftest import world_state
    from tests.server.test_fragments import RawPeer

    running = Running(["--port", "0", "--data-dir", str(tmp_path), *args], clean_env(**env))
    try:
        port = int(running.field("status page").rsplit(":", 1)[1].strip("/"))
        peer = await RawPeer.open(port)
        hello = {"token": running.field("token").split()[0], "world": "w", "client": {"name": "raw"}}
        await peer.request("hello", hello, "h")
        assert json.loads((await peer.message())[0])["type"] == "welcome"
        await peer.request("sync", {"state": world_state(actors=20)}, "s")
        data, frames = await peer.message()
        peer.close()
        assert json.loads(data)["re"] == "s" and len(data) > 5000
        if most is None:
            assert len(frames) == 1
        else:
            assert len(frames) > 5 and all(len(frame.data) <= most for frame in frames)
    finally:
        running.stop()


def test_every_serve_option_names_its_variable() -> None:
    """The README: every option also reads an environment variable (`--seed` had none)."""
    from vtt_bridge.cli.main import _parser

    serve = next(
        action.choices["serve"]
        for action in _parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    for action in serve._actions:
        if action.option_strings == ["-h", "--help"]:
            continue
        name = action.option_strings[0].removeprefix("--").upper().replace("-", "_")
        assert f"[$VTT_BRIDGE_{name}" in (action.help or ""), action.option_strings


async def _first_roll(port: int, token: str) -> list[int]:
    from tests.conftest import world_state
    from tests.server.test_fragments import RawPeer

    peer = await RawPeer.open(port)
    try:
        await peer.request("hello", {"token": token, "world": "w", "client": {"name": "raw"}}, "h")
        await peer.message()
        await peer.request("sync", {"state": world_state(actors=1)}, "s")
        await peer.message()
        roll = {"kind": "roll", "actor": "actor0", "pool": 20}
        await peer.request("action", roll, "r")
        reply = json.loads((await peer.message())[0])
        assert reply["type"] == "result", reply
        dice: list[int] = reply["payload"]["rolls"][0]["dice"]
        return dice
    finally:
        peer.close()


async def test_the_seed_is_the_flags_or_the_variables(tmp_path: Path) -> None:
    """The same seed, as `--seed` or `VTT_BRIDGE_SEED`, rolls the same dice; a bad one is refused."""
    rolls = []
    for i, (args, env) in enumerate(((["--seed", "7"], {}), ([], {"VTT_BRIDGE_SEED": "7"}))):
        running = Running(["--port", "0", "--data-dir", str(tmp_path / str(i)), *args], clean_env(**env))
        try:
            port = int(running.field("status page").rsplit(":", 1)[1].strip("/"))
            rolls.append(await _first_roll(port, running.field("token").split()[0]))
        finally:
            running.stop()
    assert rolls[0] == rolls[1] and len(rolls[0]) >= 20
    bad = run("serve", "--port", "0", "--data-dir", str(tmp_path), env=clean_env(VTT_BRIDGE_SEED="x"))
    assert_startup_mistake(bad, "VTT_BRIDGE_SEED=x", "whole number")
