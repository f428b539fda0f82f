"""`vtt-bridge serve | schema`: the command line."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from vtt_bridge import __version__
from vtt_bridge.tokenfile import load_or_create_token

__all__ = ["load_or_create_token", "main"]

ENV_PREFIX = "VTT_BRIDGE_"


def default_data_dir() -> Path:
    """The user's data folder: $XDG_DATA_HOME/vtt-bridge, Application Support (macOS), %APPDATA% (Windows)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "vtt-bridge"


def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(ENV_PREFIX + name, default)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vtt-bridge", description="Rules sidecar for the vtt-bridge Foundry module."
    )
    parser.add_argument("--version", action="version", version=f"vtt-bridge {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the websocket server (defaults: 127.0.0.1:30500)")
    serve.add_argument("--host", default=_env("HOST", "127.0.0.1"), help="address to bind [$VTT_BRIDGE_HOST]")
    serve.add_argument(
        "--port", type=int, default=int(_env("PORT", "30500") or 30500), help="[$VTT_BRIDGE_PORT]"
    )
    serve.add_argument(
        "--data-dir",
        type=Path,
        default=Path(_env("DATA_DIR") or default_data_dir()),
        help="SQLite store and token file [$VTT_BRIDGE_DATA_DIR]",
    )
    serve.add_argument(
        "--token", default=_env("TOKEN"), help="shared secret (default: generated once) [$VTT_BRIDGE_TOKEN]"
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[o for o in (_env("ALLOW_ORIGIN") or "").split() if o],
        help="also allow this browser origin, e.g. https://my.forge-vtt.com (repeatable) "
        "[$VTT_BRIDGE_ALLOW_ORIGIN, space-separated]",
    )
    serve.add_argument(
        "--max-frame", type=int, default=int(_env("MAX_FRAME", str(1 << 20)) or 0), help="frame cap in bytes"
    )
    serve.add_argument("--seed", type=int, default=None, help="seed the engine's dice (reproducible rolls)")
    serve.add_argument(
        "--module-dir",
        type=Path,
        default=None,
        help="the Foundry module folder served as /module.zip (default: the checkout's foundry_module/) "
        "[$VTT_BRIDGE_MODULE_DIR]",
    )
    serve.add_argument("--log-level", default=_env("LOG_LEVEL", "INFO"))
    _hardening_arguments(serve)
    schema = commands.add_parser("schema", help="print the JSON Schema of every protocol message")
    schema.add_argument("--markdown", action="store_true", help="the action and query reference as Markdown")
    return parser


# --- issue 19: the Host check, the token's strength and privacy, the world limits -------------


def _hardening_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[h for h in (_env("ALLOW_HOST") or "").split() if h],
        help="also answer requests naming this host, e.g. gm-pc.local (repeatable; needed off loopback) "
        "[$VTT_BRIDGE_ALLOW_HOST, space-separated]",
    )
    serve.add_argument(
        "--max-tokens", type=int, default=int(_env("MAX_TOKENS") or 5000), help="tokens a world may hold"
    )
    serve.add_argument(
        "--max-actors", type=int, default=int(_env("MAX_ACTORS") or 5000), help="actors a world may hold"
    )


def _token_checks(args: argparse.Namespace, argv: Sequence[str]) -> str | None:
    """The one line refusing a too short token (None: fine); warns when it came on the command line."""
    from vtt_bridge.limits import token_problem

    if any(arg == "--token" or arg.startswith("--token=") for arg in argv):
        print(
            "vtt-bridge: warning: --token is visible to every user of this computer in the process "
            "list; set VTT_BRIDGE_TOKEN or leave it unset (the token file in the data folder is private)",
            file=sys.stderr,
        )
    if args.token:
        return token_problem(args.token)
    return None


def serve(args: argparse.Namespace) -> int:
    """Run the server until Ctrl-C or SIGTERM; sockets are closed and the store flushed on the way out."""
    from aiohttp import web

    from vtt_bridge.app import create_app
    from vtt_bridge.bridge import BRIDGE, Config
    from vtt_bridge.errors import StoreBusy, StoreDamaged
    from vtt_bridge.limits import Limits

    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    data_dir: Path = args.data_dir.expanduser()
    config = Config(
        data_dir=data_dir,
        token=args.token or "",  # "": the token file's, read or made once the store is locked
        host=args.host,
        port=args.port,
        allow_origins=tuple(args.allow_origin),
        max_frame=args.max_frame,
        seed=args.seed,
        module_dir=args.module_dir.expanduser() if args.module_dir is not None else None,
        allow_hosts=tuple(args.allow_host),
        limits=Limits(max_tokens=args.max_tokens, max_actors=args.max_actors),
    )
    try:
        app = create_app(config)
    except StoreBusy as exc:
        print(f"vtt-bridge: {exc}", file=sys.stderr)
        return 1
    except StoreDamaged as exc:
        print(f"vtt-bridge: {exc}", file=sys.stderr)
        return 2
    token = app[BRIDGE].config.token
    host = f"[{args.host}]" if ":" in args.host else args.host

    def ready(_: object) -> None:
        print(f"vtt-bridge {__version__} listening on ws://{host}:{args.port}/ws", flush=True)
        print(f"token: {token}", flush=True)
        print(f"data folder: {data_dir}", flush=True)

    web.run_app(app, host=args.host, port=args.port, print=ready, handle_signals=True, shutdown_timeout=5)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `vtt-bridge` console script and `python -m vtt_bridge`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    if args.command == "schema":
        from vtt_bridge.actions.registry import ACTION_ADAPTER, ACTION_KINDS, QUERY_ADAPTER, QUERY_KINDS
        from vtt_bridge.protocol import json_schema, reference_markdown

        if args.markdown:
            print(reference_markdown(ACTION_KINDS, QUERY_KINDS))
        else:
            print(json.dumps(json_schema(ACTION_ADAPTER, QUERY_ADAPTER), indent=2))
        return 0
    problem = _token_checks(args, argv)
    if problem is not None:
        print(f"vtt-bridge: {problem}", file=sys.stderr)
        return 2
    return serve(args)
