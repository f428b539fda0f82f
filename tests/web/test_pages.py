"""The sidecar's pages over real HTTP: the status page, and the Foundry module it serves for install."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import io
import json
import os
import re
import time
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from tests.conftest import TOKEN, Peer, damage, world_state
from vtt_bridge import __version__
from vtt_bridge.cli.app import create_app
from vtt_bridge.server.bridge import BRIDGE, RESTORED_PER_WORLD, Config, RulingRecord
from vtt_bridge.web import module_files, pages

ROOT = Path(__file__).resolve().parents[2]
MODULE_DIR = ROOT / "foundry_module"

Client = TestClient[web.Request, web.Application]
Serve = Callable[[Path], Awaitable[Client]]


async def joined(server: Client, world: str, name: str) -> Peer:
    """A websocket peer welcomed into `world` under the client name `name`."""
    peer = Peer(await server.ws_connect("/ws"))
    reply = await peer.request("hello", {"token": TOKEN, "world": world, "client": {"name": name}})
    assert reply["type"] == "welcome", reply
    return peer


_SAID = re.compile(
    r'<span data-say="[^"]*"(?: data-say-args="[^"]*")?>((?:(?!<span|</span>).)*?)</span>', re.S
)


def plain(text: str) -> str:
    """The page as a reader without the script sees it: the English inside each `data-say` span
    (the words the page's script puts there in the reader's language), the spans removed."""
    while True:
        stripped = _SAID.sub(r"\1", text)
        if stripped == text:
            return text
        text = stripped


async def page(server: Client) -> str:
    """The status page's HTML, its `data-say` spans unwrapped (`plain`)."""
    response = await server.get("/")
    assert response.status == 200
    assert response.content_type == "text/html"
    return plain(await response.text())


@pytest.fixture
async def serve(config: Config, start: Any, monkeypatch: pytest.MonkeyPatch) -> Serve:
    """Start the real app with its module folder at a given path (as `$VTT_BRIDGE_MODULE_DIR` sets it)."""

    async def _serve(folder: Path) -> Client:
        monkeypatch.setenv(module_files.MODULE_DIR_ENV, str(folder))
        client: Client = await start(data_dir=config.data_dir)
        return client

    return _serve


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


SMALL_MODULE = {
    "module.json": json.dumps(
        {
            "id": "vtt-bridge",
            "title": "t",
            "version": "0.0.1",
            "esmodules": ["scripts/main.mjs"],
            "styles": ["styles/s.css"],
            "languages": [{"lang": "en", "name": "English", "path": "lang/en.json"}],
        }
    ),
    "scripts/main.mjs": "export const a = 1;\n",
    "styles/s.css": "a {}\n",
    "lang/en.json": "{}\n",
    "templates/card.hbs": "<p>{{x}}</p>\n",
    "tests/unit/a.test.mjs": "test\n",
    "node_modules/ws/index.js": "x\n",
    "types/foundry.d.ts": "x\n",
    "package.json": "{}\n",
    "package-lock.json": "{}\n",
    "tsconfig.json": "{}\n",
    "eslint.config.mjs": "x\n",
    ".eslintcache": "x\n",
    "debug-scratch.mjs": 'import "./tests/unit/a.test.mjs";\n',
    "README.md": "# readme\n",
    "scripts/.DS_Store": "x\n",
}


