"""Make the public proof's known-answer vectors: ``tests/vectors/proof_v2.json`` and the signed
two-page sample proof ``tests/vectors/proof_v2_sample.json`` (``docs/bacc-pf-v1.md``, "Known-answer
vectors", quotes them).

    .venv/bin/python tests/make_proof_vectors.py

What is computed and what is fixed by hand:

* ``canonical``: the input and its canonical bytes are written out by hand below (escapes, key
  order by code point, integers at ±(2^53 − 1)); the script only checks that the core agrees.
* ``bettor_refs``, ``interventions_text``, ``raw_signature``: inputs by hand, answers from
  ``baccarat.proofdoc`` (the JavaScript verifier and the tests check them independently).
* the sample: a private final proof made with the engine alone (the spec's example chain, shoe 2,
  star-city, three bettors, round 3 voided as a misdeal, closed early after 6 rounds), turned
  into pages with ``PAGE_BUDGET`` replaced by 8,000 bytes (so that six rounds make two pages)
  and signed with the TEST ONLY key (``TEST-ONLY-proof-signing-key.json``, generated once).
  ECDSA signatures are randomised: when the manifest is unchanged the committed signature is
  kept, so running the script again changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from support.signed_proofs import (  # noqa: E402
    SIGNED_AT,
    TEST_KEY_ID,
    TEST_PUBLIC_JWK,
    TEST_REF_KEY,
    sign_keeping,
)

from baccarat import proofdoc  # noqa: E402
from baccarat.bets import Bet, BetType, Role  # noqa: E402
from baccarat.cards import code  # noqa: E402
from baccarat.fairness import anchor_of, client_hash, derive_shoe, walk_chain  # noqa: E402
from baccarat.profiles import STAR_CITY, TableConfig, repo_tiers  # noqa: E402
from baccarat.settlement import settle  # noqa: E402

VECTORS = HERE / "vectors"
OUT = VECTORS / "proof_v2.json"
SAMPLE = VECTORS / "proof_v2_sample.json"
SAMPLE_BUDGET = 8_000

#: Written by hand: every escape JSON requires, key order by code point (an astral key sorts
#: after U+FFFD, which JavaScript's default sort gets wrong), integers at ±(2^53 − 1).
CANONICAL_INPUT = {
    "z": [3, -1, 0, 9007199254740991, -9007199254740991],
    "a_b": {"y": True, "x": False, "w": None, "v": []},
    "ab": {},
    "Z": 'quote " backslash \\ slash / tab \t newline \n return \r bs \b ff \f',
    "A": "nul \u0000 unit separator \u001f del \u007f line separator \u2028",
    "é": "é € 😀",
    "\ufffd": "U+FFFD",
    "😀": "U+1F600",
}
CANONICAL_TEXT = (
    '{"A":"nul \\u0000 unit separator \\u001f del \u007f line separator \u2028",'
    '"Z":"quote \\" backslash \\\\ slash / tab \\t newline \\n return \\r bs \\b ff \\f",'
    '"a_b":{"v":[],"w":null,"x":false,"y":true},"ab":{},'
    '"z":[3,-1,0,9007199254740991,-9007199254740991],'
    '"é":"é € 😀","\ufffd":"U+FFFD","😀":"U+1F600"}'
)

TABLE_ID = "tbl_vector"
REF_CASES = [
    (TABLE_ID, "alice"),
    (TABLE_ID, "bob"),
    (TABLE_ID, "carol"),
    (TABLE_ID, "seat-7@casino.example:42"),
    ("tbl_other", "alice"),
]
INTERVENTION_CASES = [
    {"voided_rounds": 0, "voided_player_net": 0, "voided_player_banker_net": 0,
     "closed_early": False, "rounds_dealt": 30, "rounds_possible": 30},
    {"voided_rounds": 2, "voided_player_net": 12300, "voided_player_banker_net": 0,
     "closed_early": True, "rounds_dealt": 1, "rounds_possible": 30},
    {"voided_rounds": 1, "voided_player_net": -1500, "voided_player_banker_net": 0,
     "closed_early": False, "rounds_dealt": 78, "rounds_possible": 78},
    {"voided_rounds": 1, "voided_player_net": 0, "voided_player_banker_net": 0,
     "closed_early": True, "rounds_dealt": 9, "rounds_possible": 77},
    {"voided_rounds": 3, "voided_player_net": 1234567, "voided_player_banker_net": 0,
     "closed_early": False, "rounds_dealt": 30, "rounds_possible": 30},
    {"voided_rounds": 2, "voided_player_net": 9900, "voided_player_banker_net": -10000,
     "closed_early": True, "rounds_dealt": 6, "rounds_possible": 30},
]  # fmt: skip


def _der_integer(n: int) -> bytes:
    raw = n.to_bytes(
        max(1, (n.bit_length() + 8) // 8), "big"
    )  # a leading 0 when the top bit is set
    return bytes((0x02, len(raw))) + raw


def _der(r: int, s: int) -> bytes:
    body = _der_integer(r) + _der_integer(s)
    return bytes((0x30, len(body))) + body


#: DER ECDSA-Sig-Values → r ‖ s: an r with its top bit set (33-byte DER integer) and a short s.
DER_CASES = [(0x80 << 248 | 0x1234, 0x42), ((1 << 255) + 7, (1 << 250) + 9)]

CHAIN_TOP = hashlib.sha256(b"bacc-pf-v1 example chain secret - never use in production").digest()
SHOE_NUMBER = 2
SEED = "proof-v2 sample"
T0 = 1_748_779_200  # 2025-06-01T12:00:00Z


def _at(seconds: int) -> str:
    import datetime as dt

    moment = dt.datetime.fromtimestamp(T0 + seconds, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _bets(n: int) -> list[dict[str, Any]]:
    """Bets in the API's form, with what the proof must drop (balances, levels)."""
    return [
        {"bettor_id": "alice", "role": "seated", "seat": 1, "type": "banker",
         "amount": 1000 + 100 * n, "balance": 50_000, "level": 3},
        {"bettor_id": "bob", "role": "seated", "seat": 2, "type": "player", "amount": 2000,
         "balance": 20_000},
        {"bettor_id": "carol", "role": "seated", "seat": 3, "type": "tie", "amount": 100,
         "balance": 9_000},
    ]  # fmt: skip


