"""Shared building blocks of the pure rules: the model base, strict number types, explanation steps."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Self, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo
from pydantic.alias_generators import to_camel

from vtt_bridge.errors import Refusal
from vtt_bridge.rules.steps import STEPS

C = TypeVar("C", bound=type)
M = TypeVar("M", bound=BaseModel)

MAX_SAFE_INT = 2**53 - 1
"""The largest integer a JavaScript client holds exactly; the wire's default bound."""

Count = Annotated[int, Field(strict=True, ge=0, le=MAX_SAFE_INT)]
"""A non-negative JSON integer (not "3", not 3.5, not 1e30)."""

SignedInt = Annotated[int, Field(strict=True, ge=-MAX_SAFE_INT, le=MAX_SAFE_INT)]
"""A JSON integer of either sign within the safe range."""

Distance = Annotated[float, Field(strict=True, ge=0, le=1e9, allow_inf_nan=False)]
"""A finite, non-negative distance in scene units."""

Flag = Annotated[bool, Field(strict=True)]
"""A JSON boolean (not 0, not "true")."""

Slug = Annotated[str, Field(strict=True, min_length=1, max_length=64)]
"""A short identifier such as a damage type, trait or condition id."""


STORED: dict[str, bool] = {"stored": True}
"""Validation context of a document the sidecar itself stored: read back as it was written (a store
written before the `UpdateKey` check may hold such keys; the edges refuse them, recovery does not)."""


def update_path_segment(key: str, info: ValidationInfo) -> str:
    """Refuse a map key the VTT would not store as one key (see `UpdateKey`)."""
    if info.context == STORED:
        return key
    if "." in key or key.startswith(("-=", "==")):
        raise ValueError(
            f"{key[:40]!r} cannot be a key: the VTT stores it in an update path, "
            "so it may not contain '.' or start with '-=' or '=='"
        )
    return key


UpdateKey = Annotated[Slug, AfterValidator(update_path_segment)]
"""A map key the VTT writes as one segment of a dot-path update (pool, gauge, skill, condition,
point kind and temporary-max effect ids): Foundry expands every '.' into nesting and reads a leading
'-=' or '==' as its deletion or replacement operator, so a key holding them would not come back."""


class RuleModel(BaseModel):
    """Base of every rules and state model: frozen, camelCase on the wire, unknown fields refused."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        allow_inf_nan=False,
        use_attribute_docstrings=True,
    )

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """pydantic's `model_copy`, with the shallow update the rulings use on every step made cheap:
        the new model shares every value it does not replace (so the patch builder sees them as the
        very same objects) and, as in pydantic, nothing is validated. Its set of fields given is
        the original's own set where the update names none beyond it (a frozen model's set is never
        changed in place), else a new set with the update's fields."""
        cls = type(self)
        if deep or not update or self.__pydantic_private__ is not None:
            return super().model_copy(update=update, deep=deep)
        new = _new_instance(cls)
        _set_model_dict(new, {**self.__dict__, **update})
        given = self.__pydantic_fields_set__
        _set_fields_set(new, given if update.keys() <= given else given | update.keys())
        _set_extra(new, None)
        _set_private(new, None)
        return new


_new_instance: Callable[[type[M]], M] = object.__new__
"""A model's class makes its instances with `object.__new__` (pydantic defines no `__new__`)."""
_set_model_dict: Callable[[BaseModel, dict[str, Any]], None] = vars(BaseModel)["__dict__"].__set__
_set_fields_set: Callable[[BaseModel, set[str]], None] = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra: Callable[[BaseModel, None], None] = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private: Callable[[BaseModel, None], None] = vars(BaseModel)["__pydantic_private__"].__set__
"""The setters of a pydantic model's slots (`RuleModel.model_copy`), called directly: the same
as `object.__setattr__`, without its look-up of the attribute in the class's MRO."""


