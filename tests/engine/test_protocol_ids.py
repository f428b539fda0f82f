"""Each id field of an action or query names an actor or a token, as docs/protocol.md says
(`protocol.id_kind`): the server finds the document of that kind, and refuses the other kind's id."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Connect, world_state
from vtt_bridge.actions.registry import HANDLERS, QUERIES, StateQuery
from vtt_bridge.engine.protocol import ID_FIELDS, id_kind

IDS = {"actor": ["actor0", "actor1"], "token": ["token0", "token1"]}
"""In `world_state()`: actors actor0 and actor1, tokens token0 and token1 (no id is both)."""
OTHER = {"actor": "token1", "token": "actor0"}
"""An id of the other kind of document."""

PAYLOADS: dict[str, tuple[str, dict[str, Any]]] = {
    "damage": ("action", {"instances": [{"amount": 1, "grade": "L"}]}),
    "heal": ("action", {"amount": 1, "source": "magic"}),
    "spendWillpower": ("action", {"use": "roll"}),
    "gainTempHp": ("action", {"amount": 1}),
    "move": ("action", {"x": 50, "y": 0}),
    "contest": ("action", {}),
    "explain": ("query", {}),
    "attackCheck": ("query", {"successes": 1}),
}
"""A kind of each family, with the fields besides its ids."""


def id_fields(kind: str) -> dict[str, str]:
    model = HANDLERS[kind][0] if kind in HANDLERS else QUERIES[kind][0]
    fields = ((info.alias or name) for name, info in model.model_fields.items())
    return {field: doc for field in fields if (doc := id_kind(kind, field)) is not None}


def test_every_field_that_names_an_actor_or_token_is_classified() -> None:
    """A field is an id of a document when named `target` or in ID_FIELDS; every kind has its ids."""
    assert StateQuery.model_fields.keys() == {"kind"}
    for kind in [*HANDLERS, *QUERIES]:
        model = HANDLERS[kind][0] if kind in HANDLERS else QUERIES[kind][0]
        for name, info in model.model_fields.items():
            wire = info.alias or name
            if wire in ID_FIELDS or wire == "target":
                assert id_kind(kind, wire) in ("actor", "token"), (kind, wire)
    assert set(PAYLOADS) <= {*HANDLERS, *QUERIES}


@pytest.mark.parametrize("kind", sorted(PAYLOADS))
async def test_an_id_field_finds_its_kind_of_document_and_refuses_the_other(
    connect: Connect, kind: str
) -> None:
    type_, rest = PAYLOADS[kind]
    fields = id_fields(kind)
    assert fields, kind
    peer = await connect()
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    docs = list(fields.values())
    right = {"kind": kind, **rest}
    for index, (field, doc) in enumerate(fields.items()):
        right[field] = IDS[doc][docs[:index].count(doc)]  # observer token0, target token1
    reply = await peer.request(type_, right)
    # found (a contest with no anti-detection to beat is then refused by DET-6, not for its ids)
    assert reply["type"] == "result" or reply["payload"]["code"] != "not_found", (kind, reply["payload"])
    for field, doc in fields.items():
        wrong = {**right, field: OTHER[doc]}
        reply = await peer.request(type_, wrong)
        assert reply["type"] == "error" and reply["payload"]["code"] == "not_found", (
            kind,
            field,
            reply["payload"],
        )
        assert OTHER[doc] in reply["payload"]["message"]
