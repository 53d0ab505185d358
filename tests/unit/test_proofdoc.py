"""The public proof's format library (``baccarat.proofdoc``): pseudonyms, the public form of a
round, interventions, the page split, page hashes, the manifest and the key helpers. Properties
where an invariant exists (hypothesis)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from typing import Any

import make_proof_vectors
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.signed_proofs import TEST_REF_KEY

from baccarat import proofdoc
from baccarat.bets import Bet, BetType, PlayerBanker, Role
from baccarat.fairness import derive_shoe
from baccarat.profiles import STAR_CITY, Banking, TableConfig, repo_tiers
from baccarat.proofdoc import ProofFormatError

TIERS = repo_tiers()
REF = re.compile(r"br_[a-z2-7]{24}")
PRIVATE = make_proof_vectors.sample_private_proof()


def _public() -> dict[str, Any]:
    return proofdoc.public_proof(copy.deepcopy(PRIVATE), TEST_REF_KEY)


# --- bettor_ref ----------------------------------------------------------------------------------


@given(
    key=st.binary(min_size=32, max_size=32),
    table=st.text(min_size=1, max_size=30),
    bettor=st.text(min_size=1, max_size=64),
)
def test_a_ref_is_27_characters_and_stable(key: bytes, table: str, bettor: str) -> None:
    ref = proofdoc.bettor_ref(key, table, bettor)
    assert REF.fullmatch(ref)
    assert proofdoc.bettor_ref(key, table, bettor) == ref


@given(
    key=st.binary(min_size=32, max_size=32),
    a=st.text(min_size=1, max_size=20),
    b=st.text(min_size=1, max_size=20),
)
def test_refs_differ_by_bettor_table_and_key(key: bytes, a: str, b: str) -> None:
    if a != b:
        assert proofdoc.bettor_ref(key, "t", a) != proofdoc.bettor_ref(key, "t", b)
        assert proofdoc.bettor_ref(key, a, "x") != proofdoc.bettor_ref(key, b, "x")
    other = hashlib.sha256(key).digest()
    assert proofdoc.bettor_ref(key, "t", a) != proofdoc.bettor_ref(other, "t", a)


def test_the_separator_keeps_table_and_bettor_apart() -> None:
    """``table ‖ 0x00 ‖ bettor``: moving characters from one to the other changes the ref."""
    assert proofdoc.bettor_ref(TEST_REF_KEY, "ab", "c") != proofdoc.bettor_ref(
        TEST_REF_KEY, "a", "bc"
    )


def test_a_ref_key_is_32_bytes() -> None:
    with pytest.raises(ProofFormatError):
        proofdoc.bettor_ref(b"short", "t", "alice")


# --- the settlement does not depend on what bettors are called -----------------------------------

bet_types = st.sampled_from(["banker", "player", "tie", "banker_pair", "player_pair"])
bettors = st.sampled_from(["alice", "bob", "carol", "dan"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    picks=st.lists(st.tuples(bettors, bet_types, st.integers(1, 50)), min_size=0, max_size=12),
    round_index=st.integers(0, 29),
    banked=st.booleans(),
)
def test_the_settlement_is_invariant_under_renaming_bettors(
    picks: list[tuple[str, str, int]], round_index: int, banked: bool
) -> None:
    """What the verifiers rely on: settling the public bets (refs) gives exactly the public form
    of the settlement of the real bets (ids)."""
    config = TableConfig(
        STAR_CITY, TIERS["star-city-fun"], Banking.PLAYER_BANKER if banked else Banking.HOUSE
    )
    shoe = derive_shoe(b"\x07" * 32, "renaming", 1, config.profile.shoe_rules)
    round_ = shoe.rounds[round_index]
    raw = [
        {"bettor_id": who, "role": "seated", "type": t, "amount": 100 * units}
        for who, t, units in picks
    ]
    pb = {"bettor_id": "pb-seat", "balance": 10**9} if banked else None
    ref = proofdoc.refs_for(TEST_REF_KEY, "tbl_rename")
    private = proofdoc.settlement_doc(config, round_, *proofdoc.parse_bets(raw, pb))
    public_bets = proofdoc.public_bets(raw, ref)
    public_pb = None if pb is None else {"bettor_ref": ref(pb["bettor_id"])}
    from_refs = proofdoc.settlement_doc(
        config, round_, *proofdoc.parse_bets(public_bets, public_pb, "bettor_ref")
    )
    assert proofdoc.public_settlement(from_refs, lambda r: r) == proofdoc.public_settlement(
        private, ref
    )
    assert sum(private["nets"].values()) + private["house"]["take"] == 0


# --- the public proof ----------------------------------------------------------------------------


def _keys(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return set(doc) | {k for v in doc.values() for k in _keys(v)}
    if isinstance(doc, list):
        return {k for v in doc for k in _keys(v)}
    return set()


def test_the_public_proof_names_no_bettor_and_no_balance() -> None:
    public = _public()
    text = json.dumps(public)
    for bettor in ("alice", "bob", "carol"):
        assert bettor not in text, bettor
    private_keys = {"bettor_id", "balance", "level", "personal_limits", "eligibility",
                    "balances_after"}  # fmt: skip
    assert not _keys(public) & private_keys
    assert _keys(PRIVATE) & private_keys  # (the input had them)
    assert "two cards came out at once" in text  # the void's note is public


def test_every_round_carries_its_lifecycle_marks() -> None:
    public = _public()
    for private, r in zip(PRIVATE["rounds"], public["rounds"], strict=True):
        assert r["dealt_at"] == r["bets_locked_at"] == private["dealt_at"]
        if private.get("void"):
            assert r["voided"] and r["settlement"] is None and r["settled_at"] is None
            assert r["voided_at"] == r["void"]["voided_at"] == private["void"]["voided_at"]
        else:
            assert not r["voided"] and r["void"] is None and r["voided_at"] is None
            assert r["settled_at"] == r["settlement"]["settled_at"]
        assert all(REF.fullmatch(b["bettor_ref"]) for b in r["bets"])


def test_a_void_shows_the_settlement_it_replaced() -> None:
    public = _public()
    voided = public["rounds"][2]
    config = TableConfig.from_dict(PRIVATE["table_config"])
    shoe = derive_shoe(bytes.fromhex(PRIVATE["server_seed"]), PRIVATE["client_seed"], 2,
                       config.profile.shoe_rules)  # fmt: skip
    raw = PRIVATE["rounds"][2]["bets"]
    bets = [Bet(b["bettor_id"], Role(b["role"]), BetType(b["type"]), b["amount"], order=i)
            for i, b in enumerate(raw)]  # fmt: skip
    from baccarat.settlement import settle

    would = settle(config, shoe.rounds[2], bets)
    ref = proofdoc.refs_for(TEST_REF_KEY, PRIVATE["table_id"])
    assert voided["void"]["replaced"] == {
        "nets": {ref(who): net for who, net in would.nets().items()},
        "house_take": would.house_take,
    }
    assert voided["void"]["reason"] == "misdeal"
    iv = public["interventions"]
    assert iv == {
        "voided_rounds": 1,
        "voided_player_net": sum(would.nets().values()),
        "voided_player_banker_net": 0,
        "closed_early": True,
        "rounds_dealt": 6,
        "rounds_possible": len(shoe.rounds),
    }


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda p: p["rounds"][0].pop("dealt_at"), "dealt_at"),
        (lambda p: p["rounds"][1].update(dealt_at="2025-06-01 12:00"), "dealt_at"),
        (lambda p: p["rounds"][0].update(settlement=None), "not resolved"),
        (lambda p: p["rounds"][2].update(settlement=p["rounds"][0]["settlement"]), "both"),
        (lambda p: p["rounds"][2]["void"].update(reason="dealer error"), "void reason"),
        (lambda p: p["rounds"][2]["void"].update(note=7), "note"),
        (lambda p: p.update(end_reason="void"), "end_reason"),
    ],
)
def test_what_a_final_proof_cannot_be(edit: Any, words: str) -> None:
    private = copy.deepcopy(PRIVATE)
    edit(private)
    with pytest.raises(ProofFormatError, match=words):
        proofdoc.public_proof(private, TEST_REF_KEY)


def test_the_stored_void_records_names_are_read_too() -> None:
    """Today's stored void record says ``void_reason`` and ``settled_at``."""
    private = copy.deepcopy(PRIVATE)
    v = private["rounds"][2]["void"]
    private["rounds"][2]["void"] = {"void_reason": v["reason"], "settled_at": v["voided_at"]}
    r = proofdoc.public_proof(private, TEST_REF_KEY)["rounds"][2]
    assert r["void"]["reason"] == "misdeal" and r["void"]["note"] is None
    assert r["voided_at"] == v["voided_at"]


