#!/usr/bin/env python3
"""(Re)generate the bacc-pf-v1 known-answer vectors in ``tests/vectors/``.

Usage (from the repository root)::

    .venv/bin/python tests/make_vectors.py           # write tests/vectors/*.json
    .venv/bin/python tests/make_vectors.py --check   # exit 1 if the stored files differ
    .venv/bin/python tests/make_vectors.py --search-discard [--start N] [--count N]
                                                     # look for a shoe whose shuffle discards

How the vectors are made
------------------------
This file holds a second, deliberately plain implementation of bacc-pf-v1 (``Ref*`` and ``ref_*``
below), written from ``fairness-v1.md`` alone and sharing no code with ``shared/baccarat``. The
vectors are computed with it; before anything is written, every vector is also derived by the
engine (``baccarat.fairness``) and the two must agree value by value, or nothing is written. So a
stored vector is the agreement of two implementations, frozen. The tests then check the engine
against the stored files (a regression detector); the JavaScript verifier is checked against the
same files.

Files (all JSON, UTF-8; hex is lowercase; cards are codes like ``AS`` and, for shoes, also the ids
``0 … 52·D − 1`` so that a deck-level permutation is pinned, not only codes):

* ``shoes.json``        whole shoes: inputs (``secret`` = s_i, ``shoe_number``, ``client_seed`` and
                        its UTF-8 bytes, ``rules`` and their 6 bytes), every intermediate
                        (``client_hash``, ``key`` = K, ``block_0``), the shuffled ``card_ids`` and
                        ``cards``, ``cut_index``, burn, every round, and the stream words used and
                        discarded (with where each discard happened).
* ``client_seeds.json`` client hashes of awkward seeds (empty, non-ASCII, NFC vs NFD, 256 bytes)
                        and seeds that must be refused (257 UTF-8 bytes).
* ``uniform.json``      ``uniform(m)`` on given words, at and around ``limit`` for many ``m``;
                        values of ``m`` that must be refused.
* ``chain.json``        a whole seed chain and ``verify_link`` cases (true and false).
* ``rules.json``        rule sets that must be accepted and refused (with the reason).

The discarding shoe was found with ``--search-discard``: discards are rare (a word is discarded
with probability ``(2^32 mod m) / 2^32`` and ``m ≤ 416``, about 1e-5 per 8-deck shoe), so the
search only derives each candidate's stream words and tests each word against the limit of the
draw it would feed; the first hit is recorded in ``DISCARD_SEARCH_HIT`` below.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import struct
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VECTOR_DIR = Path(__file__).resolve().parent / "vectors"

# --- reference implementation of bacc-pf-v1 (independent of shared/baccarat) ------------------

TAG = b"bacc-pf-v1/"
TWO32 = 2**32
SUIT_LETTERS = "SHDC"
RANK_LETTERS = "A23456789TJQK"


def ref_code(c: int) -> str:
    return RANK_LETTERS[c % 13] + SUIT_LETTERS[(c % 52) // 13]


def ref_value(c: int) -> int:
    r = c % 13
    return r + 1 if r < 9 else 0


def ref_h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def ref_hmac(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def ref_chain_step(s: bytes) -> bytes:
    return ref_h(TAG + b"chain" + s)


def ref_client_hash(seed: str) -> bytes:
    raw = seed.encode("utf-8")
    if len(raw) > 256:
        raise ValueError("client seed over 256 UTF-8 bytes")
    return ref_h(TAG + b"client" + raw)


@dataclass(frozen=True)
class RefRules:
    decks: int
    burn: int
    cut_min: int
    cut_max: int
    round_limit: int

    def encode(self) -> bytes:
        return struct.pack(
            ">BBBBH", self.decks, self.burn, self.cut_min, self.cut_max, self.round_limit
        )

    def safe(self) -> bool:
        """The spec's safety rule plus the product's range checks (4–8 decks, burn 0/1)."""
        if not (4 <= self.decks <= 8 and self.burn in (0, 1)):
            return False
        if not (0 <= self.cut_min <= 255 and 0 <= self.cut_max <= 255):
            return False
        if not 0 <= self.round_limit <= 0xFFFF:
            return False
        if self.cut_max > 0:
            return 11 <= self.cut_min <= self.cut_max < 52 * self.decks
        return (
            self.cut_min == 0
            and self.round_limit > 0
            and (1 + 10 + 6 * self.round_limit <= 52 * self.decks)
        )


def ref_key(secret: bytes, seed: str, i: int, rules: RefRules) -> bytes:
    msg = TAG + b"shoe" + ref_client_hash(seed) + struct.pack(">I", i) + rules.encode()
    return ref_hmac(secret, msg)


def ref_block(key: bytes, j: int) -> bytes:
    return ref_hmac(key, TAG + b"stream" + struct.pack(">I", j))


class RefStream:
    """Consecutive big-endian u32 words of the blocks; records every discard."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.buf: list[int] = []
        self.block = 0
        self.used = 0
        self.discards: list[dict[str, int]] = []

    def word(self) -> int:
        if not self.buf:
            self.buf = list(struct.unpack(">8I", ref_block(self.key, self.block)))
            self.block += 1
        self.used += 1
        return self.buf.pop(0)

    def uniform(self, m: int) -> int:
        limit = TWO32 - TWO32 % m
        while True:
            index = self.used
            x = self.word()
            if x < limit:
                return x % m
            self.discards.append({"word_index": index, "word": x, "m": m})