def legacy_config(config: TableConfig) -> dict[str, Any]:
    """The configuration as the sample was published: before configurations named their pay
    table's version. The sample stays as published and verifies as its profile's first version
    (``paytables.legacy_version``)."""
    return {k: v for k, v in config.to_dict().items() if k != "pay_table"}


def sample_private_proof() -> dict[str, Any]:
    """The private final proof of the sample shoe (the engine alone, no service)."""
    config = TableConfig(STAR_CITY, repo_tiers()["star-city-fun"])
    rules = config.profile.shoe_rules
    secret = walk_chain(CHAIN_TOP, 10 - SHOE_NUMBER)
    shoe = derive_shoe(secret, SEED, SHOE_NUMBER, rules)
    rounds = []
    for r, derived in zip(shoe.rounds_json()[:6], shoe.rounds, strict=False):
        n = r["round_number"]
        raw = _bets(n)
        row: dict[str, Any] = {**r, "dealt_at": _at(60 * n), "bets": raw, "player_banker": None}
        if n == 3:
            row["settlement"] = None
            row["void"] = {"reason": "misdeal", "note": "two cards came out at once",
                           "voided_at": _at(60 * n + 20)}  # fmt: skip
        else:
            bets = [Bet(b["bettor_id"], Role(b["role"]), BetType(b["type"]), b["amount"], order=i)
                    for i, b in enumerate(raw)]  # fmt: skip
            s = settle(config, derived, bets)
            row["settlement"] = {
                "round_id": f"{TABLE_ID}_s{SHOE_NUMBER}_r{n}",
                "round_number": n,
                **s.as_dict(),
                "nets": s.nets(),
                "eligibility": {"balances_after": {"alice": 1, "bob": 2}},  # private: dropped
                "settled_at": _at(60 * n + 30),
                "auto_settled": n == 6,
            }
        rounds.append(row)
    return {
        "spec": "bacc-pf-v1",
        "shoe_id": f"{TABLE_ID}_s{SHOE_NUMBER}",
        "table_id": TABLE_ID,
        "anchor": anchor_of(secret, SHOE_NUMBER).hex(),
        "shoe_number": SHOE_NUMBER,
        "client_seed": SEED,
        "client_hash": client_hash(SEED).hex(),
        "rules": rules.as_dict(),
        "server_seed": secret.hex(),
        "end_reason": "closed",
        "ended_at": _at(60 * 6 + 10),
        "cut_index": shoe.cut_index,
        "burn": shoe.burn_count,
        "burn_exposed": None if shoe.burn_exposed is None else code(shoe.burn_exposed),
        "first_round_start": shoe.first_start,
        "table_config": legacy_config(config),
        "rounds": rounds,
    }


