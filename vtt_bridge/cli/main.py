"""`vtt-bridge serve | schema`: the command line.

Options come from flags, else from `VTT_BRIDGE_*` environment variables, else defaults; they are
read only by the command that uses them, so `--help` and `schema` work whatever the environment
holds. A start-up mistake prints one line on stderr and exits with status 2 (`startup.py`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from vtt_bridge import __version__
from vtt_bridge.cli.startup import (
    EXIT_STARTUP,
    LOG_LEVELS,
    StartupError,
    banner,
    bind,
    browser_origin,
    env_name,
    exposure_warning,
    fragment_size,
    log_level,
    port_number,
    positive_int,
    prepare_data_dir,
    store_busy_hint,
    token_file_error,
    whole_number,
)
from vtt_bridge.server.limits import Limits, token_problem

DEFAULT_PORT = 30500
DEFAULT_MAX_FRAME = 1 << 20
DEFAULT_FRAGMENT_BYTES = Limits().fragment_bytes
DEFAULT_MAX_COUNT = 5000


def _compiled() -> bool:
    """Whether this install runs the rules' hot path compiled (setup.py NATIVE: the modules are
    compiled together or not at all, so the visibility module answers for them)."""
    from vtt_bridge.document import visibility

    return not (visibility.__file__ or ".py").endswith(".py")


def default_data_dir() -> Path:
    """The user's data folder: $XDG_DATA_HOME/vtt-bridge, Application Support (macOS), %APPDATA% (Windows)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "vtt-bridge"


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake on one line (what, and where to read more)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_STARTUP, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="vtt-bridge", description="Rules sidecar for the vtt-bridge Foundry module.")
    parser.add_argument("--version", action="version", version=f"vtt-bridge {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the websocket server (defaults: 127.0.0.1:30500)")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1) [$VTT_BRIDGE_HOST]")
    serve.add_argument(
        "--port", help=f"0..65535, 0: any free port (default {DEFAULT_PORT}) [$VTT_BRIDGE_PORT]"
    )
    serve.add_argument("--data-dir", type=Path, help="SQLite store and token file [$VTT_BRIDGE_DATA_DIR]")
    serve.add_argument("--token", help="shared secret (default: generated once) [$VTT_BRIDGE_TOKEN]")
    serve.add_argument(
        "--allow-origin",
        action="append",
        help="also allow this browser origin, e.g. https://my.forge-vtt.com (repeatable) "
        "[$VTT_BRIDGE_ALLOW_ORIGIN, space-separated]",
    )
    serve.add_argument("--max-frame", help="frame cap in bytes (default 1 MiB) [$VTT_BRIDGE_MAX_FRAME]")
    serve.add_argument(
        "--fragment-bytes",
        help="send a message longer than this as websocket fragments of this size (default 1 MiB; 0: "
        "never) [$VTT_BRIDGE_FRAGMENT_BYTES]",
    )
    serve.add_argument("--seed", help="seed the engine's dice (reproducible rolls) [$VTT_BRIDGE_SEED]")
    serve.add_argument(
        "--module-dir",
        type=Path,
        default=None,
        help="the Foundry module folder served as /module.json and /module.zip (default: the one "
        "installed with vtt-bridge) [$VTT_BRIDGE_MODULE_DIR]",
    )
    serve.add_argument("--log-level", help=f"{', '.join(LOG_LEVELS)} (default info) [$VTT_BRIDGE_LOG_LEVEL]")
    serve.add_argument(
        "--allow-host",
        action="append",
        help="also answer requests naming this host, e.g. gm-pc.local (repeatable; needed off loopback) "
        "[$VTT_BRIDGE_ALLOW_HOST, space-separated]",
    )
    serve.add_argument(
        "--max-tokens", help=f"tokens a world may hold (default {DEFAULT_MAX_COUNT}) [$VTT_BRIDGE_MAX_TOKENS]"
    )
    serve.add_argument(
        "--max-actors", help=f"actors a world may hold (default {DEFAULT_MAX_COUNT}) [$VTT_BRIDGE_MAX_ACTORS]"
    )
    schema = commands.add_parser("schema", help="print the JSON Schema of every protocol message")
    schema.add_argument("--markdown", action="store_true", help="the action and query reference as Markdown")
    schema.add_argument(
        "--step-fields",
        action="store_true",
        help="the module's table of how each step field is worded (scripts/core/step-fields.mjs)",
    )
    return parser


def _option(flag: str | None, name: str, option: str) -> tuple[str, str] | None:
    """The flag's value, else the env var's: (value, where it came from); None when neither is set."""
    if flag is not None:
        return flag, option
    value = os.environ.get(env_name(name))
    if value is None or value == "":
        return None
    return value, env_name(name)


