"""Hostile review of player tokens (docs/design/browsers.md §1, docs/api.md "Player tokens"):
a browser holding a valid token, and an operator holding another operator's, trying to get
past the scope, the MAC, the person, the table, the redaction, idempotency and revocation.

Every attack is a regression test. Two got through when this was written and were fixed: a
token's holder leaving their own place read everyone's balances in the presence answer (now as
redacted as their state), and a non-ASCII MAC raised a 500 (now 401 ``unauthorized``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest
from support.clock import service_clock
from support.gateway import GatewayApi
from support.stack import Api, Stack, new_table, star_city_bets

from baccarat_api.service.tokens import PREFIX, canonical

TABLE = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"}
TOKEN_REFUSALS = {"unauthorized", "token_expired", "token_revoked"}


# --- helpers -----------------------------------------------------------------------------------


def code(r: Any) -> str | None:
    return r.body["error"]["code"] if isinstance(r.body, dict) and "error" in r.body else None


def mint(api: Api, table_id: str, bettor_id: str, role: str, **extra: Any) -> dict[str, Any]:
    r = api.post(f"/v1/tables/{table_id}/tokens", {"bettor_id": bettor_id, "role": role, **extra})
    assert r.status == 201, r.body
    return dict(r.body)


def holder(api: Api, table_id: str, bettor_id: str, role: str, **extra: Any) -> Api:
    return Api(mint(api, table_id, bettor_id, role, **extra)["token"])


def sit(api: Api, table_id: str, seat: int, bettor_id: str, balance: int) -> None:
    body = {"bettor_id": bettor_id, "balance": balance, "level": 5}
    r = api.call("PUT", f"/v1/tables/{table_id}/seats/{seat}", body)
    assert r.status == 200, r.body


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def parts(token: str) -> tuple[str, dict[str, Any], str]:
    _, payload, mac = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return payload, claims, mac


def with_payload(token: str, payload_bytes: bytes) -> str:
    """The token with another payload and its original MAC (no key: a forgery)."""
    _, _, mac = parts(token)
    return f"{PREFIX}{b64(payload_bytes)}.{mac}"


def state_of(api: Api, table_id: str) -> Any:
    r = api.get(f"/v1/tables/{table_id}/state")
    assert r.status == 200, r.body
    return r.body


def presence_snapshot(api: Api, table_id: str) -> Any:
    s = state_of(api, table_id)
    return {k: s[k] for k in ("seats", "banker", "spectators", "watchers", "book", "seq")}


def balances_in(obj: Any, found: list[Any] | None = None) -> list[Any]:
    """Every ``balance``/``personal_limits`` value anywhere in ``obj``, with the bettor it sits
    next to (when the dict names one)."""
    found = [] if found is None else found
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("balance", "personal_limits") and v is not None:
                found.append((obj.get("bettor_id"), k, v))
            balances_in(v, found)
    elif isinstance(obj, list):
        for v in obj:
            balances_in(v, found)
    return found


@pytest.fixture
def squeeze_table(api: Api) -> str:
    """A bid-squeeze table (spectators bet there): alice and bob seated, ``spec`` and ``other``
    spectating with personal limits, ``wat`` watching."""
    t = new_table(api, profile="bid-squeeze")
    sit(api, t, 1, "alice", 500_000)
    sit(api, t, 2, "bob", 777_777)
    for who, balance, cap in (("spec", 313_370, 42_420), ("other", 123_450, 24_240)):
        body = {"balance": balance, "personal_limits": {"banker": {"min": 1000, "max": cap}}}
        r = api.call("PUT", f"/v1/tables/{t}/spectators/{who}", body)
        assert r.status == 200, r.body
    assert api.call("PUT", f"/v1/tables/{t}/watchers/wat").status == 200
    return t


@pytest.fixture
def table(api: Api) -> str:
    t = new_table(api)
    sit(api, t, 1, "alice", 50_000)
    sit(api, t, 2, "bob", 77_777)
    return t


# --- forging and altering the token -------------------------------------------------------------


def _forgeries(token: str) -> dict[str, str]:
    payload, claims, mac = parts(token)
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    as_banker = canonical({**claims, "role": "banker"})
    longer = canonical({**claims, "exp": claims["exp"] + 10**6})
    as_bob = canonical({**claims, "sub": "bob"})
    spaced = json.dumps(claims, sort_keys=True).encode()  # same claims, non-canonical JSON
    unsorted = json.dumps(dict(reversed(list(claims.items()))), separators=(",", ":")).encode()
    dup = raw[:-1] + b',"sub":"bob"}'  # a duplicate key: json.loads keeps the last
    kid_empty = canonical({**claims, "kid": ""})
    float_exp = raw.replace(f'"exp":{claims["exp"]}'.encode(), f'"exp":{claims["exp"]}.0'.encode())
    bool_v = raw.replace(b'"v":1', b'"v":true')
    extra = canonical({**claims, "alg": "none"})
    lobbyish = canonical(
        {k: v for k, v in claims.items() if k not in ("tbl", "sub")} | {"role": "lobby"}
    )
    # a MAC made with an empty key / a key equal to the kid: "alg confusion" of the HMAC kind
    empty_mac = b64(
        hmac.new(b"", (PREFIX + b64(as_banker.decode().encode())).encode(), hashlib.sha256).digest()
    )
    kid_mac = b64(
        hmac.new(
            claims["kid"].encode(), (PREFIX + b64(as_banker)).encode(), hashlib.sha256
        ).digest()
    )
    return {
        "role changed": with_payload(token, as_banker),
        "exp changed": with_payload(token, longer),
        "sub changed": with_payload(token, as_bob),
        "non-canonical json (spaces)": with_payload(token, spaced),
        "non-canonical json (order)": with_payload(token, unsorted),
        "duplicate key": with_payload(token, dup),
        "empty kid": with_payload(token, kid_empty),
        "float exp": with_payload(token, float_exp),
        "v true": with_payload(token, bool_v),
        "extra alg claim": with_payload(token, extra),
        "table token turned lobby": with_payload(token, lobbyish),
        "mac with empty key": f"{PREFIX}{b64(as_banker)}.{empty_mac}",
        "mac keyed by the kid": f"{PREFIX}{b64(as_banker)}.{kid_mac}",
        "no mac": f"{PREFIX}{payload}.",
        "two dots mac": f"{PREFIX}{payload}.{mac}.{mac}",
        "padded payload": f"{PREFIX}{payload}{'=' * (-len(payload) % 4) or '=='}.{mac}",
        "padded mac": f"{PREFIX}{payload}.{mac}=",
        "stray bits in mac": f"{PREFIX}{payload}.{mac[:-1]}{'B' if mac[-1] == 'A' else 'A'}",
        "std base64 alphabet": f"{PREFIX}{payload.replace('-', '+').replace('_', '/')}."
        f"{mac.replace('-', '+').replace('_', '/')}x",
        "other version prefix": f"bpt2.{payload}.{mac}",
        "upper-case prefix": f"BPT1.{payload}.{mac}",
        "huge": f"{PREFIX}{payload}{'A' * 4000}.{mac}",
        "huge nesting": f"{PREFIX}{b64(b'[' * 760)}.{mac}",
        "unicode in payload": f"{PREFIX}{payload[:-1]}\u00e9.{mac}",
        "nul in token": f"{PREFIX}{payload}\x00.{mac}",
        "mac of the raw claims": f"{PREFIX}{payload}.{b64(raw[:32])}",
    }


def test_every_forgery_is_a_typed_401_and_changes_nothing(api: Api, table: str) -> None:
    good = mint(api, table, "alice", "seat")["token"]
    before = presence_snapshot(api, table)
    for name, forged in _forgeries(good).items():
        for method, path in (
            ("GET", f"/v1/tables/{table}/state"),
            ("DELETE", f"/v1/tables/{table}/seats/2"),  # bob's seat: a forged sub would allow it
            ("DELETE", f"/v1/tables/{table}/bets/bob"),
        ):
            r = Api(forged).call(method, path)
            assert (r.status, code(r)) == (401, "unauthorized"), (name, method, r.status, r.body)
            assert "balance" not in json.dumps(r.body), name
    # every single byte of the MAC and of the payload flipped
    payload, _, mac = parts(good)
    for i in range(len(payload)):
        c = "A" if payload[i] != "A" else "B"
        r = Api(f"{PREFIX}{payload[:i]}{c}{payload[i + 1 :]}.{mac}").get(
            f"/v1/tables/{table}/state"
        )
        assert (r.status, code(r)) == (401, "unauthorized"), (i, r.body)
    for i in range(len(mac)):
        c = "A" if mac[i] != "A" else "B"
        r = Api(f"{PREFIX}{payload}.{mac[:i]}{c}{mac[i + 1 :]}").get(f"/v1/tables/{table}/state")
        assert (r.status, code(r)) == (401, "unauthorized"), (i, r.body)
    assert presence_snapshot(api, table) == before


def test_a_non_ascii_mac_is_a_typed_401(api: Api, table: str) -> None:
    payload, _, mac = parts(mint(api, table, "alice", "seat")["token"])
    r = Api(f"{PREFIX}{payload}.{mac[:-1]}\u00e9").get(f"/v1/tables/{table}/state")
    assert (r.status, code(r)) == (401, "unauthorized"), (r.status, r.body)


def test_a_non_ascii_mac_changes_nothing(api: Api, table: str) -> None:
    """Whatever its status, the bad MAC never acts: bob keeps his seat."""
    _payload, claims, mac = parts(mint(api, table, "alice", "seat")["token"])
    forged = f"{PREFIX}{b64(canonical({**claims, 'sub': 'bob'}))}.{mac[:-1]}\u00e9"
    before = presence_snapshot(api, table)
    r = Api(forged).call("DELETE", f"/v1/tables/{table}/seats/2")
    assert r.status in (401, 500), r.body
    assert presence_snapshot(api, table) == before


def test_header_shapes_never_turn_a_token_into_an_operator(api: Api, table: str) -> None:
    token = mint(api, table, "alice", "seat")["token"]
    for header in (
        f"bearer {token}",
        f"BEARER  {token}  ",
        f"Bearer\t{token}",
        f"Basic {token}",
        f"Bearer {token}, Bearer {token}",
        f"Bearer {token} extra",
        token,
    ):
        r = Api(None).call(
            "PUT",
            f"/v1/tables/{table}/seats/3",
            {"bettor_id": "alice", "balance": 10**9},
            headers={"authorization": header},
        )
        assert r.status in (401, 403), (header, r.status, r.body)
        assert code(r) in ("unauthorized", "token_route_forbidden"), (header, r.body)
    assert "3" not in state_of(api, table)["seats"]


# --- operator routes, other tables, other people ------------------------------------------------


def test_a_token_cannot_reach_operator_routes(api: Api, stack: Stack, table: str) -> None:
    token = mint(api, table, "alice", "seat")
    alice = Api(token["token"])
    for method, path, body in (
        ("PUT", f"/v1/tables/{table}/seats/1", {"bettor_id": "alice", "balance": 10**9}),
        ("PUT", f"/v1/tables/{table}/seats/3", {"bettor_id": "alice", "balance": 10**9}),
        ("PUT", f"/v1/tables/{table}/banker", {"bettor_id": "alice", "balance": 10**9}),
        ("PUT", f"/v1/tables/{table}/spectators/alice", {"balance": 10**9}),
        ("PUT", f"/v1/tables/{table}/watchers/alice", None),
        ("POST", f"/v1/tables/{table}/tokens", {"bettor_id": "bob", "role": "seat"}),
        ("DELETE", f"/v1/tables/{table}/tokens/{token['jti']}", None),
        ("DELETE", f"/v1/tables/{table}/tokens", None),
        ("POST", "/v1/lobby-tokens", {}),
        ("GET", f"/v1/tables/{table}", None),
        ("GET", f"/v1/tables/{table}/book", None),
        ("GET", "/v1/events", None),
        ("POST", f"/v1/tables/{table}/betting", None),
        ("POST", f"/v1/tables/{table}/shoes", {"client_seed": "mine"}),
    ):
        r = alice.call(method, path, body)
        assert (r.status, code(r)) == (403, "token_route_forbidden"), (method, path, r.body)
        assert "77777" not in r.text and "77_777" not in r.text
    # behind the authorizer as deployed: the token's context never passes for an operator's
    gw = GatewayApi(token["token"])
    r = gw.call("PUT", f"/v1/tables/{table}/seats/3", {"bettor_id": "alice", "balance": 10**9})
    assert (r.status, code(r)) == (403, "token_route_forbidden"), r.body
    r = gw.get(f"/v1/tables/{table}/book")
    assert (r.status, code(r)) == (403, "token_route_forbidden"), r.body
    assert "3" not in state_of(api, table)["seats"]


def test_another_table_in_path_or_round_id_is_refused_before_any_read(
    api: Api, stack: Stack, table: str
) -> None:
    alice = holder(api, table, "alice", "seat")
    other = new_table(api)
    sit(api, other, 1, "alice", 1_000)
    theirs = Api(stack.key_b).post("/v1/tables", TABLE).body["table_id"]
    for t in (other, theirs, table.upper(), table + "x", f"{table}%2F..", "tbl_" + "0" * 16):
        for method, path, body in (
            ("GET", f"/v1/tables/{t}/state", None),
            ("GET", f"/v1/tables/{t}/events", None),
            ("PUT", f"/v1/tables/{t}/bets/alice", {"bets": [{"type": "player", "amount": 100}]}),
            ("DELETE", f"/v1/tables/{t}/seats/1", None),
            ("POST", f"/v1/rounds/{t}_s1_r1/reveal", {"bettor_id": "alice", "step": "initial"}),
        ):
            r = alice.call(method, path, body)
            assert r.status in (403, 404), (t, method, path, r.body)
            assert code(r) in ("token_table_mismatch", "not_found"), (t, path, r.body)
    for rid in (
        "garbage",
        f"{table}_s1",
        f"{table}_s1_r1_x",
        f"{other}_s1_r1",
        f"{table.upper()}_s1_r1",
    ):
        r = alice.post(f"/v1/rounds/{rid}/reveal", {"bettor_id": "alice", "step": "initial"})
        assert (r.status, code(r)) == (403, "token_table_mismatch"), (rid, r.body)
    assert state_of(api, other)["seats"]["1"]["bettor_id"] == "alice"


def test_an_operator_cannot_use_or_mint_tokens_at_another_operators_table(
    api: Api, stack: Stack, table: str
) -> None:
    b = Api(stack.key_b)
    b_table = b.post("/v1/tables", TABLE).body["table_id"]
    sit(b, b_table, 1, "alice", 5_432)
    a_token = holder(api, table, "alice", "seat")
    r = a_token.get(f"/v1/tables/{b_table}/state")
    assert (r.status, code(r)) == (403, "token_table_mismatch")
    r = b.post(f"/v1/tables/{table}/tokens", {"bettor_id": "bob", "role": "seat"})
    assert (r.status, code(r)) == (404, "not_found")
    r = b.call("DELETE", f"/v1/tables/{table}/tokens", query="bettor_id=alice")
    assert (r.status, code(r)) == (404, "not_found")
    assert a_token.get(f"/v1/tables/{table}/state").status == 200
    # B's own token for "alice" at B's table reads only B's table
    b_alice = holder(b, b_table, "alice", "seat")
    r = b_alice.get(f"/v1/tables/{table}/state")
    assert (r.status, code(r)) == (403, "token_table_mismatch")
    assert b_alice.get(f"/v1/tables/{b_table}/state").body["you"]["balance"] == 5_432


def test_acting_for_another_person_is_refused_and_changes_nothing(
    api: Api, squeeze_table: str
) -> None:
    table = squeeze_table
    assert api.post(f"/v1/tables/{table}/shoes", {"client_seed": "s"}).status == 201
    r = api.post(f"/v1/tables/{table}/betting")
    assert r.status in (200, 201), r.body
    slip = {"bets": [{"type": "player", "amount": 1000}]}
    r = api.call("PUT", f"/v1/tables/{table}/bets/bob", slip)
    assert r.status == 200, r.body
    before = presence_snapshot(api, table)
    for role in ("seat", "banker", "spectator", "watcher"):
        alice = holder(api, table, "alice", role)
        for method, path, body in (
            ("PUT", f"/v1/tables/{table}/bets/bob", slip),
            ("DELETE", f"/v1/tables/{table}/bets/bob", None),
            ("PUT", f"/v1/tables/{table}/bets/%62ob", slip),  # percent-encoded "bob"
            ("DELETE", f"/v1/tables/{table}/bets/Alice", None),  # another id, not a spelling
            ("DELETE", f"/v1/tables/{table}/bets/alice%20", None),
            ("DELETE", f"/v1/tables/{table}/seats/2", None),  # bob's seat
            ("DELETE", f"/v1/tables/{table}/seats/02", None),
            ("DELETE", f"/v1/tables/{table}/banker", None),  # nobody's / not hers
            ("DELETE", f"/v1/tables/{table}/spectators/spec", None),
            ("DELETE", f"/v1/tables/{table}/watchers/wat", None),
            ("DELETE", f"/v1/tables/{table}/watchers/%77at", None),
        ):
            r = alice.call(method, path, body)
            assert 400 <= r.status < 500 and r.status != 401, (role, method, path, r.body)
            assert code(r) is not None, (role, path, r.body)
            for secret in ("777777", "313370", "42420"):
                assert secret not in r.text, (role, path, r.text)
    assert presence_snapshot(api, table) == before


def test_body_bettor_of_another_person_is_refused(api: Api) -> None:
    t = api.post("/v1/tables", {**TABLE, "squeeze_seconds": 10}).body["table_id"]
    shoe = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "s"}).body["shoe_id"]
    api.present(t, {"bets": star_city_bets()})
    dealt = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": star_city_bets()}).body
    round_id = dealt["round_id"]
    bob = holder(api, t, "bob", "seat")
    for body in (
        {"bettor_id": "alice", "step": "initial"},
        {"bettor_id": "ALICE", "step": "initial"},
        {"bettor_id": "system", "step": "initial"},
    ):
        r = bob.post(f"/v1/rounds/{round_id}/reveal", body)
        assert r.status in (400, 403), (body, r.body)
        assert code(r) in ("token_person_mismatch", "invalid_request"), r.body
    # a duplicate key in the raw body: whichever the parser keeps, it is checked
    raw = '{"bettor_id": "bob", "step": "initial", "bettor_id": "alice"}'
    r = bob.call("POST", f"/v1/rounds/{round_id}/reveal", raw_body=raw)
    assert r.status in (400, 403, 422), r.body
    after = api.get(f"/v1/rounds/{round_id}").body
    assert json.dumps(after["squeeze"]).count('"alice"') == json.dumps(dealt["squeeze"]).count(
        '"alice"'
    )


def test_a_banker_token_for_someone_not_the_banker_cannot_urge(api: Api) -> None:
    t = api.post("/v1/tables", {**TABLE, "banking": "player_banker"}).body["table_id"]
    assert (
        api.call("PUT", f"/v1/tables/{t}/banker", {"bettor_id": "pat", "balance": 35_000}).status
        == 200
    )
    sit(api, t, 1, "mallory", 10_000)
    mallory = holder(api, t, "mallory", "banker")
    r = mallory.post(f"/v1/tables/{t}/urge", {"bettor_id": "mallory"})
    assert 400 <= r.status < 500 and r.status != 401 and code(r) is not None, r.body
    r = mallory.post(f"/v1/tables/{t}/urge", {"bettor_id": "pat"})
    assert (r.status, code(r)) == (403, "token_person_mismatch")
    r = mallory.call("DELETE", f"/v1/tables/{t}/banker")
    assert (r.status, code(r)) == (403, "token_person_mismatch")
    assert state_of(api, t)["banker"]["bettor_id"] == "pat"


# --- reading another person's balance ------------------------------------------------------------


def test_state_and_events_show_no_one_elses_balance(api: Api, squeeze_table: str) -> None:
    t = squeeze_table
    sit(api, t, 2, "bob", 666_666)  # an update of bob's balance: seat_updated
    secrets = ("666666", "313370", "42420", "123450", "24240")
    for who, role in (
        ("alice", "seat"),
        ("wat", "watcher"),
        ("spec", "spectator"),
        ("alice", "banker"),
        ("nobody", "seat"),
    ):
        token = holder(api, t, who, role)
        s = token.get(f"/v1/tables/{t}/state")
        assert s.status == 200
        leaked = [x for x in balances_in(s.body) if x[0] not in (who, None)]
        assert not leaked, leaked
        mine = {"spec": ("313370", "42420"), "alice": ("500000",)}.get(who, ())
        for secret in secrets:
            if secret not in mine:
                assert secret not in s.text, (who, role, secret)
        e = token.get(f"/v1/tables/{t}/events", query="limit=100")
        assert e.status == 200 and len(e.body["events"]) > 3
        for secret in (*secrets, "777777", "500000"):
            assert secret not in e.text, (who, role, secret)
        # the operator's ETag (which hashes everyone's balance) is not the token's
        op_etag = api.get(f"/v1/tables/{t}/state").headers["etag"]
        r = token.get(f"/v1/tables/{t}/state", headers={"if-none-match": op_etag})
        assert r.status == 200 and r.headers["etag"] != op_etag


def test_the_player_etag_does_not_move_with_another_persons_balance(api: Api, table: str) -> None:
    """A balance change is public as an event (``seat_updated``), but not its amount: the
    token's ETag is of the redacted body, so guessing an amount through 304s is impossible."""
    alice = holder(api, table, "alice", "seat")
    first = alice.get(f"/v1/tables/{table}/state")
    sit(api, table, 2, "bob", 1_001)
    sit(api, table, 2, "bob", 77_777)  # back: only seq moved
    again = alice.get(f"/v1/tables/{table}/state")
    assert {k: v for k, v in again.body.items() if k not in ("at", "seq")} == {
        k: v for k, v in first.body.items() if k not in ("at", "seq")
    }


