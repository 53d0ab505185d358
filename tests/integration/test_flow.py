"""The product as an operator meets it: every route, through the Lambda handlers, with real
HTTP API v2 events, on moto in memory."""

from __future__ import annotations

import hashlib

from support.stack import Api, star_city_bets, verified_proof

from baccarat.fairness import TAG, anchor_of, client_hash, derive_shoe, verify_link
from baccarat.rules import PROFILE_RULES
from baccarat_api.service.models import (
    ProofPageOut,
    RoundDetailOut,
    RoundOut,
    SettlementOut,
    ShoeOut,
    ShoeStateOut,
    TableOut,
    TiersOut,
)


def test_tiers_come_from_dynamodb_in_the_data_files_order(api: Api) -> None:
    r = api.get("/v1/tiers")
    assert r.status == 200 and r.function == "ReadFunction"
    TiersOut.model_validate(r.body)
    ids = [t["id"] for t in r.body["tiers"]]
    assert ids[:3] == ["star-city-fun", "star-city-vip", "star-city-supreme"]
    fun = r.body["tiers"][0]
    assert fun["unit"] == 100 and fun["table_max"] == 8000
    assert fun["limits"]["banker"] == {"min": 100, "max": 5000}


def test_create_table_draws_a_chain_and_publishes_its_anchor(api: Api) -> None:
    r = api.post(
        "/v1/tables",
        {
            "squeeze_seconds": 0,
            "profile": "bid-squeeze",
            "tier": "bid-squeeze-standard",
            "banking": "house",
        },
    )
    assert r.status == 201 and r.function == "ShuffleCommitFunction"
    table = TableOut.model_validate(r.body)
    assert table.table_id.startswith("tbl_")
    assert table.rules.model_dump() == PROFILE_RULES["bid-squeeze"].as_dict()
    assert len(bytes.fromhex(table.anchor)) == 32
    assert table.chain_length == 10_000 and table.next_shoe_number == 1
    assert table.open_shoe_id is None
    assert table.pay_table["pays"]["banker"] == "19/20"
    again = api.get(f"/v1/tables/{table.table_id}")
    assert again.status == 200 and again.body == r.body


