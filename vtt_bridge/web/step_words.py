"""A step's sentence in a reader's language, from the Foundry module's own language files.

The words live in the module's `lang/<lang>.json` (`VTTBRIDGE.Step.<key>` and the word tables the
module's chat cards use); this port of the module's `keyedParams` (scripts/core/chat-cards.mjs)
fills a key's sentence from the step's data, its subjects by name. The module's tests render every
step the sidecar writes both ways and require the same sentence, so the two cannot drift.

Stdlib only; the status page is its one reader (`pages.py`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

LANGS = ("en", "de", "zh-CN")
"""The languages the module words (its manifest's `languages`); the first is the default."""

STEP = "VTTBRIDGE.Step"
CARD = "VTTBRIDGE.Rules.Card"

COUNT_FIELDS: Mapping[str, str] = {
    "observerSuccesses": "success",
    "hiderSuccesses": "success",
    "successes": "success",
    "observerPool": "dieWith",
    "hiderPool": "dieWith",
    "penalty": "die",
    "contests": "contest",
    "changed": "pair",
    "changedPairs": "pair",
    "lapsed": "result",
    "actors": "actor",
    "tokens": "token",
    "extraSuccesses": "extra",
    "effectPoints": "effectPoint",
    "rerolls": "reroll",
    "restHours": "hour",
    "periodHours": "hour",
    "longRests": "longRest",
}
"""= the module's `COUNT_FIELDS`: count fields and the word they count (`Step.Count.<word>.<form>`)."""

KEY_COUNT_FIELDS: Mapping[str, Mapping[str, str]] = {
    "DICE-3.extra": {"extra": "extra", "total": "success"},
    "DICE-3.noExtra": {"extra": "extra"},
    "DICE-1.rolled": {"successes": "success"},
    "DICE-1.pool": {"base": "die"},
    "DICE-1.toRoll": {"pool": "die"},
    "DICE-4.modifiers": {"total": "die"},
    "DICE-7.bonus": {"bonus": "die"},
    "WP-2.roll": {"bonus": "die"},
    "RANK-13.bonus": {"bonus": "die"},
    "RANK-5.points": {"points": "point"},
    "RANK-12.points": {"points": "point"},
    "HEALTH-9.cost": {"aggravated": "aggravatedBox", "cost": "point"},
    "HEALTH-13.new": {"max": "healthyBoxWith"},
}
"""= the module's `KEY_COUNT_FIELDS`: count fields of one key whose word is not the field's own."""

SUBJECT_FIELDS = ("observer", "target", "actor", "opponent", "attacker", "token")
LOCATE_FIELDS = frozenset(("result", "before", "locate", "state", "shown", "rules"))
RANK_NUMBER_FIELDS = frozenset(("effectiveRank", "antiRank"))
IWR_TYPE_FIELDS = frozenset(("type", "resistance", "weakness"))
"""= the module's `IWR_TYPE_FIELDS`: fields of an IWR step that name a damage type."""
RANK_LETTERS = ("unranked", "D", "C", "B", "A", "S", "S+1")
SIGNED_COUNT_FIELDS: Mapping[str, frozenset[str]] = {"DICE-4.modifiers": frozenset(("total",))}
"""= the module's `SIGNED_COUNT_FIELDS`: count fields shown with their sign ("+1 die")."""
NEGATED_FIELDS: Mapping[str, frozenset[str]] = {"HEALTH-7.change": frozenset(("before", "after"))}
"""= the module's `NEGATED_FIELDS`: a wound penalty is shown as the dice it takes (-3), as the
status page's table and the token show it."""
SUBJECT_WORDS = {
    "damage": "DamageType",
    "emotion-points": "Point",
    "condition-points": "Point",
    "condition": "Condition",
}

Names = Callable[[str], str | None]


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """A language file's nested keys as dotted keys (as Foundry reads them)."""
    out: dict[str, str] = {}
    for key, value in tree.items():
        dotted = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping):
            out.update(flatten(value, dotted))
        elif isinstance(value, str):
            out[dotted] = value
    return out


def plural_category(count: float, lang: str) -> str:
    """CLDR's cardinal category of `count` as `Intl.PluralRules` gives it: "one" for an integer ±1 in
    en and de, else "other"; zh-CN has only "other"."""
    if lang.startswith("zh"):
        return "other"
    return "one" if _is_number(count) and abs(count) == 1 else "other"


