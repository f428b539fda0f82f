"""EP-9: Gauges, the pure rules."""

from __future__ import annotations

import pytest

from tests.rules.test_energy import INNER_FORCE, held, rule
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.energy import Gauge, NewGauge
from vtt_bridge.rules.gauges import change_gauge_max_by, gain_new_gauge, restore_gauge_by, spend_from_gauge


def test_EP_9_gain_new_gauge_fills_it_keeps_same_names_apart_and_refuses_a_held_id() -> None:
    held_gauge = Gauge(name="Rage", max=5, current=2, source="Berserker Title")
    full = gain_new_gauge(
        NewGauge(id="rage-2", name="Rage", max=4, source="Blood Title"), {}, {"rage": held_gauge}
    )
    assert (full.gauge.current, full.gauge.max, full.conflicts) == (4, 4, ())
    assert [(s.key, s.text) for s in full.steps] == [
        ("EP-9.gained", "Rage from Blood Title: 4/4; separate from rage")
    ]
    assert full.steps[0].data == {"gauge": "rage-2", "current": 4, "max": 4}
    open_ended = gain_new_gauge(NewGauge(id="sin", name="Sin", max=None, source="Demon Bloodline"), {}, {})
    assert open_ended.gauge.current == 0
    assert open_ended.steps[0].text == "Sin from Demon Bloodline: 0 (no maximum)"
    with pytest.raises(RuleViolation) as refused:
        gain_new_gauge(NewGauge(id="rage", name="Fury", max=3, source="Other"), {}, {"rage": held_gauge})
    assert refused.value.rule == "EP-9" and refused.value.path == ("gauge", "id")


def test_EP_9_gain_new_gauge_names_each_conflict_for_the_annihilation() -> None:
    picky = NewGauge(
        id="heat",
        name="Heat",
        max=None,
        source="Fire Bloodline",
        compatibility=(rule("incompatibleWith", "eastern"),),
    )
    gained = gain_new_gauge(picky, {"inner-force": held(INNER_FORCE)}, {})
    assert [c.rule for c in gained.conflicts] == ["EP-9"]
    assert [s.key for s in gained.steps] == ["EP-9.gained", "EP-9.rejects"]
    assert gained.steps[1].text.endswith(": annihilated")


def test_EP_9_a_gauge_spends_what_it_holds_restores_to_its_max_and_changes_a_max_it_has() -> None:
    rage = Gauge(name="Rage", max=5, current=3, source="Berserker")
    assert spend_from_gauge("rage", rage, 3).gauge.current == 0
    with pytest.raises(RuleViolation) as too_much:
        spend_from_gauge("rage", rage, 4)
    assert (too_much.value.rule, too_much.value.path) == ("EP-9", ("amount",))
    assert restore_gauge_by("rage", rage, 10).gauge.current == 5
    endless = Gauge(name="Gold", max=None, current=3, source="Merchant")
    assert restore_gauge_by("gold", endless, 10).gauge.current == 13
    lowered = change_gauge_max_by("rage", rage, -4)
    assert (lowered.gauge.max, lowered.gauge.current, lowered.step.data["lost"]) == (1, 1, 2)
    with pytest.raises(RuleViolation, match="no maximum"):
        change_gauge_max_by("gold", endless, 1)