def test_a_star_city_shoe_from_commit_to_proof(api: Api) -> None:
    table = api.post(
        "/v1/tables",
        {
            "squeeze_seconds": 0,
            "profile": "star-city",
            "tier": "star-city-fun",
            "banking": "house",
            "chain_length": 50,
        },
    ).body
    table_id = table["table_id"]

    commit = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "frontend-entropy ☘"})
    assert commit.status == 201, commit.body
    shoe = ShoeOut.model_validate(commit.body)
    assert shoe.shoe_id == f"{table_id}_s1" and shoe.status == "open"
    assert shoe.client_hash == client_hash("frontend-entropy ☘").hex()
    assert shoe.anchor == table["anchor"]
    assert api.get(f"/v1/tables/{table_id}").body["open_shoe_id"] == shoe.shoe_id
    blocked = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "x"})
    assert blocked.status == 409 and blocked.error["code"] == "shoe_open"
    assert api.get(f"/v1/shoes/{shoe.shoe_id}/proof", key=None).status == 409  # shoe_not_closed

    # round 1 with bets: validated, locked, squeeze rights given
    deal = api.post(f"/v1/shoes/{shoe.shoe_id}/rounds", {"bets": star_city_bets()})
    assert deal.status == 201 and deal.function == "DealAndResolveFunction", deal.body
    first = RoundOut.model_validate(deal.body)
    assert first.round_id == f"{shoe.shoe_id}_r1" and first.round_number == 1
    assert first.start == 0 and first.shoe_status == "open"
    assert first.squeeze["player"] == "alice" and len(first.squeeze["initial"]) == 4
    assert len(first.bets) == 3 and first.dealt_at <= (first.settle_by or "")
    assert first.bets[0].bettor_ref == first.bets[1].bettor_ref  # alice, twice
    assert first.bets[0].bettor_ref != first.bets[2].bettor_ref  # alice and bob

    settle = api.post(f"/v1/rounds/{first.round_id}/settlement")
    assert settle.status == 200 and settle.function == "SettleBetsFunction", settle.body
    settlement = SettlementOut.model_validate(settle.body)
    assert sum(settlement.nets.values()) + settlement.house.take == 0
    assert settlement.rounding == "floor_house_favour"
    refs = {b.bettor_id: b.bettor_ref for b in first.bets}
    assert all(line.bettor_ref == refs[line.bettor_id] for line in settlement.lines)
    assert all(p.bettor_ref == refs[p.id] for p in settlement.bettors)
    # settling again → the very same settlement; a settlement takes no bets
    assert api.post(f"/v1/rounds/{first.round_id}/settlement").body == settle.body
    assert api.post(f"/v1/rounds/{first.round_id}/settlement", {}).body == settle.body
    other = api.post(f"/v1/rounds/{first.round_id}/settlement", {"bets": star_city_bets()[:1]})
    assert other.status == 400 and other.error["code"] == "invalid_request"
    detail = RoundDetailOut.model_validate(api.get(f"/v1/rounds/{first.round_id}").body)
    assert detail.settlement == settlement

    # play the shoe out: star-city ends after 30 rounds
    for n in range(2, 31):
        r = api.post(f"/v1/shoes/{shoe.shoe_id}/rounds", {"bets": []})
        assert r.status == 201, r.body
        assert r.body["round_number"] == n
        assert r.body["shoe_status"] == ("ended" if n == 30 else "open")
        assert r.body["squeeze"]["player"] is None and r.body["bets"] == []
        if n == 15:
            mid = ShoeStateOut.model_validate(api.get(f"/v1/shoes/{shoe.shoe_id}").body)
            assert mid.status == "open" and mid.rounds_dealt == 15 and mid.server_seed is None
            assert len(mid.history) == 15 and "big_road" in mid.roads
            assert mid.cards_remaining == 4 * 52 - r.body["start"] - r.body["cards_dealt"]
    over = api.post(f"/v1/shoes/{shoe.shoe_id}/rounds", {"bets": []})
    assert over.status == 409 and over.error["code"] == "shoe_ended"
    closed_again = api.post(f"/v1/shoes/{shoe.shoe_id}/close")
    assert closed_again.status == 409 and closed_again.error["code"] == "shoe_ended"

    ended = ShoeStateOut.model_validate(api.get(f"/v1/shoes/{shoe.shoe_id}").body)
    assert ended.status == "ended" and ended.end_reason == "rules" and ended.rounds_dealt == 30
    assert ended.server_seed is not None
    secret = bytes.fromhex(ended.server_seed)
    assert verify_link(secret, 1, bytes.fromhex(table["anchor"]))
    assert anchor_of(secret, 1) == bytes.fromhex(table["anchor"])
    replay = derive_shoe(secret, "frontend-entropy ☘", 1, PROFILE_RULES["star-city"])
    assert [r["result"] for r in ended.history] == [r.result.value for r in replay.rounds]

    verdict, pages = verified_proof(api, shoe.shoe_id)
    assert verdict.ok, verdict.line()
    for page in pages:
        ProofPageOut.model_validate(page)
    assert sum(len(page["rounds"]) for page in pages) == 30

    # the table is free again: shoe 2 uses the next link of the chain
    second = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": ""})
    assert second.status == 201 and second.body["shoe_number"] == 2


def test_closing_a_shoe_early_reveals_it_and_frees_the_table(api: Api) -> None:
    table_id = api.post(
        "/v1/tables",
        {
            "squeeze_seconds": 0,
            "profile": "bid-squeeze",
            "tier": "bid-squeeze-standard",
            "banking": "house",
        },
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "c"}).body["shoe_id"]
    dealt = [api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}).body for _ in range(3)]
    assert dealt[0]["start"] > 1  # the burn: first card exposed, that many burned
    closed = api.post(f"/v1/shoes/{shoe_id}/close")
    assert closed.status == 200, closed.body
    state = ShoeStateOut.model_validate(closed.body)
    assert state.status == "ended" and state.end_reason == "closed" and state.rounds_dealt == 3
    assert state.server_seed is not None
    verdict, (proof,) = verified_proof(api, shoe_id)
    assert verdict.ok, verdict.line()
    assert proof["end_reason"] == "closed" and len(proof["rounds"]) == 3
    assert [r["player"] for r in proof["rounds"]] == [d["player"]["cards"] for d in dealt]
    assert proof["interventions"]["closed_early"] is True
    assert proof["interventions"]["rounds_possible"] > 3
    assert api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []}).error["code"] == "shoe_ended"
    nxt = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "d"})
    assert nxt.status == 201 and nxt.body["shoe_number"] == 2


def test_a_deal_without_bets_is_refused_and_deals_nothing(api: Api) -> None:
    table_id = api.post(
        "/v1/tables",
        {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"},
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "s"}).body["shoe_id"]
    r = api.post(f"/v1/shoes/{shoe_id}/rounds", None)  # no body at all
    assert r.status == 400 and r.error["code"] == "invalid_request", r.body
    for body in ({}, {"player_banker": None}, {"bets": None}):  # schema-valid, but no bets
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", body)
        assert r.status == 422 and r.error["code"] == "bets_or_from_book", (body, r.body)
    assert api.get(f"/v1/shoes/{shoe_id}").body["rounds_dealt"] == 0
    # [] deals a round nobody bet on: settled at its deal, with no lines
    empty = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": []})
    assert empty.status == 201 and empty.body["bets"] == [] and empty.body["settle_by"] is None
    settled = api.post(f"/v1/rounds/{empty.body['round_id']}/settlement")
    assert settled.status == 200 and settled.body["lines"] == [] and settled.body["nets"] == {}
    assert settled.body["settled_at"] == empty.body["dealt_at"]


