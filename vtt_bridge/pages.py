"""The sidecar's web pages: the Foundry module it serves, and a status page.

- `GET /module.json`: the module's manifest from `foundry_module/module.json`, its `manifest` and
  `download` URLs pointing at this server, so a GM installs the module in Foundry from
  `http://127.0.0.1:30500/module.json`.
- `GET /module.zip`: the module as Foundry installs it: one top-level folder named after the module
  id, holding `module.json`, every file it names, and the files in the module's folders except
  development ones (`tests/`, `node_modules/`, `types/`, `package*.json`, `*.d.ts`, dotfiles); loose
  top-level files only when named (or README/LICENSE/CHANGELOG). Built in memory with fixed
  timestamps and order (same files: same bytes), cached until a file's mtime or size changes.
- `GET /`: connected worlds and clients, each world's rev, and the latest rulings with their steps.
  The token is never shown.

Where the module folder is: `$VTT_BRIDGE_MODULE_DIR` when set, otherwise `foundry_module/` next to
the `vtt_bridge` package, which is where it is in a source checkout and an editable install
(`pip install -e .`). A non-editable install has no copy of it: pass `vtt-bridge serve --module-dir`
or set `VTT_BRIDGE_MODULE_DIR`.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
import stat
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from aiohttp import web

import vtt_bridge
from vtt_bridge import __version__
from vtt_bridge.bridge import BRIDGE, RECORD_STEPS, Bridge
from vtt_bridge.errors import ModuleUnavailable
from vtt_bridge.hostcheck import is_loopback, token_given

MODULE_DIR_ENV = "VTT_BRIDGE_MODULE_DIR"
"""Environment variable naming the Foundry module folder (overrides the source-checkout location)."""

EXCLUDED_DIRS = frozenset({"tests", "test", "node_modules", "types", "coverage"})
"""Top-level folders of the module that are development-only and never shipped."""

TOP_LEVEL_FILES = frozenset({"README.md", "LICENSE", "LICENSE.md", "LICENSE.txt", "CHANGELOG.md"})
"""Loose files at the module's top level that are shipped; any other one is shipped only when named by
module.json (runtime files live in folders: scripts/, styles/, lang/, templates/, ...)."""

EXCLUDED_FILES = ("package*.json", "tsconfig*.json", "jsconfig*.json", "eslint.config.*", "*.d.ts")
"""Development-only files (glob patterns on the file name), never shipped."""

ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""The timestamp of every zip entry, so the same files always make the same zip."""

_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")
"""A Host header fit to go into a URL: a name or IPv4 address or [IPv6], and a port."""


