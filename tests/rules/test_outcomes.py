"""The rules' one result shape: a ruling function returns a frozen, slotted outcome dataclass whose
fields name what changed and whose `steps` explain it, never a tuple to unpack by position. (A
function that only explains returns its steps; private helpers are the module's own business.)"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import vtt_bridge.rules

MODULES = [
    importlib.import_module(info.name)
    for info in pkgutil.walk_packages(vtt_bridge.rules.__path__, "vtt_bridge.rules.")
]
"""Every module of the rules, those of their sub-packages (`rules/detection/`) too."""


def _public(module: ModuleType) -> list[tuple[str, object]]:
    """The module's own public names (not those it imports)."""
    return [
        (name, value)
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
    ]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_no_rule_function_returns_its_steps_in_a_tuple_with_other_values(module: ModuleType) -> None:
    tuples = []
    for name, value in _public(module):
        if not inspect.isfunction(value):
            continue
        returns = str(inspect.signature(value).return_annotation)
        if returns.startswith("tuple[") and "Step" in returns and returns != "tuple[Step, ...]":
            tuples.append(name)
    assert tuples == []


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_rules_dataclass_is_frozen_and_slotted(module: ModuleType) -> None:
    loose = [
        name
        for name, value in _public(module)
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and not (value.__dataclass_params__.frozen and "__slots__" in vars(value))  # type: ignore[attr-defined]
    ]
    assert loose == []


def test_the_guard_sees_the_outcomes() -> None:
    """The checks above look at something: the outcome classes are found, as dataclasses."""
    found = {
        name
        for module in MODULES
        for name, value in _public(module)
        if isinstance(value, type) and dataclasses.is_dataclass(value)
    }
    assert {"HealthOutcome", "HealOutcome", "WillpowerOutcome", "DicePool", "LocateExplanation"} <= found
