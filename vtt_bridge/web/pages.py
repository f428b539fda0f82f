"""The sidecar's web pages: the Foundry module it serves, and a status page.

- `GET /module.json`: the module's manifest, its `version` the package's and its `manifest` and
  `download` URLs pointing at this server, so a GM installs the module in Foundry from
  `http://127.0.0.1:30500/module.json`.
- `GET /module.zip`: the module as Foundry installs it (which files: `module_files.py`).
- `GET /`: connected worlds and clients, each world's rev, and the latest rulings with their steps
  (after a restart, the last ones read back from the store). The token is never shown.
- `GET /status.js`: the page's script: it words the steps in the reader's language with the
  module's own sentence code (`GET /module/scripts/core/chat-cards.mjs`, and its imports `rolls.mjs`
  and `step-fields.mjs`, the catalogue's wording of each field) and language files
  (`GET /module/lang/<lang>.json`); it refreshes the page while open, and
  its Undo and Redo buttons ask the GM for the token once (a password field, kept in the tab's
  `sessionStorage`, never written into the page) and send `undo`/`redo` over `/ws` like the module
  (docs/security.md).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import json
import re
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from vtt_bridge import __version__
from vtt_bridge.engine.world import World
from vtt_bridge.rules.catalogue.fields import SUBJECT_FIELDS
from vtt_bridge.rules.detection import STATES
from vtt_bridge.server.bridge import BRIDGE, RECORD_STEPS, Bridge, RulingRecord
from vtt_bridge.server.hostcheck import is_loopback, token_given
from vtt_bridge.web.module_files import ModuleSource, ModuleUnavailable, default_module_dir, manifest_bytes

_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")
"""A Host header fit to go into a URL: a name or IPv4 address or [IPv6], and a port."""


MODULE = web.AppKey("module", ModuleSource)

LANGS = ("en", "de", "zh-CN")
"""The languages the module has files for; the status page's steps are worded in one of them."""

MODULE_SCRIPTS = frozenset(("chat-cards.mjs", "rolls.mjs", "step-fields.mjs"))
"""The module's `scripts/core/` files the status page loads: the card code that words a step, and
its imports."""


def best_language(accept: str, offered: tuple[str, ...] = LANGS) -> str:
    """The offered language an `Accept-Language` header prefers (RFC 9110 12.5.4: quality values,
    a bare `de` matching `de-AT`'s reader and `zh` matching `zh-CN`); the first offered when none."""
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        match = re.search(r"\bq=([^;]*)", params)  # an unreadable quality: the range is left out
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                quality = 0.0
        if tag and quality > 0:
            ranked.append((-quality, index, tag.strip().lower()))
    for _, _, tag in sorted(ranked):
        for lang in offered:
            code = lang.lower()
            if tag == code or tag.split("-")[0] == code.split("-")[0]:
                return lang
    return offered[0]


def base_url(request: web.Request) -> str:
    """`http://<host>:<port>` as the client reached this server (its Host header, when well formed)."""
    host = request.headers.get("Host", "").lower()  # a host name's case means nothing in a URL
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
        body=manifest_bytes(manifest),
        content_type="application/json",
        charset="utf-8",
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )


async def module_zip(request: web.Request) -> web.Response:
    """`GET /module.zip`: the module as Foundry installs it."""
    source = request.app[MODULE]
    try:  # off the event loop: a build for a Host not cached deflates every file
        data = await asyncio.to_thread(source.zip, base_url(request))
    except ModuleUnavailable as error:
        return _unavailable(error)
    return web.Response(
        body=data,
        content_type="application/zip",
        headers={
            "Content-Disposition": 'attachment; filename="module.zip"',
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
        },
    )


# --- the status page ---------------------------------------------------------------------------