def test_leaving_ones_own_seat_shows_no_one_elses_balance(api: Api, table: str) -> None:
    alice = holder(api, table, "alice", "seat")
    r = alice.call("DELETE", f"/v1/tables/{table}/seats/1")
    assert r.status == 200, r.body
    leaked = [x for x in balances_in(r.body) if x[0] != "alice"]
    assert not leaked and "77777" not in r.text, r.text


def test_leaving_the_banker_seat_shows_no_one_elses_balance(api: Api) -> None:
    t = api.post("/v1/tables", {**TABLE, "banking": "player_banker"}).body["table_id"]
    body = {"bettor_id": "pat", "balance": 35_000}
    assert api.call("PUT", f"/v1/tables/{t}/banker", body).status == 200
    sit(api, t, 1, "bob", 77_777)
    pat = holder(api, t, "pat", "banker")
    r = pat.call("DELETE", f"/v1/tables/{t}/banker")
    assert r.status == 200, r.body
    assert "77777" not in r.text, r.text


def test_leaving_the_watchers_shows_no_one_elses_balance(api: Api, squeeze_table: str) -> None:
    wat = holder(api, squeeze_table, "wat", "watcher")
    r = wat.call("DELETE", f"/v1/tables/{squeeze_table}/watchers/wat")
    assert r.status == 200, r.body
    assert not balances_in(r.body), r.text


