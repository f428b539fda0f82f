"""The one exception tree of vtt-bridge. It imports nothing of the package, so every layer (the pure
rules too) may raise under its root, and `except VttBridgeError` catches anything the package raises
on purpose.

```
VttBridgeError                                   the root
├── Refusal                                      the core refuses a request; nothing changed
│   ├── RuleViolation   rules/common.py          the rules forbid it (rule id, field path) -> invalid
│   └── NotFound        document/models.py       an unknown actor or token id (field path) -> not_found
├── RequestError        engine/refusals.py       a request refused, with its wire code    -> its code
│   ├── StorageError    server/commit.py         the store could not take a ruling        -> storage
│   └── FrameTooLarge   server/endpoint.py       a frame past the cap                     -> too_large
├── AnsweredLongAgo     here                     a retried action id whose reply is only in the store
├── StoreError          here                     the store cannot be used as it is
│   ├── StoreBusy       here                     another process holds the store
│   ├── StoreDamaged    here                     the store's file is damaged, foreign or newer
│   ├── NotUnpacked     engine/codec.py          packed bytes that do not unpack
│   ├── PartDamaged     store/pages.py           a ruling's stored part damaged or missing
│   └── StoreGone       store/files.py           the store's file deleted or replaced while it runs
├── ModuleUnavailable   web/module_files.py      the Foundry module cannot be served (HTTP status)
└── StartupError        cli/startup.py           a start-up mistake (exit status 2)
```

The core (rules, document, actions) raises only the refusals and knows no wire codes; the engine
turns each refusal into a `RequestError` (`engine.refusals.refusal`; pydantic's `ValidationError` of
a model the rules could not build counts as `invalid`). A request that raises any of them changes
nothing. tests/test_errors.py keeps this drawing equal to the classes.
"""

from __future__ import annotations

__all__ = [
    "AnsweredLongAgo",
    "Refusal",
    "StoreBusy",
    "StoreDamaged",
    "StoreError",
    "VttBridgeError",
]


class VttBridgeError(Exception):
    """The root: every exception class of the package derives from it."""


class Refusal(VttBridgeError):
    """The core refuses a request (the rules forbid it, or it names what the world does not have);
    the world is as it was."""


class AnsweredLongAgo(VttBridgeError):
    """An action id a world answered before the replies it keeps in memory: its reply is in the
    store only (`Store.reply`). Raised instead of ruling on it again."""

    def __init__(self, action_id: str, digest: str) -> None:
        super().__init__(action_id)
        self.action_id = action_id
        self.digest = digest
        """The digest of the retry's payload (to compare with the stored one's)."""


class StoreError(VttBridgeError):
    """The store cannot be used as it is."""


class StoreBusy(StoreError):
    """Another process holds the store (a second sidecar on the same data folder)."""


class StoreDamaged(StoreError):
    """The file cannot be opened as this version's store: one line saying which file, what is
    wrong with it and what to do. Nothing was written to it."""
