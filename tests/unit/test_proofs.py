"""Final proofs over the in-memory repository and vault (:mod:`baccarat_api.service.proofs`):
404 while the shoe is open, 409 ``proof_pending`` (with what it waits for) while rounds are
unresolved, finalised once — by the first read or by the sweep — into stored, signed pages that
verify; every later read one round trip and no KMS call; a losing concurrent finaliser serves the
winner's signature; the table's fairness summary and the signing keys."""

from __future__ import annotations

import copy
import json
from collections.abc import Collection
from typing import Any

import pytest
from support.signed_proofs import TEST_KEYS, resign

from baccarat import proofdoc
from baccarat.verify import verify
from baccarat_api.ids import parse_shoe_id
from baccarat_api.ports.records import FairnessTotals, ProofRecord, ShoeFairness
from baccarat_api.ports.repository import ShoeHistory
from baccarat_api.service import auto_settle, proofs, tables
from baccarat_api.service.errors import DomainError
from baccarat_api.service.models import FairnessOut, ProofPageOut
from baccarat_api.service.settling import settle_round
from baccarat_api.service.voiding import void_round
from baccarat_verify import es256

from .conftest import Game, star_city_bets
from .test_service import OP, code_of, deal, new_shoe, new_table


def play(
    game: Game, shoe_id: str, rounds: int | None = None, voided: Collection[int] = ()
) -> list[Any]:
    """Deal ``rounds`` rounds (default: to the shoe's end) with bets; each settled before the
    next is dealt (no round is dealt while the previous is unresolved), the last one not — the
    rounds numbered in ``voided`` are voided (misdeal) instead, right after their deal."""
    dealt: list[Any] = []
    while rounds is None or len(dealt) < rounds:
        if dealt and dealt[-1].round_number not in voided:
            settle_round(game.repo, OP, dealt[-1].round_id)
        dealt.append(deal(game, shoe_id, star_city_bets()))
        if dealt[-1].round_number in voided:
            void_round(game.repo, OP, dealt[-1].round_id, reason="misdeal")
        if dealt[-1].shoe_status == "ended":
            break
    return dealt


def settle_all(game: Game, dealt: list[Any]) -> None:
    for r in dealt:
        settle_round(game.repo, OP, r.round_id)


def read(game: Game, shoe_id: str, page: int = 1) -> proofs.ServedPage:
    return proofs.proof_page(game.repo, game.vault, game.ref_keys, shoe_id, page)


def keys(game: Game) -> dict[str, Any]:
    return {"keys": [game.vault.public_jwk()]}


def served_pages(game: Game, shoe_id: str) -> list[dict[str, Any]]:
    first = json.loads(read(game, shoe_id).body)
    out = [first]
    for k in range(2, first["page"]["count"] + 1):
        out.append(json.loads(read(game, shoe_id, k).body))
    return out


def ended_shoe(
    game: Game, *, close_after: int | None = None, voided: Collection[int] = ()
) -> tuple[str, list[Any]]:
    shoe_id = new_shoe(game)
    dealt = play(game, shoe_id, close_after, voided)
    if close_after is not None:
        tables.close_shoe(game.repo, game.vault, OP, shoe_id)
    return shoe_id, dealt


# --- not final yet -----------------------------------------------------------------------------


def test_an_open_or_unknown_shoe_has_no_proof(game: Game) -> None:
    shoe_id = new_shoe(game)
    deal(game, shoe_id, star_city_bets())
    for shoe, page in (("tbl_aaaaaaaaaaaaaaaa_s1", 1), ("nonsense", 1), (shoe_id, 0)):
        assert code_of(lambda s=shoe, p=page: read(game, s, p)) == "not_found"
    assert code_of(lambda: read(game, shoe_id)) == "shoe_not_closed"  # known, still open