def serve(args: argparse.Namespace) -> int:
    """Run the server until Ctrl-C or SIGTERM; sockets are closed and the store flushed on the way out."""
    port_given = _option(args.port, "PORT", "--port")
    port = port_number(*port_given) if port_given else DEFAULT_PORT
    level_given = _option(args.log_level, "LOG_LEVEL", "--log-level")
    level = log_level(*level_given) if level_given else logging.INFO
    frame_given = _option(args.max_frame, "MAX_FRAME", "--max-frame")
    max_frame = positive_int(*frame_given) if frame_given else DEFAULT_MAX_FRAME
    seed_given = _option(args.seed, "SEED", "--seed")
    seed = whole_number(*seed_given) if seed_given else None
    fragment_given = _option(args.fragment_bytes, "FRAGMENT_BYTES", "--fragment-bytes")
    fragment_bytes = fragment_size(*fragment_given) if fragment_given else DEFAULT_FRAGMENT_BYTES
    host = args.host or os.environ.get(env_name("HOST")) or "127.0.0.1"
    data_given = args.data_dir or os.environ.get(env_name("DATA_DIR"))
    try:
        data_path = Path(data_given).expanduser() if data_given else default_data_dir()
    except RuntimeError as exc:  # no home folder to expand `~` or find the default in
        raise StartupError(
            f"cannot find the data folder ({exc}): pass --data-dir or set {env_name('DATA_DIR')}"
        ) from None
    data_dir = prepare_data_dir(data_path)
    if args.token is not None and not args.token:
        raise StartupError(
            "--token is empty: give a token of at least 16 characters, or leave --token out and the "
            "sidecar makes one (kept in the data folder)"
        )
    token = args.token or os.environ.get(env_name("TOKEN")) or ""
    token_source = "given" if token else f"kept in {data_dir / 'token'}"
    if token and (problem := token_problem(token)) is not None:
        raise StartupError(problem)
    origins = [browser_origin(o, "--allow-origin") for o in args.allow_origin or ()] or [
        browser_origin(o, env_name("ALLOW_ORIGIN"))
        for o in (os.environ.get(env_name("ALLOW_ORIGIN")) or "").split()
    ]
    hosts = args.allow_host or (os.environ.get(env_name("ALLOW_HOST")) or "").split()
    counts = {}
    for name in ("MAX_TOKENS", "MAX_ACTORS"):
        count_given = _option(getattr(args, name.lower()), name, "--" + name.lower().replace("_", "-"))
        counts[name] = positive_int(*count_given) if count_given else DEFAULT_MAX_COUNT

    from aiohttp import web

    from vtt_bridge.cli.app import create_app
    from vtt_bridge.errors import StoreBusy, StoreDamaged
    from vtt_bridge.server.bridge import BRIDGE, Config
    from vtt_bridge.server.heap import collect_young_less_often

    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sockets = bind(host, port)
    addresses = [str(sock.getsockname()[0]) for sock in sockets]
    real_port = int(sockets[0].getsockname()[1])
    config = Config(
        data_dir=data_dir,
        token=token,
        host=addresses[0],
        port=real_port,
        allow_origins=tuple(origins),
        max_frame=max_frame,
        seed=seed,
        module_dir=args.module_dir.expanduser() if args.module_dir is not None else None,
        allow_hosts=tuple(hosts),
        limits=Limits(
            max_tokens=counts["MAX_TOKENS"], max_actors=counts["MAX_ACTORS"], fragment_bytes=fragment_bytes
        ),
    )
    try:  # the token file is read or made here, once the store's lock is held (`Bridge`)
        app = create_app(config)
    except (StoreBusy, StoreDamaged, OSError, UnicodeDecodeError) as exc:
        for sock in sockets:
            sock.close()
        if isinstance(exc, OSError | UnicodeDecodeError):
            raise token_file_error(data_dir, exc) from None
        if isinstance(exc, StoreBusy):
            raise StartupError(f"{exc}: {store_busy_hint()}") from None
        raise StartupError(str(exc)) from None
    token = app[BRIDGE].config.token

    def ready(_: object) -> None:
        for line in banner(__version__, addresses, real_port, token, data_dir, token_source, _compiled()):
            print(line, flush=True)
        warning = exposure_warning(addresses)
        if warning is not None:
            print(warning, file=sys.stderr, flush=True)

    collect_young_less_often()
    web.run_app(app, sock=sockets, print=ready, handle_signals=True, shutdown_timeout=5)
    try:
        print("vtt-bridge stopped: connections closed, every ruling stored", flush=True)
    except BrokenPipeError:  # whoever read the banner is gone (`| head`): nothing to tell
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _print_to_a_pipe(text: str) -> int:
    """Print `text`; when the reader goes away first (`vtt-bridge schema | head`), end quietly as a
    command-line tool does: no traceback, status 0 (the reader had what it asked for)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own last flush too
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `vtt-bridge` console script and `python -m vtt_bridge`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    if args.command == "schema":
        from vtt_bridge.actions.registry import ACTION_ADAPTER, ACTION_KINDS, QUERY_ADAPTER, QUERY_KINDS
        from vtt_bridge.engine.protocol import json_schema, reference_markdown
        from vtt_bridge.rules.steps import step_fields_module

        if args.step_fields:
            return _print_to_a_pipe(step_fields_module().rstrip("\n"))
        text = (
            reference_markdown(ACTION_KINDS, QUERY_KINDS)
            if args.markdown
            else json.dumps(json_schema(ACTION_ADAPTER, QUERY_ADAPTER), indent=2)
        )
        return _print_to_a_pipe(text)
    if args.command == "serve" and args.token:
        print(
            "vtt-bridge: warning: --token is visible to every user of this computer in the process "
            "list; set VTT_BRIDGE_TOKEN or leave it unset (the token file in the data folder is private)",
            file=sys.stderr,
        )
    try:
        return serve(args)
    except StartupError as exc:
        print(f"vtt-bridge: {exc}", file=sys.stderr, flush=True)
        return EXIT_STARTUP
