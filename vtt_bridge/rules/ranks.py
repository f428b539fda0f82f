"""Ranks (RANK-1..8): the ordered power grades of abilities and effects, prices, contests.

The immunity catalogue (RANK-9/10) and the immunity rules built on it (RANK-5, 11..13) live in
`immunities.py`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator

from vtt_bridge.rules.common import Count, RuleModel


class Rank(StrEnum):
    """RANK-1: six Ranks, ordered unranked < D < C < B < A < S. The value is the wire form."""

    UNRANKED = "unranked"
    D = "D"
    C = "C"
    B = "B"
    A = "A"
    S = "S"

    @property
    def number(self) -> int:
        """The Rank's number: unranked 0, D 1, C 2, B 3, A 4, S 5."""
        return _RANK_NUMBERS[self]

    @property
    def label(self) -> str:
        """English label: `unranked`, `D-Rank`, ..."""
        return "unranked" if self is Rank.UNRANKED else f"{self!s}-Rank"

    @classmethod
    def from_number(cls, number: int) -> Rank:
        """The Rank with this number, clamped to unranked..S (nothing is above S, RANK-2)."""
        return _RANKS_BY_NUMBER[max(0, min(5, number))]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number < other.number

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number <= other.number

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number > other.number

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Rank):
            return NotImplemented
        return self.number >= other.number


_RANK_NUMBERS = {Rank.UNRANKED: 0, Rank.D: 1, Rank.C: 2, Rank.B: 3, Rank.A: 4, Rank.S: 5}
_RANKS_BY_NUMBER = {number: rank for rank, number in _RANK_NUMBERS.items()}


# --- RANK-2: prices -------------------------------------------------------------------------------

_PRICE = re.compile(r"(?P<letters>[DCBAS]+)(?:\+(?P<points>[0-9]+))?")
MAX_REWARD_POINTS = 2**53 - 1


@dataclass(frozen=True, slots=True)
class Price:
    """RANK-2: a purchase price: the ability's Rank and the reward points beside it."""

    rank: Rank
    reward_points: int


def parse_price(text: str) -> Price:
    """RANK-2: `DD+1200` -> Price(D, 1200). The highest letter is the Rank; a doubled letter is the
    single Rank; nothing is above S (`SSS+500` is S). Anything else raises ValueError.
    """
    match = _PRICE.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(
            f"malformed price {text!r}: expected Rank letters from D, C, B, A, S (e.g. 'C', 'BB') "
            "optionally followed by '+' and reward points (e.g. 'DD+1200')"
        )
    rank = max((Rank(letter) for letter in match["letters"]), key=lambda r: r.number)
    points = int(match["points"]) if match["points"] is not None else 0
    if points > MAX_REWARD_POINTS:
        raise ValueError(f"malformed price {text!r}: reward points above {MAX_REWARD_POINTS}")
    return Price(rank=rank, reward_points=points)


RANK_NAMES: frozenset[str] = frozenset(rank.value for rank in Rank)
PRICE_FORMS = (
    "a Rank ('unranked', 'D', 'C', 'B', 'A' or 'S') or a price: Rank letters from D, C, B, A, S, "
    "optionally followed by '+' and reward points (e.g. 'CC', 'DD+1200', 'SSS+500')"
)


def _rank_or_price(value: Any) -> Any:
    """RANK-2: a field that accepts a Rank also accepts a price; the price gives the Rank."""
    if isinstance(value, str) and value not in RANK_NAMES:
        try:
            return parse_price(value).rank
        except ValueError:
            raise ValueError(f"malformed Rank or price {value!r}: allowed: {PRICE_FORMS}") from None
    return value


def _price_text(value: str) -> str:
    try:
        parse_price(value)
    except ValueError:
        raise ValueError(f"malformed price {value!r}: allowed: {PRICE_FORMS}") from None
    return value


PRICE_PATTERN = r"^\s*[DCBAS]+(?:\+[0-9]+)?\s*$"
"""A price as `parse_price` reads it, for the JSON Schema (the reward points' bound is checked apart)."""

