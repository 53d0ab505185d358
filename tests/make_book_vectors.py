"""Make the book tree's known-answer vectors: ``tests/vectors/book.json`` (``docs/bacc-pf-v1.md``,
"The book tree (``bacc-book-v1``)", names them; ``web/test/booktree.test.js`` checks the same
file with the browser verifier's own code).

    .venv/bin/python tests/make_book_vectors.py

What is computed and what is fixed by hand:

* ``tree``: RFC 6962's reference test inputs (the eight leaves of Certificate Transparency's
  Merkle tree tests, https://github.com/transparency-dev/merkle/blob/main/testonly/constants.go),
  their roots for 0…8 leaves and the inclusion path of every leaf of the 7-leaf tree, computed by
  ``baccarat.booktree``. ``tests/unit/test_booktree.py`` checks the roots and paths that source
  publishes against the core, so these are tied to an outside answer, not only to our code.
* ``leaves``: a seated bettor (seat, line orders) and a spectator with one line of each of the 13
  bet types, inputs by hand (refs from the spec's "Bettor refs" vector); their canonical bytes
  and leaf hashes from the core.
* ``book``: those two leaves and a third in book order, its root and paths.
* ``must_fail``: inclusion proofs of the 7-leaf tree made wrong (a changed byte, a wrong index,
  a path of a different tree size, a doubled or halved size): every verifier must refuse them.
  (Not every wrong size fails by the path alone: leaf 5's path has the same shape in trees of 7
  and 8 leaves. A verifier compares ``tree_size`` with the book's published count.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from baccarat import booktree  # noqa: E402
from baccarat.bets import BetType  # noqa: E402

OUT = HERE / "vectors" / "book.json"

#: RFC 6962 reference inputs (hex), as Certificate Transparency's tests publish them.
RFC6962_LEAVES = (
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
)
ROUND_ID = "tbl_vector_s1_r7"
SEATED = {
    "round_id": ROUND_ID,
    "bettor_ref": "br_5vlw5ybyvrxgdzesreuutrxh",
    "role": "seated",
    "seat": 3,
    "lines": [
        {"type": "player", "amount": 50_000, "order": 1},
        {"type": "banker", "amount": 120_000, "order": 0},
        {"type": "tie", "amount": 5_000, "order": 2},
    ],
}
SPECTATOR = {
    "round_id": ROUND_ID,
    "bettor_ref": "br_pgtpdh2gjc5xsv4hf2swij6a",
    "role": "spectator",
    "lines": [
        {"type": t.value, "amount": 1_000 * (i + 1)} for i, t in enumerate(reversed(BetType))
    ],
}
THIRD = {
    "round_id": ROUND_ID,
    "bettor_ref": "br_etj3qstjmpqpr7qrquhcyyad",
    "role": "spectator",
    "lines": [{"type": "banker", "amount": 9_007_199_254_740_991}],
}


def _hex(hashes: list[bytes]) -> list[str]:
    return [h.hex() for h in hashes]


def _leaf(inputs: dict[str, Any]) -> dict[str, Any]:
    data = booktree.leaf_bytes(**inputs)
    return {
        "input": inputs,
        "canonical": data.decode("utf-8"),
        "bytes": len(data),
        "leaf_hash": booktree.leaf_hash(data).hex(),
    }


def _tree() -> dict[str, Any]:
    leaves = [bytes.fromhex(h) for h in RFC6962_LEAVES]
    seven = leaves[:7]
    return {
        "leaves": list(RFC6962_LEAVES),
        "roots": {str(n): booktree.root(leaves[:n]).hex() for n in range(len(leaves) + 1)},
        "paths_of_7": [
            {
                "index": i,
                "leaf_hash": booktree.leaf_hash(seven[i]).hex(),
                "path": _hex(booktree.inclusion_path(seven, i)),
            }
            for i in range(len(seven))
        ],
    }


def _book() -> dict[str, Any]:
    slips = booktree.in_book_order([SEATED, SPECTATOR, THIRD], lambda s: s["bettor_ref"])
    leaves = [booktree.leaf_bytes(**s) for s in slips]
    return {
        "refs": [s["bettor_ref"] for s in slips],
        "inputs": slips,
        "leaves": [leaf.decode("utf-8") for leaf in leaves],
        "root": booktree.root(leaves).hex(),
        "paths": [_hex(p) for p in booktree.inclusion_paths(leaves)],
    }


def _must_fail(tree: dict[str, Any]) -> list[dict[str, Any]]:
    good = tree["paths_of_7"][5]
    root = tree["roots"]["7"]
    base = {"leaf_hash": good["leaf_hash"], "index": 5, "tree_size": 7, "path": good["path"]}
    changed = list(good["path"])
    changed[1] = f"{int(changed[1][:2], 16) ^ 0x08:02x}{changed[1][2:]}"
    six = booktree.inclusion_path([bytes.fromhex(h) for h in RFC6962_LEAVES[:6]], 5)
    return [
        {**base, "root": root, "what": "a changed byte in the path", "path": changed},
        {**base, "root": root, "what": "a wrong index", "index": 4},
        {**base, "root": root, "what": "a path of a different tree size", "path": _hex(six)},
        {**base, "root": root, "what": "a doubled tree size", "tree_size": 14},
        {**base, "root": root, "what": "a halved tree size", "tree_size": 3},
        {**base, "root": tree["roots"]["8"], "what": "another tree's root"},
    ]


def build() -> dict[str, Any]:
    tree = _tree()
    return {
        "spec": booktree.BOOK_SPEC,
        "tree": tree,
        "leaves": {"seated": _leaf(SEATED), "spectator_13_lines": _leaf(SPECTATOR)},
        "book": _book(),
        "must_fail": _must_fail(tree),
    }


def main() -> None:
    OUT.write_text(json.dumps(build(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