STATUS_CACHE = web.AppKey("status_cache", dict)
"""Language → ((`Bridge.changes`, the language), the page's body (`status_body`: the head, which
names the base URL the browser reached, is made for each request), when it was built, how long that
took): the latest page of each language."""

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
.track { font-family: ui-monospace, monospace; letter-spacing: .05em; white-space: nowrap; }
.box { display: inline-block; width: 1.1em; text-align: center; border: 1px solid #555; margin-right: 1px; }
.box.bashing { background: #e8e2c4; } .box.lethal { background: #e6b8a8; }
.box.aggravated { background: #8a1010; color: #fff; }
.locate { font-family: ui-monospace, monospace; padding: 0 .3em; border: 1px solid #555; }
.locate.unlocated { border-style: dotted; } .locate.approximate { border-style: dashed; }
.ruling.undone h3 .what, .ruling.undone ol { text-decoration: line-through; color: #666; }
.tag { font-size: .85em; border: 1px solid #888; border-radius: 3px; padding: 0 .3em; margin-left: .3em; }
.ruling button { margin-left: .6em; font-size: .85em; }
#undo-status:empty { display: none; }
#undo-status { border: 1px solid #888; padding: .4em .7em; background: #fff; }
dialog { max-width: 32em; } dialog input { width: 100%; margin: .4em 0; }
"""


SCRIPT = Path(__file__).with_name("static") / "status.js"
"""The status page's script (refresh, Undo and Redo), served as `/status.js`."""

_CSS_HASH = base64.b64encode(hashlib.sha256(_CSS.encode()).digest()).decode()

PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; connect-src 'self'; "
        f"style-src 'sha256-{_CSS_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}
"""The page runs only its own script, talks only to its own origin (`/`, `/ws`), and is never
framed (a hostile page cannot overlay it to steal a click on Undo)."""

NO_BUTTON_KINDS = frozenset(("sync", "upsert", "undo", "redo"))
"""Kinds without an Undo button: a sync or upsert is no ruling; an undo or redo is undone or
redone from the ruling it names."""

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


def _say(_e: _Escaper, key: str, english: str, **args: object) -> str:
    """`english` (HTML) marked for the page's script to reword in the reader's language: the
    module's `VTTBRIDGE.StatusPage.<key>` (or the full key `VTTBRIDGE.…`) formatted with `args`,
    which are text (escaped here) or, for keys ending in `_html`, HTML the caller built."""
    shown = {k.removesuffix("_html"): (str(v) if k.endswith("_html") else _e(v)) for k, v in args.items()}
    data = f' data-say-args="{_e(json.dumps(shown, ensure_ascii=False))}"' if shown else ""
    return f'<span data-say="{_e(key)}"{data}>{english}</span>'


BOX_MARKS = {"healthy": "□", "bashing": "/", "lethal": "✕", "aggravated": "✱"}
"""HEALTH-1/2: one mark per box, told apart by shape (not only by colour), as the token's track."""

LOCATE_ORDER = tuple(state.value for state in STATES)
"""DET-4: the locate states, worst first, as the page counts them."""


def world_names(world: World | None) -> dict[str, str]:
    """Token id and actor uuid → display name (a token by its actor's name), for one world."""
    if world is None:
        return {}
    state = world.state
    names = {actor_id: actor.name or actor_id for actor_id, actor in state.actors.items()}
    for token_id, token in state.tokens.items():
        names[token_id] = names.get(token.actor, token_id)
    return names


def _all_names(bridge: Bridge) -> dict[str, str]:
    """Every world's token ids and actor uuids → display names (`world_names`), for the page's script."""
    names: dict[str, str] = {}
    for world in bridge.worlds.values():
        names.update(world_names(world))
    return names


def _named(text: str, names: dict[str, str]) -> str:
    """A step's English text with the ids it names (whole words) turned into names."""
    present = sorted((i for i in names if i in text), key=len, reverse=True)
    if not present:
        return text
    ids = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, present)) + r")(?![\w-])")
    return ids.sub(lambda m: names[m.group(1)], text)


def ruling_subjects(log: list[dict[str, Any]], names: dict[str, str]) -> list[str]:
    """The names a ruling is about, in the order its steps name them (each once)."""
    seen: dict[str, None] = {}
    for step in log:
        data = step.get("data") or {}
        for field in SUBJECT_FIELDS:
            ident = data.get(field)
            if isinstance(ident, str) and ident:
                seen.setdefault(names.get(ident, ident))
    return list(seen)


PAGE_BOXES = 30
"""A Health track of more boxes than this is drawn as one box of each kind with its count: one span
per box would make the page of a world of huge tracks too large to load."""

PAGE_ACTORS = 200
"""Actors the page lists of one world (sorted by name); the rest are counted."""


def _boxes_html(health: Any) -> str:
    counts = {
        "aggravated": health.aggravated,
        "lethal": health.lethal,
        "bashing": health.bashing,
        "healthy": health.healthy,
    }
    if sum(counts.values()) <= PAGE_BOXES:
        marks = "".join(
            f'<span class="box {kind}">{BOX_MARKS[kind]}</span>' * n for kind, n in counts.items()
        )
    else:
        marks = " ".join(
            f'<span class="box {kind}">{BOX_MARKS[kind]}</span>&times;{n:,}'
            for kind, n in counts.items()
            if n
        )
    label = f"{health.healthy} healthy, {health.bashing} B, {health.lethal} L, {health.aggravated} A"
    return f'<span class="track" title="{label}" aria-label="{label}">{marks}</span>'


def _actors_html(world: World, _e: _Escaper) -> list[str]:
    """One world's actors: Health boxes drawn as on the token, status, Willpower, wound penalty and
    conditions (status and conditions in the module's words)."""
    state = world.state
    if not state.actors:
        return []
    heads = (
        ("Actor", "Actor"),
        ("Health", "Health"),
        ("Status", "Status"),
        ("Willpower", "Willpower"),
        ("WoundPenalty", "Wound penalty"),
        ("Conditions", "Conditions"),
    )
    rows = ["<table><tr>" + "".join(f"<th>{_say(_e, k, e)}</th>" for k, e in heads) + "</tr>"]
    shown = sorted(state.actors.items(), key=lambda kv: (kv[1].name or kv[0]).lower())
    for actor_id, actor in shown[:PAGE_ACTORS]:
        tracks = _boxes_html(actor.health)
        if actor.second_health is not None:
            tracks += " + " + _boxes_html(actor.second_health)
        conditions = (
            ", ".join(
                _say(_e, f"VTTBRIDGE.Rules.Card.Condition.{c}", _e(c))
                for c in sorted(c for c, on in actor.conditions.items() if on)
            )
            or "—"
        )
        wp = actor.willpower
        status = actor.status.value
        said = _say(_e, f"VTTBRIDGE.HealthTrack.Status.{status}", _e(status))
        rows.append(
            f"<tr><td>{_e(actor.name or actor_id)}</td><td>{tracks}</td><td>{said}</td>"
            f"<td>{_e(wp.current)}/{_e(wp.max)}</td><td>{_e(-actor.wound_penalty or 0)}</td>"
            f"<td>{conditions}</td></tr>"
        )
    rows.append("</table>")
    if len(shown) > PAGE_ACTORS:
        more = f"{len(shown) - PAGE_ACTORS:,}"
        rows.append(
            f'<p class="muted">{_say(_e, "MoreActors", f"… and {more} more actors.", count=more)}</p>'
        )
    return rows


LOCATING_LISTED = 12
"""Pairs the page lists of who locates whom (unlocated first); the rest are counted."""


def _locating_html(world: World, names: dict[str, str], _e: _Escaper) -> list[str]:
    """For the GM: who locates whom, counted per state, the worst pairs (unlocated first) listed."""
    counts = dict.fromkeys(LOCATE_ORDER, 0)
    listed: dict[str, list[tuple[str, str, str]]] = {"unlocated": [], "approximate": []}
    for observer, row in world.state.visibility.items():  # one pass; no list of every pair
        for target, locate in row.items():
            state = locate.value
            counts[state] = counts.get(state, 0) + 1
            kept = listed.get(state)
            if kept is not None and len(kept) < LOCATING_LISTED:
                kept.append((state, observer, target))
    if not any(counts.values()):
        return []
    summary = ", ".join(f"{n} {state}" for state, n in counts.items())
    worst = (listed["unlocated"] + listed["approximate"])[:LOCATING_LISTED]
    words = {"unlocated": "does not locate {target} at all", "approximate": "locates {target} roughly"}

    def pair(state: str, observer: str, target: str) -> str:
        o, t = names.get(observer, observer), names.get(target, target)
        english = f"{_e(o)} " + _e(words[state]).replace("{target}", _e(t))
        tag = _say(_e, f"VTTBRIDGE.Rules.Card.Locate.{state}", _e(state))
        said = _say(_e, f"Locates.{state}", english, observer=o, target=t)
        return f'<li><span class="locate {state}">{tag}</span> {said}</li>'

    items = "".join(pair(state, o, t) for state, o, t in worst)
    line = _say(_e, "Locating", f"Who locates whom: {_e(summary)}.", **{k: str(n) for k, n in counts.items()})
    return [f"<p>{line}</p>", f"<ul>{items}</ul>" if items else ""]


def _step_html(step: dict[str, Any], _e: _Escaper, names: dict[str, str] | None = None) -> str:
    """A step: its rule id and the sidecar's English `text` (ids turned into names), and the step
    itself as data (`data-step`) for the page's script, which words it in the reader's language with
    the module's own sentence code (`status.js`)."""
    said = _e(_named(str(step.get("text", "")), names or {}))
    shown = {k: step[k] for k in ("rule", "key", "text", "data") if k in step}
    item = (
        f'<li data-step="{_e(json.dumps(shown, ensure_ascii=False, default=str))}">'
        f'<span class="rule">{_e(step.get("rule", ""))}</span> <span class="say" lang="en">{said}</span>'
    )
    data = step.get("data")
    if data:
        listed = json.dumps(data, indent=1, ensure_ascii=False, default=str)
        item += f"<details><summary>{_say(_e, 'Data', 'data')}</summary><pre>{_e(listed)}</pre></details>"
    return item + "</li>"


_TOKEN_DIALOG = """<dialog id="token-dialog"><form id="token-form">
<p><span data-say="TokenAsk"><strong>The sidecar's token</strong>, to undo or redo a ruling: the one in
Foundry's module settings (or the sidecar's data folder). It stays in this tab only, until the tab is
closed; the page never shows it.</span></p>
<label><span data-say="Token">Token</span>
<input type="password" name="token" autocomplete="off" required></label>
<p><button type="submit"><span data-say="Send">Send</span></button>
<button type="button" id="token-cancel"><span data-say="Cancel">Cancel</span></button></p>
</form></dialog>"""
"""Where the Undo button asks for the token (`status.js`); the page itself never holds it."""


def _undid(ruling: RulingRecord) -> tuple[str, str, int] | None:
    """For an undo or redo: (action id, kind, rev) of the ruling it undid or redid (its UNDO step)."""
    if ruling.kind not in ("undo", "redo"):
        return None
    for step in ruling.log:
        data = step.get("data") or {}
        if step.get("rule") == "UNDO" and isinstance(data.get("action"), str):
            return data["action"], str(data.get("kind", "")), int(data.get("rev", 0))
    return None


def _ruling_html(
    bridge: Bridge,
    ruling: RulingRecord,
    _e: _Escaper,
    about_rulings: dict[tuple[str, str], list[str]],
) -> str:
    """One ruling: its heading naming its subjects (an undo's: those of the ruling it undid), its
    steps, and (for a ruling the world can undo) an Undo button, or Redo with the ruling struck
    through when it stands undone."""
    world = bridge.worlds.get(ruling.world)
    who = world_names(world)
    about = ruling_subjects(ruling.log, who)
    undid = _undid(ruling)
    if not about and undid is not None:
        about = about_rulings.get((ruling.world, undid[0]), [])
    subject = f" → {_e(', '.join(about))}" if about else ""
    if undid is not None:
        what = _say(_e, f"Kind.{undid[1]}", _e(undid[1]))
        which = _say(_e, "Undid", f"({what}, rev {_e(undid[2])})", kind_html=what, rev=undid[2])
        subject += f' <span class="muted">{which}</span>'
    if ruling.at is None:
        when = _say(_e, "ReadBack", "read back from the store")
    else:
        at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ruling.at))
        when = _say(_e, "At", f"at {at}", time=at)
    undone = world is not None and ruling.action_id is not None and ruling.action_id in world.history.undone
    button = tag = ""
    if world is not None and ruling.action_id is not None and ruling.kind not in NO_BUTTON_KINDS:
        mode = "redo" if undone else "undo"
        button = (
            f'<button type="button" hidden data-mode="{mode}" data-world="{_e(ruling.world)}" '
            f'data-action="{_e(ruling.action_id)}">{_say(_e, mode.capitalize(), mode.capitalize())}</button>'
        )
    if undone:
        tag = f'<span class="tag">{_say(_e, "Undone", "undone")}</span>'
    kind = _say(_e, f"Kind.{ruling.kind}", _e(ruling.kind))
    where = _say(
        _e,
        "Where",
        f"in <code>{_e(ruling.world)}</code>, rev {_e(ruling.rev)} {when}",
        world_html=f"<code>{_e(ruling.world)}</code>",
        rev=ruling.rev,
        when_html=when,
    )
    parts = [
        f'<div class="ruling{" undone" if undone else ""}"><h3>'
        f'<span class="what"><code>{kind}</code>{subject}</span>{tag} '
        f'<span class="muted">{where}</span>'
        f"{button}</h3>"
    ]
    if ruling.log:
        shown = "".join(_step_html(step, _e, who) for step in ruling.log[:PAGE_STEPS])
        more = ruling.steps - min(len(ruling.log), PAGE_STEPS)
        if more > 0:
            shown += f'<li class="muted">{_say(_e, "MoreSteps", f"… and {more} more steps", count=more)}</li>'
        parts.append(f"<ol>{shown}</ol>")
    elif ruling.unread:
        not_read = "Its steps were not read back (older than what the page reads)."
        parts.append(f'<p class="muted">{_say(_e, "NotRead", not_read)}</p>')
    else:
        parts.append(f'<p class="muted">{_say(_e, "NoSteps", "No steps.")}</p>')
    parts.append("</div>")
    return "\n".join(parts)


def status_head(bridge: Bridge, base: str, lang: str = "en") -> str:
    """The status page up to how to install the module (all of it that names `base` or the reader's
    language `lang`, in which the page's script words the steps: cheap)."""
    _e = _Escaper(bridge.config.token)
    manifest = f'<a href="/module.json"><code>{_e(base)}/module.json</code></a>'
    zipped = f'<a href="/module.zip" download id="module-zip"><code>{_e(base)}/module.zip</code></a>'
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<noscript><meta http-equiv="refresh" content="10"></noscript>',
        '<script type="module" src="/status.js"></script>',
        f"<title>vtt-bridge {_e(__version__)}</title><style>{_CSS}</style></head><body>",
        f'<main data-lang="{_e(lang)}">',
        f"<h1>vtt-bridge {_e(__version__)}</h1>",
        f'<p class="muted">{_say(_e, "Tagline", "Rules sidecar.")}</p>',
        f"<h2>{_say(_e, 'Install', 'Install the Foundry module')}</h2>",
        "<p>"
        + _say(
            _e,
            "InstallHere",
            "Foundry on this computer: in Foundry's setup, <b>Add-on Modules → Install Module</b>, paste "
            f"the manifest URL {manifest}.",
            manifest_html=manifest,
        )
        + "</p>",
        "<p>"
        + _say(
            _e,
            "InstallElsewhere",
            f"Foundry hosted elsewhere (its server cannot reach this computer): download {zipped} and upload "
            "it to the host, or unzip it into the server's <code>Data/modules/</code>.",
            zip_html=zipped,
        )
        + "</p>",
    ]
    return "\n".join(parts) + "\n"


