"""The shared building blocks of the rules (`rules.common`)."""

from __future__ import annotations

import dataclasses

import pytest

from vtt_bridge.rules.common import Step, about, counted, make_step, quick_init


def test_about_adds_only_the_subjects_a_key_declares_keeping_every_other_field() -> None:
    """`about` builds each step with Step's own constructor: it equals `dataclasses.replace` with the
    subjects its key declares merged into the data (a field added to Step must be kept), and leaves a
    step whose key declares none of them as it was."""
    damage = Step(rule="HEALTH-2", text="2 lethal", data={"amount": 2}, key="HEALTH-2.damage")
    roll = Step(rule="DICE-1", text="3 successes", data={"successes": 3}, key="DICE-1.result")
    contest = Step(rule="DET-9", text="-2 dice", data={"dp": -2}, key="DET-9.modifier")
    steps = [damage, roll, contest]
    made = about(steps, actor="hero", track="first")
    assert made[0] == dataclasses.replace(damage, data={"amount": 2, "actor": "hero", "track": "first"})
    assert made[1] == dataclasses.replace(roll, data={"successes": 3, "actor": "hero"})
    assert made[2] is contest  # DET-9.modifier names observer and target, not an actor
    assert made[0].data is not made[1].data  # each step its own data
    assert damage.data == {"amount": 2}  # the steps given are left as they were


def test_a_step_s_english_text_counts_one_and_many() -> None:
    assert counted(1, "success", "successes") == "1 success"
    assert counted(0, "success", "successes") == "0 successes"
    assert counted(1, "contest") == "1 contest"
    assert counted(3, "contest") == "3 contests"


def test_a_step_is_made_whole_frozen_and_by_name_only() -> None:
    """`Step(...)` (its own `__init__`, filling its slots directly) and `make_step` give the same
    frozen step; every field is required and named."""
    step = Step(rule="HEALTH-2", text="1 B damage", data={"amount": 1}, key="HEALTH-2.damage")
    assert step == make_step("HEALTH-2", "1 B damage", {"amount": 1}, "HEALTH-2.damage")
    assert (step.rule, step.text, step.data, step.key) == (
        "HEALTH-2",
        "1 B damage",
        {"amount": 1},
        "HEALTH-2.damage",
    )
    assert dataclasses.replace(step, text="2 B damage").text == "2 B damage"
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.text = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Step(rule="HEALTH-2", text="1 B damage", data={})  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Step("HEALTH-2", "1 B damage", {}, "HEALTH-2.damage")  # type: ignore[call-arg]


def test_quick_init_makes_the_instance_the_dataclass_own_init_makes() -> None:
    """An outcome given `quick_init` takes the same arguments (positional, named, defaults,
    keyword-only) and gives the same frozen instance as the dataclass' own `__init__`."""

    @dataclasses.dataclass(frozen=True, slots=True)
    class Plain:
        a: int
        b: str = "b"
        c: tuple[int, ...] = ()
        d: bool = dataclasses.field(default=False, kw_only=True)

    @quick_init
    @dataclasses.dataclass(frozen=True, slots=True)
    class Quick:
        a: int
        b: str = "b"
        c: tuple[int, ...] = ()
        d: bool = dataclasses.field(default=False, kw_only=True)

    assert "__setattr__" in vars(Plain)["__init__"].__code__.co_names  # the dataclass' own
    assert "__setattr__" not in vars(Quick)["__init__"].__code__.co_names
    for args, kwargs in [
        ((1,), {}),
        ((1, "x"), {}),
        ((1,), {"c": (2,), "d": True}),
        ((), {"a": 3, "b": "y"}),
    ]:
        quick, plain = Quick(*args, **kwargs), Plain(*args, **kwargs)  # type: ignore[arg-type]
        assert dataclasses.astuple(quick) == dataclasses.astuple(plain)
    quick = Quick(1)
    assert quick == Quick(1) and quick != Quick(2)
    assert dataclasses.replace(quick, b="z") == Quick(1, "z")
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.a = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick(1, "b", (), True)  # type: ignore[call-arg]  # d is keyword-only

    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="default factory"):
        quick_init(Factory)


def test_about_keeps_a_step_that_names_its_subjects_already() -> None:
    """A step whose data holds the subject with the same value is kept as the very step; one that
    names another value gets the subject `about` is given."""
    told = Step(rule="HEALTH-2", text="2 lethal", data={"amount": 2, "actor": "hero"}, key="HEALTH-2.damage")
    other = Step(rule="HEALTH-2", text="2 lethal", data={"actor": "foe", "amount": 2}, key="HEALTH-2.damage")
    made = about([told, other], actor="hero")
    assert made[0] is told
    assert list(made[1].data.items()) == [("actor", "hero"), ("amount", 2)]
