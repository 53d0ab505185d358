"""Player and lobby tokens behind the HttpApi Lambda authorizer (real authorizer v2 events, the
functions behind it as API Gateway runs them): a token whose MAC verifies is authorized with its
claims in the context — even expired or revoked, so the app answers those in the error envelope
with their codes (and the authorizer's cache never outlives them); a forged one is refused; a
token's context never passes for an operator's."""

from __future__ import annotations

from typing import Any

import pytest
from support.clock import service_clock
from support.gateway import GatewayApi, authorize, authorizer_event
from support.stack import Api, Stack, http_api_event, new_table


def event_for(api: Api, method: str, path: str, authorization: str) -> dict[str, Any]:
    route = api.route(method, path)
    return authorizer_event(
        http_api_event(method, path, route, headers={"authorization": authorization})
    )


def code(r: Any) -> str | None:
    return r.body["error"]["code"] if isinstance(r.body, dict) and "error" in r.body else None


def test_a_verified_token_is_authorized_with_its_claims(api: Api, stack: Stack) -> None:
    t = new_table(api)
    minted = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "alice", "role": "seat"}).body
    answer = authorize(event_for(api, "GET", f"/v1/tables/{t}/state", f"Bearer {minted['token']}"))
    assert answer["isAuthorized"] is True
    context = answer["context"]
    assert {k: context[k] for k in ("operator_id", "kind", "tbl", "sub", "role", "jti")} == {
        "operator_id": "operator-a", "kind": "player", "tbl": t, "sub": "alice", "role": "seat",
        "jti": minted["jti"],
    }  # fmt: skip
    assert context["exp"] - context["iat"] == 3_600
    lobby = api.post("/v1/lobby-tokens", {}).body["token"]
    answer = authorize(event_for(api, "GET", f"/v1/tables/{t}/state", f"Bearer {lobby}"))
    assert answer["isAuthorized"] is True and answer["context"]["role"] == "lobby"
    assert answer["context"]["tbl"] == "" and answer["context"]["sub"] == ""


@pytest.mark.parametrize("change", ["payload", "mac", "prefix-only", "other-deployment"])
def test_a_forged_or_malformed_token_is_refused(api: Api, change: str) -> None:
    t = new_table(api)
    token = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "a", "role": "seat"}).body["token"]
    prefix, payload, mac = token.split(".")
    forged = {
        "payload": f"{prefix}.{payload[:-2]}{'B' if payload[-2] == 'A' else 'A'}{payload[-1]}."
        + mac,
        "mac": f"{prefix}.{payload}.{mac[:-1]}{'A' if mac[-1] != 'A' else 'B'}",
        "prefix-only": "bpt1.",
        "other-deployment": f"{prefix}.{payload}.{'A' * len(mac)}",
    }[change]
    answer = authorize(event_for(api, "GET", f"/v1/tables/{t}/state", f"Bearer {forged}"))
    assert answer == {"isAuthorized": False}


def test_expired_and_revoked_tokens_pass_the_authorizer_and_get_the_apps_codes(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = new_table(api)
    short = api.post(
        f"/v1/tables/{t}/tokens", {"bettor_id": "a", "role": "seat", "ttl_seconds": 60}
    )
    revoked = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "b", "role": "watcher"}).body
    gw_short, gw_revoked = GatewayApi(short.body["token"]), GatewayApi(revoked["token"])
    assert gw_short.get(f"/v1/tables/{t}/state").status == 200
    assert gw_revoked.get(f"/v1/tables/{t}/events").status == 200
    assert api.call("DELETE", f"/v1/tables/{t}/tokens/{revoked['jti']}").status == 204
    r = gw_revoked.get(f"/v1/tables/{t}/events")  # the authorizer's answer is cached: still in
    assert (r.status, code(r)) == (401, "token_revoked")
    clock = service_clock(monkeypatch)
    clock.advance(61)
    gw_short.cache.clear()
    r = gw_short.get(f"/v1/tables/{t}/state")
    assert (r.status, code(r)) == (401, "token_expired")


def test_a_tokens_context_never_passes_for_an_operators(api: Api, stack: Stack) -> None:
    t = new_table(api)
    token = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "a", "role": "seat"}).body["token"]
    gw = GatewayApi(token)
    r = gw.post(f"/v1/tables/{t}/shoes", {"client_seed": "x"})
    assert (r.status, code(r)) == (403, "token_route_forbidden")
    r = gw.post("/v1/lobby-tokens", {})
    assert (r.status, code(r)) == (403, "token_route_forbidden")
    assert gw.get(f"/v1/tables/{t}/state").body["you"]["bettor_id"] == "a"