def test_an_ended_shoe_with_unresolved_rounds_is_pending_and_says_what_it_waits_for(
    game: Game,
) -> None:
    shoe_id, dealt = ended_shoe(game, close_after=3)
    settle_round(game.repo, OP, dealt[1].round_id)
    before = dict(game.repo.items)
    game.repo.calls.clear()
    with pytest.raises(DomainError) as err:
        read(game, shoe_id)
    e = err.value
    assert (e.code, e.retryable, e.retry_after) == ("proof_pending", True, 5)
    # (a round is dealt only once the previous one is resolved: the last may be unresolved)
    assert e.details == {"unresolved_rounds": [3], "settle_by": dealt[2].settle_by}
    # the page read and the index of open rounds: no round read, nothing written, no KMS
    assert game.repo.calls == {"batch_get": 1, "query": 1}
    assert dict(game.repo.items) == before and game.repo.pages == {}
    assert game.vault.calls["sign"] == 0


def test_a_round_the_index_missed_is_found_by_the_strong_read(game: Game) -> None:
    """``OpenRounds`` is eventually consistent: the shoe's own query decides."""
    shoe_id, dealt = ended_shoe(game, close_after=2)
    settle_round(game.repo, OP, dealt[0].round_id)
    game.repo.open_rounds = lambda _shoe_id: []  # type: ignore[method-assign]
    with pytest.raises(DomainError) as err:
        read(game, shoe_id)
    assert err.value.details["unresolved_rounds"] == [2]
    assert game.repo.pages == {} and game.vault.calls["sign"] == 0


# --- final -------------------------------------------------------------------------------------


def test_the_first_read_after_the_end_finalises_once_and_later_reads_are_one_get(
    game: Game,
) -> None:
    shoe_id, dealt = ended_shoe(game, close_after=4, voided={3})
    settle_all(game, [r for i, r in enumerate(dealt) if i != 2])

    game.repo.calls.clear()
    first = read(game, shoe_id)
    assert game.vault.calls["sign"] == 1
    # OpenRounds + the shoe's query + the key's history record + the page's put + the manifest
    # transaction
    assert game.repo.calls == {"batch_get": 1, "query": 2, "write": 2, "transaction": 1}

    game.repo.calls.clear()
    again = read(game, shoe_id)
    assert again == first
    assert game.repo.calls == {"batch_get": 1} and game.vault.calls["sign"] == 1

    page = json.loads(first.body)
    ProofPageOut.model_validate(page)  # the documented shape, strictly
    verdict = verify([page], keys=keys(game), signature_check=es256.check)
    assert verdict.ok, verdict.mismatches
    assert page["interventions"] == {
        "voided_rounds": 1,
        "voided_player_net": sum(page["rounds"][2]["void"]["replaced"]["nets"].values()),
        "voided_player_banker_net": 0,
        "closed_early": True,
        "rounds_dealt": 4,
        "rounds_possible": 30,
    }
    assert first.etag == page["signature"]["manifest"]["pages"][0]
    assert first.body.startswith(b'{"signature":')
    unsigned = proofdoc.unsigned_page(page)
    assert first.body[len(b'{"signature":') :].endswith(proofdoc.proof_bytes(unsigned)[1:])


