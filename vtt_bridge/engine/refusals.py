"""The errors a request is answered with, and the one map from a refusal of the core to its wire
code (PROTOCOL.md): `RequestError` carries the code, `refusal` turns a core refusal into one."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from vtt_bridge.document.models import NotFound
from vtt_bridge.engine.protocol import ErrorCode, ErrorDetail, error_details
from vtt_bridge.errors import VttBridgeError
from vtt_bridge.rules.common import RuleViolation

__all__ = ["REFUSAL_CODES", "RequestError", "path_details", "refusal"]


class RequestError(VttBridgeError):
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