# --- interventions -------------------------------------------------------------------------------


def test_interventions_text_words() -> None:
    text = proofdoc.interventions_text
    base = {"voided_rounds": 0, "voided_player_net": 0, "closed_early": False,
            "rounds_dealt": 30, "rounds_possible": 30}  # fmt: skip
    assert text(base) == "no voids; played to the end (30 of 30 rounds)"
    assert text(base | {"voided_rounds": 2, "voided_player_net": 12300, "closed_early": True,
                        "rounds_dealt": 1}) == (
        "2 voided rounds, players would have netted +12,300; closed early after round 1 of 30"
    )  # fmt: skip
    assert text(base | {"voided_rounds": 1, "voided_player_net": -1500}) == (
        "1 voided round, players would have netted -1,500; played to the end (30 of 30 rounds)"
    )


# --- the page split ------------------------------------------------------------------------------

HEADER = {"spec": "bacc-pf-v1", "shoe_id": "tbl_s1", "note": "x" * 40}


@st.composite
def round_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    sizes = draw(st.lists(st.integers(0, 400), max_size=40))
    return [{"round_number": i, "pad": "é" * s} for i, s in enumerate(sizes, start=1)]


def _size(rounds: list[Any]) -> int:
    return len(proofdoc.proof_bytes({**HEADER, "rounds": rounds}))