def sample_pages(previous: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    public = proofdoc.public_proof(sample_private_proof(), TEST_REF_KEY)
    pages = proofdoc.paginate(public, SAMPLE_BUDGET)
    return sign_keeping(pages, previous)


def build() -> tuple[dict[str, Any], dict[str, Any]]:
    assert proofdoc.proof_bytes(CANONICAL_INPUT) == CANONICAL_TEXT.encode("utf-8")
    previous = json.loads(SAMPLE.read_text(encoding="utf-8"))["pages"] if SAMPLE.exists() else None
    pages = sample_pages(previous)
    header = proofdoc.header_of(pages[0])
    rounds = [r for p in pages for r in p["rounds"]]
    manifest = pages[0]["signature"]["manifest"]
    vectors = {
        "spec": proofdoc.SIGNATURE_SPEC,
        "about": "known-answer vectors of the public proof (docs/bacc-pf-v1.md); made by "
        "tests/make_proof_vectors.py",
        "canonical": {
            "input": CANONICAL_INPUT,
            "canonical": CANONICAL_TEXT,
            "bytes": len(CANONICAL_TEXT.encode("utf-8")),
            "sha256": hashlib.sha256(CANONICAL_TEXT.encode("utf-8")).hexdigest(),
        },
        "bettor_refs": {
            "ref_key": TEST_REF_KEY.hex(),
            "ref_key_is": 'SHA-256("bacc-ref-v1 example ref key - never use in production")',
            "cases": [
                {
                    "table_id": t,
                    "bettor_id": b,
                    "bettor_ref": proofdoc.bettor_ref(TEST_REF_KEY, t, b),
                }
                for t, b in REF_CASES
            ],
        },
        "interventions_text": [
            {"interventions": iv, "text": proofdoc.interventions_text(iv)}
            for iv in INTERVENTION_CASES
        ],
        "raw_signature": [
            {"der": _der(r, s).hex(), "r_s": (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex()}
            for r, s in DER_CASES
        ],
        "page_split": {
            "budget": SAMPLE_BUDGET,
            "header_bytes": len(proofdoc.proof_bytes({**header, "rounds": []})),
            "round_bytes": [len(proofdoc.proof_bytes(r)) for r in rounds],
            "pages": [[r["round_number"] for r in p["rounds"]] for p in pages],
            "page_bytes": [
                len(proofdoc.proof_bytes({**header, "rounds": p["rounds"]})) for p in pages
            ],
        },
        "signature": {
            "public_jwk": TEST_PUBLIC_JWK,
            "thumbprint_input": proofdoc.canonical(
                {k: TEST_PUBLIC_JWK[k] for k in ("crv", "kty", "x", "y")}
            ).decode(),
            "key_id": TEST_KEY_ID,
            "page_sha256": [proofdoc.page_hash(p) for p in pages],
            "manifest": manifest,
            "manifest_canonical": proofdoc.proof_bytes(manifest).decode(),
            "value": pages[0]["signature"]["value"],
        },
        "sample": {
            "file": "tests/vectors/proof_v2_sample.json",
            "ref_key": TEST_REF_KEY.hex(),
            "budget": SAMPLE_BUDGET,
            "signed_at": SIGNED_AT,
            "private_proof": sample_private_proof(),
        },
    }
    return vectors, {"pages": pages}


def main() -> None:
    vectors, sample = build()
    OUT.write_text(json.dumps(vectors, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    SAMPLE.write_text(json.dumps(sample, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(HERE.parent)} and {SAMPLE.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