def ref_uniform_on(words: list[int], m: int) -> tuple[int, int]:
    """uniform(m) on an explicit word list: (value, words consumed)."""
    if not 1 <= m <= TWO32:
        raise ValueError("m out of range")
    limit = TWO32 - TWO32 % m
    for n, x in enumerate(words, 1):
        if x < limit:
            return x % m, n
    raise ValueError("ran out of words")


def ref_rounds(cards: list[int], start: int, rules: RefRules, cut: int | None) -> list[dict]:
    rounds: list[dict] = []
    p = start
    last_is_next = False
    while True:
        player = [cards[p], cards[p + 2]]
        banker = [cards[p + 1], cards[p + 3]]
        q = p + 4
        pt = sum(map(ref_value, player)) % 10
        bt = sum(map(ref_value, banker)) % 10
        if pt < 8 and bt < 8:
            p3 = None
            if pt <= 5:
                player.append(cards[q])
                p3 = ref_value(cards[q])
                q += 1
            if p3 is None:
                draw = bt <= 5
            else:
                draw = {
                    0: True,
                    1: True,
                    2: True,
                    3: p3 != 8,
                    4: 2 <= p3 <= 7,
                    5: 4 <= p3 <= 7,
                    6: p3 in (6, 7),
                    7: False,
                }[bt]
            if draw:
                banker.append(cards[q])
                q += 1
        pt = sum(map(ref_value, player)) % 10
        bt = sum(map(ref_value, banker)) % 10
        rounds.append(
            {
                "start": p,
                "player": [ref_code(c) for c in player],
                "banker": [ref_code(c) for c in banker],
                "player_total": pt,
                "banker_total": bt,
                "result": "player" if pt > bt else "banker" if bt > pt else "tie",
            }
        )
        if rules.round_limit and len(rounds) == rules.round_limit:
            break
        if last_is_next:
            break
        if cut is not None and q > cut:
            if p >= cut:
                break
            last_is_next = True
        p = q
    return rounds


def ref_shoe(secret: bytes, seed: str, i: int, rules: RefRules) -> dict[str, Any]:
    if not rules.safe():
        raise ValueError("unsafe rules")
    n = 52 * rules.decks
    key = ref_key(secret, seed, i, rules)
    stream = RefStream(key)
    cards = list(range(n))
    for t in range(n - 1, 0, -1):
        j = stream.uniform(t + 1)
        cards[t], cards[j] = cards[j], cards[t]
    cut = None
    if rules.cut_max > 0:
        cut = n - (rules.cut_min + stream.uniform(rules.cut_max - rules.cut_min + 1))
    exposed = None
    burned = 0
    start = 0
    if rules.burn == 1:
        exposed = cards[0]
        burned = ref_value(exposed) or 10
        start = 1 + burned
    return {
        "secret": secret.hex(),
        "shoe_number": i,
        "client_seed": seed,
        "client_seed_utf8": seed.encode("utf-8").hex(),
        "rules": {
            "decks": rules.decks,
            "burn": rules.burn,
            "cut_min": rules.cut_min,
            "cut_max": rules.cut_max,
            "round_limit": rules.round_limit,
        },
        "rules_bytes": rules.encode().hex(),
        "client_hash": ref_client_hash(seed).hex(),
        "key": key.hex(),
        "block_0": ref_block(key, 0).hex(),
        "card_ids": cards,
        "cards": [ref_code(c) for c in cards],
        "cut_index": cut,
        "burn_exposed": None if exposed is None else ref_code(exposed),
        "burn": burned,
        "first_round_start": start,
        "words_used": stream.used,
        "words_discarded": len(stream.discards),
        "discards": stream.discards,
        "rounds": ref_rounds(cards, start, rules, cut),
    }


