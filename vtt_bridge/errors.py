"""Every exception of vtt-bridge, and the one map from a refusal to its wire code (PROTOCOL.md).

```
Exception
├── RuleViolation       rules/common.py     the rules forbid it (rule id, field path)   -> invalid
├── NotFound            document/models.py  an unknown actor or token id (field path)   -> not_found
├── RequestError        here                a request refused, with its wire code       -> its code
├── AnsweredLongAgo     here                a retried action id whose reply is only in the store
├── StoreBusy           here                another process holds the store
├── StoreDamaged        here                the store's file is damaged, foreign or newer
└── ModuleUnavailable   here                the Foundry module cannot be served (HTTP status)
```

The core (rules, document, actions) raises only the first two and knows no wire codes; the shell
turns each refusal into a `RequestError` with `refusal` (pydantic's `ValidationError` of a model the
rules could not build counts as `invalid`). A request that raises any of them changes nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from vtt_bridge.document.models import NotFound
from vtt_bridge.engine.protocol import ErrorCode, ErrorDetail, error_details
from vtt_bridge.rules.common import RuleViolation

__all__ = [
    "REFUSAL_CODES",
    "AnsweredLongAgo",
    "ErrorCode",
    "ModuleUnavailable",
    "NotFound",
    "RequestError",
    "RuleViolation",
    "StoreBusy",
    "StoreDamaged",
    "path_details",
    "refusal",
]


class RequestError(Exception):
    """A request the bridge refuses; the server answers it with an `error` of this code."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        details: list[ErrorDetail] | None = None,
        rev: int | None = None,
        re: str | None = None,
    ) -> None:
        super().__init__(message)
        self.re = re
        """The id of the request, when the error is found before the request is parsed."""
        self.code = code
        self.message = message
        self.details = details
        self.rev = rev

    def payload(self) -> dict[str, Any]:
        """The `error` payload (without `re`, which the envelope carries)."""
        body: dict[str, Any] = {"code": self.code.value, "message": self.message}
        if self.details is not None:
            body["details"] = [d.model_dump(mode="json", exclude_none=True) for d in self.details]
        if self.rev is not None:
            body["rev"] = self.rev
        return body


class AnsweredLongAgo(Exception):
    """An action id a world answered before the replies it keeps in memory: its reply is in the
    store only (`Store.reply`). Raised instead of ruling on it again."""

    def __init__(self, action_id: str, digest: str) -> None:
        super().__init__(action_id)
        self.action_id = action_id
        self.digest = digest
        """The digest of the retry's payload (to compare with the stored one's)."""


class StoreBusy(Exception):
    """Another process holds the store (a second sidecar on the same data folder)."""


class StoreDamaged(Exception):
    """The file cannot be opened as this version's store: one line saying which file, what is
    wrong with it and what to do. Nothing was written to it."""


class ModuleUnavailable(Exception):
    """The module cannot be served; the message says why and how to fix it, `status` is the HTTP one."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


REFUSAL_CODES: dict[type[Exception], ErrorCode] = {
    RuleViolation: ErrorCode.INVALID,
    NotFound: ErrorCode.NOT_FOUND,
    ValidationError: ErrorCode.INVALID,
}
"""The core's refusals and their wire codes: the one place that says which is which."""


def path_details(path: tuple[str | int, ...], message: str) -> list[ErrorDetail]:
    """One detail naming a field path."""
    return [ErrorDetail(path=list(path), message=message)]


def refusal(exc: BaseException, what: str) -> RequestError | None:
    """The `RequestError` a refusal of the core answers with (None: not a refusal, a bug).
    `what` names the request for a model the rules could not build (`invalid damage action`)."""
    code = next((code for kind, code in REFUSAL_CODES.items() if isinstance(exc, kind)), None)
    if code is None:
        return None
    if isinstance(exc, RuleViolation):
        return RequestError(code, f"{exc.rule}: {exc.message}", path_details(exc.path, exc.message))
    if isinstance(exc, NotFound):
        return RequestError(code, exc.message, path_details(exc.path, exc.message))
    assert isinstance(exc, ValidationError)
    return RequestError(code, f"invalid {what}", error_details(exc))
