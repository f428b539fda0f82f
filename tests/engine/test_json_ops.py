"""Undo's ops as JSON in parts (`engine.history.JsonOps`): a ruling's few ops in one part, many in
parts of `OPS_CHUNK`, and the same JSON array and ops back however they came."""

from __future__ import annotations

import orjson
import pytest

from vtt_bridge.engine.history import OPS_CHUNK, JsonOps


@pytest.mark.parametrize("count", [0, 1, 2, OPS_CHUNK, OPS_CHUNK + 1, 3 * OPS_CHUNK + 5])
def test_ops_in_parts_give_back_their_json_array_and_ops(count: int) -> None:
    ops = tuple({"op": "replace", "path": f"/actors/a{i}/health/bashing", "value": i} for i in range(count))
    for given in (ops, list(ops), iter(ops)):
        kept = JsonOps.of(given)
        assert kept.data() == orjson.dumps(list(ops))
        assert kept.ops() == ops
        assert kept.nbytes == sum(
            len(orjson.dumps(list(ops[at : at + OPS_CHUNK]))) for at in range(0, count, OPS_CHUNK)
        )
