"""Player and lobby tokens over HTTP (moto, the Lambda handlers; docs/api.md "Player tokens"):
minted and revoked with the operator key only, each route a token reaches scoped exactly as
``http/player.py``'s ``PLAYER_ROUTES`` says (a walk of every route of the app × every role),
the table and the person checked before anything is read, revocation effective on the very next
request, the rate limit and idempotency keys as the operator's."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from fastapi.routing import APIRoute
from support.stack import Api, Stack, new_table

from baccarat_api.http.app import create_app
from baccarat_api.http.deps import current_caller, current_operator
from baccarat_api.http.player import PLAYER_ROUTES, player_route
from baccarat_api.http.routers import all_routers
from baccarat_api.service.callers import ROLES

TOKEN_CODES = {"token_route_forbidden", "token_table_mismatch", "token_person_mismatch"}


def mint(api: Api, table_id: str, bettor_id: str, role: str, **extra: Any) -> dict[str, Any]:
    r = api.post(f"/v1/tables/{table_id}/tokens", {"bettor_id": bettor_id, "role": role, **extra})
    assert r.status == 201, r.body
    return dict(r.body)


def as_token(api: Api, token: str) -> Api:
    return Api(token)


def code(r: Any) -> str | None:
    return r.body["error"]["code"] if isinstance(r.body, dict) and "error" in r.body else None


def seated(api: Api, table_id: str, seat: int, bettor_id: str) -> None:
    body = {"bettor_id": bettor_id, "balance": 50_000}
    assert api.call("PUT", f"/v1/tables/{table_id}/seats/{seat}", body).status == 200


def test_a_token_reads_its_table_and_acts_only_for_its_person(api: Api, stack: Stack) -> None:
    t = new_table(api)
    seated(api, t, 1, "alice")
    seated(api, t, 2, "bob")
    minted = mint(api, t, "alice", "seat")
    assert set(minted) == {
        "token", "jti", "expires_at", "role", "table_id", "bettor_id", "push_url", "push_channel",
    }  # fmt: skip
    alice = as_token(api, minted["token"])
    state = alice.get(f"/v1/tables/{t}/state")
    assert state.status == 200, state.body
    assert state.body["seats"]["2"] == {"bettor_id": "bob", "balance": None, "level": None}
    assert state.body["you"] == {
        "bettor_id": "alice", "role": "seat", "place": "seat 1", "balance": 50_000,
    }  # fmt: skip
    assert api.get(f"/v1/tables/{t}/state").body["seats"]["2"]["balance"] == 50_000
    assert alice.get(f"/v1/tables/{t}/events").status == 200
    assert code(alice.call("DELETE", f"/v1/tables/{t}/bets/bob")) == "token_person_mismatch"
    assert code(alice.call("DELETE", f"/v1/tables/{t}/seats/2")) == "token_person_mismatch"
    other = new_table(api)
    assert code(alice.get(f"/v1/tables/{other}/state")) == "token_table_mismatch"
    missing = "tbl_" + "a" * 16  # nobody's table: the same answer, nothing read
    assert code(alice.get(f"/v1/tables/{missing}/state")) == "token_table_mismatch"
    r = alice.post(f"/v1/tables/{t}/shoes", {"client_seed": "x"})
    assert (r.status, code(r)) == (403, "token_route_forbidden")
    r = alice.post(f"/v1/tables/{t}/tokens", {"bettor_id": "alice", "role": "banker"})
    assert (r.status, code(r)) == (403, "token_route_forbidden")
    assert api.get(f"/v1/tables/{t}/state").body["seats"]["2"]["bettor_id"] == "bob"
    r = alice.call("DELETE", f"/v1/tables/{t}/seats/1")  # leave: own place
    assert r.status == 200, r.body


def test_the_mint_answer_names_where_the_page_subscribes_as_the_state_does(api: Api) -> None:
    """``push_url`` and ``push_channel`` of the mint are the state's: the page subscribes before
    its first state read (docs/design/browsers.md §2, step 1); a rotation moves the next mint's."""
    t = new_table(api)
    first = mint(api, t, "alice", "watcher")
    state = api.get(f"/v1/tables/{t}/state").body
    assert (first["push_url"], first["push_channel"]) == (state["push_url"], f"/tables/{t}/e1")
    assert first["push_channel"] == state["push_channel"]
    assert api.call("DELETE", f"/v1/tables/{t}/tokens/{first['jti']}").status == 204
    again = mint(api, t, "bob", "watcher")
    assert again["push_channel"] == f"/tables/{t}/e2"
    assert again["push_channel"] == api.get(f"/v1/tables/{t}/state").body["push_channel"]
    missing = api.post(f"/v1/tables/tbl_{'a' * 16}/tokens", {"bettor_id": "x", "role": "watcher"})
    assert missing.status == 404


