"""bacc-pf-v2 at a ``bet_behind: book`` table (issue 28) over the in-memory repository, the
``ManualClock`` and ``FakeBeacon``: the spectators' book is locked with the round (one lock, as a
v1 book table's) and its root is inside the lock's ``book_root`` (recomputed here from the leaves
built independently); a slip after the lock writes nothing; the draw seals the book on the drawn
cards (totals = the whole book settled at once); a ``beacon_unavailable`` void returns every
slip's stake (receipts, net 0); a crash between the book's lock and the round's, or between the
lock and the draw, is finished by the next step; the shoe's proof and a receipt verify."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.book import ref
from support.examples import examples

from baccarat import booktree, proofdoc
from baccarat.fairness_v2 import locked_root, seated_root
from baccarat.profiles import TableConfig
from baccarat.proofpages import assemble
from baccarat.receiptcheck import verify_books, verify_receipt
from baccarat.verify import verify
from baccarat_api.ids import RoundRef, parse_round_id
from baccarat_api.ports.records import RoundRecord
from baccarat_api.service import (
    auto_settle,
    betting,
    book_lock,
    presence,
    proofs,
    settling,
    tables,
)
from baccarat_api.service.models import CreateTableRequest, LockedRoundOut
from baccarat_api.service.settle_chunks import round_of
from baccarat_api.service.voiding import void_round
from baccarat_bls import verify_beacon
from baccarat_verify import es256

from .conftest import Game
from .test_bet_behind_deal import SLIPS, from_book, independent_totals, slip, spectator
from .test_proofs import keys, served_pages
from .test_service import OP, code_of
from .test_v2_flow import V2

BOOK = {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house",
        "bet_behind": "book", "squeeze_seconds": 0}  # fmt: skip


def book_v2(game: Game, **fields: Any) -> V2:
    """A v2 book table with alice seated, a shoe, and every spectator of ``SLIPS`` joined."""
    v2 = V2(game, **{**BOOK, **fields})
    v2.commit()
    presence.take_seat(v2.repo, OP, v2.table.table_id, 1, "alice", 500_000, 1)
    for b in [*SLIPS, "hal"]:
        spectator(game, v2.table.table_id, b)
    return v2


def place(v2: V2) -> None:
    """A window: alice's seated slip and every spectator's (hal bets nothing)."""
    t = v2.table.table_id
    betting.open_betting(v2.repo, OP, t)
    betting.place_slip(v2.repo, OP, t, "alice", slip(("banker", 20_000)))
    for b, lines in SLIPS.items():
        betting.place_slip(v2.repo, OP, t, b, slip(*lines))


def leaves(round_id: str, slips: dict[str, list[tuple[str, int]]] = SLIPS) -> list[bytes]:
    """The spectators' leaves, built here (bacc-book-v1, canonical JSON) in bettor-ref order."""
    order = sorted(slips, key=lambda b: ref(b).encode())
    return [
        json.dumps(
            {"bettor_ref": ref(b), "lines": sorted(
                ({"amount": a, "type": k} for k, a in slips[b]), key=lambda x: x["type"]),
             "role": "spectator", "round_id": round_id, "spec": "bacc-book-v1"},
            separators=(",", ":"), sort_keys=True,
        ).encode()
        for b in order
    ]  # fmt: skip


def drawn(v2: V2, round_id: str) -> RoundRecord:
    (tick,) = v2.draws()
    v2.sched.ticks.clear()
    assert v2.deliver(tick) == "done"
    r = v2.round(round_id)
    assert r is not None
    return r


