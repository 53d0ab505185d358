"""Shoes: the commit request, the committed shoe and its state."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from baccarat_api.limits import CLIENT_SEED_BYTES as MAX_CLIENT_SEED_BYTES
from baccarat_api.service.models.common import EndReason, RulesOut, ShoeStatus, Strict


class CommitShoeRequest(Strict):
    client_seed: str = Field(
        max_length=MAX_CLIENT_SEED_BYTES,
        description=f"at most {MAX_CLIENT_SEED_BYTES} UTF-8 bytes, used exactly as sent",
    )

    @field_validator("client_seed")
    @classmethod
    def _at_most_256_bytes(cls, value: str) -> str:
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise ValueError("the client seed must be valid Unicode (no lone surrogates)") from None
        if size > MAX_CLIENT_SEED_BYTES:
            raise ValueError(
                f"the client seed is {size} UTF-8 bytes; at most {MAX_CLIENT_SEED_BYTES} allowed"
            )
        return value


class ClientSeedRequest(CommitShoeRequest):
    """A client seed given a running table in advance, for its automatic commit of a later
    shoe: the same field as a commit's, checked the same way."""


class ClientSeedOut(Strict):
    """A client seed as queued: its hash (the seed itself is shown by the shoe it commits),
    the shoe it is for, when it was given, how many seeds the table now holds, and the
    ``client_seed_given`` event's number."""

    table_id: str
    client_hash: str
    for_shoe_number: int
    given_at: str
    queued: int
    seq: int


class ShoeOut(Strict):
    shoe_id: str
    table_id: str
    shoe_number: int
    client_seed: str
    client_hash: str
    rules: RulesOut
    anchor: str
    status: ShoeStatus


class ShoeStateOut(ShoeOut):
    rounds_dealt: int
    cards_remaining: int
    last_round_id: str | None
    history: list[dict[str, Any]] = Field(description="the last 30 rounds (star-city history)")
    roads: dict[str, Any] = Field(
        description="bead_plate, big_road, big_eye_boy, small_road, cockroach_pig"
    )
    end_reason: EndReason | None
    ended_at: str | None
    server_seed: str | None = Field(description="s_i (hex), only once the shoe has ended")
    created_at: str
    close_by: str | None = Field(
        description="while open: when the service closes the shoe if nothing is dealt from "
        "it before (its last deal, or its commit, + the table's idle_shoe_close_seconds; "
        "later if a round then still awaits settlement); null once ended"
    )
