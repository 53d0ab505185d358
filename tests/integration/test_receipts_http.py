"""A book round's receipts and settlement pages over HTTP (real API Gateway v2 events through the
read function, moto's DynamoDB behind): before the settlement ``404 settlement_pending``; after
it every spectator's receipt verifies against the book's root with the money of the whole book
settled at once, the pages list every spectator once; a seated bettor is ``404 not_in_book``;
another operator sees nothing."""

from __future__ import annotations

from support.bookround import independent_nets, with_book
from support.stack import Api, Stack, new_shoe, new_table

from baccarat import booktree
from baccarat.audit import canonical
from baccarat_api.adapters.dynamodb.book import slip_item
from baccarat_api.ids import parse_round_id
from baccarat_api.limits import RECEIPT_BUDGET_BYTES, SETTLEMENT_PAGE_BUDGET_BYTES
from baccarat_api.ports.book import Slip

OP = "operator-a"


def test_receipts_and_pages_over_http(api: Api, stack: Stack) -> None:
    t = new_table(api, profile="bid-squeeze", bet_behind="book")
    shoe = new_shoe(api, t)
    seated = [
        {"bettor_id": "sam", "role": "seated", "seat": 1, "balance": 50_000, "level": 5,
         "type": "banker", "amount": 1000},
    ]  # fmt: skip
    dealt = api.post(f"/v1/shoes/{shoe}/rounds", {"bets": seated})
    assert dealt.status == 201, dealt.body
    rid = dealt.body["round_id"]
    ref = parse_round_id(rid)
    assert ref is not None
    r = stack.repo.get_round(OP, ref)
    assert r is not None

    def write(round_id: str, slips: list[Slip]) -> None:
        for s in slips:
            stack.dynamodb.put_item(TableName=stack.repo.state, Item=slip_item(OP, round_id, s))

    r, book = with_book(stack.repo, r, 130, write)
    assert r.book is not None
    pending = api.get(f"/v1/rounds/{rid}/receipts/spectator-00001")
    assert pending.status == 404 and pending.error["code"] == "settlement_pending"
    assert pending.function == "ReadFunction"
    assert api.get(f"/v1/rounds/{rid}/settlement/bettors").error["code"] == "settlement_pending"

    assert api.post(f"/v1/rounds/{rid}/settlement").status == 200
    nets = independent_nets(r, book)
    root = bytes.fromhex(r.book["root"])
    for bettor in ("spectator-00000", "spectator-00077", "spectator-00129"):
        got = api.get(f"/v1/rounds/{rid}/receipts/{bettor}")
        assert got.status == 200, got.body
        receipt = got.body
        assert receipt["settlement"]["net"] == nets[bettor]
        leaf = booktree.leaf_hash(canonical(receipt["leaf"]))
        path = [bytes.fromhex(h) for h in receipt["path"]]
        assert booktree.verify_inclusion(leaf, receipt["leaf_index"], 130, path, root)
        assert len(got.text.encode()) <= RECEIPT_BUDGET_BYTES
    seated_one = api.get(f"/v1/rounds/{rid}/receipts/sam")
    assert seated_one.status == 404 and seated_one.error["code"] == "not_in_book"
    first = api.get(f"/v1/rounds/{rid}/settlement/bettors")
    second = api.get(f"/v1/rounds/{rid}/settlement/bettors", query="page=1")
    assert first.status == second.status == 200
    assert (first.body["pages"], first.body["next"], second.body["next"]) == (2, 1, None)
    everyone = first.body["bettors"] + second.body["bettors"]
    assert sorted(b["bettor_id"] for b in everyone) == sorted(book)
    assert {b["bettor_id"]: b["net"] for b in everyone} == nets
    assert len(first.text.encode()) <= SETTLEMENT_PAGE_BUDGET_BYTES
    assert api.get(f"/v1/rounds/{rid}/settlement/bettors", query="page=2").status == 404
    other = api.get(f"/v1/rounds/{rid}/receipts/spectator-00001", key=stack.key_b)
    assert other.status == 404 and other.error["code"] in ("not_found", "settlement_pending")
