"""A frame's JSON read by orjson where it can (`endpoint._decoded`): the same value, or the same
refusal, as Python's parser gives every text, orjson's differences included (a 64-bit integer's
overflow, a lone surrogate's escape, a number past a float's range, NaN, deep nesting)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vtt_bridge.server.endpoint import _DECODER, _decoded

EDGES = [
    '{"a":1,"a":2}',
    '{"id":"\\ud800"}',
    '"\\udc00\\ud800"',
    '"\\ud83d\\ude00"',
    '{"id":"' + chr(0xD800) + '"}',
    '{"name":"Zoë 战士 12345678901234567890"}',
    "1e400",
    "-1e400",
    "1e-400",
    "-0",
    "-0.0",
    "12345678901234567890123",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "0.1234567890123456789",
    "1.7976931348623157e308",
    "NaN",
    "Infinity",
    "[1,]",
    ' {"a": 1} ',
    '{"a":"\\u0000"}',
    '"\x01"',
    "[" * 2000 + "]" * 2000,
    "\ufeff{}",
    '{"a":1}x',
    "0001",
    '{"v":1,"id":"d1","type":"action","payload":{"kind":"damage","instances":[{"amount":1.5e2}]}}',
]


def _same(text: str) -> None:
    try:
        expected: Any = _DECODER.decode(text)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)):
            _decoded(text)
        return
    got = _decoded(text)
    assert json.dumps(got) == json.dumps(expected)  # NaN-free here: json.dumps tells -0.0 from 0
    assert type(got) is type(expected)


@pytest.mark.parametrize("text", EDGES)
def test_a_frame_decodes_as_pythons_parser_decodes_it(text: str) -> None:
    _same(text)


def test_an_integer_past_64_bits_stays_an_integer() -> None:
    value = _decoded('{"amount": 123456789012345678901234567890}')
    assert value == {"amount": 123456789012345678901234567890}
    assert type(value["amount"]) is int


def test_nan_and_a_lone_surrogate_are_refused_or_kept_as_before() -> None:
    with pytest.raises(ValueError):
        _decoded('{"x": NaN}')
    assert _decoded('{"id": "\\ud800"}') == {"id": "\ud800"}
    assert math.isinf(_decoded("1e400"))


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(JSON)
def test_any_json_value_decodes_as_pythons_parser_decodes_it(value: Any) -> None:
    _same(json.dumps(value))
