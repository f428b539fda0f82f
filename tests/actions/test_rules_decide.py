"""Each explanation written once (issue 32): the Health, Willpower and Energy handlers read the
document, call the rules and apply the outcome; the rules decide, write every step and raise every
refusal of a rule. Read with `ast`, so a step or refusal built in these handlers fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ACTIONS = Path(__file__).resolve().parent.parent.parent / "vtt_bridge" / "actions"


def built(path: Path) -> list[str]:
    """Every `Step(...)` and `RuleViolation(...)` call in the module, as `name:line`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in ("Step", "RuleViolation"):
                found.append(f"{name}:{node.lineno}")
    return found


@pytest.mark.parametrize("module", ["health.py", "energy.py"])
def test_the_health_and_energy_handlers_build_no_step_and_raise_no_rule_refusal(module: str) -> None:
    assert built(ACTIONS / module) == []


def test_the_check_sees_steps_and_refusals(tmp_path: Path) -> None:
    """The check looks at something: a handler that builds either is caught, however it is named."""
    handler = tmp_path / "handler.py"
    handler.write_text(
        "from vtt_bridge.rules import common\n"
        "def f():\n"
        "    step = common.Step(rule='X', text='', data={}, key='X.y')\n"
        "    raise RuleViolation('X', 'no', ())\n",
        encoding="utf-8",
    )
    assert built(handler) == ["Step:3", "RuleViolation:4"]
