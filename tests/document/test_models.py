"""The state document's models: the cheap shallow copy every ruling makes (`RuleModel.model_copy`
with an update) is exactly pydantic's `model_copy`, for every model class there is."""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import vtt_bridge
from tests.engine.test_undo import next_round, scenes
from vtt_bridge.document.models import Actor, Token, WorldState, dumped_in_parts
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.rules.common import RuleModel


def every_model_class() -> list[type[RuleModel]]:
    """Every subclass of RuleModel in the package (each module imported first)."""
    for module in pkgutil.walk_packages(vtt_bridge.__path__, "vtt_bridge."):
        if module.name != "vtt_bridge.__main__":
            importlib.import_module(module.name)
    found: list[type[RuleModel]] = []
    stack: list[type[RuleModel]] = [RuleModel]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in found:
                found.append(sub)
                stack.append(sub)
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


MODELS = every_model_class()


def _internals(model: BaseModel) -> tuple[Any, ...]:
    return (
        type(model),
        model.__dict__,
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


def test_the_package_has_the_models_the_document_is_made_of() -> None:
    assert {Actor, Token, WorldState} <= set(MODELS) and len(MODELS) > 30


@pytest.mark.parametrize("cls", MODELS, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_the_fast_shallow_copy_equals_pydantics_model_copy(cls: type[RuleModel]) -> None:
    names = list(cls.model_fields)
    values = {name: object() for name in names}
    fields_set = set(names[1:2])  # as if only the second field was given
    original = cls.model_construct(_fields_set=fields_set, **values)  # any value kept as given
    for update in ({}, dict.fromkeys(names[:1], "new"), {name: [name] for name in names[::2]}):
        fast = original.model_copy(update=update)
        reference = BaseModel.model_copy(original, update=update)
        assert _internals(fast) == _internals(reference)
        assert all(fast.__dict__[name] is reference.__dict__[name] for name in names)
        assert _internals(original) == _internals(cls.model_construct(_fields_set=fields_set, **values))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scenes(), st.integers(0, 3), st.integers(1, 3), st.integers(0, 2**16))
def test_a_document_dumped_in_parts_is_the_model_dump_in_the_same_order(
    monkeypatch: pytest.MonkeyPatch, scene: dict[str, Any], rounds: int, keys: int, seed: int
) -> None:
    """`dumped_in_parts` (a field at a time, a map `DUMP_KEYS` entries at a time, the matrix by its
    own serializer) gives `model_dump(mode="json")`'s value with its keys in the same order, for
    scenes after some rounds (standing wins), sealed or with cells not yet written."""
    monkeypatch.setattr("vtt_bridge.document.models.DUMP_KEYS", keys)
    world = World("w")
    pending = world.prepare_sync({"state": scene})
    world.commit(pending, "")
    states = [world.state]
    for number in range(rounds):
        ruled = world.prepare_action(f"r{number}", next_round(world, {"kind": "round"}), SeededRoller(seed))
        assert not isinstance(ruled, bytes)
        states.append(ruled.state)  # its cells not yet written into the rows (`Unapplied`)
        world.commit(ruled, "")
        states.append(world.state)
    for state in states:
        assert json.dumps(dumped_in_parts(state)) == json.dumps(state.model_dump(mode="json"))