def names_in(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.namelist()


def named_files(manifest: dict[str, Any]) -> list[str]:
    """Every file a Foundry manifest names (esmodules, scripts, styles, languages[].path)."""
    named = [*manifest.get("esmodules", []), *manifest.get("scripts", []), *manifest.get("styles", [])]
    named += [language["path"] for language in manifest.get("languages", [])]
    return named


# --- the status page ---------------------------------------------------------------------------


async def test_status_page_lists_connected_worlds_clients_revs_and_a_rulings_steps(server: Client) -> None:
    gm = await joined(server, "w1", "GM Alice")
    await joined(server, "w1", "Player Bob")
    await joined(server, "w2", "Carol")
    assert (await gm.request("sync", {"state": world_state()}))["type"] == "result"
    reply = await gm.action(damage("actor0", 3, "L"))
    assert reply["type"] == "result", reply
    text = await page(server)
    assert f"vtt-bridge {__version__}" in text
    row_w1 = re.search(r"<tr><td><code>w1</code></td><td>(\d+)</td><td>(.*?)</td></tr>", text)
    assert row_w1 is not None, text
    assert row_w1.group(1) == str(reply["payload"]["rev"]) == "2"
    assert row_w1.group(2) == "2: GM Alice, Player Bob"
    row_w2 = re.search(r"<tr><td><code>w2</code></td><td>(\d+)</td><td>(.*?)</td></tr>", text)
    assert row_w2 is not None and row_w2.groups() == ("0", "1: Carol")
    heading = '<code>damage</code> → Actor 0</span> <span class="muted">in <code>w1</code>, rev 2'
    ruling = text.split(heading, 1)
    assert len(ruling) == 2, "the damage ruling is headed by its subject, world and rev"
    steps = reply["payload"]["log"]
    assert any(step["rule"] == "HEALTH-2" for step in steps)
    # each step carries itself as data for the page's script (which words it with the module's
    # code: foundry_module/tests/status-page.test.mjs), and the sidecar's English text by name
    items = step_items(ruling[1].split('<div class="ruling', 1)[0])
    assert [item[1] for item in items] == steps, items
    assert [item[0] for item in items] == [step["rule"] for step in steps]
    assert all("actor0" not in said for _, _, said in items), items
    # the world's table: each actor, its Health boxes drawn by shape, status and Willpower
    table = re.search(r"<tr><td>Actor 0</td><td>(.*?)</td><td>(\w+)</td><td>(\d+/\d+)</td>", text)
    assert table is not None, text
    assert table.group(1).count('class="box lethal">✕<') == 3
    assert table.group(1).count('class="box healthy">□<') == 4
    assert table.group(2) == "lightly"
    assert "Who locates whom: 0 unlocated, 0 approximate, 2 pinpointed." in text
    assert re.search(r"<code>http://127\.0\.0\.1:\d+/module\.zip</code>", text)
    # without its script the page still refreshes itself; with it, the script does (keeping the
    # token dialog open while the GM types)
    assert '<noscript><meta http-equiv="refresh" content="10"></noscript>' in text
    assert '<script type="module" src="/status.js"></script>' in text
    assert '<main data-lang="en">' in text
    main = re.search(r'<div id="step-names" hidden data-names="([^"]*)"></div>', text)
    assert main is not None and json.loads(html.unescape(main.group(1)))["actor0"] == "Actor 0"


async def test_status_page_shows_at_most_page_steps_of_a_crowded_ruling_and_counts_the_rest(
    server: Client,
) -> None:
    bridge = server.app[BRIDGE]
    log = [{"rule": "DET-8", "text": f"contest {i}"} for i in range(pages.PAGE_STEPS + 150)]
    bridge.recent.append(RulingRecord("w1", 7, "round", log, time.time()))
    text = await page(server)
    assert text.count('<span class="rule">DET-8</span>') == pages.PAGE_STEPS
    assert f"contest {pages.PAGE_STEPS - 1}<" in text and f"contest {pages.PAGE_STEPS}<" not in text
    assert "… and 150 more steps" in text


async def test_status_page_shows_newest_ruling_first_and_drops_a_client_that_left(server: Client) -> None:
    gm = await joined(server, "w1", "GM")
    leaver = await joined(server, "w1", "Leaver")
    await gm.request("sync", {"state": world_state()})
    await gm.action(damage("actor1", 1, "B"))
    assert "Leaver" in await page(server)
    await leaver.ws.close()
    for _ in range(1500):  # the server sees the close on its own schedule
        text = await page(server)
        if "Leaver" not in text:
            break
        await asyncio.sleep(0.02)
    assert "Leaver" not in text
    assert text.index("in <code>w1</code>, rev 2") < text.index("in <code>w1</code>, rev 1")


async def test_status_page_never_shows_the_token(server: Client) -> None:
    peer = await joined(server, "w1", f"pasted {TOKEN} here")
    await peer.request("sync", {"state": world_state()})
    await peer.action(damage("actor0", 1, "L"))
    text = await page(server)
    assert "pasted [token hidden] here" in text
    assert TOKEN not in text
    assert TOKEN[:8] not in text


async def test_status_page_escapes_what_clients_send(server: Client) -> None:
    await joined(server, "w1", "<script>alert('x')</script>")
    text = await page(server)
    assert "<script>" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in text


async def test_status_page_links_the_manifest_url_and_the_module_zip_download(server: Client) -> None:
    """Hosted Foundry cannot fetch from 127.0.0.1: the GM downloads the zip in the browser."""
    text = await page(server)
    assert f"<code>http://127.0.0.1:{server.port}/module.json</code>" in text
    link = re.search(r'<a href="(/module\.zip)" download id="module-zip">', text)
    assert link is not None, text
    response = await server.get(link.group(1))
    assert response.status == 200 and response.content_type == "application/zip"
    assert "vtt-bridge/module.json" in names_in(await response.read())


async def test_status_page_before_anything_happened(server: Client) -> None:
    text = await page(server)
    assert "No world yet." in text
    assert "No ruling yet." in text


# --- the module, from the project's foundry_module/ ---------------------------------------------


async def test_module_json_points_manifest_and_download_at_the_server(server: Client) -> None:
    response = await server.get("/module.json")
    assert response.status == 200
    assert response.content_type == "application/json"
    served = await response.json()
    base = f"http://127.0.0.1:{server.port}"
    assert served["manifest"] == f"{base}/module.json"
    assert served["download"] == f"{base}/module.zip"
    on_disk = json.loads((MODULE_DIR / "module.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in served.items() if k not in ("manifest", "download")} == {
        k: v for k, v in on_disk.items() if k not in ("manifest", "download")
    }


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        pytest.param("192.168.1.20:30500", "http://192.168.1.20:30500", id="a LAN address"),
        pytest.param("sidecar.local:8080", "http://sidecar.local:8080", id="a host name"),
        pytest.param("[::1]:30500", "http://[::1]:30500", id="IPv6"),
        pytest.param('evil"<x>:1', "http://127.0.0.1:30500", id="malformed: the configured address"),
    ],
)
async def test_module_json_urls_follow_the_host_header(config: Config, host: str, expected: str) -> None:
    """Each of these hosts named with `--allow-host` (the Host check refuses any other)."""
    allowed = replace(config, allow_hosts=("192.168.1.20", "sidecar.local", 'evil"<x>'))
    server = TestClient(TestServer(create_app(allowed), host="127.0.0.1"))
    await server.start_server()
    try:
        response = await server.get("/module.json", headers={"Host": host})
        served = await response.json()
    finally:
        await server.close()
    assert served["manifest"] == f"{expected}/module.json"
    assert served["download"] == f"{expected}/module.zip"