def test_leaving_the_spectators_shows_no_one_elses_balance(api: Api, squeeze_table: str) -> None:
    spec = holder(api, squeeze_table, "spec", "spectator")
    r = spec.call("DELETE", f"/v1/tables/{squeeze_table}/spectators/spec")
    assert r.status == 200, r.body
    assert not [x for x in balances_in(r.body) if x[0] != "spec"], r.text
    assert "777777" not in r.text and "123450" not in r.text and "24240" not in r.text


def test_errors_name_no_balance(api: Api, table: str) -> None:
    bob_token = mint(api, table, "bob", "seat")
    alice = holder(api, table, "alice", "seat")
    for method, path, body in (
        ("DELETE", f"/v1/tables/{table}/seats/2", None),
        ("DELETE", f"/v1/tables/{table}/seats/5", None),  # free seat: not_found
        (
            "PUT",
            f"/v1/tables/{table}/bets/alice",
            {"bets": [{"type": "player", "amount": 10**12}]},
        ),
        ("PUT", f"/v1/tables/{table}/bets/alice", {"bets": "x"}),
        ("GET", f"/v1/tables/{table}/events", None),
    ):
        r = alice.call(method, path, body)
        assert "77777" not in r.text, (path, r.text)
    r = Api(bob_token["token"]).get(f"/v1/tables/{table}/state")
    assert r.body["you"]["balance"] == 77_777  # bob sees his own