@settings(max_examples=200)
@given(rounds=round_lists(), budget=st.integers(1, 3000))
def test_split_pages_concatenate_to_the_rounds_and_respect_the_budget(
    rounds: list[dict[str, Any]], budget: int
) -> None:
    pages = proofdoc.split(HEADER, rounds, budget)
    assert [r for p in pages for r in p] == rounds  # every round once, in order
    assert pages and (all(pages) or (rounds == [] and pages == [[]]))
    for i, page in enumerate(pages):
        if len(page) > 1:
            assert _size(page) <= budget  # within the budget …
        if i + 1 < len(pages):  # … and greedy: the next page's first round did not fit
            assert _size([*page, pages[i + 1][0]]) > budget


@given(rounds=round_lists())
def test_the_size_formula_is_exact(rounds: list[dict[str, Any]]) -> None:
    base = _size([])
    parts = sum(len(proofdoc.proof_bytes(r)) for r in rounds)
    assert _size(rounds) == base + parts + max(len(rounds) - 1, 0)


def test_paginate_links_pages_and_an_empty_shoe_has_one_page() -> None:
    public = _public()
    pages = proofdoc.paginate(public, make_proof_vectors.SAMPLE_BUDGET)
    assert [p["page"] for p in pages] == [
        {"number": 1, "count": 2, "first_round": 1, "last_round": 3,
         "next": "/v1/shoes/tbl_vector_s2/proof?page=2"},
        {"number": 2, "count": 2, "first_round": 4, "last_round": 6, "next": None},
    ]  # fmt: skip
    assert all(proofdoc.header_of(p) == proofdoc.header_of(public) for p in pages)
    assert proofdoc.paginate(public) == [
        {**proofdoc.header_of(public), "page": {"number": 1, "count": 1, "first_round": 1,
         "last_round": 6, "next": None}, "rounds": public["rounds"]}
    ]  # fmt: skip
    empty = proofdoc.paginate({**public, "rounds": []})
    assert [p["page"] for p in empty] == [
        {"number": 1, "count": 1, "first_round": None, "last_round": None, "next": None}
    ]


