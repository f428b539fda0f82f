"""The shell's own steps in the catalogue: undo, a round's start, a batch's items, a sync and an
upsert from the VTT.
"""

from __future__ import annotations

from vtt_bridge.rules.catalogue.fields import ANY, INT, TEXT, StepSpec, spec

BOOKKEEPING: dict[str, StepSpec] = {
    "UNDO.undone": spec("UNDO", "a ruling undone", (), action=TEXT, kind=TEXT, rev=INT, key=TEXT),
    "UNDO.redone": spec("UNDO", "an undone ruling redone", (), action=TEXT, kind=TEXT, rev=INT, key=TEXT),
    "ROUND.begins": spec("ROUND", "a combat round begins", (), round=INT),
    "BATCH.item": spec(
        "BATCH",
        "one item of a batch begins: the steps after it, up to the next, are its own",
        (),
        index=INT,
        number={"type": "integer", "description": "index + 1, as people count"},
        count=INT,
        kind=TEXT,
        target={
            "type": ["string", "null"],
            "description": "the damaged actor (null: nobody), or a pin's target token",
        },
    ),
    "SYNC.synced": spec("SYNC", "the world was synced from the VTT", (), actors=INT, tokens=INT),
    "UPSERT.set": spec("UPSERT", "the VTT set one value", (), path=TEXT, old=ANY, new=ANY),
}
"""The step keys of the shell's bookkeeping (no rule of the rulebook decides them)."""
