"""Helpers shared by the use cases."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from baccarat.bets import PlayerBanker
from baccarat_api.service.errors import ApiError

if TYPE_CHECKING:
    from baccarat.validation import BetRefused


def now() -> str:
    """UTC, ISO 8601 with milliseconds and a ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def canonical(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def player_banker_from_json(pb: Mapping[str, Any] | None) -> PlayerBanker | None:
    if pb is None:
        return None
    return PlayerBanker(bettor_id=pb["bettor_id"], balance=pb["balance"], level=pb.get("level"))


def refused(exc: BetRefused) -> ApiError:
    """A refused bet list → 422 with the refusal's stable code; details name the bettor, the bet
    (its index in the list and type), the violated limit and the attempted value."""
    data = exc.as_dict()
    details = {k: data[k] for k in ("bettor_id", "bet_index", "bet_type", "limit", "attempted")}
    return ApiError(exc.code.value, exc.message, details=details, status=422, retryable=False)


def lost_race() -> ApiError:
    """A conditional write that lost to a concurrent request: 409, retryable."""
    return ApiError(
        "concurrent_update", "another request changed this resource first; retry the request"
    )


def seconds_after(iso: str, seconds: int) -> str:
    """``iso`` (as :func:`now` writes it) plus ``seconds``, in the same format (so the strings
    sort as the times do)."""
    from datetime import timedelta

    at = datetime.fromisoformat(iso.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