PricedRank = Annotated[
    Rank,
    BeforeValidator(
        _rank_or_price, json_schema_input_type=Rank | Annotated[str, Field(pattern=PRICE_PATTERN)]
    ),
]
"""RANK-1/2: a Rank, given as its name (`C`) or as a price (`CC`, `DD+1200`: the price's Rank)."""

PriceText = Annotated[str, Field(strict=True, min_length=1, max_length=40), AfterValidator(_price_text)]
"""RANK-2: a price as the GM wrote it (`DD+1200`), well-formed."""


def _is_price(value: str) -> bool:
    """A well-formed price that is not simply a Rank's name (a malformed one stays in the Rank field,
    which then says why it is refused)."""
    if value in RANK_NAMES:
        return False
    try:
        parse_price(value)
    except ValueError:
        return False
    return True


def _first_given(keys: tuple[str, ...], data: dict[str, Any]) -> str | None:
    """The first of a field's spellings that `data` holds (None: none)."""
    for key in keys:
        if key in data:
            return key
    return None


def keep_prices(data: Any, fields: Mapping[tuple[str, ...], tuple[str, ...]]) -> Any:
    """RANK-2, for a model's `mode="before"` validator: where a Rank field (any of its spellings,
    alias or name) holds a price, keep the text in the price field beside it (`rank: "DD+1200"` ->
    `price: "DD+1200"`, and the Rank field then gives D); a price given alone sets the Rank field;
    a price beside a Rank it does not give is refused (ValueError naming RANK-2).
    """
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] | None = None
    for rank_keys, price_keys in fields.items():
        rank_key = _first_given(rank_keys, data)
        price_key = _first_given(price_keys, data)
        value = data[rank_key] if rank_key is not None else None
        price = data[price_key] if price_key is not None else None
        if price is None:
            if isinstance(value, str) and _is_price(value):  # a price in the Rank field
                out = dict(data) if out is None else out
                out[price_keys[0]] = value
        elif rank_key is None or value is None:  # a price alone
            out = dict(data) if out is None else out
            out[rank_keys[0]] = price
        elif isinstance(price, str) and _is_price(price) and value != price:
            given = parse_price(price).rank
            named = Rank(value) if isinstance(value, str) and value in RANK_NAMES else None
            if named is None and isinstance(value, str) and _is_price(value):
                named = parse_price(value).rank
            if named is not None and named is not given:
                raise ValueError(f"RANK-2: price {price!r} gives {given.value}, not {rank_keys[-1]} {value}")
    return data if out is None else out


class Priced(RuleModel):
    """RANK-2: a model whose Rank fields also take a price; the state keeps the price as written
    (`price`) beside the Rank it gives (`rank`). A price and a Rank that disagree are refused."""

    price: PriceText | None = None
    """RANK-2: the purchase price the GM wrote (`DD+1200`); `rank` is the Rank it gives."""

    PRICED: ClassVar[Mapping[tuple[str, ...], tuple[str, ...]]] = {("rank",): ("price",)}
    """Rank field spellings (name first, then alias) -> its price field's spellings."""

    @model_validator(mode="before")
    @classmethod
    def _keep_prices(cls, data: Any) -> Any:
        spellings = _SPELLINGS.get(cls)
        if spellings is None:
            spellings = _SPELLINGS[cls] = frozenset(
                key for pair in cls.PRICED.items() for keys in pair for key in keys
            )
        if type(data) is dict and spellings.isdisjoint(data):
            return data  # no Rank and no price given: nothing to keep (`keep_prices` would agree)
        return keep_prices(data, cls.PRICED)


_SPELLINGS: dict[type[Priced], frozenset[str]] = {}
"""A priced model's class -> every spelling of its Rank and price fields (`Priced.PRICED`)."""


# --- RANK-3 / RANK-4 / RANK-6: effect Rank and contests -------------------------------------------


def effect_rank(used: Rank, gained: Rank) -> Rank:
    """RANK-3: an effect's Rank is the higher of its Rank when used and when gained."""
    return used if used >= gained else gained


Side = Literal["spear", "shield"]


@dataclass(frozen=True, slots=True)
class ContestOutcome:
    """Who wins a contest of directly opposed abilities, and the rule that decided it."""

    winner: Side
    rule: str
    reason: str


