#!/usr/bin/env python3
"""(Re)generate the bacc-pf-v2 known-answer vectors: ``tests/vectors/v2.json`` and the blocks
of ``docs/bacc-pf-v2.md``.

Usage (from the repository root)::

    .venv/bin/python tests/make_v2_vectors.py           # write tests/vectors/v2.json
    .venv/bin/python tests/make_v2_vectors.py --check   # exit 1 if the stored file differs
    .venv/bin/python tests/make_v2_vectors.py --print   # print the spec page's vector blocks

The values come from the engine (``baccarat.fairness_v2``); ``tests/unit/test_spec_v2_page.py``
checks that the page shows exactly these blocks and that the stored file is current, and the
independent JavaScript (``web/bacc-pf-v2.js``, ``web/test/pfv2.test.js``) must reproduce the
stored file. The beacons are **examples**: quicknet's chain hash with made-up signatures
(``SHA-512("bacc-pf-v2 example beacon " ‖ u64(round))``, first 48 bytes) — the draw mixes a
beacon's bytes in and does not verify them, so any bytes make a vector; a verifier checks the
signature separately."""

from __future__ import annotations

import argparse
import hashlib
import hmac
import itertools
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "shared"))
sys.path.insert(0, str(ROOT / "tests"))

from support.spec_text import kv as _kv  # noqa: E402
from support.spec_text import round_text as _round  # noqa: E402

from baccarat import booktree  # noqa: E402
from baccarat.cards import codes  # noqa: E402
from baccarat.fairness import (  # noqa: E402
    client_hash,
    shoe_key,
    shoe_secret,
    stream_block,
    stream_words,
    uniform,
)
from baccarat.fairness_v2 import (  # noqa: E402
    EMPTY_ROOT,
    NO_BETS_ROOT,
    BeaconDraw,
    RoundInput,
    ShoeV2,
    locked_root,
    seated_root,
    shoe_from_key_v2,
)
from baccarat.rules import BID_SQUEEZE_RULES, STAR_CITY_RULES, ShoeRules  # noqa: E402

VECTOR_FILE = ROOT / "tests" / "vectors" / "v2.json"
SPEC_PHRASE = b"bacc-pf-v1 example chain secret - never use in production"
CLIENT_SEED = "operator-7:table-12:shoe-seed"
QUICKNET = bytes.fromhex("52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971")
#: The root of round 1's book in the bacc-pf-v1.1 receipts vectors (a real book root).
BOOK_ROOT = bytes.fromhex("3ccd7051d8f86a8fcc05af3e9a2e62742c57baa12074c623c39434e32f1e3458")
SHORT_RULES = ShoeRules(decks=4, burn=1, cut_min=0, cut_max=0, round_limit=6)


def example_beacon(number: int, chain: bytes = QUICKNET) -> BeaconDraw:
    sig = hashlib.sha512(b"bacc-pf-v2 example beacon " + number.to_bytes(8, "big")).digest()
    return BeaconDraw(chain_hash=chain, round=number, signature=sig[:48])


def _s1() -> bytes:
    return shoe_secret(hashlib.sha256(SPEC_PHRASE).digest(), 10, 1)


def _key(rules: ShoeRules) -> bytes:
    return shoe_key(_s1(), client_hash(CLIENT_SEED), 1, rules)


#: Round 2's seated bets (as the proof lists them, in accepted order); its spectators' book is
#: the receipts vector's round-1 book.
EXAMPLE_BETS = [
    {"bettor_ref": "br_5vlw5ybyvrxgdzesreuutrxh", "role": "seated", "seat": 1, "type": "banker",
     "amount": 1100},
    {"bettor_ref": "br_pgtpdh2gjc5xsv4hf2swij6a", "role": "seated", "seat": 2, "type": "player",
     "amount": 2000},
    {"bettor_ref": "br_5vlw5ybyvrxgdzesreuutrxh", "role": "seated", "seat": 1, "type": "tie",
     "amount": 100},
]  # fmt: skip
EXAMPLE_ROUND_ID = "tbl_vector_s1_r2"
SEATED_ROOT = seated_root(EXAMPLE_ROUND_ID, EXAMPLE_BETS)
EXAMPLE_INPUTS = [
    RoundInput(NO_BETS_ROOT, example_beacon(20_000_001)),
    RoundInput(locked_root(SEATED_ROOT, BOOK_ROOT), example_beacon(20_000_004)),
    RoundInput(NO_BETS_ROOT, example_beacon(20_000_007)),
]
#: Round 3 voided ``beacon_unavailable``: no beacon, no card.
SHORT_INPUTS = [
    RoundInput(NO_BETS_ROOT, example_beacon(21_000_000 + 2 * n)) if n != 3 else RoundInput(
        NO_BETS_ROOT, None
    )
    for n in range(1, 8)
]  # fmt: skip