def test_a_v2_book_table_opens_at_each_book_tier(game: Game) -> None:
    chain = V2(game).beacon.chain
    for tier in ("bid-squeeze-standard", "bid-squeeze-high"):
        body = {**BOOK, "tier": tier, "fairness": "bacc-pf-v2"}
        table = tables.create_table(
            game.repo, game.vault, OP, CreateTableRequest.model_validate(body), None, chain
        )
        assert (table.fairness, table.bet_behind) == ("bacc-pf-v2", "book")
    with pytest.raises(Exception) as exc:  # a book table elsewhere stays refused
        body = {**BOOK, "profile": "star-city", "tier": "star-city-fun", "fairness": "bacc-pf-v2"}
        tables.create_table(
            game.repo, game.vault, OP, CreateTableRequest.model_validate(body), None, chain
        )
    assert getattr(exc.value, "code", None) == "invalid_table"


def test_the_lock_locks_the_book_and_its_root_is_in_book_root_then_the_draw_seals_it(
    game: Game,
) -> None:
    v2 = book_v2(game)
    t = v2.table.table_id
    place(v2)
    out = from_book(game, v2.shoe_id)
    assert isinstance(out, LockedRoundOut) and out.status == "locked"
    # the book is locked: a new slip writes nothing (409), no round item yet
    late = slip(("player", 1000))
    assert code_of(lambda: betting.place_slip(v2.repo, OP, t, "hal", late)) == "betting_closed"
    assert v2.repo.book.get_slip(OP, out.round_id, ref("hal")) is None
    assert v2.round(out.round_id) is None
    kinds = [e.type for e in v2.events()]
    assert kinds.count("betting_closed") == 1 and kinds[-1] == "round_locked"
    locked_event = v2.events()[-1].data
    assert locked_event["book_root"] == out.book_root
    assert locked_event["book"] == {
        "root": booktree.root(leaves(out.round_id)).hex(),
        "count": len(SLIPS),
    }
    r = drawn(v2, out.round_id)
    # book_root = node(seated root, the spectators' root of leaves built here)
    data = leaves(out.round_id)
    spectators = booktree.root(data)
    assert r.lock is not None and r.book is not None
    assert (
        r.lock["book_root"]
        == out.book_root
        == locked_root(seated_root(out.round_id, r.bets), spectators).hex()
    )
    assert [b["bettor_id"] for b in r.bets] == ["alice"]
    # sealed at the draw on the drawn cards: root, leaves, the whole book's money
    assert r.book["root"] == spectators.hex() and r.book["count"] == len(SLIPS)
    stored = [(x.bettor_ref, x.hash) for x in v2.repo.chunks.leaves(OP, out.round_id)]
    assert stored == [
        (json.loads(d)["bettor_ref"], hashlib.sha256(b"\x00" + d).digest()) for d in data
    ]
    whole = independent_totals(TableConfig.from_dict(r.config), round_of(r), SLIPS)
    assert r.book["totals"]["net"] == sum(b.net for b in whole.bettors)
    assert r.book["totals"]["house"]["take"] == whole.house_take
    dealt = [e for e in v2.events() if e.type == "round_dealt"][-1]
    assert dealt.data["book"] == {"root": r.book["root"], "count": len(SLIPS)}
    # settled: every slip's receipt, paid what its lines win on the drawn cards
    settling.settle_round(v2.repo, OP, out.round_id)
    ref_ = parse_round_id(out.round_id)
    assert ref_ is not None
    for b in SLIPS:
        item = v2.repo.chunks.receipt(OP, ref_, b)
        assert item is not None
        assert item.doc["settlement"]["net"] == whole.nets()[b]


TYPES = ("banker", "player", "tie", "player_pair", "banker_pair")
books = st.dictionaries(
    st.sampled_from(["sp-a", "sp-b", "sp-c", "sp-d", "sp-e", "sp-f"]),
    st.dictionaries(st.sampled_from(TYPES), st.sampled_from([1000, 2000, 3000]),
                    min_size=1, max_size=3),
    max_size=6,
)  # fmt: skip


