"""The book tree (``bacc-book-v1``): a commitment to a round's locked book of bets.

Every bettor of a round (seated and spectators) is one **leaf**: the canonical bytes
(:func:`baccarat.audit.canonical`, bacc-pf-v1's "Canonical serialisation") of its slip, with no
bettor id, balance or limit. Leaves are taken in the **book's order** (``bettor_ref`` strictly
ascending by UTF-8 bytes, one leaf per bettor) and hashed into a Merkle tree exactly as RFC 6962
§2.1 / RFC 9162 §2.1.1 define it, so that a bettor's receipt (its leaf and an **inclusion path**)
proves the slip was in the book whose root was published before the first card was shown, and
any RFC 6962 implementation can cross-check the root.

Hashes are raw 32-byte ``bytes``; the vectors and the documents write them in lower-case hex.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from .audit import canonical

BOOK_SPEC = "bacc-book-v1"
SEATED = "seated"
SPECTATOR = "spectator"
HASH_BYTES = 32

_LEAF_PREFIX = b"\x00"
_NODE_PREFIX = b"\x01"

T = TypeVar("T")


class BookError(ValueError):
    """A leaf, a book or an index that the book tree's rules refuse."""


# -------------------------------------------------------------------------------------------------
# Leaves


def _whole(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise BookError(f"{what} must be an integer >= {minimum}, not {value!r}")
    return value


def _line(line: Mapping[str, Any], seated: bool) -> dict[str, Any]:
    kind = line.get("type")
    if not isinstance(kind, str) or not kind:
        raise BookError(f"a line needs a bet type, not {kind!r}")
    out: dict[str, Any] = {"type": kind, "amount": _whole(line.get("amount"), "amount", 1)}
    extra = set(line) - {"type", "amount", "order"}
    if extra:
        raise BookError(f"a line holds only type, amount and order, not {sorted(extra)}")
    if seated:
        out["order"] = _whole(line.get("order"), "a seated bettor's line order", 0)
    elif line.get("order") is not None:
        raise BookError("only a seated bettor's lines carry an order")
    return out


def leaf_doc(
    round_id: str,
    bettor_ref: str,
    role: str,
    lines: Iterable[Mapping[str, Any]],
    seat: int | None = None,
) -> dict[str, Any]:
    """The leaf as a JSON value: ``seat`` and each line's ``order`` for a seated bettor only,
    lines sorted by ``type`` (one line per bet type, at least one)."""
    if role not in (SEATED, SPECTATOR):
        raise BookError(f"role must be {SEATED!r} or {SPECTATOR!r}, not {role!r}")
    if not round_id or not bettor_ref:
        raise BookError("a leaf needs a round_id and a bettor_ref")
    seated = role == SEATED
    if seated != (seat is not None):
        raise BookError("a seated bettor has a seat, a spectator has none")
    body = sorted((_line(line, seated) for line in lines), key=lambda line: line["type"])
    types = [line["type"] for line in body]
    if not body or len(set(types)) != len(types):
        raise BookError(f"a slip has one line per bet type, at least one: {types}")
    doc: dict[str, Any] = {
        "spec": BOOK_SPEC,
        "round_id": round_id,
        "bettor_ref": bettor_ref,
        "role": role,
        "lines": body,
    }
    if seat is not None:
        doc["seat"] = _whole(seat, "seat", 1)
    return doc


def leaf_bytes(
    round_id: str,
    bettor_ref: str,
    role: str,
    lines: Iterable[Mapping[str, Any]],
    seat: int | None = None,
) -> bytes:
    """The leaf's canonical bytes (what the tree hashes)."""
    return canonical(leaf_doc(round_id, bettor_ref, role, lines, seat))


def leaf_hash(data: bytes) -> bytes:
    """``SHA-256(0x00 ‖ leaf bytes)`` — RFC 6962's leaf hash."""
    return hashlib.sha256(_LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """``SHA-256(0x01 ‖ left ‖ right)`` — RFC 6962's interior node hash."""
    return hashlib.sha256(_NODE_PREFIX + left + right).digest()


# -------------------------------------------------------------------------------------------------
# The book's order


def _ref_key(ref: str) -> bytes:
    return ref.encode("utf-8")


def check_order(refs: Iterable[str]) -> None:
    """Refuse refs that are not strictly ascending (by UTF-8 bytes): one leaf per bettor."""
    previous: bytes | None = None
    for index, ref in enumerate(refs):
        key = _ref_key(ref)
        if previous is not None and key <= previous:
            same = "a second leaf for" if key == previous else "out of order:"
            raise BookError(f"book order: {same} {ref!r} at index {index}")
        previous = key


def in_book_order(items: Iterable[T], ref: Callable[[T], str]) -> list[T]:
    """``items`` sorted into the book's order by their ``ref``; a repeated ref is refused."""
    ordered = sorted(items, key=lambda item: _ref_key(ref(item)))
    check_order(ref(item) for item in ordered)
    return ordered


# -------------------------------------------------------------------------------------------------
# The tree


def _levels(leaves: Sequence[bytes]) -> list[list[bytes]]:
    """The tree level by level, leaf hashes first. An odd last node is carried up unhashed,
    which builds exactly RFC 6962's tree (split at the largest power of two below ``n``)."""
    level = [leaf_hash(leaf) for leaf in leaves]
    levels = [level]
    while len(level) > 1:
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
        levels.append(level)
    return levels


def root(leaves: Sequence[bytes]) -> bytes:
    """The Merkle Tree Hash of the leaves (their bytes, in book order); the empty tree's is
    ``SHA-256()``."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    return _levels(leaves)[-1][0]


def _path(levels: list[list[bytes]], index: int) -> list[bytes]:
    path = []
    for level in levels[:-1]:
        sibling = index ^ 1
        if sibling < len(level):
            path.append(level[sibling])
        index >>= 1
    return path


def inclusion_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The audit path of leaf ``index`` (RFC 6962 §2.1.1 ``PATH``), nearest sibling first."""
    if isinstance(index, bool) or not 0 <= index < len(leaves):
        raise BookError(f"leaf index {index} outside a book of {len(leaves)}")
    return _path(_levels(leaves), index)


def inclusion_paths(leaves: Sequence[bytes]) -> list[list[bytes]]:
    """Every leaf's audit path at once (one tree built, not one per leaf): the receipts."""
    levels = _levels(leaves)
    return [_path(levels, index) for index in range(len(leaves))]


def verify_inclusion(
    leaf: bytes, index: int, tree_size: int, path: Sequence[bytes], expected_root: bytes
) -> bool:
    """RFC 9162 §2.1.3.2: does ``path`` lead from the leaf hash ``leaf`` at ``index`` of a tree
    of ``tree_size`` leaves to ``expected_root``? Any wrong size, index or byte gives False."""
    if not 0 <= index < tree_size or any(len(h) != HASH_BYTES for h in (leaf, *path)):
        return False
    fn, sn, r = index, tree_size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected_root