def test_revocation_refuses_the_very_next_request(api: Api, stack: Stack) -> None:
    t = new_table(api)
    one, two = mint(api, t, "alice", "watcher"), mint(api, t, "alice", "watcher")
    bob = mint(api, t, "bob", "watcher")
    assert as_token(api, one["token"]).get(f"/v1/tables/{t}/state").status == 200
    assert api.call("DELETE", f"/v1/tables/{t}/tokens/{one['jti']}").status == 204
    assert api.call("DELETE", f"/v1/tables/{t}/tokens/{one['jti']}").status == 204  # idempotent
    r = as_token(api, one["token"]).get(f"/v1/tables/{t}/state")
    assert (r.status, code(r)) == (401, "token_revoked")
    assert as_token(api, two["token"]).get(f"/v1/tables/{t}/events").status == 200
    r = api.call("DELETE", f"/v1/tables/{t}/tokens", query="bettor_id=alice")
    assert r.status == 204, r.body
    assert code(as_token(api, two["token"]).get(f"/v1/tables/{t}/events")) == "token_revoked"
    assert as_token(api, bob["token"]).get(f"/v1/tables/{t}/events").status == 200
    # another operator's table answers like a missing one
    other = Api(stack.key_b)
    assert other.call("DELETE", f"/v1/tables/{t}/tokens/{one['jti']}").status == 404
    r = other.post(f"/v1/tables/{t}/tokens", {"bettor_id": "eve", "role": "seat"})
    assert (r.status, code(r)) == (404, "not_found")


def test_minting_bounds_and_idempotency(api: Api) -> None:
    t = new_table(api)
    r = api.post(
        f"/v1/tables/{t}/tokens", {"bettor_id": "a", "role": "seat", "ttl_seconds": 14_401}
    )
    assert (r.status, code(r)) == (400, "invalid_request")
    r = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "a", "role": "lobby"})
    assert (r.status, code(r)) == (400, "invalid_request")
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "a", "role": "seat"}, headers=key)
    again = api.post(f"/v1/tables/{t}/tokens", {"bettor_id": "a", "role": "seat"}, headers=key)
    assert first.status == again.status == 201 and first.body == again.body
    lobby = api.post("/v1/lobby-tokens", {"ttl_seconds": 60})
    assert lobby.status == 201 and set(lobby.body) == {"token", "jti", "expires_at", "role"}
    r = as_token(api, lobby.body["token"]).get(f"/v1/tables/{t}/state")
    assert (r.status, code(r)) == (403, "token_route_forbidden")


def test_idempotency_keys_of_tokens_are_scoped_by_person(api: Api) -> None:
    t = new_table(api, banking="player_banker")
    r = api.call("PUT", f"/v1/tables/{t}/banker", {"bettor_id": "bo", "balance": 10**6})
    assert r.status == 200, r.body
    banker = as_token(api, mint(api, t, "bo", "banker")["token"])
    key = {"Idempotency-Key": "same-key"}
    first = banker.post(f"/v1/tables/{t}/urge", {"bettor_id": "bo"}, headers=key)
    # the operator's request with the same key is another request, not a replay of the token's
    op = api.post(f"/v1/tables/{t}/urge", {"bettor_id": "bo"}, headers=key)
    assert op.headers.get("idempotent-replayed") is None
    again = banker.post(f"/v1/tables/{t}/urge", {"bettor_id": "bo"}, headers=key)
    assert again.headers["idempotent-replayed"] == "true" and again.body == first.body
    assert code(banker.post(f"/v1/tables/{t}/urge", {"bettor_id": "x"})) == "token_person_mismatch"


# --- the walk ------------------------------------------------------------------------------------


def _calls(route: APIRoute) -> set[Any]:
    found: set[Any] = set()
    todo = [route.dependant]
    while todo:
        d = todo.pop()
        found.add(d.call)
        todo.extend(d.dependencies)
    return found