#: Real quicknet rounds (they BLS-verify against quicknet's public key), from the same public
#: record as the beacon's known-answer vectors (tests/vectors/quicknet.json on the beacon side):
#: github.com/Bas3d-Labs/drand-quicknet-evm, contracts/test/fixtures/quicknet-kat.json.
QUICKNET_ROUNDS = {
    13335: "a38ab268d58c04ce2d22b8317e4b66ecda5fa8841c7215bf7733af8dbaed6c5e"
    "7d8d60b77817294a64b891f719bc1b40",
    16777216: "a38ae8fa3645078723fe002a4769499a9a267557f67ac7263113339718b6b0b7"
    "8a5dd59a03321240b5b6554dffeac194",
    31089008: "87b3b9c9f99cc1e7fc326e249538f33b84a1c4ef8bd85920a267af642b570bcd"
    "62bf70900a3862f742e574164b5f17f3",
}
QUICKNET_INPUTS = [
    RoundInput(NO_BETS_ROOT, BeaconDraw(QUICKNET, number, bytes.fromhex(sig)))
    for number, sig in QUICKNET_ROUNDS.items()
]
#: The lock of the round-record example: 4.5 s before quicknet round 13335 was due
#: (2023-08-24T02:16:09.000Z), so its beacon round — the first at or after the lock + 3 s — is
#: 13335 (``tests/unit/test_spec_v2_page.py`` checks it with ``baccarat.beacon``).
RECORD_LOCKED_AT = "2023-08-24T02:16:04.500Z"


def long_inputs(count: int) -> list[RoundInput]:
    return [RoundInput(NO_BETS_ROOT, example_beacon(22_000_000 + 5 * n)) for n in range(1, count)]


def round_message(number: int, item: RoundInput) -> bytes:
    """``K_r``'s message, spelled out field by field (the spec's layout)."""
    b = item.beacon
    assert b is not None
    return (
        b"bacc-pf-v2/round"
        + number.to_bytes(4, "big")
        + item.book_root
        + b.chain_hash
        + b.round.to_bytes(8, "big")
        + len(b.signature).to_bytes(2, "big")
        + b.signature
    )


def _whole(key: bytes, rules: ShoeRules, inputs: list[RoundInput]) -> ShoeV2:
    """The shoe dealt with as many of ``inputs`` as it takes to end by its rules."""
    shoe = shoe_from_key_v2(key, rules, inputs, until_end=True)
    assert shoe.ended_by_rules, "more inputs needed"
    return shoe


def _perm_hash(cards: tuple[int, ...]) -> str:
    return hashlib.sha256(b"".join(c.to_bytes(2, "big") for c in cards)).hexdigest()


def _spaced(raw: bytes) -> str:
    return " ".join(textwrap.wrap(raw.hex(), 2))


def _fields(msg: bytes) -> str:
    """``K_r``'s message cut into its fields: tag ‖ u32 ‖ 32 ‖ 32 ‖ u64 ‖ u16 ‖ signature."""
    cuts = (0, 16, 20, 52, 84, 92, 94, len(msg))
    return " ‖ ".join(msg[a:b].hex() for a, b in itertools.pairwise(cuts))


def _burn(shoe: ShoeV2) -> str:
    if shoe.burn_exposed is None:
        return "none"
    return (
        f"{codes((shoe.burn_exposed,))[0]} exposed, {len(shoe.burned)} burned "
        f"({' '.join(codes(shoe.burned))}), round 1 starts at {shoe.first_start}"
    )


def _shoe_json(shoe: ShoeV2, inputs: list[RoundInput]) -> dict[str, Any]:
    rounds = []
    for n, (item, d) in enumerate(zip(inputs, shoe.draws, strict=False), start=1):
        entry: dict[str, Any] = {"round_number": n, "book_root": item.book_root.hex()}
        if item.beacon is None or d is None:
            entry["beacon"] = None
        else:
            r = d.round
            entry |= {
                "beacon": {
                    "chain_hash": item.beacon.chain_hash.hex(),
                    "round": item.beacon.round,
                    "signature": item.beacon.signature.hex(),
                },
                "key": d.key.hex(),
                "start": r.start,
                "player": codes(r.player),
                "banker": codes(r.banker),
                "result": r.result.value,
            }
        rounds.append(entry)
    return {
        "key": shoe.key.hex(),
        "cut_index": shoe.cut_index,
        "burn_exposed": None if shoe.burn_exposed is None else codes((shoe.burn_exposed,))[0],
        "burned": codes(shoe.burned),
        "ended_by_rules": shoe.ended_by_rules,
        "rounds": rounds,
        "card_ids": list(shoe.cards),
        "cards_drawn": shoe.cards_drawn,
    }