def test_player_banker_table_settles_the_seeds_example(api: Api) -> None:
    """Seed 000: A banks, B bets Banker 200, C bets Player 100, Player wins → A +99, B −200,
    C +99, house +2; and whatever the result, money is conserved."""
    table_id = api.post(
        "/v1/tables",
        {
            "squeeze_seconds": 0,
            "profile": "star-city",
            "tier": "star-city-fun",
            "banking": "player_banker",
        },
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "pb"}).body["shoe_id"]
    pb = {"bettor_id": "A", "balance": 35_000}
    bets = [
        {"bettor_id": "B", "role": "seated", "seat": 1, "type": "banker", "amount": 200,
         "balance": 1_000},
        {"bettor_id": "C", "role": "seated", "seat": 2, "type": "player", "amount": 100,
         "balance": 1_000},
    ]  # fmt: skip
    # nobody in the player-banker seat: no round (seed 000 兩人成局, the player-banker included)
    no_pb = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": bets})
    assert no_pb.status == 409 and no_pb.error["code"] == "company_required"
    assert no_pb.error["details"]["missing"] == ["player_banker"]
    seen_player_win = False
    for _ in range(30):  # P(no Player win in 30 rounds) ≈ 1e-8
        dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": bets, "player_banker": pb})
        assert dealt.status == 201, dealt.body
        s = api.post(f"/v1/rounds/{dealt.body['round_id']}/settlement").body
        assert s["player_banker"]["id"] == "A"
        assert sum(s["nets"].values()) + s["house"]["take"] == 0
        if dealt.body["result"] == "player":
            assert s["nets"] == {"B": -200, "C": 99, "A": 99} and s["house"]["take"] == 2
            seen_player_win = True
            break
    assert seen_player_win


def test_secret_chain_is_consistent_across_shoes(api: Api) -> None:
    """Shoe i's revealed secret walks to shoe i-1's: the chain the anchor committed to."""
    table = api.post(
        "/v1/tables",
        {
            "squeeze_seconds": 0,
            "profile": "star-city",
            "tier": "star-city-fun",
            "banking": "house",
            "chain_length": 5,
        },
    ).body
    seeds = []
    for i in (1, 2):
        shoe_id = api.post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": str(i)}).body[
            "shoe_id"
        ]
        seeds.append(bytes.fromhex(api.post(f"/v1/shoes/{shoe_id}/close").body["server_seed"]))
    assert hashlib.sha256(TAG + b"chain" + seeds[1]).digest() == seeds[0]
    assert verify_link(seeds[1], 2, bytes.fromhex(table["anchor"]))


def test_a_chain_is_used_up_after_chain_length_shoes(api: Api) -> None:
    table_id = api.post(
        "/v1/tables",
        {
            "squeeze_seconds": 0,
            "profile": "star-city",
            "tier": "star-city-fun",
            "banking": "house",
            "chain_length": 1,
        },
    ).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "a"}).body["shoe_id"]
    api.post(f"/v1/shoes/{shoe_id}/close")
    out = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "b"})
    assert out.status == 409 and out.error["code"] == "chain_exhausted"


def test_settlement_names_idle_bettors_from_the_shoes_recent_rounds(api: Api) -> None:
    """Star-city: a bettor who has not bet for 5 rounds in a row is named for removal (from the
    bets locked at deal time of this shoe's recent rounds)."""
    shoe_id = api.post(
        "/v1/tables/"
        + api.post(
            "/v1/tables",
            {
                "squeeze_seconds": 0,
                "profile": "star-city",
                "tier": "star-city-fun",
                "banking": "house",
            },
        ).body["table_id"]
        + "/shoes",
        {"client_seed": "idle"},
    ).body["shoe_id"]
    alice, _, bob = star_city_bets()
    first = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": [alice, bob]}).body
    assert api.post(f"/v1/rounds/{first['round_id']}/settlement").status == 200
    for n in range(2, 7):
        r = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": [bob]}).body
        eligibility = api.post(f"/v1/rounds/{r['round_id']}/settlement").body["eligibility"]
        assert eligibility["idle_bettors"] == (["alice"] if n == 6 else []), n
    assert eligibility["balances_after"]["bob"] in (19_000, 20_000, 20_990)