def authenticated_routes() -> list[tuple[str, str, bool]]:
    """(method, path, takes a caller) of every route of the app that needs a credential."""
    out = []
    for route in create_app(*all_routers()).routes:
        if not isinstance(route, APIRoute):
            continue
        calls = _calls(route)
        for method in sorted(route.methods):
            if current_caller in calls or current_operator in calls:
                out.append((method, route.path, current_caller in calls))
    return out


def test_the_routes_a_token_may_reach_are_exactly_the_player_routes() -> None:
    walked = authenticated_routes()
    takes_caller = {(m, p) for m, p, caller in walked if caller}
    listed = {(r.method, r.path) for r in PLAYER_ROUTES}
    # every route that takes a caller is listed; every listed route the app has takes one
    # (chat and the lobby, written next to this, are listed before they exist)
    assert takes_caller <= listed, takes_caller - listed
    assert listed & {(m, p) for m, p, _ in walked} == takes_caller


@pytest.mark.parametrize("role", ROLES)
def test_every_route_answers_each_role_as_the_table_says(api: Api, role: str) -> None:
    t = new_table(api)
    if role == "lobby":
        token = api.post("/v1/lobby-tokens", {}).body["token"]
    else:
        token = mint(api, t, "alice", role)["token"]
    holder = as_token(api, token)
    fixed = {
        "table_id": t, "shoe_id": f"{t}_s1", "round_id": f"{t}_s1_r1", "bettor_id": "alice",
        "seat": "1", "round_number": "1", "jti": "tk_" + "a" * 26, "event_id": "ev_1",
        "message_id": "ch_2222222222aaaaaa",
    }  # fmt: skip
    walked = 0
    for method, template, _ in authenticated_routes():
        path = re.sub(r"{(\w+)}", lambda m: fixed[m.group(1)], template)
        body = {} if method in ("POST", "PUT") else None
        r = holder.call(method, path, body)
        entry = player_route(method, template)
        if entry is not None and role in entry.roles:
            assert not (r.status == 403 and code(r) == "token_route_forbidden"), (path, r.body)
            assert r.status != 401, (method, template, r.body)
        else:
            assert (r.status, code(r)) == (403, "token_route_forbidden"), (method, template)
        walked += 1
    assert walked > 40


def test_a_tokens_requests_count_in_its_operators_rate_limit(
    api: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    from baccarat_api import runtime

    t = new_table(api)
    token = mint(api, t, "alice", "watcher")["token"]
    monkeypatch.setenv("RATE_LIMIT_PER_SECOND", "0.001")  # no refill within the test
    monkeypatch.setenv("RATE_LIMIT_BURST", "3")
    runtime.reset()
    browser = as_token(api, token)
    for _ in range(2):
        assert browser.get(f"/v1/tables/{t}/events").status == 200
    assert api.get(f"/v1/tables/{t}").status == 200  # the operator's own request: the 3rd
    r = browser.get(f"/v1/tables/{t}/events")
    assert (r.status, code(r)) == (429, "rate_limited")
    assert code(api.get(f"/v1/tables/{t}")) == "rate_limited"
    assert Api(stack.key_b).get("/v1/tiers").status == 200  # another operator's bucket


def test_a_token_request_costs_one_strongly_consistent_read_more_and_no_kms(api: Api) -> None:
    """On a warm container a token is verified in memory (its key unsealed once) and its
    table's revocations read with ONE GetItem: the operator's request plus that read."""
    from support.roundtrips import count_calls, measure

    t = new_table(api)
    token = as_token(api, mint(api, t, "alice", "watcher")["token"])
    lobby = as_token(api, api.post("/v1/lobby-tokens", {}).body["token"])
    calls = count_calls()
    path = f"/v1/tables/{t}/state"
    token.get(path)  # warm: the key list read and the key unsealed
    lobby.get(path)
    _, op_ddb, op_kms, op_ops = measure(calls, lambda: api.get(path))
    _, ddb, kms, ops = measure(calls, lambda: token.get(path))
    assert (ddb, kms) == (op_ddb + 1, op_kms) and ops - op_ops == {"GetItem": 1}
    calls.clear()
    r = lobby.get(path)  # refused by scope before anything is read
    assert code(r) == "token_route_forbidden" and sum(calls.dynamodb.values()) == 0
    assert sum(calls.kms.values()) == 0
    calls.clear()
    r = token.get("/v1/tables/tbl_" + "b" * 16 + "/state")
    assert code(r) == "token_table_mismatch" and sum(calls.dynamodb.values()) == 0