@settings(max_examples=examples(0.3))
@given(book=books, outage=st.booleans())
def test_any_book_is_in_book_root_and_settled_exactly_or_refunded(
    book: dict[str, dict[str, int]], outage: bool
) -> None:
    """Whatever the book (empty too), and whether the beacon comes or not: the lock's book_root
    is the node over the seated root and the root of the leaves built here; the round's book
    is that root, and its totals are the whole book settled at once on the drawn cards — or,
    without a beacon, the stakes returned."""
    game = Game()
    v2 = V2(game, **BOOK)
    v2.commit()
    t = v2.table.table_id
    presence.take_seat(v2.repo, OP, t, 1, "alice", 500_000, 1)
    betting.open_betting(v2.repo, OP, t)
    betting.place_slip(v2.repo, OP, t, "alice", slip(("banker", 1000)))
    lines = {b: sorted(kinds.items()) for b, kinds in book.items()}
    for b, mine in lines.items():
        spectator(game, t, b)
        betting.place_slip(v2.repo, OP, t, b, slip(*mine))
    out = from_book(game, v2.shoe_id)
    v2.beacon.down = outage
    while (tick := v2.sched.take()) is not None:
        v2.deliver(tick)
    r = v2.round(out.round_id)
    assert r is not None and r.lock is not None and r.book is not None
    spectators = booktree.root(leaves(out.round_id, lines))
    assert r.lock["book_root"] == locked_root(seated_root(out.round_id, r.bets), spectators).hex()
    assert (r.book["root"], r.book["count"]) == (spectators.hex(), len(book))
    stake = sum(a for mine in lines.values() for _, a in mine)
    totals = r.book["totals"]
    assert (totals["bettors"], totals["stake"]) == (len(book), stake)
    if outage:
        assert r.void is not None and r.void["reason"] == "beacon_unavailable"
        assert totals["net"] == 0 and totals["house"]["take"] == 0
    elif book:
        whole = independent_totals(TableConfig.from_dict(r.config), round_of(r), lines)
        assert totals["net"] == sum(b.net for b in whole.bettors)
        assert totals["house"]["take"] == whole.house_take


def test_a_beacon_void_returns_every_book_slips_stake(game: Game) -> None:
    v2 = book_v2(game)
    place(v2)
    out = from_book(game, v2.shoe_id)
    v2.beacon.down = True
    while (tick := v2.sched.take()) is not None:
        v2.deliver(tick)
    r = v2.round(out.round_id)
    assert r is not None and r.void is not None and r.void["reason"] == "beacon_unavailable"
    assert r.book is not None and r.book["root"] == booktree.root(leaves(out.round_id)).hex()
    stake = sum(a for lines in SLIPS.values() for _, a in lines)
    totals = r.book["totals"]
    assert (totals["bettors"], totals["stake"], totals["net"]) == (len(SLIPS), stake, 0)
    assert totals["house"] == {"covered": 0, "commission": 0, "take": 0}
    ref_ = parse_round_id(out.round_id)
    assert ref_ is not None
    for b, lines in SLIPS.items():
        item = v2.repo.chunks.receipt(OP, ref_, b)
        assert item is not None, b
        got = item.doc["settlement"]
        assert (got["stake"], got["net"]) == (sum(a for _, a in lines), 0)