def status_body(bridge: Bridge) -> str:
    """The status page after its head (`status_head`): faults, worlds and rulings, and every subject's
    name for the page's script (`#step-names`); what a big world makes costly to build, and the same
    for any base URL and language."""
    _e = _Escaper(bridge.config.token)
    subjects = json.dumps(_all_names(bridge), ensure_ascii=False)
    parts: list[str] = [f'<div id="step-names" hidden data-names="{_e(subjects)}"></div>']
    if bridge.storage_fault is not None:
        parts.append(
            f'<p class="fault"><strong>Storage fault:</strong> {_e(bridge.storage_fault)}. No ruling is '
            "taken until the disk takes a checkpoint again.</p>"
        )
    parts.extend(f'<p class="fault">{_e(warning)}</p>' for warning in bridge.store.warnings)
    parts.append(f"<h2>{_say(_e, 'Worlds', 'Worlds')}</h2>")
    world_ids = sorted(set(bridge.worlds) | {w for w, clients in bridge.clients.items() if clients})
    if world_ids:
        heads = (("World", "World"), ("Rev", "Rev"), ("Clients", "Connected clients"))
        parts.append("<table><tr>" + "".join(f"<th>{_say(_e, k, e)}</th>" for k, e in heads) + "</tr>")
        for world_id in world_ids:
            world = bridge.worlds.get(world_id)
            names = sorted(client.name for client in bridge.clients.get(world_id, ()))
            unnamed = _say(_e, "Unnamed", "(unnamed)")
            shown = (
                ", ".join(_e(name) if name else unnamed for name in names)
                if names
                else _say(_e, "NoClients", "none")
            )
            count = f"{len(names)}: " if names else ""
            rev = _e(world.rev) if world is not None else "?"
            parts.append(
                f"<tr><td><code>{_e(world_id)}</code></td><td>{rev}</td><td>{count}{shown}</td></tr>"
            )
        parts.append("</table>")
        for world_id in world_ids:
            world = bridge.worlds.get(world_id)
            if world is None or not world.state.actors:
                continue
            parts.append(f"<h3>{_e(world_id)}</h3>")
            parts.extend(_actors_html(world, _e))
            parts.extend(_locating_html(world, world_names(world), _e))
    else:
        parts.append(f'<p class="muted">{_say(_e, "NoWorld", "No world yet.")}</p>')
    parts.append(f"<h2>{_say(_e, 'Rulings', 'Latest rulings')}</h2>")
    parts.append('<p id="undo-status" role="status" aria-live="polite"></p>')
    rulings = list(reversed(bridge.recent))
    if not rulings:
        parts.append(f'<p class="muted">{_say(_e, "NoRuling", "No ruling yet.")}</p>')
    about_rulings = {
        (r.world, r.action_id): ruling_subjects(r.log, world_names(bridge.worlds.get(r.world)))
        for r in rulings
        if r.action_id is not None
    }
    for ruling in rulings:
        parts.append(_ruling_html(bridge, ruling, _e, about_rulings))
    parts.append("</main>")
    parts.append(_TOKEN_DIALOG)
    parts.append("</body></html>\n")
    return "\n".join(parts)


