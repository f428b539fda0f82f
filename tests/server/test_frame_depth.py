"""`endpoint.too_deep` against the nesting of the parsed value, for any JSON (strings that hold
brackets, quotes and backslashes included) and any limit."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from vtt_bridge.server.endpoint import too_deep

_TRICKY = st.text(alphabet=st.sampled_from('{}[]"\\/:,ab é\n'), max_size=8)
_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=4),
    max_leaves=40,
)


def _depth(value: Any) -> int:
    """How many objects and arrays nest at the deepest (0 for a scalar)."""
    if isinstance(value, dict):
        return 1 + max((_depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(item) for item in value), default=0)
    return 0


@settings(max_examples=400, deadline=None)
@given(_VALUES, st.integers(min_value=0, max_value=8), st.booleans())
def test_too_deep_agrees_with_the_parsed_values_nesting(value: Any, limit: int, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert too_deep(text, limit) == (_depth(value) > limit)


def test_too_deep_sees_brackets_inside_strings_as_text() -> None:
    inside = json.dumps({"a": "[[[[[[[[{{{{", "b": ['\\"[[', "]]]\\\\"]})
    assert not too_deep(inside, 2)
    assert too_deep(inside, 1)
    nested: Any = "}"
    for _ in range(40):
        nested = [nested, '"\\']
    assert too_deep(json.dumps(nested), 32)
    assert not too_deep(json.dumps(nested), 40)
