"""The book tree (``baccarat.booktree``, bacc-book-v1): RFC 6962 / RFC 9162 Merkle Tree Hash and
inclusion proofs over the canonical leaves of a round's book, in the book's order.

The known answers are Certificate Transparency's published test data, copied from
https://github.com/transparency-dev/merkle — ``testonly/constants.go`` (``LeafInputs``,
``RootHashes``: the RFC 6962 reference inputs and the roots of their first 0…8 leaves) and
``proof/verify_test.go`` (``inclusionProofs``: audit paths of leaves 1 and 6 of 8, 3 of 3 and 2 of
5, 1-based there). They are written out here, not computed, so the core is checked against an
outside implementation. ``tests/vectors/book.json`` (made by ``tests/make_book_vectors.py``) is
what the core computes today; the browser verifier checks the same file
(``web/test/booktree.test.js``).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import make_book_vectors
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat import booktree
from baccarat.audit import canonical
from baccarat.bets import BetType
from baccarat.booktree import BookError

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
BOOK = json.loads((VECTORS / "book.json").read_text(encoding="utf-8"))

# transparency-dev/merkle testonly/constants.go: LeafInputs()
CT_LEAVES = [
    bytes.fromhex(h)
    for h in (
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    )
]
# transparency-dev/merkle testonly/constants.go: RootHashes() (index = tree size)
CT_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# transparency-dev/merkle proof/verify_test.go: inclusionProofs, as (0-based index, size, path)
CT_PATHS = [
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]


def _mth(leaves: list[bytes]) -> bytes:
    """RFC 6962 §2.1's definition, recursively, as an independent reference."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + _mth(leaves[:k]) + _mth(leaves[k:])).digest()


def _path_length(index: int, size: int) -> int:
    """How many hashes RFC 6962's PATH(index, D[size]) holds, from its recursive definition."""
    if size <= 1:
        return 0
    k = 1
    while k * 2 < size:
        k *= 2
    if index < k:
        return 1 + _path_length(index, k)
    return 1 + _path_length(index - k, size - k)


# -------------------------------------------------------------------------------------------------
# Certificate Transparency's known answers


def test_roots_are_certificate_transparencys() -> None:
    for n, expected in enumerate(CT_ROOTS):
        assert booktree.root(CT_LEAVES[:n]).hex() == expected, n


def test_paths_are_certificate_transparencys_and_verify() -> None:
    for index, size, expected in CT_PATHS:
        leaves = CT_LEAVES[:size]
        path = booktree.inclusion_path(leaves, index)
        assert [h.hex() for h in path] == expected, (index, size)
        leaf = booktree.leaf_hash(leaves[index])
        root = bytes.fromhex(CT_ROOTS[size])
        assert booktree.verify_inclusion(leaf, index, size, path, root)