def _case(name: str, rules: ShoeRules, inputs: list[RoundInput], whole: bool) -> dict[str, Any]:
    key = _key(rules)
    shoe = _whole(key, rules, inputs) if whole else shoe_from_key_v2(key, rules, inputs)
    used = inputs[: len(shoe.draws)]
    return {
        "name": name,
        "server_seed": _s1().hex(),
        "shoe_number": 1,
        "client_seed": CLIENT_SEED,
        "rules": rules.as_dict(),
        **_shoe_json(shoe, used),
    }


def vectors() -> dict[str, Any]:
    return {
        "spec": "bacc-pf-v2",
        "note": "example beacons: quicknet's chain hash, made-up signatures (not BLS-valid)",
        "shoes": [
            _case("example-rounds", BID_SQUEEZE_RULES, EXAMPLE_INPUTS, whole=False),
            _case("short-shoe", SHORT_RULES, SHORT_INPUTS, whole=True),
            _case("bid-squeeze-shoe", BID_SQUEEZE_RULES, long_inputs(120), whole=True),
            _case("quicknet-rounds", STAR_CITY_RULES, QUICKNET_INPUTS, whole=False),
        ],
        "guesses": guesses_data(),
        "book_roots": {
            "empty": EMPTY_ROOT.hex(),
            "no_bets": NO_BETS_ROOT.hex(),
            "seated_root": SEATED_ROOT.hex(),
            "spectators_root": BOOK_ROOT.hex(),
            "book_root": locked_root(SEATED_ROOT, BOOK_ROOT).hex(),
        },
    }


# --- the spec page's blocks ----------------------------------------------------------------


def block_book_root() -> str:
    seated = [
        booktree.leaf_bytes(EXAMPLE_ROUND_ID, "br_5vlw5ybyvrxgdzesreuutrxh", "seated", [
            {"type": "banker", "amount": 1100, "order": 0},
            {"type": "tie", "amount": 100, "order": 1}], 1),
        booktree.leaf_bytes(EXAMPLE_ROUND_ID, "br_pgtpdh2gjc5xsv4hf2swij6a", "seated", [
            {"type": "player", "amount": 2000, "order": 0}], 2),
    ]  # fmt: skip
    assert booktree.root(seated) == SEATED_ROOT
    rows: list[tuple[str, Any]] = [
        ("empty tree root", EMPTY_ROOT.hex()),
        ("nobody bet: book_root", f"{NO_BETS_ROOT.hex()} (NO_BETS_ROOT)"),
        ("round 2 seated leaf 1", seated[0].decode()),
        ("round 2 seated leaf 2", seated[1].decode()),
        ("round 2 seated_root", SEATED_ROOT.hex()),
        ("round 2 spectators_root", f"{BOOK_ROOT.hex()} (v1.1's book.root)"),
        ("round 2 book_root", locked_root(SEATED_ROOT, BOOK_ROOT).hex()),
    ]
    return _kv(rows)


def block_round_keys() -> str:
    key = _key(BID_SQUEEZE_RULES)
    shoe = shoe_from_key_v2(key, BID_SQUEEZE_RULES, EXAMPLE_INPUTS)
    first = EXAMPLE_INPUTS[0]
    assert first.beacon is not None
    rows: list[tuple[str, Any]] = [
        ("K (v1's, shoe 1)", key.hex()),
        ("cut_index", f"{shoe.cut_index} (K's first word {next(stream_words(key))})"),
        ("r = 1 book_root", f"{first.book_root.hex()} (nobody bet)"),
        ("r = 1 beacon", f"chain {first.beacon.chain_hash.hex()}, round {first.beacon.round}"),
        ("r = 1 signature", first.beacon.signature.hex()),
        (f"K_1 message ({len(round_message(1, first))} bytes)", _fields(round_message(1, first))),
    ]
    for n, (item, d) in enumerate(zip(EXAMPLE_INPUTS, shoe.draws, strict=True), start=1):
        assert d is not None and item.beacon is not None
        assert d.key == hmac.new(key, round_message(n, item), hashlib.sha256).digest()
        if n > 1:
            rows.append((f"r = {n} book_root", item.book_root.hex()))
            rows.append((f"r = {n} beacon round", item.beacon.round))
        rows.append((f"K_{n}", d.key.hex()))
        rows.append((f"K_{n} block_0", stream_block(d.key, 0).hex()))
        if d.burn_exposed is not None:
            rows.append(("burn (K_1's first draws)", _burn(shoe)))
        rows.append((f"round {n}", _round(d.round)))
    return _kv(rows)