# --- the vectors -------------------------------------------------------------------------------

#: The test table's chain: s_N from a fixed phrase, N = 20. Shoe i below uses s_i.
CHAIN_PHRASE = b"bacc-pf-v1 test vectors: table chain secret - never use in production"
CHAIN_LENGTH = 20

STAR_CITY = RefRules(4, 0, 0, 0, 30)
BID_SQUEEZE = RefRules(8, 1, 14, 26, 0)

#: Found by ``--search-discard`` (client seed ``DISCARD_SEED_PREFIX + str(n)``, shoe 8 of the
#: test chain, bid-squeeze rules).
DISCARD_SEED_PREFIX = "discard-search-"
DISCARD_SHOE_NUMBER = 8
DISCARD_SEARCH_HIT = 42536

#: 256 UTF-8 bytes: 28 × "百家樂" (3 bytes each) + one 4-byte playing card.
SEED_256 = "百家樂" * 28 + "🂡"
NON_ASCII_SEED = "🂡🃁 百家樂 公平 ✓ café — 莊/閒"
CAFE_NFC = unicodedata.normalize("NFC", "café")
CAFE_NFD = unicodedata.normalize("NFD", "café")


#: The spec's example chain.
SPEC_PHRASE = b"bacc-pf-v1 example chain secret - never use in production"
SPEC_CHAIN_LENGTH = 10


def spec_secret(k: int) -> bytes:
    """s_k of the spec's example chain."""
    s = ref_h(SPEC_PHRASE)
    for _ in range(SPEC_CHAIN_LENGTH - k):
        s = ref_chain_step(s)
    return s


def chain_secrets() -> list[bytes]:
    """[s_0, s_1, …, s_N] of the test chain."""
    s = ref_h(CHAIN_PHRASE)
    out = [s]
    for _ in range(CHAIN_LENGTH):
        s = ref_chain_step(s)
        out.append(s)
    return out[::-1]


def shoe_cases() -> list[tuple[str, str, bytes, int, str, RefRules]]:
    """(name, description, secret, shoe number, client seed, rules)."""
    s = chain_secrets()
    return [
        (
            "spec-example",
            "the known-answer vector of fairness-v1.md (its chain: s_10 = H(phrase), N = 10)",
            spec_secret(1),
            1,
            "operator-7:table-12:shoe-seed",
            BID_SQUEEZE,
        ),
        (
            "star-city-4d",
            "profile star-city: 4 decks, no burn, no cut card, 30 rounds",
            s[1],
            1,
            "star-city:table-3:seed-1",
            STAR_CITY,
        ),
        (
            "bid-squeeze-8d",
            "profile bid-squeeze: 8 decks, burn, cut card 14–26 from the end",
            s[2],
            2,
            "bid-squeeze:vip-1",
            BID_SQUEEZE,
        ),
        (
            "custom-6d-burn-cut",
            "6 decks, burn, cut card 18–40 from the end, no round limit",
            s[3],
            3,
            "custom six-deck table",
            RefRules(6, 1, 18, 40, 0),
        ),
        (
            "custom-6d-fixed-cut-round-limit",
            "6 decks, no burn, cut card exactly 11 from the end (uniform(1)) and a 40-round"
            " limit, which ends the shoe first",
            s[4],
            4,
            "custom six-deck table, limit",
            RefRules(6, 0, 11, 11, 40),
        ),
        (
            "custom-4d-cut-before-limit",
            "4 decks, burn, cut card 60–80 from the end and a 30-round limit; the cut card ends"
            " the shoe first",
            s[5],
            5,
            "four decks, early cut",
            RefRules(4, 1, 60, 80, 30),
        ),
        (
            "empty-client-seed",
            "bid-squeeze with the empty client seed",
            s[6],
            6,
            "",
            BID_SQUEEZE,
        ),
        (
            "non-ascii-client-seed",
            "star-city with emoji, CJK, an accent and a dash in the client seed",
            s[7],
            7,
            NON_ASCII_SEED,
            STAR_CITY,
        ),
        (
            "client-seed-256-bytes",
            "6 decks, burn, cut 11–255, client seed of exactly 256 UTF-8 bytes (100 characters)",
            s[9],
            9,
            SEED_256,
            RefRules(6, 1, 11, 255, 0),
        ),
        (
            "untrimmed-client-seed",
            "client seed with leading/trailing whitespace, used as received (no trimming)",
            s[10],
            10,
            "  padded\tseed \n",
            STAR_CITY,
        ),
        (
            "5d-max-round-limit",
            "5 decks, no burn, no cut card, the largest safe round limit (11 + 6·41 ≤ 260)",
            s[11],
            11,
            "five",
            RefRules(5, 0, 0, 0, 41),
        ),
        (
            "7d-burn-fixed-cut",
            "7 decks, burn, cut card exactly 26 from the end",
            s[12],
            12,
            "seven",
            RefRules(7, 1, 26, 26, 0),
        ),
        (
            "8d-burn-no-cut-max-limit",
            "8 decks, burn, no cut card, the largest safe round limit (11 + 6·67 ≤ 416)",
            s[13],
            13,
            "eight, limit only",
            RefRules(8, 1, 0, 0, 67),
        ),
        (
            "max-shoe-number",
            "shoe number 2^32 − 1 (u32 encoding), secret given directly (not on the test chain)",
            ref_h(b"bacc-pf-v1 test vectors: lone secret"),
            TWO32 - 1,
            "last shoe",
            STAR_CITY,
        ),
        (
            "discarding-shoe",
            "bid-squeeze shoe whose shuffle discards at least one stream word",
            s[DISCARD_SHOE_NUMBER],
            DISCARD_SHOE_NUMBER,
            DISCARD_SEED_PREFIX + str(DISCARD_SEARCH_HIT),
            BID_SQUEEZE,
        ),
    ]


