"""``docs/bacc-pf-v1.md`` — the normative spec — shows its known-answer vectors and examples in
fenced blocks, each marked ``<!-- vector: NAME -->``. Every one is computed here again (from the
engine, ``tests/vectors/*.json`` and the signed sample) and must match the page character for
character: a wrong number in the page fails this test. ``python tests/unit/test_spec_page.py``
prints the blocks as they should be."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.spec_text import hand, kv, round_text

from baccarat import booktree, paytables, proofdoc
from baccarat.audit import canonical
from baccarat.cards import codes
from baccarat.fairness import (
    anchor_of,
    client_hash,
    derive_shoe,
    shoe_key,
    shoe_secret,
    stream_block,
    uniform,
)
from baccarat.rules import BID_SQUEEZE_RULES, ShoeRules

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "bacc-pf-v1.md"
VECTORS = ROOT / "tests" / "vectors"
BLOCK = re.compile(r"<!-- vector: ([\w:.-]+) -->\n```[\w-]*\n(.*?)\n```", re.DOTALL)


def _load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


SHOES = {s["name"]: s for s in _load("shoes.json")["shoes"]}
PROOF = _load("proof_v2.json")
PAY_TABLES = _load("pay_tables.json")
SAMPLE = _load("proof_v2_sample.json")["pages"]
BOOK = _load("book.json")
RECEIPTS = _load("receipts.json")
SPEC_PHRASE = b"bacc-pf-v1 example chain secret - never use in production"


_kv, _hand, _round = kv, hand, round_text


def _rules_bytes(rules: ShoeRules) -> str:
    raw = rules.to_bytes().hex()
    return " ".join((raw[0:2], raw[2:4], raw[4:6], raw[6:8], raw[8:12]))


def _end(shoe: Any) -> str:
    """Why the shoe ended after its last round (the end-of-shoe rule, worded)."""
    last = shoe.rounds[-1]
    limit, cut = shoe.rules.round_limit, shoe.cut_index
    if limit and last.number == limit:
        return f"round {last.number} is the round limit"
    before = shoe.rounds[-2]
    if last.start >= cut and before.end <= cut:
        return (
            f"round {before.number} ends before position {cut}; round {last.number} starts at "
            f"{last.start} ≥ cut_index {cut}: it is the last"
        )
    return (
        f"round {before.number} starts at {before.start} < cut_index {cut} and deals positions "
        f"up to {before.end - 1}: one more round, round {last.number}, is the last"
    )


def _shoe_rows(secret: bytes, number: int, seed: str, rules: ShoeRules) -> list[tuple[str, Any]]:
    shoe = derive_shoe(secret, seed, number, rules)
    c_hash = client_hash(seed)
    key = shoe_key(secret, c_hash, number, rules)
    burn = (
        "none (round 1 starts at 0)"
        if shoe.burn_exposed is None
        else f"{codes((shoe.burn_exposed,))[0]} exposed, {shoe.burn_count} burned, "
        f"round 1 starts at {shoe.first_start}"
    )
    return [
        ("client_seed", json.dumps(seed, ensure_ascii=False)),
        ("rules", _rules_bytes(rules)),
        ("client_hash", c_hash.hex()),
        ("K", key.hex()),
        ("block_0", stream_block(key, 0).hex()),
        ("first 12 cards", " ".join(codes(shoe.cards[:12]))),
        ("words discarded", shoe.words_discarded),
        ("cut_index", shoe.cut_index if shoe.cut_index is not None else "none"),
        ("burn", burn),
        ("rounds", len(shoe.rounds)),
        ("round 1", _round(shoe.rounds[0])),
        (f"round {shoe.rounds[-1].number}", _round(shoe.rounds[-1])),
        ("end", _end(shoe)),
    ]


def spec_kat() -> str:
    s10 = hashlib.sha256(SPEC_PHRASE).digest()
    s1 = shoe_secret(s10, 10, 1)
    shoe = derive_shoe(s1, "operator-7:table-12:shoe-seed", 1, BID_SQUEEZE_RULES)
    rows = [
        ("s_10", s10.hex()),
        ("N", 10),
        ("anchor s_0", anchor_of(s10, 10).hex()),
        ("s_1", s1.hex()),
        ("i", 1),
        *_shoe_rows(s1, 1, "operator-7:table-12:shoe-seed", BID_SQUEEZE_RULES)[:-3],
        ("round 1", _round(shoe.rounds[0])),
        ("round 2", _round(shoe.rounds[1])),
        ("round 78", _round(shoe.rounds[77])),
        ("end", _end(shoe)),
    ]
    return _kv(rows)


def guesses() -> str:
    s1 = shoe_secret(hashlib.sha256(SPEC_PHRASE).digest(), 10, 1)
    c_hash = client_hash("operator-7:table-12:shoe-seed")
    msg = b"bacc-pf-v1/shoe" + c_hash + (1).to_bytes(4, "big") + BID_SQUEEZE_RULES.to_bytes()
    import hmac

    wrong_msg = msg.replace(c_hash, c_hash.hex().encode())
    wrong = hmac.new(s1, wrong_msg, hashlib.sha256).hexdigest()
    shoe = derive_shoe(s1, "operator-7:table-12:shoe-seed", 1, BID_SQUEEZE_RULES)
    rows = [
        ("K message (57 bytes)", " ".join(textwrap.wrap(msg.hex(), 2))),
        ("K", hmac.new(s1, msg, hashlib.sha256).hexdigest()),
        ("K, client_hash as hex text (WRONG)", wrong),
        ("burn", f"{codes((shoe.cards[0],))[0]} at position 0 is exposed, not counted; "
                 f"{shoe.burn_count} card burned (position 1); round 1 starts at "
                 f"{shoe.first_start}"),
    ]  # fmt: skip
    return _kv(rows)


def shoe_vector(name: str) -> Callable[[], str]:
    def render() -> str:
        v = SHOES[name]
        rules = ShoeRules.from_dict(v["rules"])
        rows = [
            ("name", name),
            ("s_i", v["secret"]),
            ("i", v["shoe_number"]),
            *_shoe_rows(bytes.fromhex(v["secret"]), v["shoe_number"], v["client_seed"], rules),
        ]
        # the stored vector agrees with the engine
        assert dict(rows)["K"] == v["key"] and dict(rows)["cut_index"] in (v["cut_index"], "none")
        return _kv(rows)

    return render


def uniform_cases() -> str:
    lines = []
    for m, words in ((416, [4294967039]), (416, [4294967040, 5]), (3, [4294967295, 7])):
        it = iter(words)
        value = uniform(it, m)
        used = len(words) - len(list(it))
        limit = 2**32 - (2**32 % m)
        lines.append(f"m = {m}, limit = {limit}: words {words} → {value} ({used} read)")
    return "\n".join(lines)


def _escaped(text: str) -> str:
    return text.replace("\x7f", "\\u007f").replace("\u2028", "\\u2028")


def canonical_input() -> str:
    return _escaped(json.dumps(PROOF["canonical"]["input"], indent=2, ensure_ascii=False))


def canonical_output() -> str:
    c = PROOF["canonical"]
    raw = c["canonical"].encode("utf-8")
    assert raw == proofdoc.proof_bytes(c["input"])
    shown = c["canonical"].replace("\x7f", "⟨7f⟩").replace("\u2028", "⟨e2 80 a8⟩")
    return "\n".join(
        [
            f"canonical (⟨..⟩ = raw bytes) = {shown}",
            f"bytes  = {len(raw)}",
            f"sha256 = {hashlib.sha256(raw).hexdigest()}",
            "UTF-8, hex:",
            *textwrap.wrap(raw.hex(), 64),
        ]
    )


def bettor_refs() -> str:
    key = bytes.fromhex(PROOF["bettor_refs"]["ref_key"])
    lines = [f"ref_key = {key.hex()}"]
    for c in PROOF["bettor_refs"]["cases"]:
        ref = proofdoc.bettor_ref(key, c["table_id"], c["bettor_id"])
        assert ref == c["bettor_ref"]
        lines.append(f"{c['table_id']}, {c['bettor_id']} → {ref}")
    return "\n".join(lines)


def interventions_text() -> str:
    lines = []
    for c in PROOF["interventions_text"]:
        iv = c["interventions"]
        args = ", ".join(f"{k}={json.dumps(iv[k])}" for k in proofdoc.INTERVENTION_FIELDS)
        lines.append(f"{args}\n  → {proofdoc.interventions_text(iv)}")
    return "\n".join(lines)


def page_split() -> str:
    p = PROOF["page_split"]
    header = proofdoc.header_of(SAMPLE[0])
    rounds = [r for page in SAMPLE for r in page["rounds"]]
    groups = proofdoc.split(header, rounds, p["budget"])
    assert [[r["round_number"] for r in g] for g in groups] == p["pages"]
    rows = [
        ("budget (PAGE_BUDGET for this example)", p["budget"]),
        ('header bytes (with "rounds": [])', len(proofdoc.proof_bytes({**header, "rounds": []}))),
        ("round bytes", ", ".join(str(len(proofdoc.proof_bytes(r))) for r in rounds)),
    ]
    for k, g in enumerate(groups, start=1):
        size = len(proofdoc.proof_bytes({**header, "rounds": g}))
        numbers = [r["round_number"] for r in g]
        rows.append((f"page {k}", f"rounds {numbers[0]}–{numbers[-1]}, {size} bytes"))
    return _kv(rows)


def signature() -> str:
    s = PROOF["signature"]
    value = proofdoc.b64url_decode(s["value"])
    manifest = SAMPLE[0]["signature"]["manifest"]
    rows = [
        ("public key (JWK)", json.dumps(s["public_jwk"], separators=(",", ":"))),
        ("thumbprint input", proofdoc.canonical(
            {k: s["public_jwk"][k] for k in ("crv", "kty", "x", "y")}).decode()),
        ("key_id", proofdoc.jwk_thumbprint(s["public_jwk"])),
        *[(f"page {k} sha256", proofdoc.page_hash(p)) for k, p in enumerate(SAMPLE, start=1)],
        (f"signed bytes ({len(proofdoc.proof_bytes(manifest))})",
         proofdoc.proof_bytes(manifest).decode()),
        ("r", value[:32].hex()),
        ("s", value[32:].hex()),
        ("value", SAMPLE[0]["signature"]["value"]),
    ]  # fmt: skip
    return _kv(rows)


def _pretty(value: Any, depth: int = 0) -> str:
    """JSON, one member a line down to the objects inside a round; deeper values, and lists of
    scalars, on one line."""
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    scalars = isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)
    deep = depth >= (5 if isinstance(value, list) else 4)
    if not isinstance(value, dict | list) or not value or deep or scalars:
        return flat
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, list):
        items = [inner + _pretty(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [f"{inner}{json.dumps(k)}: {_pretty(v, depth + 1)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


def sample_page() -> str:
    page = {**SAMPLE[0], "rounds": [SAMPLE[0]["rounds"][0], SAMPLE[0]["rounds"][2]]}
    return _pretty(page)


def _flat(doc: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if not isinstance(doc, dict):
        return [(prefix, doc)]
    if not doc:
        return [(prefix, "none")]
    return [row for k, v in doc.items() for row in _flat(v, f"{prefix}.{k}" if prefix else k)]


def pay_tables() -> str:
    """Every published version, from the core; the vectors file must say the same."""
    blocks = []
    for version, table in paytables.PUBLISHED.items():
        doc = paytables.describe_version(table)
        pinned = PAY_TABLES["versions"][version]
        assert doc == pinned["table"]
        digest = hashlib.sha256(canonical(doc)).hexdigest()
        assert digest == pinned["sha256"]
        rows = [(k, v) for k, v in _flat(doc) if k != "version"]
        blocks.append(f"{version}  sha256 {digest}\n" + textwrap.indent(_kv(rows), "  "))
    return "\n\n".join(blocks)


def book_tree() -> str:
    """The book tree's vectors, recomputed by the core from ``book.json``'s inputs."""
    tree = BOOK["tree"]
    leaves = [bytes.fromhex(h) for h in tree["leaves"]]
    rows: list[tuple[str, Any]] = [
        ("leaves (hex)", ", ".join(h or '""' for h in tree["leaves"])),
        *((f"root of {n}", booktree.root(leaves[:n]).hex()) for n in range(len(leaves) + 1)),
    ]
    for i, path in enumerate(booktree.inclusion_paths(leaves[:7])):
        rows.append((f"path of {i} in 7", ", ".join(h.hex() for h in path) or "[]"))
    for name, vector in BOOK["leaves"].items():
        data = booktree.leaf_bytes(**vector["input"])
        assert data.decode("utf-8") == vector["canonical"]
        rows += [
            (f"{name} leaf", data.decode("utf-8")),
            (f"{name} bytes", len(data)),
            (f"{name} leaf hash", booktree.leaf_hash(data).hex()),
        ]
    book = booktree.in_book_order(BOOK["book"]["inputs"], lambda slip: slip["bettor_ref"])
    rows += [
        ("book of 3, refs", ", ".join(slip["bettor_ref"] for slip in book)),
        ("book of 3, root", booktree.root([booktree.leaf_bytes(**slip) for slip in book]).hex()),
    ]
    return _kv(rows)


def _house_take(r: dict[str, Any]) -> int:
    """A round's house take: its settlement's, or what its void replaced."""
    if r["settlement"] is not None:
        return int(r["settlement"]["house"]["take"])
    return int(r["void"]["replaced"]["house_take"])


def receipts() -> str:
    """The v1.1 vectors: each round's book, each receipt's verdict (money recomputed), the
    failing receipts' first failure — recomputed by ``baccarat.receiptcheck``."""
    from baccarat.proofpages import assemble
    from baccarat.receiptcheck import verify_books, verify_receipt

    proof = assemble(RECEIPTS["proof"])[1]
    rows: list[tuple[str, Any]] = [("spec", proof["spec"])]
    for r in proof["rounds"]:
        b = r["book"]
        rows += [
            (f"round {r['round_number']} book root", b["root"]),
            (f"round {r['round_number']} book", f"count {b['count']}, pages {b['pages']}, "
             f"net {b['totals']['net']}, house take {b['totals']['house']['take']}"),
            (f"round {r['round_number']} house take (seated + book)", _house_take(r)),
        ]  # fmt: skip
    for receipt in RECEIPTS["receipts"]:
        name = f"receipt {receipt['round_number']}/{receipt['leaf_index']}"
        rows.append((name, verify_receipt(proof, receipt).lines()[0]))
    for bad in RECEIPTS["failing"]:
        rows.append((f"must fail: {bad['why'].split(' (')[0]}",
                     verify_receipt(proof, bad["receipt"]).lines()[0]))  # fmt: skip
    rows.append(("book pages", verify_books(proof, RECEIPTS["book_pages"]).lines()[0]))
    return _kv(rows)