# --- hashes and the manifest ---------------------------------------------------------------------


def _leaves(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(doc, dict):
        return [leaf for k, v in doc.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(doc, list):
        return [leaf for i, v in enumerate(doc) for leaf in _leaves(v, (*path, i))]
    return [path]


SAMPLE_PAGE = proofdoc.paginate(_public(), make_proof_vectors.SAMPLE_BUDGET)[0]
LEAVES = _leaves(SAMPLE_PAGE)


@settings(max_examples=150, deadline=None)
@given(leaf=st.sampled_from(LEAVES), data=st.data())
def test_the_page_hash_changes_with_any_value(leaf: tuple[Any, ...], data: st.DataObject) -> None:
    page = copy.deepcopy(SAMPLE_PAGE)
    target = page
    for step in leaf[:-1]:
        target = target[step]
    old = target[leaf[-1]]
    if isinstance(old, bool):
        new: Any = not old
    elif isinstance(old, int):
        new = old + data.draw(st.sampled_from([1, -1, 10**6]))
    elif isinstance(old, str):
        i = data.draw(st.integers(0, max(len(old) - 1, 0)))
        new = old[:i] + ("x" if old[i : i + 1] != "x" else "y") + old[i + 1 :]
    else:
        new = 0
    target[leaf[-1]] = new
    assert proofdoc.page_hash(page) != proofdoc.page_hash(SAMPLE_PAGE)


def test_the_page_hash_ignores_only_the_signature() -> None:
    signed = {**SAMPLE_PAGE, "signature": {"anything": 1}}
    assert proofdoc.page_hash(signed) == proofdoc.page_hash(SAMPLE_PAGE)
    reordered = dict(reversed(list(SAMPLE_PAGE.items())))
    assert proofdoc.page_hash(reordered) == proofdoc.page_hash(SAMPLE_PAGE)


@pytest.mark.parametrize(
    "value", [1.5, 1.0, 2**53, -(2**53), float("nan"), {1: "x"}, b"raw", "\ud800"]
)
def test_the_value_domain(value: Any) -> None:
    with pytest.raises(ProofFormatError):
        proofdoc.proof_bytes({"rounds": [value]})


def test_the_manifest_stays_within_4096_bytes() -> None:
    pages = proofdoc.paginate(_public(), 1)  # one round per page
    doc = proofdoc.manifest(pages, "k" * 43, "2025-06-01T13:00:00.000Z")
    assert doc["pages"] == [proofdoc.page_hash(p) for p in pages]
    many = pages * 10  # 60 pages: 64 hex digits each do not fit
    with pytest.raises(ProofFormatError, match="4096"):
        proofdoc.manifest(many, "k" * 43, "2025-06-01T13:00:00.000Z")
    with pytest.raises(ProofFormatError, match="timestamp"):
        proofdoc.manifest(pages, "k", "2025-06-01T13:00:00Z")


def test_sign_puts_one_signature_on_every_page() -> None:
    pages = proofdoc.paginate(_public(), make_proof_vectors.SAMPLE_BUDGET)
    seen: list[bytes] = []

    def signer(message: bytes) -> bytes:
        seen.append(message)
        return bytes(range(64))

    signed = proofdoc.sign(pages, signer, "kid", "2025-06-01T13:00:00.000Z")
    assert signed[0]["signature"] == signed[1]["signature"]
    sig = signed[0]["signature"]
    assert seen == [proofdoc.proof_bytes(sig["manifest"])]
    assert proofdoc.b64url_decode(sig["value"]) == bytes(range(64))
    assert [proofdoc.unsigned_page(p) for p in signed] == pages
    with pytest.raises(ProofFormatError, match="64 bytes"):
        proofdoc.sign(pages, lambda m: b"\x30\x06", "kid", "2025-06-01T13:00:00.000Z")


# --- keys and signature encodings ----------------------------------------------------------------


def test_der_signatures_become_r_s() -> None:
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    for r, s in [*make_proof_vectors.DER_CASES, (1, 1), (2**256 - 1, 2**255)]:
        der = encode_dss_signature(r, s)
        assert proofdoc.raw_signature(der) == r.to_bytes(32, "big") + s.to_bytes(32, "big")
    for bad in (b"", b"\x30\x00", b"\x31\x06\x02\x01\x01\x02\x01\x01",
                encode_dss_signature(1, 1) + b"\x00", encode_dss_signature(2**256, 1)):  # fmt: skip
        with pytest.raises(ProofFormatError):
            proofdoc.raw_signature(bad)


def test_a_kms_public_key_becomes_the_jwk_the_keys_route_serves() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    spki = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    jwk = proofdoc.jwk_from_spki(spki)
    numbers = key.public_numbers()
    assert proofdoc.b64url_decode(jwk["x"]) == numbers.x.to_bytes(32, "big")
    assert proofdoc.b64url_decode(jwk["y"]) == numbers.y.to_bytes(32, "big")
    assert jwk["kid"] == proofdoc.jwk_thumbprint(jwk) and len(jwk["kid"]) == 43
    assert (jwk["kty"], jwk["crv"], jwk["alg"], jwk["use"]) == ("EC", "P-256", "ES256", "sig")
    with pytest.raises(ProofFormatError):
        proofdoc.jwk_from_spki(spki[:-1])


def test_rfc_7638_thumbprint_of_rfc_7517s_example_key() -> None:
    """RFC 7517 appendix A.1's P-256 key; its RFC 7638 thumbprint as an independent JOSE library
    (joserfc 1.x, ``ECKey.import_key(jwk).thumbprint()``) computes it."""
    jwk = {
        "kty": "EC",
        "crv": "P-256",
        "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
        "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM",
        "use": "enc",
        "kid": "1",
    }
    assert proofdoc.jwk_thumbprint(jwk) == "cn-I_WNMClehiVp51i_0VpOENW1upEerA8sEam5hn-s"


@pytest.mark.parametrize("text", ["YQ==", "YQ=", "a+b/", " YQ", "YR", "Y"])
def test_base64url_is_strict(text: str) -> None:
    with pytest.raises(ValueError):
        proofdoc.b64url_decode(text)


def test_base64url_round_trip() -> None:
    for n in range(0, 70):
        raw = bytes(range(n))
        assert proofdoc.b64url_decode(proofdoc.b64url(raw)) == raw


def test_player_banker_refs_in_a_public_round() -> None:
    config = TableConfig(STAR_CITY, TIERS["star-city-fun"], Banking.PLAYER_BANKER)
    private = copy.deepcopy(PRIVATE)
    private["table_config"] = config.to_dict()
    shoe = derive_shoe(bytes.fromhex(private["server_seed"]), private["client_seed"], 2,
                       config.profile.shoe_rules)  # fmt: skip
    pb = {"bettor_id": "pb-seat", "balance": 900_000, "level": 9}
    from baccarat.settlement import settle

    for r, derived in zip(private["rounds"], shoe.rounds, strict=False):
        r["player_banker"] = pb
        if r.get("settlement"):
            bets = proofdoc.parse_bets(r["bets"], None)[0]
            s = settle(config, derived, bets, PlayerBanker("pb-seat", 900_000))
            r["settlement"] = {**r["settlement"], **s.as_dict(), "nets": s.nets()}
    public = proofdoc.public_proof(private, TEST_REF_KEY)
    ref = proofdoc.bettor_ref(TEST_REF_KEY, private["table_id"], "pb-seat")
    assert all(r["player_banker"] == {"bettor_ref": ref} for r in public["rounds"])
    assert public["rounds"][0]["settlement"]["player_banker"]["bettor_ref"] == ref
    assert ref in public["rounds"][2]["void"]["replaced"]["nets"]
    assert "pb-seat" not in json.dumps(public) and "900000" not in json.dumps(public)
