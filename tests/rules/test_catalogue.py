"""The step catalogue joined from its families (rules/catalogue/): each key declared once."""

from __future__ import annotations

import pytest

from vtt_bridge.rules.catalogue.fields import PAIR, spec
from vtt_bridge.rules.steps import FAMILIES, STEPS, _join


def test_every_family_key_is_in_the_catalogue_once_and_nothing_else_is() -> None:
    assert sum(len(family) for family in FAMILIES) == len(STEPS)
    assert {key for family in FAMILIES for key in family} == set(STEPS)


def test_a_key_two_families_declare_is_refused_when_the_catalogue_is_joined() -> None:
    one = {"DET-4.locate": spec("DET-4", "one", PAIR)}
    other = {"DET-4.locate": spec("DET-4", "the other", PAIR)}
    with pytest.raises(ValueError, match=r"'DET-4\.locate' is declared twice"):
        _join((one, other))
    assert list(_join((one, {"DET-4.area": spec("DET-4", "an area", PAIR)}))) == [
        "DET-4.locate",
        "DET-4.area",
    ]