async def test_module_zip_from_a_running_sidecar_installs_with_every_named_file(
    server: Client, tmp_path: Path
) -> None:
    manifest_url = f"http://127.0.0.1:{server.port}/module.json"
    # what Foundry does: read the manifest at the URL the GM pasted, download its `download`, unzip
    async with aiohttp.ClientSession() as session:
        async with session.get(manifest_url) as response:
            manifest = await response.json()
        async with session.get(manifest["download"]) as response:
            assert response.status == 200
            assert response.content_type == "application/zip"
            data = await response.read()
    modules = tmp_path / "Data" / "modules"
    modules.mkdir(parents=True)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        for name in names:
            assert not PurePosixPath(name).is_absolute() and ".." not in PurePosixPath(name).parts, name
        archive.extractall(modules)
    assert {PurePosixPath(name).parts[0] for name in names} == {"vtt-bridge"}
    installed = modules / "vtt-bridge"
    found = json.loads((installed / "module.json").read_text(encoding="utf-8"))
    assert found["id"] == "vtt-bridge"
    assert found["manifest"] == manifest_url
    assert found["download"] == manifest["download"]
    named = named_files(found)
    assert named, "the manifest names its files"
    for relative in named:
        assert (installed / relative).is_file(), f"module.json names {relative}, missing from the zip"
    # what the shipped scripts load at run time is shipped too: relative imports and templates
    for script in installed.rglob("*.mjs"):
        source = script.read_text(encoding="utf-8")
        for target in re.findall(r"""(?:from\s+|import\s*\(\s*)["'](\.{1,2}/[^"']+)["']""", source):
            assert (script.parent / target).resolve().is_file(), f"{script.name} imports missing {target}"
        for target in re.findall(r"modules/(?:\$\{MODULE_ID\}|vtt-bridge)/([\w./-]+\.\w+)", source):
            assert (installed / target).is_file(), f"{script.name} loads missing {target}"
    for name in names:
        parts = PurePosixPath(name).parts[1:]
        assert not parts or parts[0] not in {"tests", "node_modules", "types"}, name
        assert not re.fullmatch(r"package.*\.json", PurePosixPath(name).name), name


