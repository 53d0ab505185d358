"""The error envelope every answer that is not a success carries."""

from __future__ import annotations

from typing import Any

from baccarat_api.service.models.common import Strict


class ErrorBody(Strict):
    code: str
    message: str
    retryable: bool
    details: dict[str, Any]
    request_id: str


class ErrorOut(Strict):
    error: ErrorBody