def opposed_contest(spear: Rank, shield: Rank) -> ContestOutcome:
    """RANK-6: the higher Rank wins; at equal Rank the shield (defender) wins."""
    if spear > shield:
        return ContestOutcome(
            "spear", "RANK-6", f"the {spear.label} spear breaks the lower {shield.label} shield"
        )
    if spear < shield:
        return ContestOutcome(
            "shield", "RANK-6", f"the {shield.label} shield outranks the {spear.label} spear"
        )
    return ContestOutcome("shield", "RANK-6", f"equal Rank ({shield}): the shield wins ties")


CasterLevel = Annotated[int, Field(strict=True, ge=0, le=1000)]


class Spell(RuleModel):
    """RANK-4: a spell (or similar effect) with its own Rank and its caster's level."""

    rank: Rank = Rank.UNRANKED
    caster_level: CasterLevel = 0


def spell_contest(spear: Spell, shield: Spell) -> ContestOutcome:
    """RANK-4: spells compare their own Rank; at equal Rank the higher caster level wins; at equal
    caster level RANK-6 gives it to the shield.
    """
    if spear.rank != shield.rank:
        outcome = opposed_contest(spear.rank, shield.rank)
        return ContestOutcome(outcome.winner, "RANK-4", outcome.reason)
    if spear.caster_level > shield.caster_level:
        return ContestOutcome(
            "spear",
            "RANK-4",
            f"equal Rank ({spear.rank}): caster level {spear.caster_level} beats {shield.caster_level}",
        )
    if spear.caster_level < shield.caster_level:
        return ContestOutcome(
            "shield",
            "RANK-4",
            f"equal Rank ({spear.rank}): caster level {shield.caster_level} beats {spear.caster_level}",
        )
    return ContestOutcome(
        "shield", "RANK-6", f"equal Rank ({spear.rank}) and caster level: the shield wins ties"
    )


# --- RANK-7 / RANK-8: abilities without a Rank ----------------------------------------------------

UNRANKED_SOURCES: frozenset[str] = frozenset({"talent", "flaw", "quirk", "basic-combat"})
"""RANK-7: abilities from these count as unranked (e.g. flat-footed from a surprise attack)."""


def source_rank(source_kind: str, price_rank: Rank) -> Rank:
    """RANK-7: Talents, Flaws, Quirks and basic-combat effects are unranked; else the price's Rank."""
    return Rank.UNRANKED if source_kind in UNRANKED_SOURCES else price_rank


class XpThreshold(RuleModel):
    """RANK-8: from `minXp` XP on, an XP-only ability has `rank`."""

    min_xp: Count
    rank: Rank


class XpRankTable(RuleModel):
    """RANK-8: the self-made Skill levels that turn an XP-only cost into a Rank (configuration).

    Thresholds ascend in XP and in Rank; below the first, an ability is unranked.
    """

    thresholds: tuple[XpThreshold, ...]

    @field_validator("thresholds")
    @classmethod
    def _ascending(cls, value: tuple[XpThreshold, ...]) -> tuple[XpThreshold, ...]:
        for before, after in pairwise(value):
            if after.min_xp <= before.min_xp or after.rank <= before.rank:
                raise ValueError("thresholds must ascend strictly in minXp and in rank")
        return value


DEFAULT_XP_RANK_TABLE = XpRankTable(
    thresholds=(
        XpThreshold(min_xp=1, rank=Rank.D),
        XpThreshold(min_xp=1000, rank=Rank.C),
        XpThreshold(min_xp=3000, rank=Rank.B),
        XpThreshold(min_xp=6000, rank=Rank.A),
        XpThreshold(min_xp=10000, rank=Rank.S),
    )
)
"""RANK-8: OUR default, not the rulebook's: the text refers to the self-made Skill levels but does
not include their table. A GM replaces it in configuration (docs/rules/ranks-dice-iwr.md)."""


def rank_for_xp(xp: int, table: XpRankTable = DEFAULT_XP_RANK_TABLE) -> Rank:
    """RANK-8: the Rank of an ability that costs only XP."""
    if xp < 0:
        raise ValueError(f"an XP cost is not negative, got {xp}")
    rank = Rank.UNRANKED
    for threshold in table.thresholds:
        if xp >= threshold.min_xp:
            rank = threshold.rank
    return rank