def default_module_dir() -> Path:
    """`$VTT_BRIDGE_MODULE_DIR`, else `foundry_module/` next to the package (source checkout)."""
    configured = os.environ.get(MODULE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path(vtt_bridge.__file__).resolve().parent.parent / "foundry_module"


def manifest_paths(manifest: dict[str, Any]) -> list[str]:
    """Every file or folder the manifest names: esmodules, scripts, styles, languages and packs paths."""
    named: list[str] = []
    for key in ("esmodules", "scripts", "styles"):
        entries = manifest.get(key, [])
        if isinstance(entries, list):
            named.extend(entry for entry in entries if isinstance(entry, str))
    for key in ("languages", "packs"):
        entries = manifest.get(key, [])
        if isinstance(entries, list):
            named.extend(
                entry["path"]
                for entry in entries
                if isinstance(entry, dict) and isinstance(entry.get("path"), str)
            )
    return named


def _relative(path: str) -> PurePosixPath:
    """A manifest path as a path inside the module folder; refused when it would leave it."""
    relative = PurePosixPath(path.lstrip("/"))
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise ModuleUnavailable(f"module.json names {path!r}, which is not a path inside the module", 500)
    return relative


def _excluded(relative: PurePosixPath) -> bool:
    if any(part.startswith(".") for part in relative.parts):
        return True
    return any(relative.match(pattern) for pattern in EXCLUDED_FILES)


@dataclass(frozen=True)
class _File:
    relative: PurePosixPath
    path: Path
    mtime_ns: int
    size: int


class ModuleSource:
    """The Foundry module folder, served as a manifest and a zip (cached per base URL and file stamps)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.builds = 0
        """How many zips were built (the cache is working when this stays put)."""
        self._cache: dict[str, tuple[tuple[tuple[str, int, int], ...], bytes]] = {}

    def manifest(self) -> dict[str, Any]:
        """The module's `module.json` as it is on disk."""
        path = self.folder / "module.json"
        if not path.is_file():
            raise ModuleUnavailable(
                f"No Foundry module here: {path} does not exist. Run the sidecar from a source checkout "
                f"(or an editable install), or name the foundry_module folder with "
                f"`vtt-bridge serve --module-dir` or {MODULE_DIR_ENV}.",
                404,
            )
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModuleUnavailable(f"{path} cannot be read as JSON: {exc}", 500) from None
        if not isinstance(manifest, dict):
            raise ModuleUnavailable(f"{path} is not a JSON object", 500)
        module_id = manifest.get("id") or manifest.get("name")
        if not isinstance(module_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", module_id):
            raise ModuleUnavailable(f"{path} has no usable module id (lowercase letters, digits, -, _)", 500)
        return manifest

    def served_manifest(self, base_url: str) -> dict[str, Any]:
        """The manifest with `manifest` and `download` pointing at this server."""
        manifest = self.manifest()
        manifest["manifest"] = f"{base_url}/module.json"
        manifest["download"] = f"{base_url}/module.zip"
        return manifest

    def _walk(self) -> Iterator[PurePosixPath]:
        for root, dirs, files in os.walk(self.folder):
            relative_root = PurePosixPath(Path(root).relative_to(self.folder).as_posix())
            top = relative_root == PurePosixPath(".")
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (top and d in EXCLUDED_DIRS))
            for name in files:
                yield PurePosixPath(name) if top else relative_root / name

    def files(self, manifest: dict[str, Any]) -> list[_File]:
        """The files to ship, sorted: files in the module's folders (but development ones), the top-level
        README/LICENSE/CHANGELOG, and everything the manifest names; module.json itself is not listed."""
        chosen = {
            rel
            for rel in self._walk()
            if not _excluded(rel) and (len(rel.parts) > 1 or rel.name in TOP_LEVEL_FILES)
        }
        for named in manifest_paths(manifest):
            relative = _relative(named)
            target = self.folder / relative
            if target.is_dir():
                chosen.update(
                    PurePosixPath(p.relative_to(self.folder).as_posix())
                    for p in target.rglob("*")
                    if p.is_file()
                )
            elif target.is_file():
                chosen.add(relative)
            else:
                raise ModuleUnavailable(f"module.json names {named!r}, but {target} does not exist", 500)
        result: list[_File] = []
        for relative in sorted(chosen):
            path = self.folder / relative
            info = path.stat()
            if stat.S_ISREG(info.st_mode):
                result.append(_File(relative, path, info.st_mtime_ns, info.st_size))
        return result

    def zip(self, base_url: str) -> bytes:
        """The installable zip; rebuilt only when a file's mtime or size (or the base URL) changes."""
        manifest_path = self.folder / "module.json"
        manifest = self.served_manifest(base_url)
        files = self.files(manifest)
        info = manifest_path.stat()
        stamps = (
            ("module.json", info.st_mtime_ns, info.st_size),
            *((str(f.relative), f.mtime_ns, f.size) for f in files),
        )
        cached = self._cache.get(base_url)
        if cached is not None and cached[0] == stamps:
            return cached[1]
        data = _build_zip(str(manifest.get("id") or manifest["name"]), manifest, files)
        self._cache[base_url] = (stamps, data)
        self.builds += 1
        return data


def _entry(name: str, mode: int) -> zipfile.ZipInfo:
    entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    entry.create_system = 3
    entry.external_attr = mode << 16
    entry.compress_type = zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED
    return entry


def _build_zip(module_id: str, manifest: dict[str, Any], files: list[_File]) -> bytes:
    """A zip of `<id>/module.json` and `<id>/<file>` for each file, with folder entries, in sorted order."""
    contents: dict[str, bytes | None] = {f"{module_id}/module.json": _manifest_bytes(manifest)}
    for file in files:
        contents[f"{module_id}/{file.relative}"] = file.path.read_bytes()
        for parent in file.relative.parents:
            if parent != PurePosixPath("."):
                contents[f"{module_id}/{parent}/"] = None
    contents[f"{module_id}/"] = None
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(contents):
            data = contents[name]
            if data is None:
                archive.writestr(_entry(name, stat.S_IFDIR | 0o755), b"")
            else:
                archive.writestr(_entry(name, stat.S_IFREG | 0o644), data)
    return buffer.getvalue()


def _manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


MODULE = web.AppKey("module", ModuleSource)


def base_url(request: web.Request) -> str:
    """`http://<host>:<port>` as the client reached this server (its Host header, when well formed)."""
    host = request.headers.get("Host", "")
    if not _HOST.match(host):
        config = request.app[BRIDGE].config
        host = f"[{config.host}]" if ":" in config.host else config.host
        host = f"{host}:{config.port}"
    return f"{request.scheme}://{host}"


def _unavailable(error: ModuleUnavailable) -> web.Response:
    return web.Response(status=error.status, text=error.message + "\n", content_type="text/plain")


async def module_json(request: web.Request) -> web.Response:
    """`GET /module.json`: the Foundry manifest, pointing at this server."""
    try:
        manifest = request.app[MODULE].served_manifest(base_url(request))
    except ModuleUnavailable as error:
        return _unavailable(error)
    return web.Response(
        body=_manifest_bytes(manifest),
        content_type="application/json",
        charset="utf-8",
        headers={"Cache-Control": "no-cache"},
    )


async def module_zip(request: web.Request) -> web.Response:
    """`GET /module.zip`: the module as Foundry installs it."""
    source = request.app[MODULE]
    try:
        data = source.zip(base_url(request))
    except ModuleUnavailable as error:
        return _unavailable(error)
    return web.Response(
        body=data,
        content_type="application/zip",
        headers={"Content-Disposition": 'attachment; filename="module.zip"', "Cache-Control": "no-cache"},
    )


# --- the status page ---------------------------------------------------------------------------

STATUS_CACHE = web.AppKey("status_cache", list)
"""[`Bridge.changes` when built, the page's HTML]."""

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em;
       color: #222; background: #fcfcfa; }
h1 { font-size: 1.4em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.muted { color: #666; } table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #f0efe9; } code { font-size: .92em; }
.ruling { border: 1px solid #ddd; border-radius: 4px; padding: .5em .8em; margin: .6em 0; background: #fff; }
.ruling h3 { font-size: 1em; margin: 0 0 .3em; } .ruling ol { margin: 0; padding-left: 1.4em; }
.fault { color: #8a1010; font-weight: 600; }
.rule { font-family: ui-monospace, monospace; font-weight: 600; color: #7a2e0e; }
details { font-size: .88em; color: #555; } pre { white-space: pre-wrap; margin: .2em 0; }
"""


PAGE_STEPS = RECORD_STEPS
"""The most steps the status page shows of one ruling (a crowded round has thousands; the server
keeps no more: `RulingRecord`); the rest are counted. The page is built on the event loop that
rules, so it stays small, and is rebuilt only when something it shows changed (`Bridge.changes`)."""


class _Escaper:
    """`html.escape`, and the token blanked out first: a client may call itself or its world anything."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __call__(self, value: object) -> str:
        text = str(value)
        if self.token:
            text = text.replace(self.token, "[token hidden]")
        return html.escape(text, quote=True)


def _step_html(step: dict[str, Any], _e: _Escaper) -> str:
    item = f'<li><span class="rule">{_e(step.get("rule", ""))}</span> {_e(step.get("text", ""))}'
    data = step.get("data")
    if data:
        shown = json.dumps(data, indent=1, ensure_ascii=False, default=str)
        item += f"<details><summary>data</summary><pre>{_e(shown)}</pre></details>"
    return item + "</li>"


def status_html(bridge: Bridge) -> str:
    """The status page: worlds with their rev and connected clients, then the latest rulings, newest first."""
    _e = _Escaper(bridge.config.token)
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>vtt-bridge {_e(__version__)}</title><style>{_CSS}</style></head><body>",
        f"<h1>vtt-bridge {_e(__version__)}</h1>",
        '<p class="muted">Rules sidecar. Install the Foundry module from '
        '<a href="/module.json"><code>/module.json</code></a>.</p>',
    ]
    if bridge.storage_fault is not None:
        parts.append(
            f'<p class="fault"><strong>Storage fault:</strong> {_e(bridge.storage_fault)}. No ruling is '
            "taken until the disk takes a checkpoint again.</p>"
        )
    parts.extend(f'<p class="fault">{_e(warning)}</p>' for warning in bridge.store.warnings)
    parts.append("<h2>Worlds</h2>")
    world_ids = sorted(set(bridge.worlds) | {w for w, clients in bridge.clients.items() if clients})
    if world_ids:
        parts.append("<table><tr><th>World</th><th>Rev</th><th>Connected clients</th></tr>")
        for world_id in world_ids:
            world = bridge.worlds.get(world_id)
            names = sorted(client.name for client in bridge.clients.get(world_id, ()))
            shown = ", ".join(_e(name or "(unnamed)") for name in names) if names else "none"
            count = f"{len(names)}: " if names else ""
            rev = _e(world.rev) if world is not None else "?"
            parts.append(
                f"<tr><td><code>{_e(world_id)}</code></td><td>{rev}</td><td>{count}{shown}</td></tr>"
            )
        parts.append("</table>")
    else:
        parts.append('<p class="muted">No world yet.</p>')
    parts.append("<h2>Latest rulings</h2>")
    rulings = list(reversed(bridge.recent))
    if not rulings:
        parts.append('<p class="muted">No ruling yet.</p>')
    for ruling in rulings:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ruling.at))
        parts.append(
            f'<div class="ruling"><h3><code>{_e(ruling.kind)}</code> in <code>{_e(ruling.world)}</code>, '
            f'rev {_e(ruling.rev)} <span class="muted">at {_e(when)}</span></h3>'
        )
        if ruling.log:
            shown = "".join(_step_html(step, _e) for step in ruling.log[:PAGE_STEPS])
            more = ruling.steps - min(len(ruling.log), PAGE_STEPS)
            if more > 0:
                shown += f'<li class="muted">… and {more} more steps</li>'
            parts.append(f"<ol>{shown}</ol>")
        else:
            parts.append('<p class="muted">No steps.</p>')
        parts.append("</div>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


async def status(request: web.Request) -> web.Response:
    """`GET /`: the status page (off loopback only with the token: `?token=` or a Bearer header)."""
    bridge = request.app[BRIDGE]
    if not is_loopback(bridge.config.host) and not token_given(request, bridge.config.token):
        return web.Response(
            status=401,
            text="this sidecar listens beyond this computer: open /?token=<the token> to see its status\n",
            headers={"WWW-Authenticate": "Bearer"},
        )
    cached = request.app[STATUS_CACHE]
    if cached[0] != bridge.changes:
        cached[:] = [bridge.changes, status_html(bridge)]
    return web.Response(
        text=str(cached[1]),
        content_type="text/html",
        charset="utf-8",
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
    )


def setup(app: web.Application, module_dir: Path | None = None) -> None:
    """Register `/`, `/module.json` and `/module.zip` (module folder: `module_dir` or the default)."""
    app[MODULE] = ModuleSource(module_dir if module_dir is not None else default_module_dir())
    app[STATUS_CACHE] = [-1, ""]
    app.router.add_get("/", status)
    app.router.add_get("/module.json", module_json)
    app.router.add_get("/module.zip", module_zip)
