"""The state document's models: the cheap shallow copy every ruling makes (`RuleModel.model_copy`
with an update) is exactly pydantic's `model_copy`, for every model class there is."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import pytest
from pydantic import BaseModel

import vtt_bridge
from vtt_bridge.document.models import Actor, Token, WorldState
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