def _js_number(value: float) -> str:
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    return str(value)


def plain_value(value: Any) -> str:
    """= the module's `plainValue`: `{B: 1, L: 2}` → "1 B + 2 L", lists joined, numbers as JS shows them."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(plain_value(v) for v in value)
    if isinstance(value, dict):
        parts = [
            (f"{_js_number(n)} {k}" if _is_number(n) else f"{k}: {plain_value(n)}")
            for k, n in value.items()
            if not (_is_number(n) and n == 0)
        ]
        return " + ".join(parts) or "0"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.2f}"
    if isinstance(value, float):
        return _js_number(value)
    return str(value)


def js_string(value: Any) -> str:
    """`String(value)` as JavaScript makes it (null, true, 3 for 3.0)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _signed(value: Any) -> str:
    return f"+{_js_number(value)}" if _is_number(value) and value >= 0 else plain_value(value)


class Language:
    """One language file: `has`, `localize` and `format` as Foundry's `game.i18n` does them."""

    def __init__(self, lang: str, words: Mapping[str, str]) -> None:
        self.lang = lang
        self.words = words

    def has(self, key: str) -> bool:
        return key in self.words

    def localize(self, key: str) -> str:
        return self.words.get(key, key)

    def format(self, key: str, data: Mapping[str, str]) -> str:
        template = self.words.get(key, key)
        return re.sub(r"{([^}]+)}", lambda m: data.get(m.group(1), m.group(0)), template)

    def word(self, key: str, value: Any) -> str:
        return self.localize(key) if self.has(key) else js_string(value)

    def card(self, group: str, value: Any) -> str:
        return self.word(f"{CARD}.{group}.{js_string(value)}", value)

    def count(self, count: float, word: str, shown: str | None = None) -> str:
        """= the module's `countWord`: "1 success", "2 successes" (`shown`: the number as written)."""
        base = f"{STEP}.Count.{word}"
        key = f"{base}.{plural_category(count, self.lang)}"
        written = _js_number(count) if shown is None else shown
        return self.format(key if self.has(key) else f"{base}.other", {"count": written})

    def sentence(self, step: Mapping[str, Any], names: Names) -> str | None:
        """The step's sentence (plain text, not escaped), or None when this language has no sentence
        for its key (an older or newer sidecar's step: show its English `text`)."""
        key = step.get("key")
        if not isinstance(key, str) or not self.has(f"{STEP}.{key}"):
            return None
        return self.format(f"{STEP}.{key}", self.params(step, names))

    # --- the parameters, as the module's fieldParams + keyedParams make them -------------------

    def params(self, step: Mapping[str, Any], names: Names) -> dict[str, str]:
        data: dict[str, Any] = dict(step.get("data") or {})
        key = str(step.get("key") or "")
        out = self._field_params(data, names)
        key_counts = KEY_COUNT_FIELDS.get(key, {})
        negated = NEGATED_FIELDS.get(key, frozenset())
        signed = SIGNED_COUNT_FIELDS.get(key, frozenset())
        iwr = str(step.get("rule")).startswith("IWR")
        for field, value in data.items():
            number = _is_number(value)
            if field in negated and number:
                out[field] = _js_number(-value) if value else "0"
            elif field in key_counts and number:
                out[field] = self.count(value, key_counts[field], _signed(value) if field in signed else None)
            elif field in SUBJECT_FIELDS and isinstance(value, str):
                out[field] = names(value) or value
            elif field in SUBJECT_FIELDS and value is None:
                out[field] = self.localize(f"{STEP}.Every")
            elif field in COUNT_FIELDS and number:
                out[field] = self.count(value, COUNT_FIELDS[field])
            elif field in LOCATE_FIELDS and isinstance(value, str):
                out[field] = self.card("Locate", value)
            elif field == "spell":
                out[field] = self.card("Spell", value)
            elif field == "spellChance" and number:
                out[field] = f"{_js_round(value * 100)}%"
            elif field == "by":
                out[field] = value if isinstance(value, str) and value else self.localize(f"{STEP}.TheGM")
            elif field == "until":
                out[field] = self._until(value)
            elif field in ("side", "reason", "status"):
                out[field] = self.card(field.capitalize(), value)
            elif field == "track":
                out[field] = self.word(f"{STEP}.Track.{js_string(value)}", value)
            elif field == "grade":
                out[field] = self.word(f"{STEP}.Grade.{js_string(value)}", value)
            elif field == "wins":
                out[field] = self.word(f"{STEP}.Wins.{js_string(value)}", value)
            elif field == "dp":
                out[field] = f"+{_js_number(value)}" if number and value > 0 else plain_value(value)
            elif field == "conditions":
                out[field] = (
                    "; " + ", ".join(self.card("Condition", c) for c in value)
                    if isinstance(value, list) and value
                    else ""
                )
            elif field == "means" and key == "DET-4.summary":
                out[field] = f"{value}, " if isinstance(value, str) else ""
            elif field in ("old", "new"):
                out[field] = (
                    self.localize(f"{STEP}.Nothing")
                    if value is None
                    else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
                )
            elif field in RANK_NUMBER_FIELDS and number:
                out[field] = self._rank_letter(int(value))
            elif field in IWR_TYPE_FIELDS and isinstance(value, str) and iwr:
                out[field] = self.card("DamageType", value)
            elif field not in out:
                out[field] = plain_value(value)
        return out

    def _rank_letter(self, number: int) -> str:
        letter = RANK_LETTERS[number] if 0 <= number < len(RANK_LETTERS) else str(number)
        key = f"{CARD}.Rank.{letter}"
        return self.localize(key) if letter == "unranked" and self.has(key) else letter

    def _until(self, until: Any) -> str:
        if isinstance(until, str):
            return self.word(f"{STEP}.Until.{until}", until)
        round_ = until.get("round") if isinstance(until, dict) else None
        return self.format(f"{STEP}.Until.round", {"round": "?" if round_ is None else plain_value(round_)})

    def _field_params(self, data: Mapping[str, Any], names: Names) -> dict[str, str]:
        out = {key: plain_value(value) for key, value in data.items()}
        for key in ("result", "locate"):
            if isinstance(data.get(key), str):
                out[key] = self.card("Locate", data[key])
        simple = {"status": "Status", "condition": "Condition", "kind": "Point", "side": "Side"}
        simple |= {"reason": "Reason", "paidFrom": "Pool", "unusable": "Condition", "spell": "Spell"}
        for key, group in simple.items():
            if isinstance(data.get(key), str):
                out[key] = self.card(group, data[key])
        if isinstance(data.get("conditions"), list):
            conditions = ", ".join(self.card("Condition", c) for c in data["conditions"])
            out["conditions"] = f"; {conditions}" if conditions else ""
        if isinstance(data.get("source"), str):
            out["source"] = self.word(f"VTTBRIDGE.HealSource.{data['source']}", data["source"])
        for key in ("dp", "delta"):
            if _is_number(data.get(key)):
                out[key] = f"+{_js_number(data[key])}" if data[key] > 0 else _js_number(data[key])
        if _is_number(data.get("spellChance")):
            out["spellChance"] = f"{_js_round(data['spellChance'] * 100)}%"
        for key in ("token", "actor", "opponent"):
            if isinstance(data.get(key), str):
                out[key] = names(data[key]) or data[key]
        out |= self._immunity_params(data)
        out |= self._energy_params(data)
        out |= self._roll_params(data)
        if isinstance(data.get("antiDetection"), list):
            out["anti"] = ", ".join(
                self.format(
                    f"{CARD}.Means",
                    {
                        "name": plain_value(a.get("name")),
                        "essence": self.card("Essence", a.get("essence")),
                        "rank": self.card("Rank", a.get("rank")),
                    },
                )
                for a in data["antiDetection"]
            )
        if _is_number(data.get("healthy")):
            boxes = {k: plain_value(data.get(k, 0)) for k in ("healthy", "bashing", "lethal", "aggravated")}
            out["boxes"] = self.format(f"{CARD}.Boxes", boxes)
        return out

    def _roll_params(self, data: Mapping[str, Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        if isinstance(data.get("traits"), list) and "base" in data:

            def name(trait: str) -> str:
                if trait == "dice":
                    return self.localize(f"{CARD}.Dice")
                group = "Attribute" if re.fullmatch(r"[A-Z]{3}", trait) else "Skill"
                return self.word(f"VTTBRIDGE.{group}.{trait}", trait)

            out["traits"] = " + ".join(
                f"{name(plain_value(t.get('trait')))} {plain_value(t.get('value'))}" for t in data["traits"]
            )
        if isinstance(data.get("modifiers"), list) and "total" in data:
            shown = []
            for m in data["modifiers"]:
                text = f"{plain_value(m.get('type'))} {_signed(m.get('value'))}"
                if not m.get("counted"):
                    shown.append(self.format(f"{CARD}.NotStacked", {"modifier": text}))
                elif m.get("perfect"):
                    shown.append(self.format(f"{CARD}.Perfect", {"modifier": text}))
                else:
                    shown.append(text)
            out["modifiers"] = ", ".join(shown)
        if _is_number(data.get("total")) and isinstance(data.get("modifiers"), list):
            out["total"] = _signed(data["total"])
        return out

    def immunity_label(self, immunity: Mapping[str, Any]) -> str:
        group = SUBJECT_WORDS.get(str(immunity.get("kind")))
        raw = immunity.get("subject")
        subject = "" if raw is None else self.card(group, raw) if group else plain_value(raw)
        kind = str(immunity["kind"])
        key = f"{CARD}.Immunity.{kind}"
        if self.has(key):
            label = self.format(key, {"subject": subject})
        else:
            label = f"{kind} ({subject})" if subject else kind
        rank = immunity.get("rank")
        if not rank or rank == "unranked":
            return label
        return self.format(f"{CARD}.Ranked", {"immunity": label, "rank": self.card("Rank", rank)})

    def _immunity_params(self, data: Mapping[str, Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        for key in ("immunity", "replaced"):
            immunity = data.get(key)
            if isinstance(immunity, dict) and isinstance(immunity.get("kind"), str):
                out[key] = self.immunity_label(immunity)
                out[f"{key}Source"] = plain_value(immunity.get("source", "?"))
        immunity = data.get("immunity")
        if not (isinstance(immunity, dict) and isinstance(immunity.get("kind"), str)):
            return out
        if isinstance(data.get("effectRank"), str):
            out["effectRank"] = self.card("Rank", data["effectRank"])
        if isinstance(data.get("save"), str):
            out["save"] = self.card("Save", data["save"])
        if isinstance(data.get("what"), str):
            key = f"{CARD}.What.{data['what']}"
            parts = {
                "kind": self.card("Point", data.get("kind")),
                "condition": self.card("Condition", data.get("condition")),
                "amount": plain_value(data.get("amount", "")),
                "type": self.card("DamageType", data.get("type")),
            }
            out["what"] = self.format(key, parts) if self.has(key) else data["what"]
        return out

    def _energy_params(self, data: Mapping[str, Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        attributes = data.get("keyAttributes")
        if isinstance(attributes, dict) and attributes:
            out["keyAttributes"] = " + ".join(
                f"{self.word(f'VTTBRIDGE.Attribute.{a}', a)} {plain_value(v)}" for a, v in attributes.items()
            )
            out["category"] = self.card("PoolKind", data.get("region") or data.get("category"))
        if isinstance(data.get("traits"), list):
            out["traits"] = ", ".join(self.card("PoolClass", c) for c in data["traits"])
        if isinstance(data.get("classes"), list):
            out["classes"] = ", ".join(self.card("PoolClass", c) for c in data["classes"])
        if isinstance(data.get("class"), str):
            out["class"] = self.card("PoolClass", data["class"])
        if isinstance(data.get("mode"), str):
            key = f"{CARD}.Mode.{data['mode']}"
            cls = out.get("class", "")
            out["mode"] = self.format(key, {"class": cls}) if self.has(key) else f"{data['mode']} {cls}"
        return out


def _js_round(value: float) -> str:
    """`Math.round` (halves up) as JavaScript prints it."""
    return str(math.floor(value + 0.5))


def best_language(accept: str, offered: tuple[str, ...] = LANGS) -> str:
    """The offered language an `Accept-Language` header prefers (RFC 9110 §12.5.4: quality values,
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


class StepWords:
    """The module's language files, read when first asked and again when a file changes."""

    def __init__(self, lang_dir: Callable[[], Path]) -> None:
        self._lang_dir = lang_dir
        self._cache: dict[str, tuple[tuple[int, int], Language]] = {}

    def language(self, lang: str) -> Language | None:
        """The language `lang` (one of `LANGS`), None when its file is missing or unreadable."""
        path = self._lang_dir() / f"{lang}.json"
        try:
            info = path.stat()
            stamp = (info.st_mtime_ns, info.st_size)
            cached = self._cache.get(lang)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            tree = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        language = Language(lang, flatten(tree) if isinstance(tree, dict) else {})
        self._cache[lang] = (stamp, language)
        return language