# --- idempotency keys across persons -------------------------------------------------------------


def test_a_player_cannot_replay_another_persons_idempotency_key(api: Api) -> None:
    t = api.post("/v1/tables", {**TABLE, "squeeze_seconds": 10}).body["table_id"]
    shoe = api.post(f"/v1/tables/{t}/shoes", {"client_seed": "s"}).body["shoe_id"]
    api.present(t, {"bets": star_city_bets()})
    round_id = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": star_city_bets()}).body["round_id"]
    alice, bob = holder(api, t, "alice", "seat"), holder(api, t, "bob", "seat")
    key = {"Idempotency-Key": "shared-key"}
    path = f"/v1/rounds/{round_id}/reveal"
    first = alice.post(path, {"bettor_id": "alice", "step": "initial"}, headers=key)
    assert first.status in (200, 403, 409, 422), first.body
    # bob with alice's exact request: refused on the person before any stored answer
    r = bob.post(path, {"bettor_id": "alice", "step": "initial"}, headers=key)
    assert (r.status, code(r)) == (403, "token_person_mismatch")
    assert r.headers.get("idempotent-replayed") is None
    # bob with his own body and the same key: his own request (no 422 reuse, no replay)
    r = bob.post(path, {"bettor_id": "bob", "step": "initial"}, headers=key)
    assert r.headers.get("idempotent-replayed") is None
    assert code(r) != "idempotency_key_reused", r.body
    # a forged token carrying alice's claims (to land in her key scope) fails on its MAC first
    payload, _, mac = parts(alice.key or "")
    forged = Api(f"{PREFIX}{payload}.{mac[:-1]}{'A' if mac[-1] != 'A' else 'B'}")
    r = forged.post(path, {"bettor_id": "alice", "step": "initial"}, headers=key)
    assert (r.status, code(r)) == (401, "unauthorized")
    assert r.headers.get("idempotent-replayed") is None
    # the operator's answer under the same key is not the token's and vice versa
    r = api.post(path, {"bettor_id": "alice", "step": "initial"}, headers=key)
    assert r.headers.get("idempotent-replayed") is None


