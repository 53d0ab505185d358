"""A book round from the deal to the public proof, over HTTP (API Gateway v2 events through the
functions, moto's DynamoDB behind): the shoe's proof is ``bacc-pf-v1.1`` and verifies with its
signature; the round's public book pages (no key) are ``404 settlement_pending`` before the
settlement, then every page is served and the books verify (root, order, every slip's money,
Σ = totals); a spectator's receipt verifies against the proof with its money recomputed — the
builder (the settlement fan-out) checked by the verifier written apart from it."""

from __future__ import annotations

from typing import Any

from support.bookround import independent_nets, with_book
from support.stack import Api, Stack, new_shoe, new_table

from baccarat.proofpages import assemble
from baccarat.receiptcheck import verify_books, verify_receipt
from baccarat.verify import verify
from baccarat_api.adapters.dynamodb.book import slip_item
from baccarat_api.ids import parse_round_id
from baccarat_api.ports.book import Slip
from baccarat_verify import es256

OP = "operator-a"


def _proof_pages(api: Api, shoe: str) -> list[dict[str, Any]]:
    first = api.get(f"/v1/shoes/{shoe}/proof", key=False)
    assert first.status == 200, first.body
    pages = [first.body]
    for k in range(2, first.body["page"]["count"] + 1):
        pages.append(api.get(f"/v1/shoes/{shoe}/proof", key=False, query=f"page={k}").body)
    return pages


def test_a_book_round_is_proved_and_its_book_published(api: Api, stack: Stack) -> None:
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
    url = f"/v1/shoes/{shoe}/rounds/{ref.round_number}/book"
    pending = api.get(url, key=False)
    assert pending.status == 404 and pending.error["code"] == "settlement_pending", pending.body
    assert pending.function == "ReadFunction"
    assert pending.headers.get("access-control-allow-origin") == "*"

    assert api.post(f"/v1/rounds/{rid}/settlement").status == 200
    pages = [api.get(url, key=False, query=f"page={k}") for k in (0, 1)]
    assert [p.status for p in pages] == [200, 200], [p.body for p in pages]
    assert pages[0].headers.get("access-control-allow-origin") == "*"
    assert [len(p.body["entries"]) for p in pages] == [100, 30]
    assert api.get(url, key=False, query="page=2").error["code"] == "not_found"
    assert api.get(f"/v1/shoes/{shoe}/rounds/9/book", key=False).error["code"] == "not_found"

    assert api.post(f"/v1/shoes/{shoe}/close").status == 200
    proof_pages = _proof_pages(api, shoe)
    keys = api.get("/v1/signing-keys", key=False).body
    verdict = verify(proof_pages, keys=keys, signature_check=es256.check, shoe_id=shoe)
    assert verdict.ok, verdict.mismatches
    proof = assemble(proof_pages)[1]
    assert proof["spec"] == "bacc-pf-v1.1"
    (round_,) = proof["rounds"]
    assert round_["book"] == {
        "root": r.book["root"],
        "count": 130,
        "pages": 2,
        "totals": r.book["totals"],
    }
    assert round_["bets"] == [
        {"bettor_ref": round_["bets"][0]["bettor_ref"], "role": "seated", "seat": 1,
         "type": "banker", "amount": 1000},
    ]  # fmt: skip
    books = verify_books(proof, [p.body for p in pages])
    assert books.ok, books.lines()
    nets = independent_nets(r, book)
    assert r.book["totals"]["net"] == sum(nets.values())
    for bettor in ("spectator-00000", "spectator-00129"):
        receipt = api.get(f"/v1/rounds/{rid}/receipts/{bettor}").body
        checked = verify_receipt(proof, receipt)
        assert checked.ok, checked.lines()
        assert checked.summary.endswith(f"net {nets[bettor]:+,}")
    tampered = api.get(f"/v1/rounds/{rid}/receipts/spectator-00001").body
    tampered["settlement"]["net"] += 1
    assert not verify_receipt(proof, tampered).ok