def build_shoes() -> dict[str, Any]:
    """Every shoe, with its table's anchor s_0 (i chain steps from s_i), or ``None`` when i is
    too large to walk (the lone-secret vector)."""
    test_chain = chain_secrets()
    out = []
    for name, about, secret, i, seed, rules in shoe_cases():
        v: dict[str, Any] = {"name": name, "about": about}
        v.update(ref_shoe(secret, seed, i, rules))
        anchor: bytes | None = None
        if i <= 1000:
            anchor = secret
            for _ in range(i):
                anchor = ref_chain_step(anchor)
        if i <= CHAIN_LENGTH and test_chain[i] == secret:
            assert anchor == test_chain[0], name
        if name == "spec-example":
            assert anchor == spec_secret(0), name
        v["anchor"] = None if anchor is None else anchor.hex()
        out.append(v)
    return {"spec": "bacc-pf-v1", "shoes": out}


def build_client_seeds() -> dict[str, Any]:
    seeds = [
        ("empty", ""),
        ("ascii", "operator-7:table-12:shoe-seed"),
        ("non-ascii", NON_ASCII_SEED),
        ("cafe-nfc", CAFE_NFC),
        ("cafe-nfd (same text, decomposed: must hash differently)", CAFE_NFD),
        ("whitespace kept", "  padded\tseed \n"),
        ("256 bytes: CJK + playing card", SEED_256),
        ("256 bytes: 64 emoji", "😀" * 64),
        ("256 bytes: ASCII", "x" * 256),
    ]
    accepted = [
        {
            "name": name,
            "client_seed": seed,
            "utf8": seed.encode("utf-8").hex(),
            "utf8_bytes": len(seed.encode("utf-8")),
            "client_hash": ref_client_hash(seed).hex(),
        }
        for name, seed in seeds
    ]
    refused = [
        {"name": name, "client_seed": seed, "utf8_bytes": len(seed.encode("utf-8"))}
        for name, seed in [
            ("257 ASCII bytes", "x" * 257),
            ("257 bytes in 129 characters", "é" * 128 + "x"),
            ("257 bytes: 64 emoji + 1", "😀" * 64 + "x"),
            ("256 bytes + 1 CJK", SEED_256 + "百"),
        ]
    ]
    return {"spec": "bacc-pf-v1", "accepted": accepted, "refused": refused}