async def test_module_zip_is_deterministic_and_cached(server: Client) -> None:
    first = await (await server.get("/module.zip")).read()
    second = await (await server.get("/module.zip")).read()
    assert first == second
    assert server.app is not None
    assert server.app[pages.MODULE].builds == 1
    with zipfile.ZipFile(io.BytesIO(first)) as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {module_files.ZIP_TIME}


# --- the module from a folder of the test's own --------------------------------------------------


async def test_module_zip_ships_runtime_files_and_leaves_development_files_out(
    serve: Serve, tmp_path: Path
) -> None:
    folder = tmp_path / "mod"
    write(folder, SMALL_MODULE)
    client = await serve(folder)
    data = await (await client.get("/module.zip")).read()
    assert names_in(data) == [
        "vtt-bridge/",
        "vtt-bridge/README.md",
        "vtt-bridge/lang/",
        "vtt-bridge/lang/en.json",
        "vtt-bridge/module.json",
        "vtt-bridge/scripts/",
        "vtt-bridge/scripts/main.mjs",
        "vtt-bridge/styles/",
        "vtt-bridge/styles/s.css",
        "vtt-bridge/templates/",
        "vtt-bridge/templates/card.hbs",
    ]


async def test_served_manifest_and_zip_carry_the_package_version(serve: Serve, tmp_path: Path) -> None:
    """One source of truth: the package's version, whatever the folder's module.json says, so Foundry
    offers the module's update once the sidecar is upgraded."""
    folder = tmp_path / "mod"
    write(folder, SMALL_MODULE)
    assert json.loads(SMALL_MODULE["module.json"])["version"] != __version__
    client = await serve(folder)
    assert (await (await client.get("/module.json")).json())["version"] == __version__
    data = await (await client.get("/module.zip")).read()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert json.loads(archive.read("vtt-bridge/module.json"))["version"] == __version__