def test_a_crash_after_the_books_lock_is_finished_by_the_sweep(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    v2 = book_v2(game)
    place(v2)

    def crash(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the lock's process died after the book's lock")

    monkeypatch.setattr(v2.repo, "lock_round", crash)
    with pytest.raises(RuntimeError):
        from_book(game, v2.shoe_id)
    monkeypatch.undo()
    late = slip(("player", 1000))
    code = code_of(lambda: betting.place_slip(v2.repo, OP, v2.table.table_id, "hal", late))
    assert code == "betting_closed"
    game.clock.advance(31)  # past deal_by: the sweep locks the round from the same book
    auto_settle.sweep(v2.repo, shoes=game.shoes)
    locked = v2.shoe().v2["locked"]  # type: ignore[index]
    assert locked is not None and locked["book"]["count"] == len(SLIPS)
    round_id = f"{v2.shoe_id}_r1"
    r = drawn(v2, round_id)
    assert r.book is not None and r.book["root"] == booktree.root(leaves(round_id)).hex()
    assert [e.type for e in v2.events()].count("betting_closed") == 1


def test_a_crash_between_lock_and_draw_is_finished_by_the_next_draw(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    v2 = book_v2(game)
    place(v2)
    out = from_book(game, v2.shoe_id)
    (tick,) = v2.draws()

    def crash(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the draw's process died")

    monkeypatch.setattr(book_lock, "seal", crash)
    with pytest.raises(RuntimeError):
        v2.deliver(tick)
    monkeypatch.undo()
    assert v2.round(out.round_id) is None
    assert v2.deliver(tick) == "done"  # the timer again (or the sweep): the same book
    assert v2.deliver(tick) == "stale"
    r = v2.round(out.round_id)
    assert r is not None and r.book is not None and r.book["count"] == len(SLIPS)


def test_a_v2_book_shoes_proof_and_a_receipt_verify(game: Game) -> None:
    v2 = book_v2(game)
    for n in (1, 2):
        place(v2)
        out = from_book(game, v2.shoe_id)
        if n == 2:
            v2.beacon.down = True
            while (tick := v2.sched.take()) is not None:
                v2.deliver(tick)
            v2.beacon.down = False
        else:
            drawn(v2, out.round_id)
            settling.settle_round(v2.repo, OP, out.round_id)
    tables.close_shoe(v2.repo, game.vault, OP, v2.shoe_id)
    first = proofs.proof_page(
        v2.repo, game.vault, game.ref_keys, v2.shoe_id, 1, lambda: v2.beacon
    )  # the beacon back: the void priced (its book's refunds take nothing from the house)
    pages = [json.loads(first.body)]
    verdict = verify(
        pages, keys=keys(game), signature_check=es256.check, beacon_check=verify_beacon
    )
    assert verdict.ok, verdict.mismatches
    proof = assemble(pages)[1]
    assert [("book" in r) for r in proof["rounds"]] == [True, True]
    assert "2 books of spectators' slips in their rounds' book roots" in verdict.summary
    assert proof["rounds"][1]["beacon"] and proof["rounds"][1]["void"]["replaced"] is not None
    table_id, shoe_number = v2.table.table_id, v2.shoe().shoe_number
    for n in (1, 2):
        item = v2.repo.chunks.receipt(OP, RoundRef(table_id, shoe_number, n), "carol")
        assert item is not None
        checked = verify_receipt(proof, dict(item.doc))
        assert checked.ok, checked.lines()
    bad = dict(v2.repo.chunks.receipt(OP, RoundRef(table_id, shoe_number, 1), "carol").doc)  # type: ignore[union-attr]
    bad["settlement"] = {**bad["settlement"], "net": bad["settlement"]["net"] + 1}
    assert not verify_receipt(proof, bad).ok
    # a slip that is not in the book: said in v2's terms (the book locked before its beacon)
    absent = dict(v2.repo.chunks.receipt(OP, RoundRef(table_id, shoe_number, 1), "carol").doc)  # type: ignore[union-attr]
    absent["leaf_index"] = (absent["leaf_index"] + 1) % absent["tree_size"]  # another leaf's place
    beacon_round = proof["rounds"][0]["lock"]["beacon_round"]
    said = " ".join(verify_receipt(proof, absent).lines())
    assert f"NOT in the book locked before beacon round {beacon_round} (round 1)" in said, said
    # the public book pages: every slip's money (a beacon void's: its stake back), Σ = totals
    book_pages = [json.loads(proofs.book_page(v2.repo, v2.shoe_id, n, 0)) for n in (1, 2)]
    books = verify_books(proof, book_pages)
    assert books.ok, books.lines()
    # and the browser's (web/receipt.js, written apart): the receipts and the pages
    if NODE is not None:
        good = [dict(v2.repo.chunks.receipt(OP, RoundRef(table_id, shoe_number, n), "carol").doc)  # type: ignore[union-attr]
                for n in (1, 2)]  # fmt: skip
        out = _node({"proof": proof, "receipts": [*good, bad], "pages": book_pages})
        assert out["receipts"] == [True, True, False], out
        assert out["pages"] == {"checked": 2, "slips": 2 * len(SLIPS), "problems": []}
        # the browser's proof check (web/verify.js → verify-v2.js): the book inside book_root
        unsigned = [proofdoc.unsigned_page(p) for p in pages]
        tampered = json.loads(json.dumps(unsigned))
        tampered[0]["rounds"][0]["book"]["root"] = "00" * 32
        got = _node({"proofs": [unsigned, tampered]}, VERIFY_RUNNER)
        assert got[0]["verified"] is True, got
        assert got[1]["verified"] is False and "book root" in got[1]["reason"], got


NODE = shutil.which("node")
#: web/receipt.js on {proof, receipts, pages} (stdin): each receipt's ok, the pages' result.
RUNNER = """
const R = require(process.argv[1]);
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', async () => {
  const c = JSON.parse(text);
  const receipts = [];
  for (const r of c.receipts) receipts.push((await R.verifyReceipt(c.proof, r)).ok);
  const pages = await R.checkBookPages(c.proof, c.pages);
  process.stdout.write(JSON.stringify({ receipts, pages }));
});
"""


#: web/verify.js on {proofs: [pages…]} (unsigned pages): each proof's {verified, reason}.
VERIFY_RUNNER = """
const V = require(process.argv[1].replace(/receipt\\.js$/, 'verify.js'));
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', async () => {
  const out = [];
  for (const pages of JSON.parse(text).proofs) {
    const r = await V.verifyProof(pages, { allowUnsigned: true });
    out.push({ verified: r.verified, reason: r.reason });
  }
  process.stdout.write(JSON.stringify(out));
});
"""


def _node(case: dict[str, Any], runner: str = RUNNER) -> Any:
    assert NODE is not None
    script = str(Path(__file__).resolve().parents[2] / "web" / "receipt.js")
    done = subprocess.run(
        [NODE, "-e", runner, script], input=json.dumps(case), capture_output=True, text=True,
        check=True, timeout=30,
    )  # fmt: skip
    return json.loads(done.stdout)


def test_an_operators_void_of_a_drawn_v2_book_round_verifies_with_its_book(game: Game) -> None:
    """A void after the draw is an intervention as at v1: the book's totals it replaced are in
    it; the proof, the book pages (Python and the browser's) verify."""
    v2 = book_v2(game)
    for n in (1, 2):
        place(v2)
        out = from_book(game, v2.shoe_id)
        r = drawn(v2, out.round_id)
        if n == 1:
            void_round(v2.repo, OP, out.round_id, reason="misdeal")
            voided = v2.round(out.round_id)
            assert voided is not None and voided.void is not None and r.book is not None
            assert voided.void["replaced"]["book_totals"] == r.book["totals"]
        else:
            settling.settle_round(v2.repo, OP, out.round_id)
    tables.close_shoe(v2.repo, game.vault, OP, v2.shoe_id)
    pages = served_pages(game, v2.shoe_id)
    verdict = verify(
        pages, keys=keys(game), signature_check=es256.check, beacon_check=verify_beacon
    )
    assert verdict.ok, verdict.mismatches
    proof = assemble(pages)[1]
    book_pages = [json.loads(proofs.book_page(v2.repo, v2.shoe_id, n, 0)) for n in (1, 2)]
    assert verify_books(proof, book_pages).ok
    if NODE is not None:
        out = _node({"proof": proof, "receipts": [], "pages": book_pages})
        assert out["pages"] == {"checked": 2, "slips": 2 * len(SLIPS), "problems": []}
        unsigned = [proofdoc.unsigned_page(p) for p in pages]
        assert _node({"proofs": [unsigned]}, VERIFY_RUNNER)[0]["verified"] is True
