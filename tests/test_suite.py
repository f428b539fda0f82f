"""The suite itself: no test a loaded machine fails for being slow."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st


def test_hypothesis_gives_no_example_a_deadline() -> None:
    """tests/conftest.py's profile: Hypothesis's 200 ms per example is off for every property."""
    assert settings.default is not None and settings.default.deadline is None


@settings(max_examples=1)
@given(st.just(0))
def test_an_example_slower_than_hypothesis_default_deadline_passes(_: int) -> None:
    """As a loaded machine's slow example: past the 200 ms Hypothesis allows by default."""
    time.sleep(0.25)
