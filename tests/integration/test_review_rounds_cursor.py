"""Forged cursors of GET /v1/rounds are 422."""

from __future__ import annotations

import base64
import json

from support.stack import Api

from integration.test_hostile_input import open_shoe

from .test_errors import assert_envelope

DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")  # Arabic-Indic: Python's \d matches them


def test_a_rounds_cursor_with_non_ascii_digits_is_422_not_an_empty_last_page(api: Api) -> None:
    """The cursor's position was checked with ``\\d``, which matches any Unicode digit: a
    position 'tbl_…#٠٠٠٠٠١#٠٠٠٠١' passed as one this listing gave, was sent to DynamoDB as the
    index key to start after (it sorts after every real key) and answered 200 with no rounds
    and no next_cursor — a made-up position read, the rest of the day silently skipped."""
    shoe_id = open_shoe(api)
    for _ in range(3):
        assert api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}).status == 201
    first = api.get("/v1/rounds", query="limit=1")
    doc = json.loads(base64.urlsafe_b64decode(first.body["next_cursor"]))
    shard, key = doc["p"]
    table_id, shoe, rnd = key.split("#")
    forged = {**doc, "p": [shard, f"{table_id}#{shoe.translate(DIGITS)}#{rnd.translate(DIGITS)}"]}
    cursor = base64.urlsafe_b64encode(json.dumps(forged).encode()).decode()
    r = api.get("/v1/rounds", query=f"limit=1&cursor={cursor}")
    assert_envelope(r, 422, "invalid_cursor")