def block_short_shoe() -> str:
    shoe = _whole(_key(SHORT_RULES), SHORT_RULES, SHORT_INPUTS)
    rows: list[tuple[str, Any]] = [
        ("rules", _spaced(SHORT_RULES.to_bytes())),
        ("K", shoe.key.hex()),
        ("cut_index", "none"),
        ("burn", _burn(shoe)),
    ]
    for n, d in enumerate(shoe.draws, start=1):
        item = SHORT_INPUTS[n - 1]
        if d is None:
            rows.append((f"round {n}", "voided beacon_unavailable: no beacon, no card drawn"))
            continue
        assert item.beacon is not None
        rows.append((f"round {n}", f"beacon round {item.beacon.round}, K_{n} {d.key.hex()}"))
        rows.append(("", _round(d.round)))
    rows += [
        (
            "end",
            f"{len(shoe.rounds)} rounds dealt = the round limit "
            f"(round numbers 1–{len(shoe.draws)})",
        ),
        ("cards drawn", shoe.cards_drawn),
        ("first 16 of the shoe", " ".join(codes(shoe.cards[:16]))),
        ("the shoe, sha256", _perm_hash(shoe.cards)),
    ]
    return _kv(rows)


def block_long_shoe() -> str:
    inputs = long_inputs(120)
    shoe = _whole(_key(BID_SQUEEZE_RULES), BID_SQUEEZE_RULES, inputs)
    last, before = shoe.rounds[-1], shoe.rounds[-2]
    assert shoe.cut_index is not None
    end = (
        f"round {before.number} starts at {before.start} < cut_index {shoe.cut_index} and deals "
        f"positions up to {before.end - 1}: one more round, round {last.number}, is the last"
        if before.end > shoe.cut_index
        else f"round {last.number} starts at {last.start} ≥ cut_index {shoe.cut_index}: the last"
    )
    rows: list[tuple[str, Any]] = [
        (
            "beacons",
            "round r uses beacon round 22000000 + 5·r; nobody bets (book_root = NO_BETS_ROOT)",
        ),
        ("K", shoe.key.hex()),
        ("cut_index", shoe.cut_index),
        ("burn", _burn(shoe)),
        ("rounds", len(shoe.rounds)),
        ("round 1", _round(shoe.rounds[0])),
        (f"round {last.number}", _round(last)),
        ("end", end),
        ("cards drawn", shoe.cards_drawn),
        ("the shoe, sha256", _perm_hash(shoe.cards)),
    ]
    return _kv(rows)


def guesses_data() -> dict[str, str]:
    """Round 1 of the example shoe done wrong in the ways implementers guess."""
    key = _key(BID_SQUEEZE_RULES)
    item = EXAMPLE_INPUTS[0]
    b = item.beacon
    assert b is not None
    msg = round_message(1, item)

    def k1(message: bytes) -> bytes:
        return hmac.new(key, message, hashlib.sha256).digest()

    head = msg[: 16 + 4 + 32 + 32]
    right = k1(msg)
    sig_hex = k1(
        head + b.round.to_bytes(8, "big") + (96).to_bytes(2, "big") + b.signature.hex().encode()
    )
    randomness = hashlib.sha256(b.signature).digest()
    as_random = k1(head + b.round.to_bytes(8, "big") + (32).to_bytes(2, "big") + randomness)
    as_u32 = k1(head + b.round.to_bytes(4, "big") + (48).to_bytes(2, "big") + b.signature)
    no_len = k1(head + b.round.to_bytes(8, "big") + b.signature)
    assert item.book_root == NO_BETS_ROOT
    empty = k1(msg.replace(NO_BETS_ROOT, EMPTY_ROOT, 1))
    one = stream_words(right)  # the right draw: burn and cards from the one stream of K_1
    round1 = _draw_text(one, one)
    d = shoe_from_key_v2(key, BID_SQUEEZE_RULES, EXAMPLE_INPUTS[:1]).draws[0]
    assert d is not None and d.burn_exposed is not None
    r = d.round
    first4 = (r.player[0], r.banker[0], r.player[1], r.banker[1])
    assert round1.endswith(" ".join(codes(first4))) and codes((d.burn_exposed,))[0] in round1
    v2_tag = _words(right, V2_TAG)
    after_cut = stream_words(key)
    uniform(after_cut, BID_SQUEEZE_RULES.cut_max - BID_SQUEEZE_RULES.cut_min + 1)
    return {
        "K_1": right.hex(),
        "signature as hex text": sig_hex.hex(),
        "randomness SHA-256(sig) instead of sig": as_random.hex(),
        "beacon round as u32": as_u32.hex(),
        "no u16 length before sig": no_len.hex(),
        "nobody bet as SHA-256(\"\")": empty.hex(),
        "round 1": round1,
        "K_1's stream tagged bacc-pf-v2/stream": _draw_text(v2_tag, _words(right, V2_TAG)),
        "remaining kept in swap order": _draw_text(stream_words(right), stream_words(right), False),
        "burn drawn with K after the cut card": _draw_text(after_cut, stream_words(right)),
    }  # fmt: skip