def build_uniform() -> dict[str, Any]:
    cases = []
    for m in (1, 2, 3, 13, 52, 208, 416, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1, 2**32):
        limit = TWO32 - TWO32 % m
        word_lists: list[list[int]] = [[0], [1], [m - 1 if m < TWO32 else TWO32 - 1]]
        if m < TWO32:
            word_lists.append([m])
        word_lists.append([limit - 1])
        if limit < TWO32:
            # at the limit, the top word, and several discards in a row
            word_lists += [[limit, 5], [TWO32 - 1, 7], [limit, TWO32 - 1, limit - 1]]
        else:
            word_lists.append([TWO32 - 1])
        seen = set()
        for words in word_lists:
            if tuple(words) in seen:
                continue
            seen.add(tuple(words))
            if words[-1] >= limit:  # e.g. m = 2^31 + 1, where the word m is the limit
                words = [*words, 9]
            value, consumed = ref_uniform_on(words, m)
            cases.append(
                {"m": m, "limit": limit, "words": words, "result": value, "consumed": consumed}
            )
    return {"spec": "bacc-pf-v1", "cases": cases, "refused_m": [0, -1, TWO32 + 1]}


def build_chain() -> dict[str, Any]:
    s = chain_secrets()
    links = []
    for k in (1, 2, 7, CHAIN_LENGTH):
        links.append({"secret": s[k].hex(), "shoe_number": k, "anchor": s[0].hex(), "ok": True})
    links += [
        {"secret": s[5].hex(), "shoe_number": 4, "anchor": s[0].hex(), "ok": False},
        {"secret": s[5].hex(), "shoe_number": 6, "anchor": s[0].hex(), "ok": False},
        {"secret": s[5].hex(), "shoe_number": 5, "anchor": s[1].hex(), "ok": False},
        {"secret": s[0].hex(), "shoe_number": 0, "anchor": s[0].hex(), "ok": False},
        {"secret": s[5].hex(), "shoe_number": 1, "anchor": s[4].hex(), "ok": True},
        {"secret": s[5][:31].hex(), "shoe_number": 5, "anchor": s[0].hex(), "ok": False},
        {"secret": s[5].hex(), "shoe_number": 5, "anchor": s[0][:31].hex(), "ok": False},
    ]
    for link in links:  # the reference's view of each case
        sec, anc = bytes.fromhex(link["secret"]), bytes.fromhex(link["anchor"])
        ok = len(sec) == 32 and len(anc) == 32 and link["shoe_number"] >= 1
        for _ in range(link["shoe_number"] if ok else 0):
            sec = ref_chain_step(sec)
        assert link["ok"] == (ok and sec == anc), link
    return {
        "spec": "bacc-pf-v1",
        "phrase": CHAIN_PHRASE.decode(),
        "length": CHAIN_LENGTH,
        "top_secret": s[CHAIN_LENGTH].hex(),
        "anchor": s[0].hex(),
        "secrets": [x.hex() for x in s],
        "links": links,
    }


def build_rules() -> dict[str, Any]:
    safe = [
        ((4, 0, 0, 0, 30), "star-city"),
        ((8, 1, 14, 26, 0), "bid-squeeze"),
        ((4, 0, 0, 0, 32), "largest limit for 4 decks: 11 + 6·32 = 203 ≤ 208"),
        ((4, 1, 11, 11, 0), "smallest cut distance, fixed"),
        ((4, 1, 11, 207, 0), "cut window up to the shoe size − 1"),
        ((8, 1, 11, 255, 0), "widest u8 cut window"),
        ((6, 1, 20, 30, 1), "cut card and a one-round limit"),
        ((8, 0, 0, 0, 67), "largest limit for 8 decks: 11 + 6·67 = 413 ≤ 416"),
    ]
    unsafe = [
        ((4, 0, 0, 0, 33), "no cut card: 11 + 6·33 = 209 > 208"),
        ((8, 1, 0, 0, 68), "no cut card: 11 + 6·68 = 419 > 416"),
        ((8, 1, 0, 0, 0), "no cut card and no round limit"),
        ((4, 0, 0, 0, 0), "no cut card and no round limit"),
        ((8, 1, 10, 26, 0), "cut_min < 11 with a cut card"),
        ((8, 1, 0, 26, 0), "cut_min 0 with a cut card"),
        ((6, 1, 10, 10, 30), "cut_min < 11 even with a round limit"),
        ((8, 1, 27, 26, 0), "cut_min > cut_max"),
        ((8, 1, 5, 0, 30), "cut_min without a cut card (cut_max 0)"),
        ((4, 1, 11, 208, 0), "cut_max at the shoe size"),
        ((3, 0, 0, 0, 10), "3 decks: outside 4–8"),
        ((9, 1, 14, 26, 0), "9 decks: outside 4–8"),
        ((0, 0, 0, 0, 1), "0 decks"),
        ((8, 2, 14, 26, 0), "burn 2"),
        ((8, -1, 14, 26, 0), "burn −1"),
        ((8, 1, 14, 256, 0), "cut_max does not fit in u8"),
        ((8, 1, 14, 26, 65536), "round_limit does not fit in u16"),
        ((8, 1, 14, 26, -1), "negative round_limit"),
    ]
    for rules, why in safe:
        assert RefRules(*rules).safe(), why
    for rules, why in unsafe:
        assert not RefRules(*rules).safe(), why
    names = ("decks", "burn", "cut_min", "cut_max", "round_limit")
    return {
        "spec": "bacc-pf-v1",
        "safe": [{"rules": dict(zip(names, r, strict=True)), "why": w} for r, w in safe],
        "unsafe": [{"rules": dict(zip(names, r, strict=True)), "why": w} for r, w in unsafe],
    }