def test_corrupted_known_proofs_fail() -> None:
    """verify_test.go's corruptInclusionProof probes, on every known path."""
    some = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")
    for index, size, hexes in CT_PATHS:
        path = [bytes.fromhex(h) for h in hexes]
        leaf = booktree.leaf_hash(CT_LEAVES[index])
        root = bytes.fromhex(CT_ROOTS[size])
        probes: list[tuple[bytes, int, int, list[bytes], bytes]] = [
            (leaf, index - 1, size, path, root),
            (leaf, index + 1, size, path, root),
            (leaf, index ^ 2, size, path, root),
            (leaf, index, size * 2, path, root),
            (leaf, index, size // 2, path, root),
            (b"WrongLeaf", index, size, path, root),
            (leaf, index, size, path, bytes.fromhex(CT_ROOTS[0])),
            (leaf, index, size, path, some),
            (leaf, index, size, [*path, b""], root),
            (leaf, index, size, [*path, root], root),
            (leaf, index, size, [b"", *path], root),
            (leaf, index, size, [root, *path], root),
            (leaf, index, size, path[:-1], root),
            (leaf, index, size, [path[0], some, *path[1:]], root),
        ]
        for i in range(len(path)):
            flipped = list(path)
            flipped[i] = bytes([flipped[i][0] ^ 8]) + flipped[i][1:]
            probes.append((leaf, index, size, flipped, root))
        for probe in probes:
            assert not booktree.verify_inclusion(*probe), (index, size, probe[1:3])


def test_a_one_leaf_tree_and_bad_sizes() -> None:
    leaf = booktree.leaf_hash(b"data")
    assert booktree.root([b"data"]) == leaf
    assert booktree.verify_inclusion(leaf, 0, 1, [], leaf)
    for index, size in ((0, 0), (1, 0), (2, 1), (-1, 1)):
        assert not booktree.verify_inclusion(leaf, index, size, [], leaf)
    with pytest.raises(BookError):
        booktree.inclusion_path([], 0)
    with pytest.raises(BookError):
        booktree.inclusion_path([b"a", b"b"], 2)


# -------------------------------------------------------------------------------------------------
# Random books


@given(
    st.lists(st.binary(max_size=40), max_size=300, unique=True),
    st.data(),
)
def test_every_path_of_a_random_book_verifies_and_nothing_else_does(
    leaves: list[bytes], data: st.DataObject
) -> None:
    top = booktree.root(leaves)
    assert top == _mth(leaves)
    if not leaves:
        return
    n = len(leaves)
    paths = booktree.inclusion_paths(leaves)
    for i in data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=8, unique=True)):
        leaf = booktree.leaf_hash(leaves[i])
        path = paths[i]
        assert path == booktree.inclusion_path(leaves, i)
        assert booktree.verify_inclusion(leaf, i, n, path, top)
        changed = bytearray(leaves[i] + b"\x00")
        changed[data.draw(st.integers(0, len(changed) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        assert not booktree.verify_inclusion(booktree.leaf_hash(bytes(changed)), i, n, path, top)
        if path:
            bad = [bytearray(h) for h in path]
            bad[data.draw(st.integers(0, len(path) - 1))][data.draw(st.integers(0, 31))] ^= 0x80
            assert not booktree.verify_inclusion(leaf, i, n, [bytes(h) for h in bad], top)
        if n > 1:
            other = (i + data.draw(st.integers(1, n - 1))) % n
            assert not booktree.verify_inclusion(leaf, other, n, path, top)
        for size in (n * 2, n // 2, data.draw(st.integers(1, 2 * n + 1))):
            if size != n and (size <= i or _path_length(i, size) != len(path)):
                assert not booktree.verify_inclusion(leaf, i, size, path, top), size


def test_ten_thousand_leaves(capsys: pytest.CaptureFixture[str]) -> None:
    leaves = [f"leaf {i:05d}".encode() for i in range(10_000)]
    started = time.perf_counter()
    top = booktree.root(leaves)
    root_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    paths = booktree.inclusion_paths(leaves)
    paths_ms = (time.perf_counter() - started) * 1000
    assert top == _mth(leaves)
    assert len(paths[0]) == 14  # ceil(log2(10,000))
    assert booktree.verify_inclusion(
        booktree.leaf_hash(leaves[9_999]), 9_999, 10_000, paths[-1], top
    )
    with capsys.disabled():
        print(
            f"\nbook tree, 10,000 leaves: root {root_ms:.1f} ms, every path {paths_ms:.1f} ms"
            f" (root {top.hex()})"
        )


# -------------------------------------------------------------------------------------------------
# Leaves and the book's order


def test_a_leaf_is_the_canonical_slip() -> None:
    data = booktree.leaf_bytes(
        "tbl_x_s1_r1",
        "br_b",
        "seated",
        [{"type": "tie", "amount": 5, "order": 1}, {"type": "banker", "amount": 7, "order": 0}],
        seat=2,
    )
    assert data == (
        b'{"bettor_ref":"br_b","lines":[{"amount":7,"order":0,"type":"banker"},'
        b'{"amount":5,"order":1,"type":"tie"}],"role":"seated","round_id":"tbl_x_s1_r1",'
        b'"seat":2,"spec":"bacc-book-v1"}'
    )
    spectator = booktree.leaf_bytes("r", "br_a", "spectator", [{"type": "player", "amount": 3}])
    assert b"seat" not in spectator and b"order" not in spectator
    assert booktree.leaf_hash(data) == hashlib.sha256(b"\x00" + data).digest()


@pytest.mark.parametrize(
    ("role", "lines", "seat"),
    [
        ("seated", [{"type": "banker", "amount": 1, "order": 0}], None),
        ("spectator", [{"type": "banker", "amount": 1}], 3),
        ("spectator", [{"type": "banker", "amount": 1, "order": 0}], None),
        ("seated", [{"type": "banker", "amount": 1}], 1),
        ("spectator", [], None),
        ("spectator", [{"type": "banker", "amount": 1}, {"type": "banker", "amount": 2}], None),
        ("spectator", [{"type": "banker", "amount": 0}], None),
        ("spectator", [{"type": "banker", "amount": True}], None),
        ("spectator", [{"type": "banker", "amount": 1, "bettor_id": "alice"}], None),
        ("seated", [{"type": "banker", "amount": 1, "order": 0}], 0),
        ("watcher", [{"type": "banker", "amount": 1}], None),
    ],
)
def test_leaves_the_rules_refuse(role: str, lines: list[dict[str, Any]], seat: int | None) -> None:
    with pytest.raises(BookError):
        booktree.leaf_bytes("r", "br_a", role, lines, seat=seat)


def test_the_book_order_is_strictly_ascending_refs() -> None:
    slips = [{"ref": "br_b"}, {"ref": "br_a"}, {"ref": "br_c"}]
    assert [s["ref"] for s in booktree.in_book_order(slips, lambda s: s["ref"])] == [
        "br_a",
        "br_b",
        "br_c",
    ]
    booktree.check_order(["br_a", "br_b", "br_c"])
    booktree.check_order([])
    with pytest.raises(BookError, match="second leaf"):
        booktree.in_book_order([*slips, {"ref": "br_a"}], lambda s: s["ref"])
    with pytest.raises(BookError, match="out of order"):
        booktree.check_order(["br_b", "br_a"])
    # byte order, not locale or case folding: upper case sorts first
    booktree.check_order(["br_Z", "br_a"])


# -------------------------------------------------------------------------------------------------
# The committed vectors


def test_the_committed_vectors_are_what_the_core_computes() -> None:
    assert make_book_vectors.build() == BOOK, (
        "stale: run .venv/bin/python tests/make_book_vectors.py"
    )


def test_the_vector_tree_is_certificate_transparencys() -> None:
    tree = BOOK["tree"]
    assert [bytes.fromhex(h) for h in tree["leaves"]] == CT_LEAVES
    assert tree["roots"] == {str(n): h for n, h in enumerate(CT_ROOTS)}
    root7 = bytes.fromhex(CT_ROOTS[7])
    for entry in tree["paths_of_7"]:
        path = [bytes.fromhex(h) for h in entry["path"]]
        assert booktree.verify_inclusion(
            bytes.fromhex(entry["leaf_hash"]), entry["index"], 7, path, root7
        )


def test_the_vector_leaves_and_book() -> None:
    leaves = BOOK["leaves"]
    for vector in leaves.values():
        data = vector["canonical"].encode("utf-8")
        assert data == canonical(json.loads(vector["canonical"]))
        assert len(data) == vector["bytes"]
        assert hashlib.sha256(b"\x00" + data).hexdigest() == vector["leaf_hash"]
    assert len(json.loads(leaves["spectator_13_lines"]["canonical"])["lines"]) == 13
    book = BOOK["book"]
    booktree.check_order(book["refs"])
    for vector in BOOK["must_fail"]:
        path = [bytes.fromhex(h) for h in vector["path"]]
        assert not booktree.verify_inclusion(
            bytes.fromhex(vector["leaf_hash"]),
            vector["index"],
            vector["tree_size"],
            path,
            bytes.fromhex(vector["root"]),
        ), vector["what"]


def test_the_path_alone_does_not_bind_every_tree_size() -> None:
    """Leaf 5's path has the same shape in trees of 7 and 8 leaves, so verifying with the wrong
    one of these two sizes still reaches the root: the spec makes the verifier compare
    ``tree_size`` with the book's published count."""
    path = booktree.inclusion_path(CT_LEAVES[:7], 5)
    leaf = booktree.leaf_hash(CT_LEAVES[5])
    root7 = bytes.fromhex(CT_ROOTS[7])
    assert booktree.verify_inclusion(leaf, 5, 7, path, root7)
    assert booktree.verify_inclusion(leaf, 5, 8, path, root7)
    assert _path_length(5, 7) == _path_length(5, 8) == len(path)


@given(st.data())
def test_a_leaf_does_not_depend_on_the_order_its_lines_came_in(data: st.DataObject) -> None:
    types = data.draw(
        st.lists(st.sampled_from(list(BetType)), min_size=1, max_size=13, unique=True)
    )
    seated = data.draw(st.booleans())
    lines = [
        {"type": t.value, "amount": data.draw(st.integers(1, 2**53 - 1))}
        | ({"order": n} if seated else {})
        for n, t in enumerate(types)
    ]
    seat = data.draw(st.integers(1, 7)) if seated else None
    role = "seated" if seated else "spectator"
    first = booktree.leaf_bytes("tbl_x_s1_r1", "br_a", role, lines, seat=seat)
    shuffled = data.draw(st.permutations(lines))
    assert booktree.leaf_bytes("tbl_x_s1_r1", "br_a", role, shuffled, seat=seat) == first
    doc = json.loads(first)
    assert canonical(doc) == first
    assert [line["type"] for line in doc["lines"]] == sorted(t.value for t in types)
    assert ("seat" in doc) == seated