PAGE_SLOW = 0.05
"""Seconds of building from which the status page counts as slow to build (a big world's)."""

PAGE_COST_SHARE = 10
"""A slow page (`PAGE_SLOW`) is rebuilt no sooner than this many times its build time after it was
built: a page reloaded in a loop takes at most a tenth of the event loop from the worlds' rulings
(it is shown up to that long behind them). A fast page is rebuilt after every change."""


def _too_soon(built: tuple[Any, ...], now: float) -> bool:
    """Whether the page's body built (key, html, when, how long it took) is shown again, though
    something it shows changed since: it was slow to build and was built too recently
    (`PAGE_COST_SHARE`)."""
    _, _, when, took = built
    return bool(took >= PAGE_SLOW and now - when < took * PAGE_COST_SHARE)


async def status(request: web.Request) -> web.Response:
    """`GET /`: the status page (off loopback only with the token: `?token=` or a Bearer header)."""
    bridge = request.app[BRIDGE]
    if not is_loopback(bridge.config.host) and not token_given(request, bridge.config.token):
        return web.Response(
            status=401,
            text="this sidecar listens beyond this computer: open /?token=<the token> to see its status\n",
            headers={"WWW-Authenticate": "Bearer"},
        )
    cache = request.app[STATUS_CACHE]
    lang = best_language(request.headers.get("Accept-Language", ""))
    # the page shows the manifest URL the browser reached, and the steps in its language
    key = (bridge.changes, lang)
    built = cache.get(lang)
    now = time.monotonic()
    if built is None or (built[0] != key and not _too_soon(built, now)):
        body = status_body(bridge)
        built = cache[lang] = (key, body, now, time.monotonic() - now)
    headers = {**PAGE_HEADERS, "Content-Language": lang, "Vary": "Accept-Language"}
    page = status_head(bridge, base_url(request), lang) + str(built[1])
    return web.Response(text=page, content_type="text/html", charset="utf-8", headers=headers)