VERIFY_COMMAND = [
    "baccarat", "verify", "tests/vectors/proof_v2_sample.json",
    "--keys", "tests/vectors/TEST-ONLY-proof-signing-key.json",
]  # fmt: skip


def verify_output() -> str:
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from baccarat_verify.cli import main; "
         "sys.exit(main(sys.argv[1:]))", *VERIFY_COMMAND[1:]],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    return "$ " + " ".join(VERIFY_COMMAND) + "\n" + out.stdout.rstrip("\n")


RENDERERS: dict[str, Callable[[], str]] = {
    "spec-kat": spec_kat,
    "pay-tables": pay_tables,
    "guesses": guesses,
    "shoe:star-city-4d": shoe_vector("star-city-4d"),
    "shoe:custom-6d-burn-cut": shoe_vector("custom-6d-burn-cut"),
    "shoe:custom-4d-cut-before-limit": shoe_vector("custom-4d-cut-before-limit"),
    "shoe:discarding-shoe": shoe_vector("discarding-shoe"),
    "uniform": uniform_cases,
    "canonical-input": canonical_input,
    "canonical-output": canonical_output,
    "bettor-ref": bettor_refs,
    "interventions-text": interventions_text,
    "page-split": page_split,
    "signature": signature,
    "sample-page": sample_page,
    "book-tree": book_tree,
    "receipts": receipts,
    "verify-output": verify_output,
}


def page_blocks() -> dict[str, str]:
    found: dict[str, str] = {}
    for name, body in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        assert name not in found, f"two blocks named {name}"
        found[name] = body
    return found


def test_every_vector_block_is_known_and_present() -> None:
    assert set(page_blocks()) == set(RENDERERS)


@pytest.mark.parametrize("name", list(RENDERERS))
def test_the_page_shows_what_the_engine_computes(name: str) -> None:
    assert page_blocks()[name] == RENDERERS[name](), (
        f"docs/bacc-pf-v1.md, block {name!r} differs (python tests/unit/test_spec_page.py "
        f"prints it as it should be)"
    )


def test_the_canonical_input_block_is_the_vectors_input() -> None:
    assert json.loads(page_blocks()["canonical-input"]) == PROOF["canonical"]["input"]


def test_the_sample_page_block_is_valid_json_of_the_signed_page() -> None:
    shown = json.loads(page_blocks()["sample-page"])
    assert shown["signature"] == SAMPLE[0]["signature"]
    assert proofdoc.header_of(shown) == proofdoc.header_of(SAMPLE[1])


if __name__ == "__main__":
    for name, render in RENDERERS.items():
        print(f"<!-- vector: {name} -->\n```text\n{render()}\n```\n")