V2_TAG = b"bacc-pf-v2/stream"


def _words(key: bytes, tag: bytes) -> Any:
    """A stream as v1's but with another tag (a guess)."""
    j = 0
    while True:
        block = hmac.new(key, tag + j.to_bytes(4, "big"), hashlib.sha256).digest()
        yield from (int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4))
        j += 1


def _draw_text(burn_words: Any, round_words: Any, ascending: bool = True) -> str:
    """The burn (from ``burn_words``) and round 1's first four cards (from ``round_words``),
    drawn from the ascending remaining list, or from a swap-ordered one (Fisher–Yates from the
    front: the card at position p swaps with the one at p + uniform(n − p))."""
    from baccarat.cards import burn_count

    cards = list(range(416))
    out: list[int] = []

    def draw(words: Any) -> int:
        if ascending:
            c = cards.pop(uniform(words, len(cards)))
        else:
            p = len(out)
            j = p + uniform(words, len(cards) - p)
            cards[p], cards[j] = cards[j], cards[p]
            c = cards[p]
        out.append(c)
        return c

    exposed = draw(burn_words)
    for _ in range(burn_count(exposed)):
        draw(burn_words)
    first4 = [draw(round_words) for _ in range(4)]
    return f"exposed {codes((exposed,))[0]}; P B P B = {' '.join(codes(first4))}"


def block_guesses() -> str:
    g = guesses_data()
    return _kv([(k, v) for k, v in g.items()])


def block_quicknet() -> str:
    key = _key(STAR_CITY_RULES)
    shoe = shoe_from_key_v2(key, STAR_CITY_RULES, QUICKNET_INPUTS)
    rows: list[tuple[str, Any]] = [("K (star-city rules)", key.hex())]
    for n, (item, d) in enumerate(zip(QUICKNET_INPUTS, shoe.draws, strict=True), start=1):
        assert d is not None and item.beacon is not None
        rows.append((f"r = {n} quicknet round", item.beacon.round))
        rows.append((f"r = {n} signature", item.beacon.signature.hex()))
        rows.append((f"K_{n}", d.key.hex()))
        rows.append((f"round {n}", _round(d.round)))
    return _kv(rows)


def round_record() -> dict[str, Any]:
    """Round 1 of the quicknet block: its lock record (as the feed publishes it) and its beacon
    (the chain is the header's: quicknet's hash, ``test: false``)."""
    item = QUICKNET_INPUTS[0]
    assert item.beacon is not None
    return {
        "round_number": 1,
        "lock": {
            "locked_at": RECORD_LOCKED_AT,
            "book_root": item.book_root.hex(),
            "beacon_round": item.beacon.round,
        },
        "beacon": {"round": item.beacon.round, "signature": item.beacon.signature.hex()},
    }


def block_round_record() -> str:
    return json.dumps(round_record(), indent=2)


BLOCKS = {
    "v2-book-root": block_book_root,
    "v2-round-keys": block_round_keys,
    "v2-quicknet": block_quicknet,
    "v2-round-record": block_round_record,
    "v2-short-shoe": block_short_shoe,
    "v2-whole-shoe": block_long_shoe,
    "v2-guesses": block_guesses,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--print", action="store_true")
    args = parser.parse_args()
    if args.print:
        for name, make in BLOCKS.items():
            print(f"<!-- vector: {name} -->\n```text\n{make()}\n```\n")
        return 0
    text = json.dumps(vectors(), indent=1) + "\n"
    if args.check:
        return 0 if VECTOR_FILE.read_text(encoding="utf-8") == text else 1
    VECTOR_FILE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