ABOUT = {
    "shoes.json": "whole shoes: inputs, client_hash, key K, block_0, every card (ids and codes),"
    " cut_index, burn, every round, stream words used and discarded",
    "client_seeds.json": "client_hash of awkward client seeds; seeds over 256 UTF-8 bytes refused",
    "uniform.json": "uniform(m) on given words (result, words consumed) at and around the limit;"
    " values of m refused",
    "chain.json": "a whole seed chain s_0 … s_N and verify_link cases",
    "rules.json": "rule sets that must be accepted and refused",
}


def build_all() -> dict[str, dict[str, Any]]:
    built = {
        "shoes.json": build_shoes(),
        "client_seeds.json": build_client_seeds(),
        "uniform.json": build_uniform(),
        "chain.json": build_chain(),
        "rules.json": build_rules(),
    }
    return {
        name: {
            "spec": data.pop("spec"),
            "generated_by": "tests/make_vectors.py",
            "about": ABOUT[name],
            **data,
        }
        for name, data in built.items()
    }


# --- cross-check with the engine ----------------------------------------------------------------


def engine_shoe(v: dict[str, Any]) -> dict[str, Any]:
    """The same fields as :func:`ref_shoe`, derived by ``baccarat.fairness``."""
    from baccarat.cards import code
    from baccarat.fairness import client_hash, derive_shoe, shoe_key, stream_block
    from baccarat.rules import ShoeRules

    rules = ShoeRules(**v["rules"])
    secret = bytes.fromhex(v["secret"])
    shoe = derive_shoe(secret, v["client_seed"], v["shoe_number"], rules)
    c_hash = client_hash(v["client_seed"])
    key = shoe_key(secret, c_hash, v["shoe_number"], rules)
    return {
        "rules_bytes": rules.to_bytes().hex(),
        "client_hash": c_hash.hex(),
        "key": key.hex(),
        "block_0": stream_block(key, 0).hex(),
        "card_ids": list(shoe.cards),
        "cards": [code(c) for c in shoe.cards],
        "cut_index": shoe.cut_index,
        "burn_exposed": None if shoe.burn_exposed is None else code(shoe.burn_exposed),
        "burn": shoe.burn_count,
        "first_round_start": shoe.first_start,
        "words_used": shoe.words_used,
        "words_discarded": shoe.words_discarded,
        "rounds": [
            {
                "start": r.start,
                "player": [code(c) for c in r.player],
                "banker": [code(c) for c in r.banker],
                "player_total": r.player_total,
                "banker_total": r.banker_total,
                "result": r.result.value,
            }
            for r in shoe.rounds
        ],
    }