def test_pages_follow_the_split_rule_and_every_page_is_served(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(proofs, "PAGE_BUDGET", 12_000)
    shoe_id, dealt = ended_shoe(game)
    settle_all(game, dealt)
    pages = served_pages(game, shoe_id)
    assert len(pages) > 2
    assert [p["page"]["number"] for p in pages] == list(range(1, len(pages) + 1))
    assert sum(len(p["rounds"]) for p in pages) == len(dealt) == 30
    assert len({json.dumps(p["signature"]) for p in pages}) == 1
    assert verify({"pages": pages}, keys=keys(game), signature_check=es256.check).ok
    assert code_of(lambda: read(game, shoe_id, len(pages) + 1)) == "not_found"
    assert game.vault.calls["sign"] == 1


def test_a_finaliser_that_loses_the_race_serves_the_winners_signature(game: Game) -> None:
    shoe_id, dealt = ended_shoe(game, close_after=2)
    settle_all(game, dealt)
    stale = game.repo.items[(ProofRecord, (shoe_id,))]
    assert isinstance(stale, ProofRecord) and stale.signature is None
    winner = proofs.finalise(game.repo, game.vault, game.ref_keys, stale)
    loser = proofs.finalise(game.repo, game.vault, game.ref_keys, stale)  # read before the win
    assert loser.signature == winner.signature and loser.pages == winner.pages
    assert game.vault.calls["sign"] == 2  # both signed; one signature was kept
    totals = proofs.fairness(game.repo, shoe_id.rsplit("_s", 1)[0]).totals
    assert (totals.shoes, totals.rounds_dealt) == (1, 2)  # counted once


def test_a_stored_page_the_manifest_does_not_cover_is_never_served(game: Game) -> None:
    shoe_id, dealt = ended_shoe(game, close_after=1)
    settle_all(game, dealt)
    read(game, shoe_id)
    page = game.repo.pages[(shoe_id, 1)]
    game.repo.pages[(shoe_id, 1)] = page.replace(b'"voided":false', b'"voided":true ')
    with pytest.raises(RuntimeError, match="not the page its manifest signed"):
        read(game, shoe_id)


def test_the_sweep_finalises_what_nobody_reads_and_skips_what_is_pending(game: Game) -> None:
    final_id, final_rounds = ended_shoe(game, close_after=2)
    settle_all(game, final_rounds)
    pending_id, _ = ended_shoe(game, close_after=1)
    open_id = new_shoe(game)
    deal(game, open_id, star_city_bets())
    report = auto_settle.sweep(game.repo, vault=game.vault, ref_keys=game.ref_keys)
    assert (report.finalised, report.pending, report.failed) == ([final_id], [pending_id], {})
    assert game.vault.calls["sign"] == 1
    again = auto_settle.sweep(game.repo, vault=game.vault, ref_keys=game.ref_keys)
    assert (again.finalised, again.pending) == ([], [pending_id])
    # past the deadline the sweep auto-settles the pending shoe's round, then finalises it
    late = auto_settle.sweep(
        game.repo, at="2999-01-01T00:00:00Z", vault=game.vault, ref_keys=game.ref_keys
    )
    assert late.finalised == [pending_id] and len(late.settled) == 2  # + the open shoe's round
    assert json.loads(read(game, pending_id).body)["rounds"][0]["settlement"]["auto_settled"]


# --- the fairness summary and the signing keys -------------------------------------------------


def test_the_fairness_summary_lists_final_shoes_newest_first_with_totals(game: Game) -> None:
    table_id = new_table(game)
    empty = proofs.fairness(game.repo, table_id)
    assert empty.shoes == [] and empty.totals.shoes == 0 and empty.next_cursor is None
    ids = []
    for n, close_after in enumerate((2, 3, 1)):
        shoe_id = tables.commit_shoe(game.repo, game.vault, OP, table_id, f"s{n}").shoe_id
        dealt = play(game, shoe_id, close_after, voided={1} if n == 1 else ())
        tables.close_shoe(game.repo, game.vault, OP, shoe_id)
        if n == 1:
            dealt = dealt[1:]
        settle_all(game, dealt)
        ids.append(shoe_id)
    auto_settle.sweep(game.repo, vault=game.vault, ref_keys=game.ref_keys)

    summary = proofs.fairness(game.repo, table_id)
    FairnessOut.model_validate(summary.model_dump())
    assert [s.shoe_id for s in summary.shoes] == ids[::-1]
    assert [s.proof for s in summary.shoes] == [f"/v1/shoes/{i}/proof" for i in ids[::-1]]
    lines = [s.interventions for s in summary.shoes]
    t = summary.totals
    assert t.shoes == 3 and t.closed_early == 3 and t.rounds_dealt == 6
    assert t.voided_rounds == 1 == sum(iv.voided_rounds for iv in lines)
    assert t.voided_player_net == sum(iv.voided_player_net for iv in lines)
    assert t.rounds_possible == 90

    first = proofs.fairness(game.repo, table_id, limit=2)
    assert [s.shoe_id for s in first.shoes] == ids[:0:-1] and first.next_cursor == "2"
    rest = proofs.fairness(game.repo, table_id, cursor=first.next_cursor, limit=2)
    assert [s.shoe_id for s in rest.shoes] == ids[:1] and rest.next_cursor is None
    assert rest.totals == first.totals


def test_the_fairness_summary_of_an_unknown_table_is_404_and_a_bad_cursor_422(
    game: Game,
) -> None:
    table_id = new_table(game)
    assert code_of(lambda: proofs.fairness(game.repo, "tbl_aaaaaaaaaaaaaaaa")) == "not_found"
    assert code_of(lambda: proofs.fairness(game.repo, "nonsense")) == "not_found"
    for bad in ("0", "x", "01", "1234567", "٣"):
        assert code_of(lambda c=bad: proofs.fairness(game.repo, table_id, c)) == "invalid_cursor"


def test_a_table_made_before_the_summary_existed_gets_its_totals_at_its_first_final_proof(
    game: Game,
) -> None:
    shoe_id, dealt = ended_shoe(game, close_after=1)
    table_id = shoe_id.rsplit("_s", 1)[0]
    del game.repo.items[(FairnessTotals, (table_id,))]
    assert code_of(lambda: proofs.fairness(game.repo, table_id)) == "not_found"
    settle_all(game, dealt)
    read(game, shoe_id)
    summary = proofs.fairness(game.repo, table_id)
    assert summary.totals.shoes == 1 and [s.shoe_id for s in summary.shoes] == [shoe_id]
    assert isinstance(game.repo.items[(ShoeFairness, (table_id, 1))], ShoeFairness)


def test_the_signing_keys_are_the_vaults_public_key(game: Game) -> None:
    out = proofs.signing_keys(game.repo, game.vault).model_dump()
    (jwk,) = out["keys"]
    public = game.vault.public_jwk()
    assert jwk == {**public, "status": "current", "not_before": None, "not_after": None}
    assert jwk["kid"] == proofdoc.jwk_thumbprint(jwk)


def test_every_key_that_ever_signed_is_served_and_its_proofs_still_verify(game: Game) -> None:
    """A key change made every older proof fail (only the current key was
    served). Every key that ever signed is served, with its validity; each proof verifies with
    the key it names, and only when its signed_at falls in that key's validity."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec

    old_id, dealt = ended_shoe(game, close_after=2)
    settle_all(game, dealt)
    old_pages = served_pages(game, old_id)
    old_key = game.vault._key()
    game.vault.rotate_signing_key()  # a new KMS signing key is deployed
    new_id, dealt = ended_shoe(game, close_after=3)
    settle_all(game, dealt)
    new_pages = served_pages(game, new_id)
    assert old_pages[0]["signature"]["key_id"] != new_pages[0]["signature"]["key_id"]

    served = json.loads(proofs.signing_keys(game.repo, game.vault).model_dump_json())
    old_at = old_pages[0]["signature"]["manifest"]["signed_at"]
    new_at = new_pages[0]["signature"]["manifest"]["signed_at"]
    assert [(k["kid"], k["status"], k["not_before"], k["not_after"]) for k in served["keys"]] == [
        (old_pages[0]["signature"]["key_id"], "retired", old_at, old_at),
        (new_pages[0]["signature"]["key_id"], "current", new_at, None),
    ]
    for shoe_id, pages in ((old_id, old_pages), (new_id, new_pages)):
        verdict = verify(pages, keys=served, signature_check=es256.check, shoe_id=shoe_id)
        assert verdict.ok, verdict.mismatches

    # the retired key signing after its last recorded signature (a leaked key): not valid then
    def old_signer(message: bytes) -> bytes:
        return proofdoc.raw_signature(old_key.sign(message, ec.ECDSA(hashes.SHA256())))

    later = proofdoc.sign(
        [proofdoc.unsigned_page(p) for p in old_pages],
        old_signer,
        old_pages[0]["signature"]["key_id"],
        "2999-01-01T00:00:00.000Z",
    )
    verdict = verify(later, keys=served, signature_check=es256.check)
    assert not verdict.ok
    assert str(verdict.mismatches[0]).startswith(
        f"signature: signed at 2999-01-01T00:00:00.000Z, outside the validity of key "
        f"{old_pages[0]['signature']['key_id']}"
    )


def test_the_shoe_of_a_proof_is_read_from_its_operators_partition(game: Game) -> None:
    shoe_id, dealt = ended_shoe(game, close_after=1)
    settle_all(game, dealt)
    proof = game.repo.items[(ProofRecord, (shoe_id,))]
    assert isinstance(proof, ProofRecord) and proof.operator_id == OP
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    history = game.repo.shoe_history(OP, ref)
    assert history.shoe is not None and [r.round_number for r in history.rounds] == [1]
    assert game.repo.shoe_history("other", ref) == ShoeHistory()


# --- voids at a player-banker table ------------------------------------------------------------


def test_voids_at_a_player_banker_table_price_what_they_took_from_the_bettors(
    game: Game,
) -> None:
    """alice bets Player 5,000 every round against pat, the player-banker; the two rounds
    Player wins are voided. What the voids took from alice is computed here from the seed's rule
    alone (game-rules.md: Player pays 1:1, every participant pays the house 1% of a positive
    round result): 2 × (5,000 − 50) = +9,900; pat's saved loss (2 × −5,000, no commission on a
    loss) is shown apart — netted together they priced the voids at −100."""
    stake = 5_000
    shoe_id = new_shoe(game, banking="player_banker")
    bets = [{"bettor_id": "alice", "role": "seated", "seat": 1, "type": "player",
             "amount": stake, "balance": 900_000}]  # fmt: skip
    pb = {"bettor_id": "pat", "balance": 900_000}
    dealt: list[Any] = []
    player_wins: list[Any] = []
    while len(player_wins) < 2:  # each round resolved before the next is dealt
        r = deal(game, shoe_id, bets, player_banker=pb)
        dealt.append(r)
        if r.result == "player":
            player_wins.append(r)
            void_round(game.repo, OP, r.round_id, reason="misdeal")
        else:
            settle_round(game.repo, OP, r.round_id)
    tables.close_shoe(game.repo, game.vault, OP, shoe_id)

    page = served_pages(game, shoe_id)
    iv = page[0]["interventions"]
    took_from_bettors = len(player_wins) * (stake - stake // 100)
    assert iv["voided_rounds"] == 2
    assert iv["voided_player_net"] == took_from_bettors == 9_900
    voided = [r for p in page for r in p["rounds"] if r["void"] is not None]
    pb_ref = voided[0]["player_banker"]["bettor_ref"]
    house = sum(r["void"]["replaced"]["house_take"] for r in voided)
    assert iv["voided_player_banker_net"] == sum(
        r["void"]["replaced"]["nets"][pb_ref] for r in voided
    )
    assert iv["voided_player_banker_net"] == -len(player_wins) * stake == -10_000
    assert house == 2 * (stake // 100)
    assert proofdoc.interventions_text(iv).startswith(
        "2 voided rounds, players would have netted +9,900, the player-banker -10,000; "
    )
    verdict = verify(page, keys=keys(game), signature_check=es256.check)
    assert verdict.ok, verdict.mismatches

    # A proof signed before this pricing states the earlier form: no player-banker figure, the
    # bettors' and the player-banker's replaced nets netted together (-100). It still verifies,
    # shown in today's split; a wrong earlier figure does not.
    earlier = copy.deepcopy(page)
    del earlier[0]["interventions"]["voided_player_banker_net"]
    earlier[0]["interventions"]["voided_player_net"] = 9_900 - 10_000
    old_verdict = verify(resign(earlier), keys=TEST_KEYS, signature_check=es256.check)
    assert old_verdict.ok, old_verdict.mismatches
    assert old_verdict.interventions is not None
    assert old_verdict.interventions["voided_player_banker_net"] == -10_000
    earlier[0]["interventions"]["voided_player_net"] = 9_900
    wrong = verify(resign(earlier), keys=TEST_KEYS, signature_check=es256.check)
    assert not wrong.ok
    assert [m.field for m in wrong.mismatches] == ["interventions.voided_player_net"]

    summary = proofs.fairness(game.repo, shoe_id.rsplit("_s", 1)[0])
    assert summary.totals.voided_player_net == 9_900
    assert summary.totals.voided_player_banker_net == -10_000
    assert summary.shoes[0].interventions.voided_player_net == 9_900