async def status_script(request: web.Request) -> web.Response:
    """`GET /status.js`: the status page's script (no secret in it: the GM types the token)."""
    return web.Response(
        body=SCRIPT.read_bytes(),
        content_type="text/javascript",
        charset="utf-8",
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )


async def module_script(request: web.Request) -> web.Response:
    """`GET /module/scripts/core/<name>`: one of the module's files the status page runs
    (`MODULE_SCRIPTS`), as a JavaScript module; anything else is not found."""
    name = request.match_info["name"]
    path = request.app[MODULE].folder / "scripts" / "core" / name
    if name not in MODULE_SCRIPTS or not path.is_file():
        raise web.HTTPNotFound()
    return web.Response(
        body=path.read_bytes(),
        content_type="text/javascript",
        charset="utf-8",
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )


async def module_lang(request: web.Request) -> web.Response:
    """`GET /module/lang/<lang>.json`: one of the module's language files (`LANGS`)."""
    lang = request.match_info["lang"]
    path = request.app[MODULE].folder / "lang" / f"{lang}.json"
    if lang not in LANGS or not path.is_file():
        raise web.HTTPNotFound()
    return web.Response(
        body=path.read_bytes(),
        content_type="application/json",
        charset="utf-8",
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )


def setup(app: web.Application, module_dir: Path | None = None) -> None:
    """Register `/`, `/module.json` and `/module.zip` (module folder: `module_dir` or the default)."""
    source = ModuleSource(module_dir if module_dir is not None else default_module_dir(), __version__)
    app[MODULE] = source
    app[STATUS_CACHE] = {}
    app.router.add_get("/", status)
    app.router.add_get("/status.js", status_script)
    app.router.add_get("/module/scripts/core/{name}", module_script)
    app.router.add_get("/module/lang/{lang}.json", module_lang)
    app.router.add_get("/module.json", module_json)
    app.router.add_get("/module.zip", module_zip)