def quick_init(cls: C) -> C:
    """Give a frozen, slotted dataclass an `__init__` that fills its slots through their
    descriptors: the same parameters, defaults and frozen instance as the dataclass' own
    `__init__`, which sets each field through `object.__setattr__` (the attribute looked up in the
    class's MRO again for every field). For `Step` and the outcomes a ruling makes on every action;
    a field with a default factory is not supported (TypeError)."""
    params: list[str] = []
    namespace: dict[str, Any] = {}
    keyword_only = False
    for item in dataclasses.fields(cls):
        if item.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{item.name}: quick_init takes no default factory")
        if item.kw_only and not keyword_only:
            params.append("*")
            keyword_only = True
        if item.default is dataclasses.MISSING:
            params.append(item.name)
        else:
            params.append(f"{item.name}=_default_{item.name}")
            namespace[f"_default_{item.name}"] = item.default
        namespace[f"_set_{item.name}"] = vars(cls)[item.name].__set__
    body = "".join(f"\n    _set_{item.name}(self, {item.name})" for item in dataclasses.fields(cls))
    exec(f"def __init__(self, {', '.join(params)}) -> None:{body or ' pass'}", namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    type.__setattr__(cls, "__init__", init)
    return cls


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One step of a ruling's explanation: the rule id it applies, what it did, and its `key` in the
    declared vocabulary (`rules.steps.STEPS`, `<rule>.<what>`), whose fields its `data` carries.

    Every argument is required and named: a step cannot be made without its key. A plain frozen
    dataclass, not a model: rulings build several per action, always in code (never from the wire),
    so validating each would only cost time (the tests check every key's fields).
    """

    rule: str
    text: str
    data: dict[str, Any]
    key: str

    def payload(self) -> dict[str, Any]:
        """The step as the wire shows it."""
        return {"rule": self.rule, "text": self.text, "data": self.data, "key": self.key}


def payloads(steps: Iterable[Step]) -> list[dict[str, Any]]:
    """A ruling's steps as the wire shows them (`Step.payload`), in order."""
    return [{"rule": step.rule, "text": step.text, "data": step.data, "key": step.key} for step in steps]


_new = object.__new__
_set_rule: Callable[[Step, str], None] = getattr(Step, "rule").__set__  # noqa: B009
_set_text: Callable[[Step, str], None] = getattr(Step, "text").__set__  # noqa: B009
_set_data: Callable[[Step, dict[str, Any]], None] = getattr(Step, "data").__set__  # noqa: B009
_set_key: Callable[[Step, str], None] = getattr(Step, "key").__set__  # noqa: B009


def counted(n: int, one: str, many: str | None = None) -> str:
    """A count in a step's English `text`: `counted(1, "success", "successes")` is "1 success",
    `counted(2, "contest")` "2 contests" (the module words each step in its own language)."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def make_step(rule: str, text: str, data: dict[str, Any], key: str) -> Step:
    """`Step(rule=rule, text=text, data=data, key=key)` for the loops that build thousands (a round's
    detailed contests) and the steps every damage makes (IWR-8, HEALTH-2, HEALTH-6): the same frozen
    step, its slots filled as `Step`'s `quick_init` fills them, without the class call on the way
    there."""
    step: Step = _new(Step)
    _set_rule(step, rule)
    _set_text(step, text)
    _set_data(step, data)
    _set_key(step, key)
    return step


NO_SUBJECTS: Mapping[str, str] = MappingProxyType({})
"""No subjects given to a rule: its steps' data as the rule writes it (`about` adds them later)."""


def about(steps: Iterable[Step], **subjects: Any) -> list[Step]:
    """The steps with their subjects (actor, track ...) added to their data where their key declares
    the field: a rule function does not know whose track it rules on, the action that calls it does
    (an attack's DET-10 steps name attacker and target, not the damaged actor). A step whose data
    holds each of them already (a rule told them: `iwr.resolve_damage`'s `subjects`) is kept as it is."""
    out = []
    told = subjects.items()
    for s in steps:
        data = s.data
        if told <= data.items():  # each subject there already, with its value (compared in C)
            out.append(s)
            continue
        add: dict[str, Any] | None = None
        for name, value in subjects.items():
            if (name not in data or data[name] != value) and name in STEPS[s.key].fields:
                if add is None:
                    add = {}
                add[name] = value
        out.append(s if add is None else make_step(s.rule, s.text, {**data, **add}, s.key))
    return out


class RuleViolation(Refusal):
    """An action the rules forbid (spending more than held, a variant of a missing pool, ...).

    The server answers it with error code `invalid` and changes nothing.
    """

    def __init__(self, rule: str, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.path = path