def cross_check(vectors: dict[str, dict[str, Any]]) -> list[str]:
    """Disagreements between the reference (the vectors) and the engine; empty when none."""
    from baccarat import fairness
    from baccarat.rules import ShoeRules

    problems: list[str] = []
    for v in vectors["shoes.json"]["shoes"]:
        mine = engine_shoe(v)
        for field, value in mine.items():
            if v[field] != value:
                problems.append(f"shoe {v['name']}: {field} differs")
    for c in vectors["client_seeds.json"]["accepted"]:
        if fairness.client_hash(c["client_seed"]).hex() != c["client_hash"]:
            problems.append(f"client seed {c['name']}: client_hash differs")
    for c in vectors["uniform.json"]["cases"]:
        words = iter(c["words"])
        if fairness.uniform(words, c["m"]) != c["result"] or len(list(words)) != (
            len(c["words"]) - c["consumed"]
        ):
            problems.append(f"uniform m={c['m']} words={c['words']} differs")
    for link in vectors["chain.json"]["links"]:
        got = fairness.verify_link(
            bytes.fromhex(link["secret"]), link["shoe_number"], bytes.fromhex(link["anchor"])
        )
        if got != link["ok"]:
            problems.append(f"verify_link {link} differs")
    for group, want in (("safe", True), ("unsafe", False)):
        for r in vectors["rules.json"][group]:
            if (not ShoeRules(**r["rules"]).problems()) != want:
                problems.append(f"rules {r['rules']} ({r['why']}): engine says otherwise")
    return problems


# --- output --------------------------------------------------------------------------------------


def _scalar(x: Any) -> bool:
    return x is None or isinstance(x, str | int | float | bool)


def dumps(obj: Any, indent: int = 0) -> str:
    """JSON with one line per round/case and card lists on one line (diff-friendly, compact)."""
    pad, inner = "  " * indent, "  " * (indent + 1)

    def flat(x: Any) -> bool:
        if _scalar(x):
            return True
        if isinstance(x, list):
            return all(_scalar(y) for y in x)
        if isinstance(x, dict):
            return all(_scalar(y) or (isinstance(y, list) and flat(y)) for y in x.values())
        return False

    if isinstance(obj, dict) and not (indent >= 2 and flat(obj)):
        items = [f"{inner}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and not flat(obj):
        items = [inner + dumps(v, indent + 1) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)


def render(vectors: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: dumps(data) + "\n" for name, data in vectors.items()}


# --- discard search ----------------------------------------------------------------------------


def search_discard(start: int, count: int, decks: int = 8) -> int | None:
    """First n in [start, start+count) whose shoe (test chain shoe DISCARD_SHOE_NUMBER,
    bid-squeeze rules, client seed DISCARD_SEED_PREFIX+n) discards a word in its shuffle."""
    n_cards = 52 * decks
    limits = [TWO32 - TWO32 % (n_cards - w) for w in range(n_cards - 1)]
    lowest = min(limits)  # a word below every limit is never discarded
    secret = chain_secrets()[DISCARD_SHOE_NUMBER]
    unpack = struct.Struct(">8I").unpack
    n_blocks = (n_cards - 1 + 7) // 8
    for n in range(start, start + count):
        key = ref_key(secret, DISCARD_SEED_PREFIX + str(n), DISCARD_SHOE_NUMBER, BID_SQUEEZE)
        base = hmac.new(key, TAG + b"stream", hashlib.sha256)
        for b in range(n_blocks):
            h = base.copy()
            h.update(struct.pack(">I", b))
            words = unpack(h.digest())
            if max(words) < lowest:
                continue
            # Until the first discard, word w feeds uniform(n_cards − w).
            for k, x in enumerate(words):
                w = 8 * b + k
                if w < n_cards - 1 and x >= limits[w]:
                    return n
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the stored files only")
    ap.add_argument("--search-discard", action="store_true")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=2_000_000)
    args = ap.parse_args(argv)

    if args.search_discard:
        hit = search_discard(args.start, args.count)
        print(f"no hit in [{args.start}, {args.start + args.count})" if hit is None else hit)
        return 0 if hit is not None else 1

    vectors = build_all()
    discard = next(v for v in vectors["shoes.json"]["shoes"] if v["name"] == "discarding-shoe")
    if discard["words_discarded"] < 1:
        print("discarding-shoe does not discard: run --search-discard", file=sys.stderr)
        return 1
    problems = cross_check(vectors)
    if problems:
        print("reference and engine disagree:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    texts = render(vectors)
    if args.check:
        stale = [
            name
            for name, text in texts.items()
            if not (VECTOR_DIR / name).exists()
            or (VECTOR_DIR / name).read_text(encoding="utf-8") != text
        ]
        if stale:
            print("stale vector files: " + ", ".join(stale), file=sys.stderr)
            return 1
        print("vectors up to date")
        return 0
    VECTOR_DIR.mkdir(exist_ok=True)
    for name, text in texts.items():
        (VECTOR_DIR / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(texts)} files to {VECTOR_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