def test_a_huge_bogus_token_with_an_idempotency_key_is_a_typed_401(api: Api) -> None:
    """``unverified_claims`` (the key's scope) has no length bound of its own: a deep JSON
    nesting past the recursion limit must still end as the MAC's 401, not a 500."""
    t = api.post("/v1/tables", {**TABLE, "banking": "player_banker"}).body["table_id"]
    deep = f"{PREFIX}{b64(b'[' * 6000)}.{'A' * 43}"
    r = Api(deep).post(f"/v1/tables/{t}/urge", {"bettor_id": "x"}, headers={"Idempotency-Key": "k"})
    assert (r.status, code(r)) == (401, "unauthorized"), (r.status, r.body)


# --- revocation and expiry ----------------------------------------------------------------------


def test_revoke_then_use_at_once_is_refused_on_every_player_route(api: Api, table: str) -> None:
    for how in ("jti", "person"):
        minted = mint(api, table, "alice", "seat")
        alice = Api(minted["token"])
        assert alice.get(f"/v1/tables/{table}/state").status == 200
        if how == "jti":
            r = api.call("DELETE", f"/v1/tables/{table}/tokens/{minted['jti']}")
        else:
            r = api.call("DELETE", f"/v1/tables/{table}/tokens", query="bettor_id=alice")
        assert r.status == 204, r.body
        before = presence_snapshot(api, table)
        for method, path in (
            ("GET", f"/v1/tables/{table}/state"),
            ("GET", f"/v1/tables/{table}/events"),
            ("DELETE", f"/v1/tables/{table}/bets/alice"),
            ("DELETE", f"/v1/tables/{table}/seats/1"),
        ):
            r = alice.call(method, path)
            assert (r.status, code(r)) == (401, "token_revoked"), (how, method, path, r.body)
        # behind the authorizer (whose answer is cached even for a revoked token)
        r = GatewayApi(minted["token"]).call("DELETE", f"/v1/tables/{table}/seats/1")
        assert (r.status, code(r)) == (401, "token_revoked"), r.body
        assert presence_snapshot(api, table) == before