def test_the_module_folders_own_manifest_names_the_package_version_and_license() -> None:
    """A module copied by hand (not served) says the same version, and its license is the project's."""
    on_disk = json.loads((MODULE_DIR / "module.json").read_text(encoding="utf-8"))
    assert on_disk["version"] == __version__
    assert on_disk["license"] == "LICENSE"
    assert (MODULE_DIR / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()


async def test_module_zip_is_rebuilt_when_a_file_changes(serve: Serve, tmp_path: Path) -> None:
    folder = tmp_path / "mod"
    write(folder, SMALL_MODULE)
    client = await serve(folder)
    assert client.app is not None
    source = client.app[pages.MODULE]
    first = await (await client.get("/module.zip")).read()
    assert await (await client.get("/module.zip")).read() == first
    assert source.builds == 1
    script = folder / "scripts" / "main.mjs"
    script.write_text("export const a = 2;\n", encoding="utf-8")
    stamp = script.stat().st_mtime_ns + 5_000_000_000
    os.utime(script, ns=(stamp, stamp))
    second = await (await client.get("/module.zip")).read()
    assert source.builds == 2
    with zipfile.ZipFile(io.BytesIO(second)) as archive:
        assert archive.read("vtt-bridge/scripts/main.mjs") == b"export const a = 2;\n"
    # a new file is a change too
    write(folder, {"templates/other.hbs": "x\n"})
    third = await (await client.get("/module.zip")).read()
    assert "vtt-bridge/templates/other.hbs" in names_in(third)
    assert source.builds == 3


async def test_module_missing_answers_404_saying_where_it_looked(serve: Serve, tmp_path: Path) -> None:
    client = await serve(tmp_path / "nowhere")
    for path in ("/module.json", "/module.zip"):
        response = await client.get(path)
        assert response.status == 404
        text = await response.text()
        assert str(tmp_path / "nowhere" / "module.json") in text
        assert module_files.MODULE_DIR_ENV in text
    assert (await client.get("/")).status == 200


async def test_module_dir_from_the_config_wins_over_the_default(
    config: Config, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`vtt-bridge serve --module-dir` (a non-editable install has no foundry_module/ beside it)."""
    monkeypatch.delenv(module_files.MODULE_DIR_ENV, raising=False)
    folder = tmp_path / "elsewhere"
    write(folder, SMALL_MODULE)
    client = TestClient(TestServer(create_app(replace(config, module_dir=folder)), host="127.0.0.1"))
    await client.start_server()
    try:
        response = await client.get("/module.json")
        assert response.status == 200
        assert (await response.json())["title"] == json.loads(SMALL_MODULE["module.json"])["title"]
    finally:
        await client.close()


async def test_module_naming_a_missing_file_answers_500_naming_it(serve: Serve, tmp_path: Path) -> None:
    folder = tmp_path / "mod"
    write(folder, SMALL_MODULE)
    (folder / "styles" / "s.css").unlink()
    client = await serve(folder)
    response = await client.get("/module.zip")
    assert response.status == 500
    assert "styles/s.css" in await response.text()


async def test_module_manifest_path_leaving_the_folder_is_refused(serve: Serve, tmp_path: Path) -> None:
    folder = tmp_path / "mod"
    write(folder, SMALL_MODULE)
    write(tmp_path, {"secret.txt": "s\n"})
    manifest = json.loads(SMALL_MODULE["module.json"])
    manifest["scripts"] = ["../secret.txt"]
    write(folder, {"module.json": json.dumps(manifest)})
    client = await serve(folder)
    response = await client.get("/module.zip")
    assert response.status == 500
    assert "../secret.txt" in await response.text()


def test_default_module_dir_is_the_checkouts_foundry_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(module_files.MODULE_DIR_ENV, raising=False)
    assert not module_files.PACKAGED_DIR.exists(), "a checkout has no wheel copy of the module"
    assert module_files.default_module_dir() == MODULE_DIR


def test_runtime_files_are_what_the_zip_ships(tmp_path: Path) -> None:
    """The wheel's copy (setup.py) and /module.zip are one selection."""
    folder = tmp_path / "mod"
    write(folder, SMALL_MODULE)
    shipped = [str(p) for p in module_files.runtime_files(folder)]
    assert shipped == [
        "module.json",
        "README.md",
        "lang/en.json",
        "scripts/main.mjs",
        "styles/s.css",
        "templates/card.hbs",
    ]


# --- the status page after a restart, its Undo and Redo ----------------------------------------


async def test_status_page_reads_the_latest_rulings_back_from_the_store_after_a_restart(
    config: Config,
) -> None:
    first = TestClient(TestServer(create_app(config), host="127.0.0.1"))
    await first.start_server()
    try:
        gm = await joined(first, "w1", "GM")
        await gm.request("sync", {"state": world_state()})
        await gm.action(damage("actor0", 2, "L"), msg_id="hit-actor0")
        await gm.action(damage("actor1", 1, "B"), msg_id="hit-actor1")
        await gm.ws.close()
    finally:
        await first.close()
    again = TestClient(TestServer(create_app(config), host="127.0.0.1"))
    await again.start_server()
    try:
        text = await page(again)
    finally:
        await again.close()
    assert "No ruling yet." not in text
    # headed by their subjects' names (from the recovered world), newest first, as the live ones
    heading = '<code>damage</code> → Actor {}</span> <span class="muted">in <code>w1</code>, rev {} read back'
    second = text.index(heading.format(1, 3))
    first_hit = text.index(heading.format(0, 2))
    assert second < first_hit
    assert '<span class="rule">HEALTH-2</span>' in text[first_hit:]
    assert "actor0" not in text.split("<h2>Latest rulings</h2>", 1)[1].split("<details>", 1)[0]
    # each ruling read back keeps its Undo button (its action id); the sync has none
    assert 'data-mode="undo" data-world="w1" data-action="hit-actor0"' in text
    assert 'data-mode="undo" data-world="w1" data-action="hit-actor1"' in text
    assert text.count("data-mode=") == 2


async def test_status_page_reads_back_at_most_restored_per_world(config: Config) -> None:
    first = TestClient(TestServer(create_app(config), host="127.0.0.1"))
    await first.start_server()
    try:
        gm = await joined(first, "w1", "GM")
        await gm.request("sync", {"state": world_state()})
        for i in range(RESTORED_PER_WORLD + 5):
            await gm.action(damage("actor1", 1, "B"), msg_id=f"a{i}")
    finally:
        await first.close()
    again = TestClient(TestServer(create_app(config), host="127.0.0.1"))
    await again.start_server()
    try:
        restored = [r for r in again.app[BRIDGE].recent if r.restored]
    finally:
        await again.close()
    assert [r.action_id for r in restored] == [f"a{i}" for i in range(5, RESTORED_PER_WORLD + 5)]


async def test_status_page_offers_undo_and_shows_an_undone_ruling_struck_through_with_redo(
    server: Client,
) -> None:
    gm = await joined(server, "w1", "GM")
    await gm.request("sync", {"state": world_state()})
    await gm.action(damage("actor0", 3, "L"), msg_id="hit")
    text = await page(server)
    button = '<button type="button" hidden data-mode="undo" data-world="w1" data-action="hit">Undo</button>'
    assert button in text
    assert "ruling undone" not in text
    assert (await gm.action({"kind": "undo", "action": "hit"}, msg_id="take-back"))["type"] == "result"
    text = await page(server)
    hit = re.search(r'<div class="ruling undone">(.*?)</div>', text, re.S)
    assert hit is not None, text
    assert '<span class="tag">undone</span>' in hit.group(1) and "rev 2" in hit.group(1)
    assert 'data-mode="redo" data-world="w1" data-action="hit">Redo</button>' in hit.group(1)
    # the undo itself is a ruling without a button (it is redone from the ruling it names)
    assert 'data-action="take-back"' not in text and "<code>undo</code>" in text
    assert (await gm.action({"kind": "redo", "action": "hit"}))["type"] == "result"
    text = await page(server)
    assert "ruling undone" not in text
    assert 'data-mode="undo" data-world="w1" data-action="hit"' in text


async def test_status_page_runs_only_its_own_script_talks_only_to_its_origin_and_is_never_framed(
    server: Client,
) -> None:
    response = await server.get("/")
    text = await response.text()
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy and response.headers["X-Frame-Options"] == "DENY"
    # the one inline style is allowed by its hash, and no inline script is
    style = re.search(r"<style>(.*?)</style>", text, re.S)
    assert style is not None
    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in policy
    assert re.findall(r"<script[^>]*>", text) == ['<script type="module" src="/status.js">']
    script = await server.get("/status.js")
    assert script.status == 200 and script.content_type == "text/javascript"
    body = await script.text()
    assert "sessionStorage" in body and TOKEN not in body


async def test_the_socket_takes_the_status_pages_own_origin_and_refuses_any_other(
    config: Config,
) -> None:
    """A host named with --allow-host: its own page's origin may open /ws (the Undo button), a page
    of any other origin may not, nor one of the same host on another port."""
    client = TestClient(TestServer(create_app(replace(config, allow_hosts=("gm-pc.lan",))), host="127.0.0.1"))
    await client.start_server()
    port = client.port
    assert port is not None
    host = f"gm-pc.lan:{port}"
    try:
        ws = await client.ws_connect("/ws", headers={"Host": host, "Origin": f"http://{host}"})
        peer = Peer(ws)
        hello = {"token": TOKEN, "world": "w1", "client": {"name": "status page"}}
        reply = await peer.request("hello", hello)
        assert reply["type"] == "welcome"
        await ws.close()
        for origin in ("http://evil.example", f"http://gm-pc.lan:{port + 1}", f"https://{host}", "null"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect("/ws", headers={"Host": host, "Origin": origin})
            assert refused.value.status == 403, origin
        # a rebound host name naming itself as the origin is refused by the Host check first
        with pytest.raises(aiohttp.WSServerHandshakeError) as rebound:
            await client.ws_connect(
                "/ws", headers={"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
            )
        assert rebound.value.status == 403
    finally:
        await client.close()


def test_status_page_health_boxes_and_locate_states_differ_by_shape_not_only_colour() -> None:
    """Issue 18: a colour-blind GM tells every box kind and every locate state apart."""
    assert len(set(pages.BOX_MARKS.values())) == len(pages.BOX_MARKS) == 4
    styles = dict(re.findall(r"\.locate\.(\w+) \{ border-style: (\w+); \}", pages._CSS))
    assert styles == {"unlocated": "dotted", "approximate": "dashed"}  # pinpointed: solid


STEALTH_SCENE = {
    "scene": {"id": "s", "gridDistance": 1.5, "gridSize": 100},
    "actors": {
        "Actor.assassin": {
            "name": "Assassin",
            "attributes": {"DEX": 3},
            "skills": {"stealth": 3},
            "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
        },
        "Actor.bran": {
            "name": "Bran",
            "health": {"max": 7},
            "attributes": {"PER": 3},
            "skills": {"investigation": 2},
        },
    },
    "tokens": {
        "tokAssassin": {"actor": "Actor.assassin", "x": 200, "y": 0},
        "tokBran": {"actor": "Actor.bran", "x": 0, "y": 0},
    },
}


def step_items(text: str) -> list[tuple[str, dict[str, Any], str]]:
    """The status page's step items: (rule id, the step its `data-step` carries, the English text shown
    without the script, tags stripped)."""
    item = r'<li data-step="([^"]*)"><span class="rule">([^<]*)</span> <span class="say" lang="en">(.*?)</'
    items = re.findall(item, text)
    return [(rule, json.loads(html.unescape(step)), html.unescape(said)) for step, rule, said in items]


async def test_status_page_hands_its_script_the_steps_their_subjects_names_and_the_readers_language(
    server: Client,
) -> None:
    """A contest (DET-8) and a hiding modifier (DET-9): each step goes to the page's script whole
    (key and data), with every token's name and the language of the request's Accept-Language; the
    script words them with the module's own code (status-page.test.mjs checks what a reader sees)."""
    gm = await joined(server, "w1", "GM")
    assert (await gm.request("sync", {"state": STEALTH_SCENE}))["type"] == "result"
    reply = await gm.action({"kind": "round", "round": 1})
    assert reply["type"] == "result", reply
    response = await server.get("/", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
    assert response.headers["Content-Language"] == "de"
    text = await response.text()
    assert '<main data-lang="de">' in text
    main = re.search(r'<div id="step-names" hidden data-names="([^"]*)"></div>', text)
    assert main is not None, text
    names = json.loads(html.unescape(main.group(1)))
    assert names["tokBran"] == "Bran" and names["tokAssassin"] == "Assassin"
    keys = {step["key"] for _, step, _ in step_items(text)}
    assert {"DET-8.contest", "DET-9.modifier"} <= keys, keys


async def test_status_page_serves_the_modules_sentence_code_and_language_files_and_nothing_else(
    server: Client,
) -> None:
    for path, kind in (
        ("/module/scripts/core/chat-cards.mjs", "text/javascript"),
        ("/module/scripts/core/rolls.mjs", "text/javascript"),
        ("/module/scripts/core/step-fields.mjs", "text/javascript"),
        ("/module/lang/de.json", "application/json"),
        ("/module/lang/zh-CN.json", "application/json"),
    ):
        response = await server.get(path)
        assert response.status == 200 and response.content_type == kind, path
    for path in (
        "/module/scripts/core/connection.mjs",
        "/module/scripts/core/..%2Fmain.mjs",
        "/module/lang/fr.json",
        "/module/lang/..%2Fmodule.json",
    ):
        assert (await server.get(path)).status == 404, path


@pytest.mark.parametrize(
    ("accept", "lang"),
    [
        ("", "en"),
        ("fr-FR", "en"),
        ("de", "de"),
        ("zh-CN,zh;q=0.9", "zh-CN"),
        ("zh-TW, de;q=0.5", "zh-CN"),
        ("fr;q=1, de;q=0.2, en;q=0.5", "en"),
        ("de;q=0, en", "en"),
        ("de;q=bogus", "en"),
    ],
)
async def test_status_page_language_follows_accept_language_among_en_de_zh_cn(
    server: Client, accept: str, lang: str
) -> None:
    response = await server.get("/", headers={"Accept-Language": accept} if accept else {})
    assert response.status == 200
    assert response.headers["Content-Language"] == lang
    assert "Accept-Language" in response.headers["Vary"]


async def test_status_page_says_the_wound_penalty_as_its_table_does_and_dying_once(server: Client) -> None:
    """HEALTH-7: the sentence shows the penalty as the table's column (-3, not 3); HEALTH-6: a dying
    actor reads "dying" once (the status), not "dying; Dying" (the status and its condition)."""
    gm = await joined(server, "w1", "GM")
    state = {**world_state(actors=2), "settings": {"woundPenalty": True}}
    state["actors"]["actor1"]["secondHealth"] = {"max": 3}  # all A on the first track: dying (HEALTH-13)
    assert (await gm.request("sync", {"state": state}))["type"] == "result"
    hurt = await gm.action(damage("actor0", 7, "L"))
    dying = await gm.action(damage("actor1", 7, "A"))
    assert hurt["type"] == dying["type"] == "result", (hurt, dying)
    change = next(s for s in hurt["payload"]["log"] if s["key"] == "HEALTH-7.change")
    status = next(s for s in dying["payload"]["log"] if s["key"] == "HEALTH-6.status")
    assert status["data"]["status"] == "dying", status
    assert status["text"].count("dying") == 1, status["text"]
    text = await page(server)
    cell = re.search(r"<tr><td>Actor 0</td>(?:<td>.*?</td>){3}<td>(-?\d+)</td>", text)
    assert cell is not None and cell.group(1).startswith("-"), text
    # the page hands its script each step whole (the module's card code words HEALTH-7.change's
    # fields negated, as the table shows them); the English shown without the script says the same
    items = step_items(text)
    penalty = [(step, said) for _, step, said in items if step["key"] == "HEALTH-7.change"]
    mine = [(step, said) for step, said in penalty if step["data"]["actor"] == "actor0"]
    assert mine and mine[0][0]["data"]["after"] == -int(cell.group(1)), penalty
    assert f"0 → {cell.group(1)} dice" in mine[0][1], mine
    statuses = [
        said
        for _, step, said in items
        if step["key"] == "HEALTH-6.status" and step["data"]["actor"] == "actor1"
    ]
    assert statuses and statuses[0].count("dying") == 1, statuses
    assert f"0 → {cell.group(1)} dice" in change["text"], change["text"]


def test_the_zipped_modules_readme_points_at_nothing_the_zip_lacks() -> None:
    """The module's README travels in module.zip: every relative link in it resolves to a file the
    zip ships (it linked to ../docs/, which no zip holds), and it runs no npm from the zip's folder."""
    folder = module_files.default_module_dir()
    shipped = {str(path) for path in module_files.runtime_files(folder)}
    assert "README.md" in shipped
    readme = (folder / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    relative = [link for link in links if "://" not in link]
    assert all(link in shipped for link in relative), relative
    assert "package.json" not in shipped and "no `package.json`" in readme


async def test_status_page_marks_every_word_for_the_readers_language_and_says_who_locates_whom_in_words(
    server: Client,
) -> None:
    """Issue 35: the page's own words (headings, table heads, statuses, who locates whom, the
    ruling headings, the token dialog) carry a key the page's script rewords in the reader's
    language; each key is in every language file; a pair is a sentence naming both by name."""
    gm = await joined(server, "w1", "GM")
    assert (await gm.request("sync", {"state": STEALTH_SCENE}))["type"] == "result"
    assert (await gm.action({"kind": "round", "round": 1}))["type"] == "result"
    assert (await gm.action(damage("Actor.bran", 2)))["type"] == "result"
    raw = await (await server.get("/")).text()
    keys = set(re.findall(r'data-say="([^"]+)"', raw))
    assert {"Worlds", "Rulings", "Locating", "Where", "Actor", "TokenAsk", "Undo"} <= keys, keys
    assert "VTTBRIDGE.HealthTrack.Status.lightly" in keys, keys
    lang_dir = Path(__file__).resolve().parents[2] / "foundry_module" / "lang"
    for lang in pages.LANGS:
        tree = json.loads((lang_dir / f"{lang}.json").read_text(encoding="utf-8"))
        for key in keys:
            node: Any = tree
            for part in (key if key.startswith("VTTBRIDGE.") else f"VTTBRIDGE.StatusPage.{key}").split("."):
                node = node.get(part) if isinstance(node, dict) else None
            assert isinstance(node, str), f"{lang}: no words for {key}"
    text = plain(raw)
    pair = re.search(r'<li><span class="locate (\w+)">\w+</span> (.*?)</li>', text)
    assert pair is not None, text
    assert pair.groups() in {
        ("approximate", "Bran locates Assassin roughly"),
        ("unlocated", "Bran does not locate Assassin at all"),
    }
    assert "tokBran" not in text.split("<h2>Latest rulings</h2>", 1)[1].split("<details>", 1)[0]
