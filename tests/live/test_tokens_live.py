"""A player token as a browser uses it, on the local server (docs/design/browsers.md §1): the
operator mints it over HTTP; the "browser" (httpx with an ``Origin``) preflights, reads the
table's state, confirms its own slip; another person's slip and an operator route are 403; the
operator revokes the token and the very next request is 401 ``token_revoked``."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from support.local_server import local_server

pytestmark = pytest.mark.live

ORIGIN = "https://casino.example"


def test_a_browser_with_a_token_at_the_table(shared_dynamodb: Any) -> None:
    with local_server(dynamodb=shared_dynamodb) as server:
        op = httpx.Client(
            base_url=server.url, headers={"authorization": f"Bearer {server.key}"}, timeout=10
        )
        t = op.post(
            "/v1/tables",
            json={"profile": "star-city", "tier": "star-city-fun", "banking": "house"},
        ).json()["table_id"]
        assert op.post(f"/v1/tables/{t}/shoes", json={"client_seed": "b"}).status_code == 201
        for seat, who in ((1, "alice"), (2, "bob")):
            sit = {"bettor_id": who, "balance": 50_000}
            assert op.put(f"/v1/tables/{t}/seats/{seat}", json=sit).status_code == 200
        assert op.post(f"/v1/tables/{t}/betting").status_code == 200
        minted = op.post(f"/v1/tables/{t}/tokens", json={"bettor_id": "alice", "role": "seat"})
        assert minted.status_code == 201, minted.text
        token = minted.json()
        browser = httpx.Client(
            base_url=server.url,
            headers={"origin": ORIGIN, "authorization": f"Bearer {token['token']}"},
            timeout=10,
        )
        pre = httpx.options(
            f"{server.url}/v1/tables/{t}/bets/alice",
            headers={
                "origin": ORIGIN,
                "access-control-request-method": "PUT",
                "access-control-request-headers": "authorization, content-type",
            },
        )
        assert pre.status_code == 204
        assert pre.headers["access-control-allow-origin"] == "*"
        assert pre.headers["access-control-allow-methods"] == "DELETE, PUT"
        state = browser.get(f"/v1/tables/{t}/state")
        assert state.status_code == 200 and state.headers["access-control-allow-origin"] == "*"
        body = state.json()
        assert body["you"]["balance"] == 50_000 and body["seats"]["2"]["balance"] is None
        slip = browser.put(
            f"/v1/tables/{t}/bets/alice", json={"bets": [{"type": "banker", "amount": 1000}]}
        )
        assert slip.status_code == 200, slip.text
        assert slip.json()["seats"]["1"]["bettor_id"] == "alice"
        other = browser.put(
            f"/v1/tables/{t}/bets/bob", json={"bets": [{"type": "player", "amount": 1000}]}
        )
        assert other.status_code == 403
        assert other.json()["error"]["code"] == "token_person_mismatch"
        assert other.headers["access-control-allow-origin"] == "*"
        deal = browser.post(f"/v1/shoes/{t}_s1/rounds", json={"from_book": True})
        assert deal.status_code == 403 and deal.json()["error"]["code"] == "token_route_forbidden"
        assert op.delete(f"/v1/tables/{t}/tokens/{token['jti']}").status_code == 204
        after = browser.get(f"/v1/tables/{t}/state")
        assert after.status_code == 401 and after.json()["error"]["code"] == "token_revoked"
        assert after.headers["access-control-allow-origin"] == "*"
