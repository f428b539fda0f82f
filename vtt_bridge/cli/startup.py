"""What `vtt-bridge serve` checks before it serves, and the banner it prints.

Each check turns a start-up mistake (a taken port, an unusable data folder or token file, an invalid
port or log level) into a `StartupError`: one line saying what is wrong and what to do, which the
CLI prints on stderr before it exits with status 2. Nothing here imports the server.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import logging
import os
import socket
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from vtt_bridge.errors import VttBridgeError

ENV_PREFIX = "VTT_BRIDGE_"

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")

EXIT_STARTUP = 2
"""The exit status of a start-up mistake (the status argparse gives a usage error)."""


class StartupError(VttBridgeError):
    """A start-up mistake; the message is one line: what is wrong, then what to do."""


def env_name(name: str) -> str:
    """The environment variable of an option: `VTT_BRIDGE_<NAME>`."""
    return ENV_PREFIX + name


def given(source: str, text: str) -> str:
    """How a value is shown in a message: `--port 99999` for a flag, `VTT_BRIDGE_PORT=abc` for a variable."""
    return f"{source}={text}" if source.startswith(ENV_PREFIX) else f"{source} {text}"


def port_number(text: str, source: str) -> int:
    """A TCP port 0..65535 (0: any free one); `source` is where `text` came from (a flag or a variable)."""
    try:
        port = int(text.strip())
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise StartupError(
            f"{given(source, text)} is not a port: give a number from 0 to 65535 (0 picks a free one)"
        )
    return port


def positive_int(text: str, source: str) -> int:
    """A whole number above zero (a byte count)."""
    try:
        value = int(text.strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise StartupError(f"{given(source, text)} is not a positive whole number of bytes")
    return value


def whole_number(text: str, source: str) -> int:
    """A whole number, any sign (a seed)."""
    try:
        return int(text.strip())
    except ValueError:
        raise StartupError(f"{given(source, text)} is not a whole number: give one such as 42") from None


MIN_FRAGMENT_BYTES = 256
"""The smallest websocket fragment the sidecar is started with (a 2-to-10-byte header a fragment:
smaller ones would cut a round's reply into millions of frames)."""


def fragment_size(text: str, source: str) -> int:
    """A fragment size in bytes: 0 (never fragment) or at least `MIN_FRAGMENT_BYTES`."""
    try:
        value = int(text.strip())
    except ValueError:
        value = -1
    if value < 0:
        raise StartupError(f"{given(source, text)} is not a whole number of bytes (0 or more)")
    if 0 < value < MIN_FRAGMENT_BYTES:
        raise StartupError(
            f"{given(source, text)} is too small: a fragment is at least {MIN_FRAGMENT_BYTES} bytes "
            "(0: never fragment)"
        )
    return value


def log_level(text: str, source: str) -> int:
    """A `logging` level from its name, in any case."""
    name = text.strip().lower()
    if name not in LOG_LEVELS:
        raise StartupError(f"{given(source, text)} is not a log level: use one of {', '.join(LOG_LEVELS)}")
    level: int = logging.getLevelNamesMapping()[name.upper()]
    return level


ORIGIN_FORM = "scheme://host[:port]"


def browser_origin(text: str, source: str) -> str:
    """An `--allow-origin` as a browser sends its `Origin`: `http` or `https`, a host, an optional
    port (`:*`: any port), an optional trailing `/`; no path, query or user. `*` is refused: it would
    turn the check off."""
    why = None
    parts = urlsplit(text)
    netloc = parts.netloc[:-2] if parts.netloc.endswith(":*") else parts.netloc
    if text.strip() == "*":
        why = "'*' would admit every web page"
    elif "://" not in text:
        why = "it has no scheme"
    elif parts.scheme.lower() not in ("http", "https"):
        why = "its scheme is not http or https"
    elif parts.path not in ("", "/") or parts.query or parts.fragment or "?" in text or "#" in text:
        why = "it has a path or query"
    elif "@" in netloc or not netloc or any(c.isspace() for c in text):
        why = "it has no host, or a user or space"
    else:
        try:
            port = urlsplit(f"{parts.scheme}://{netloc}").port
        except ValueError:
            port = -1
        if port == -1 or ("]" in netloc and not netloc.startswith("[")):
            why = "its port is not a number from 0 to 65535"
    if why is not None:
        raise StartupError(
            f"{given(source, repr(text))} is not a browser origin ({why}): give {ORIGIN_FORM}, e.g. "
            "https://my.forge-vtt.com or http://192.168.1.20:30000 (:* for any port)"
        )
    return text


def _hint(option: str, env: str) -> str:
    return f"pass {option} or set {env_name(env)}"


def _make_private_dirs(folder: Path) -> None:
    """Create `folder` and its missing parents with mode 0700 whatever the umask (any local user could
    otherwise replace the token file or delete the store); a folder that exists is left as it is."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile by a second start, as private as this one makes it
            continue
        os.chmod(made, 0o700)


def prepare_data_dir(path: Path) -> Path:
    """The data folder, created when missing (0700, with its missing parents) and checked writable (a
    file is written and removed)."""
    hint = f"choose another folder: {_hint('--data-dir', 'DATA_DIR')}"
    if path.exists() and not path.is_dir():
        raise StartupError(f"the data folder {path} is a file, not a folder: {hint}")
    try:
        _make_private_dirs(path)
    except OSError as exc:
        raise StartupError(f"cannot create the data folder {path} ({exc.strerror}): {hint}") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise StartupError(f"cannot write in the data folder {path} ({exc.strerror}): {hint}") from None
    return path


def store_busy_hint() -> str:
    """What to do when another sidecar holds the data folder's store."""
    folder = _hint("--data-dir", "DATA_DIR")
    return f"stop the other one (Ctrl-C where it runs), or give this one a folder of its own: {folder}"


def token_file_error(data_dir: Path, exc: OSError | UnicodeDecodeError) -> StartupError:
    """The one line for a token file that cannot be read or made (`tokenfile.load_or_create_token`)."""
    path = data_dir / "token"
    hint = f"fix or delete it (a new token is made), or {_hint('--token', 'TOKEN')}"
    if isinstance(exc, UnicodeDecodeError):
        return StartupError(f"the token file {path} is not text: {hint}")
    return StartupError(f"cannot read the token file {path} ({exc.strerror}): {hint}")


def bind(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for every address of `host` (all on one port, the first one's when `port` is 0)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartupError(
            f"cannot listen on {host!r} ({exc.strerror}): {_hint('--host', 'HOST')} with an address "
            f"of this computer, e.g. 127.0.0.1"
        ) from None
    sockets: list[socket.socket] = []
    seen: set[tuple[int, str]] = set()
    try:
        for family, _, _, _, address in infos:
            key = (int(family), str(address[0]))
            if key in seen:
                continue
            seen.add(key)
            chosen = port if port or not sockets else int(sockets[0].getsockname()[1])
            sockets.append(_listen(family, key[1], chosen, host))
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _listen(family: int, address: str, port: int, host: str) -> socket.socket:
    try:
        return socket.create_server((address, port), family=socket.AddressFamily(family), backlog=128)
    except OSError as exc:
        shown = f"[{address}]" if ":" in address else address
        if exc.errno == errno.EADDRINUSE:
            local = "127.0.0.1" if _is_wildcard(address) else shown
            if is_vtt_bridge(f"http://{local}:{port}"):
                raise StartupError(
                    f"port {port} is taken by a vtt-bridge already running: use that one (its status "
                    f"page is http://{local}:{port}/), or stop it, or {_hint('--port', 'PORT')}"
                ) from None
            raise StartupError(
                f"port {port} is taken by another program: {_hint('--port', 'PORT')} (0 picks a free one)"
            ) from None
        if exc.errno == errno.EACCES:
            raise StartupError(
                f"not allowed to listen on port {port} of {host}: {_hint('--port', 'PORT')} above 1023"
            ) from None
        raise StartupError(
            f"cannot listen on {shown}:{port} ({exc.strerror}): {_hint('--host', 'HOST')} "
            f"(an address of this computer) or {_hint('--port', 'PORT')}"
        ) from None


PROBE_SECONDS = 3.0
"""How long the start-up waits for whatever holds the port to answer `GET /module.json`."""


def is_vtt_bridge(base: str) -> bool:
    """Whether the server at `base` (`http://host:port`) serves vtt-bridge's manifest."""
    try:
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy's answer
        with direct.open(f"{base}/module.json", timeout=PROBE_SECONDS) as response:
            manifest = json.loads(response.read(1 << 16))
    except (OSError, ValueError):  # refused, timed out, not HTTP, not JSON
        return False
    return isinstance(manifest, dict) and manifest.get("id") == "vtt-bridge"


def _is_wildcard(address: str) -> bool:
    return address in ("0.0.0.0", "::", "")


def is_loopback(address: str) -> bool:
    """Whether an address is reachable only from this computer."""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def lan_addresses(addresses: list[str]) -> list[str]:
    """The addresses another computer reaches this one at, for the bound `addresses`: a bound address
    that is neither loopback nor a wildcard as it is; for a wildcard, the address of the interface
    this computer's route out leaves by (a UDP socket's connect sends nothing), per family."""
    found: list[str] = []
    for address in addresses:
        if not _is_wildcard(address):
            if not is_loopback(address) and address not in found:
                found.append(address)
            continue
        family, probe = (socket.AF_INET6, "2001:db8::1") if ":" in address else (socket.AF_INET, "192.0.2.1")
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                own = str(udp.getsockname()[0]).split("%", 1)[0]
        except OSError:  # no route out: offline, or no such family
            continue
        if not is_loopback(own) and not _is_wildcard(own) and own not in found:
            found.append(own)
    return found


def _url_host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


ENGINE_COMPILED = "compiled"
ENGINE_PLAIN = "plain Python (slower: install a C compiler and python3-dev, then install it again)"
"""The banner's `rules engine:` line: whether the install compiled the hot path (setup.py NATIVE)."""


def banner(
    version: str,
    addresses: list[str],
    port: int,
    token: str,
    data_dir: Path,
    token_source: str,
    compiled: bool = True,
) -> list[str]:
    """What the sidecar prints on stdout once it listens: the websocket URL first (scripts wait for
    "listening on"), the token, where its data is, the pages, whether the rules' hot path is
    compiled, and how to stop. Listening beyond this computer, the URLs are the ones another
    computer uses, and the status page's carries the token (it asks for it there)."""
    lan = lan_addresses(addresses) if any(not is_loopback(a) for a in addresses) else []
    first = addresses[0]
    local = lan[0] if lan else "127.0.0.1" if _is_wildcard(first) else first
    host = _url_host(local)
    http = f"http://{host}:{port}"
    status = f"{http}/" if is_loopback(first) else f"{http}/?token={token}"  # as the page asks
    return [
        f"vtt-bridge {version} listening on ws://{host}:{port}/ws",
        f"  token:         {token}  ({token_source})",
        f"  data folder:   {data_dir}",
        f"  status page:   {status}",
        f"  manifest URL:  {http}/module.json  (Foundry: Add-on Modules, Install Module)",
        f"  module zip:    {http}/module.zip  (for a Foundry on another computer: upload or unzip it)",
        f"  rules engine:  {ENGINE_COMPILED if compiled else ENGINE_PLAIN}",
        "  stop:          Ctrl-C (or SIGTERM); every acknowledged ruling is kept",
    ]


def exposure_warning(addresses: list[str]) -> str | None:
    """A warning when the sidecar listens beyond this computer (None on loopback only): who can
    reach it, and that a host name must be named with `--allow-host` (addresses are served as they are)."""
    exposed = [a for a in addresses if not is_loopback(a)]
    if not exposed:
        return None
    shown = ", ".join(_url_host(a) for a in exposed)
    lan = lan_addresses(addresses)
    at = f" at {', '.join(_url_host(a) for a in lan)}" if lan else ""
    return (
        f"vtt-bridge: warning: listening on {shown}, reachable from other computers{at}: anyone with "
        "the token can rule on your worlds; to reach it by a host name (gm-pc.local) start it with "
        "--allow-host gm-pc.local; use --host 127.0.0.1 unless Foundry's server runs elsewhere"
    )
