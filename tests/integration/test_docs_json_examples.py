"""docs/api.md's JSON examples outside the runnable `sh run` blocks (docs_run executes those):
the request bodies it shows are sent to the handlers (real HTTP API v2 events, moto behind) and
must be accepted as shown; the shapes of answers it shows (an error, the signing keys) have the
keys a real answer has."""

from __future__ import annotations

import json
import re
from typing import Any

from support.stack import Api

from baccarat_dev.template import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def example_after(heading: str, index: int = 0) -> Any:
    """The ``index``-th ```json block of the section whose heading line is ``heading``."""
    start = DOC.index(f"\n{heading}\n")
    end = DOC.find("\n### ", start + 1)
    section = DOC[start : end if end > 0 else len(DOC)]
    blocks = re.findall(r"^```json\n(.*?)^```", section, flags=re.M | re.S)
    return json.loads(blocks[index])


def test_the_table_example_opens_a_table_with_what_it_shows(api: Api) -> None:
    body = example_after("### `POST /v1/tables`")
    opened = api.post("/v1/tables", body)
    assert opened.status == 201, opened.body
    for field, value in body.items():
        if field not in ("profile", "tier", "banking") and value is not None:
            assert opened.body[field] == value, field


def test_the_bet_example_is_dealt_at_the_profile_that_offers_all_it_uses(api: Api) -> None:
    bet = example_after("### `POST /v1/shoes/{shoe_id}/rounds`")
    table = api.post("/v1/tables", {"profile": "bid-squeeze", "tier": "bid-squeeze-standard",
                                    "banking": "house"}).body  # fmt: skip
    shoe = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "doc"}).body
    dealt = api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"bets": [bet]})
    assert dealt.status == 201, dealt.body
    (locked,) = dealt.body["bets"]
    assert {k: locked[k] for k in ("bettor_id", "type", "amount")} == {
        k: bet[k] for k in ("bettor_id", "type", "amount")
    }


def test_the_error_and_signing_key_examples_have_the_real_answers_keys(api: Api) -> None:
    shown = example_after("## Errors")["error"]
    real = api.get("/v1/shoes/tbl_0000000000000000_s1").body["error"]
    assert list(shown) == list(real)
    jwks = example_after("### `GET /v1/signing-keys` (public)")
    (key,) = api.get("/v1/signing-keys", key=None).body["keys"]
    assert list(jwks["keys"][0]) == list(key)
