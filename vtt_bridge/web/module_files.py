"""The Foundry module the sidecar serves: where its folder is, which files ship, and the zip.

Stdlib only and free of the rest of the package: the build step (`setup.py`) loads this file on its
own to copy the same runtime files into the wheel that `/module.zip` ships.

Where the module folder is, first found wins: `--module-dir` (the caller passes it),
`$VTT_BRIDGE_MODULE_DIR`, the copy a wheel carries (`vtt_bridge/foundry_module/`, put there by the
build step), and `foundry_module/` beside the package (a source checkout, an editable install).

Which files ship: `module.json`, every file it names, and the files in the module's folders except
development ones (`tests/`, `node_modules/`, `types/`, `package*.json`, `*.d.ts`, dotfiles); loose
top-level files only when named (or README/LICENSE/CHANGELOG). The zip is built in memory with fixed
timestamps and order (same files: same bytes), cached until a file's mtime or size changes.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from vtt_bridge.errors import VttBridgeError

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

PACKAGED_DIR = Path(__file__).resolve().parent.parent / "foundry_module"
"""Where a wheel carries the module's runtime files (absent in a source checkout)."""

CHECKOUT_DIR = Path(__file__).resolve().parent.parent.parent / "foundry_module"
"""The module's source folder beside the package (a source checkout, an editable install)."""


def default_module_dir() -> Path:
    """`$VTT_BRIDGE_MODULE_DIR`, else the wheel's copy, else the checkout's `foundry_module/`."""
    configured = os.environ.get(MODULE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    if (PACKAGED_DIR / "module.json").is_file():
        return PACKAGED_DIR
    return CHECKOUT_DIR


class ModuleUnavailable(VttBridgeError):
    """The module cannot be served; the message says why and how to fix it."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


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


ZIP_CACHE = 4
"""Zips `ModuleSource.zip` keeps, one per base URL, the latest used (a GM's browser and Foundry's
server reach the sidecar by one or two names)."""


class ModuleSource:
    """The Foundry module folder, served as a manifest and a zip (cached per base URL and file stamps)."""

    def __init__(self, folder: Path, version: str | None = None) -> None:
        self.folder = folder
        self.version = version
        """The `version` the served manifest carries (the package's), None: the one on disk."""
        self.builds = 0
        """How many zips were built (the cache is working when this stays put)."""
        self._cache: dict[str, tuple[tuple[tuple[str, int, int], ...], bytes]] = {}
        """Base URL -> (file stamps, zip), the `ZIP_CACHE` latest used (a local process may send any
        number of Host spellings: each would otherwise keep a zip for good)."""
        self._lock = threading.Lock()
        """Around the cache: `zip` runs in worker threads (a build deflates the module's files)."""

    def manifest(self) -> dict[str, Any]:
        """The module's `module.json` as it is on disk."""
        path = self.folder / "module.json"
        if not path.is_file():
            raise ModuleUnavailable(
                f"No Foundry module here: {path} does not exist. Name the foundry_module folder with "
                f"`vtt-bridge serve --module-dir` or {MODULE_DIR_ENV}, or reinstall vtt-bridge "
                f"(its wheel carries the module).",
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
        """The manifest with `manifest` and `download` pointing at this server, and the package's version
        (so Foundry offers the module's update once the sidecar is upgraded)."""
        manifest = self.manifest()
        if self.version is not None:
            manifest["version"] = self.version
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
        """The installable zip; rebuilt only when a file's mtime or size (or the base URL) changes.
        Thread-safe (the server builds it in a worker thread: it deflates every file)."""
        manifest_path = self.folder / "module.json"
        manifest = self.served_manifest(base_url)
        files = self.files(manifest)
        info = manifest_path.stat()
        stamps = (
            ("module.json", info.st_mtime_ns, info.st_size),
            *((str(f.relative), f.mtime_ns, f.size) for f in files),
        )
        with self._lock:
            cached = self._cache.pop(base_url, None)
            if cached is not None and cached[0] == stamps:
                self._cache[base_url] = cached  # the most recently used, last
                return cached[1]
        data = _build_zip(str(manifest.get("id") or manifest["name"]), manifest, files)
        with self._lock:
            self._cache[base_url] = (stamps, data)
            while len(self._cache) > ZIP_CACHE:
                del self._cache[next(iter(self._cache))]
            self.builds += 1
        return data

    @property
    def cached(self) -> int:
        """How many zips are kept (at most `ZIP_CACHE`)."""
        return len(self._cache)


def runtime_files(folder: Path) -> list[PurePosixPath]:
    """What ships of a module folder: `module.json` and every file the zip holds (what a wheel carries)."""
    source = ModuleSource(folder)
    return [PurePosixPath("module.json"), *(file.relative for file in source.files(source.manifest()))]


def _entry(name: str, mode: int) -> zipfile.ZipInfo:
    entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    entry.create_system = 3
    entry.external_attr = mode << 16
    entry.compress_type = zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED
    return entry


def _build_zip(module_id: str, manifest: dict[str, Any], files: list[_File]) -> bytes:
    """A zip of `<id>/module.json` and `<id>/<file>` for each file, with folder entries, in sorted order."""
    contents: dict[str, bytes | None] = {f"{module_id}/module.json": manifest_bytes(manifest)}
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


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