def test_revoking_bob_leaves_alice_and_revoking_one_table_leaves_another(
    api: Api, table: str
) -> None:
    other = new_table(api)
    alice_here = holder(api, table, "alice", "seat")
    alice_there = holder(api, other, "alice", "seat")
    assert api.call("DELETE", f"/v1/tables/{table}/tokens", query="bettor_id=bob").status == 204
    assert alice_here.get(f"/v1/tables/{table}/state").status == 200
    assert api.call("DELETE", f"/v1/tables/{other}/tokens", query="bettor_id=alice").status == 204
    assert alice_here.get(f"/v1/tables/{table}/state").status == 200
    assert code(alice_there.get(f"/v1/tables/{other}/state")) == "token_revoked"


def test_an_expired_token_changes_nothing(
    api: Api, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    minted = mint(api, table, "alice", "seat", ttl_seconds=1)
    clock = service_clock(monkeypatch)
    clock.advance(1)
    before = presence_snapshot(api, table)
    r = Api(minted["token"]).call("DELETE", f"/v1/tables/{table}/seats/1")
    assert (r.status, code(r)) == (401, "token_expired"), r.body
    assert presence_snapshot(api, table) == before


# --- CORS ---------------------------------------------------------------------------------------


def test_cors_is_open_on_player_routes_only(api: Api, table: str) -> None:
    origin = {"origin": "https://evil.example"}
    for method, path in (
        ("GET", f"/v1/tables/{table}"),
        ("GET", f"/v1/tables/{table}/book"),
        ("GET", "/v1/events"),
        ("PUT", f"/v1/tables/{table}/seats/3"),  # same path as a player DELETE
        ("PUT", f"/v1/tables/{table}/spectators/alice"),
        ("PUT", f"/v1/tables/{table}/banker"),
        ("POST", f"/v1/tables/{table}/tokens"),
    ):
        body = {"bettor_id": "zed", "balance": 1} if method in ("PUT", "POST") else None
        r = api.call(method, path, body, headers=origin)
        lower = {k.lower() for k in r.headers}
        assert "access-control-allow-origin" not in lower, (method, path)


def test_preflight_is_answered_on_player_paths_only_and_names_player_methods_only() -> None:
    from fastapi.testclient import TestClient

    from baccarat_api.http.app import create_app
    from baccarat_api.http.routers import all_routers

    client = TestClient(create_app(*all_routers()))
    ask = {"origin": "https://evil.example", "access-control-request-method": "PUT"}
    t = "tbl_" + "a" * 16
    r = client.options(f"/v1/tables/{t}/seats/1", headers=ask)  # PUT there is the operator's
    assert r.status_code == 204 and r.headers["access-control-allow-methods"] == "DELETE"
    r = client.options(f"/v1/tables/{t}/spectators/x", headers=ask)
    assert r.headers["access-control-allow-methods"] == "DELETE"
    for path in (
        f"/v1/tables/{t}/shoes",
        f"/v1/tables/{t}",
        f"/v1/tables/{t}/tokens",
        "/v1/events",
        f"/v1/tables/{t}/book",
        f"/v1/tables/{t}/state/x",
        f"/v1/tables/{t}//state",
        f"/v1/tables/{t}/state/",
    ):
        r = client.options(path, headers=ask)
        assert r.status_code in (404, 405), (path, r.status_code)
        assert "access-control-allow-origin" not in r.headers, path


def test_minting_for_reserved_or_forged_subjects_is_refused(api: Api, table: str) -> None:
    other = new_table(api)
    before = presence_snapshot(api, table)
    for body in (
        {"bettor_id": "system", "role": "seat"},
        {"bettor_id": "HOUSE", "role": "seat"},
        {"bettor_id": "Player_Banker", "role": "banker"},
        {"bettor_id": "a/b", "role": "seat"},
        {"bettor_id": "", "role": "seat"},
        {"bettor_id": "a" * 1000, "role": "seat"},
        {"bettor_id": "alice", "role": "lobby"},
        {"bettor_id": "alice", "role": "operator"},
        {"bettor_id": "alice", "role": "seat", "op": "operator-b"},
        {"bettor_id": "alice", "role": "seat", "table_id": other},
        {"bettor_id": "alice", "role": "seat", "ttl_seconds": 0},
        {"bettor_id": "alice", "role": "seat", "ttl_seconds": True},
        {"bettor_id": "alice", "role": "seat", "ttl_seconds": 3600.5},
        {"bettor_id": ["alice"], "role": "seat"},
    ):
        r = api.post(f"/v1/tables/{table}/tokens", body)
        assert (r.status, code(r)) == (400, "invalid_request"), (body, r.status, r.body)
    assert presence_snapshot(api, table) == before


def test_the_authorizer_refuses_a_non_ascii_mac(api: Api, table: str) -> None:
    from support.gateway import authorize, authorizer_event
    from support.stack import http_api_event

    payload, _, mac = parts(mint(api, table, "alice", "seat")["token"])
    header = f"Bearer {PREFIX}{payload}.{mac[:-1]}\u00e9"
    path = f"/v1/tables/{table}/state"
    event = http_api_event("GET", path, api.route("GET", path), headers={"authorization": header})
    assert authorize(authorizer_event(event)) == {"isAuthorized": False}
