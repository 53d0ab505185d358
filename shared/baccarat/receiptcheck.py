"""Check a bettor's receipt (``bacc-receipt-v1``) and a round's public book pages against a
``bacc-pf-v1.1`` shoe proof (``docs/bacc-pf-v1.md``, "Receipts" and "Public book pages").

Written apart from what builds receipts and pages: everything is recomputed from the proof
(its seed, its ``table_config``, each round's ``book``) and the leaves — the inclusion path by
RFC 9162 (:func:`baccarat.booktree.verify_inclusion`), the root from every leaf
(:func:`baccarat.booktree.root`), each slip's money by :func:`baccarat.bookmoney.slip_settlement`
on the round re-derived from the seed (never the proof's own cards). The proof itself is checked
by :func:`baccarat.verify.verify` first; these checks assume nothing it did not check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import booktree, pf2proof
from .audit import canonical
from .bookmoney import BookTotals, slip_doc, slip_settlement
from .fairness import FairnessError, derive_shoe
from .outcome import Round
from .profiles import TableConfig, TierError
from .proofbook import PAGE_ENTRIES
from .rules import ShoeRules, UnsafeRulesError
from .settlement import Settlement
from .verdict import Mismatch

RECEIPT_SPEC = "bacc-receipt-v1"
#: The number of a round's first public book page (``?page=0``: page k is settlement chunk k).
FIRST_PAGE = 0


@dataclass(slots=True)
class BookVerdict:
    """Whether a receipt (or a round's book pages) verified, in one line, with every failure."""

    ok: bool
    summary: str
    mismatches: list[Mismatch] = field(default_factory=list)

    def lines(self) -> list[str]:
        """``verified: …``, or ``NOT verified: …`` and one line per failure."""
        if self.ok:
            return [f"verified: {self.summary}"]
        first, *rest = [str(m) for m in self.mismatches] or [self.summary]
        return [f"NOT verified: {first}", *(f"  also: {m}" for m in rest)]

    def as_dict(self) -> dict[str, Any]:
        return {
            "verified": self.ok,
            "verdict": self.lines()[0],
            "mismatches": [str(m) for m in self.mismatches],
        }


class _Unusable(ValueError):
    """The proof or the receipt cannot be checked at all (one failure says why)."""

    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__(str(mismatch))
        self.mismatch = mismatch


@dataclass(frozen=True, slots=True)
class _Shoe:
    """What every slip is settled from: the proof's table and the rounds its seed deals."""

    config: TableConfig
    rounds: tuple[Round | None, ...]  # None: a bacc-pf-v2 beacon void that has no beacon


def _shoe(proof: Mapping[str, Any]) -> _Shoe:
    try:
        config = TableConfig.from_dict(proof["table_config"])
        rules = ShoeRules.from_dict(proof["rules"])
        if proof.get("fairness") == pf2proof.SPEC:  # cards keyed by each round's beacon
            return _Shoe(config, pf2proof.rounds_by_number(proof))
        shoe = derive_shoe(
            bytes.fromhex(proof["server_seed"]), proof["client_seed"], proof["shoe_number"], rules
        )
    except (KeyError, TypeError, ValueError, TierError, FairnessError, UnsafeRulesError) as exc:
        raise _Unusable(Mismatch("proof", "shoe", "a readable proof", str(exc))) from None
    return _Shoe(config, shoe.rounds)


def _round(proof: Mapping[str, Any], number: Any) -> tuple[int, Mapping[str, Any]]:
    """The proof's round ``number`` that has a book."""
    rounds = proof.get("rounds")
    if not isinstance(number, int) or isinstance(number, bool) or not isinstance(rounds, list):
        raise _Unusable(Mismatch("receipt", "round_number", "a round of the proof", number))
    found = next(
        (r for r in rounds if isinstance(r, Mapping) and r.get("round_number") == number), None
    )
    if found is None or not isinstance(found.get("book"), Mapping):
        why = "not in the proof" if found is None else "a round without a book"
        raise _Unusable(
            Mismatch(
                f"round {number}",
                "book",
                "a round of the proof with a book",
                why,
                f"round {number} is {why}: nothing to check the slip against",
            )
        )
    return number, found


def _leaf(where: str, leaf: Any, round_id: Any) -> bytes:
    """The leaf's canonical bytes, if it is a spectator's leaf of ``round_id`` in
    ``bacc-book-v1`` form (as :func:`baccarat.booktree.leaf_doc` writes it)."""
    if isinstance(leaf, Mapping) and leaf.get("role") != booktree.SPECTATOR:
        raise _Unusable(Mismatch(where, "leaf role", booktree.SPECTATOR, leaf.get("role")))
    try:
        if not isinstance(leaf, Mapping):
            raise booktree.BookError("a leaf is an object")
        again = booktree.leaf_doc(
            leaf["round_id"], leaf["bettor_ref"], leaf["role"], leaf["lines"], leaf.get("seat")
        )
    except (booktree.BookError, KeyError, TypeError, AttributeError) as exc:
        raise _Unusable(Mismatch(where, "leaf", "a bacc-book-v1 leaf", str(exc))) from None
    if again != leaf:
        raise _Unusable(Mismatch(where, "leaf", again, leaf))
    if round_id is not None and leaf["round_id"] != round_id:
        raise _Unusable(Mismatch(where, "leaf round_id", round_id, leaf["round_id"]))
    return canonical(leaf)


def _settled(shoe: _Shoe, number: int, leaf: Mapping[str, Any]) -> Settlement:
    """The slip's money on round ``number`` of the re-derived shoe."""
    if not 1 <= number <= len(shoe.rounds):
        raise _Unusable(Mismatch(f"round {number}", "round", "a round the shoe deals", number))
    cards = shoe.rounds[number - 1]
    if cards is None:
        raise _Unusable(
            Mismatch(
                f"round {number}",
                "round",
                "a round with cards",
                "a beacon_unavailable void whose beacon never came: no cards to settle the slip on",
            )
        )
    try:
        return slip_settlement(shoe.config, cards, leaf["lines"])
    except (ValueError, KeyError, TypeError, ArithmeticError) as exc:
        raise _Unusable(
            Mismatch(f"round {number}", "slip", "lines that can be settled", str(exc))
        ) from None


def expected_settlement(settled: Settlement, voided: bool) -> dict[str, Any]:
    """What a receipt or a book entry must say the slip was paid: its settlement, or for a
    voided round its stake back (``{voided: true, stake, net: 0}``)."""
    if voided:
        (bettor,) = settled.bettors
        return {"voided": True, "stake": bettor.stake, "net": 0}
    return slip_doc(settled)


def _slip_money(
    shoe: _Shoe, number: int, leaf: Mapping[str, Any], round_: Mapping[str, Any],
    totals: BookTotals,
) -> dict[str, Any]:  # fmt: skip
    """What the slip must have been paid, counted into ``totals``. A round voided before any
    card existed (a bacc-pf-v2 ``beacon_unavailable`` void — priced later or not): its stake
    back, read from its lines (the book's totals are then the refunds)."""
    voided = round_.get("void") is not None
    if pf2proof.is_beacon_void(round_):
        totals.refund(leaf["lines"])
        return {"voided": True, "stake": sum(int(x["amount"]) for x in leaf["lines"]), "net": 0}
    settled = _settled(shoe, number, leaf)
    totals.add(settled)
    return expected_settlement(settled, voided)


def _round_id(round_: Mapping[str, Any]) -> Any:
    """The round's id where the proof states it (a settled round's settlement)."""
    settlement = round_.get("settlement")
    return settlement.get("round_id") if isinstance(settlement, Mapping) else None


def _hashes(where: str, path: Any) -> list[bytes]:
    try:
        if not isinstance(path, list):
            raise TypeError
        out = [bytes.fromhex(h) for h in path]
    except (TypeError, ValueError):
        raise _Unusable(Mismatch(where, "path", "a list of hex hashes", path)) from None
    return out


# --- a receipt -----------------------------------------------------------------------------------


def _receipt_mismatches(
    proof: Mapping[str, Any], receipt: Mapping[str, Any]
) -> tuple[list[Mismatch], str]:
    where = "receipt"
    if receipt.get("spec") != RECEIPT_SPEC:
        return [Mismatch(where, "spec", RECEIPT_SPEC, receipt.get("spec"))], ""
    if receipt.get("shoe_id") != proof.get("shoe_id"):
        return [Mismatch(where, "shoe_id", proof.get("shoe_id"), receipt.get("shoe_id"))], ""
    number, round_ = _round(proof, receipt.get("round_number"))
    book = round_["book"]
    bad: list[Mismatch] = []
    round_id = _round_id(round_)
    if round_id is not None and receipt.get("round_id") != round_id:
        bad.append(Mismatch(where, "round_id", round_id, receipt.get("round_id")))
    leaf = receipt.get("leaf")
    data = _leaf(where, leaf, receipt.get("round_id"))
    assert isinstance(leaf, Mapping)
    index, size = receipt.get("leaf_index"), receipt.get("tree_size")
    if size != book.get("count"):
        bad.append(Mismatch(where, "tree_size", book.get("count"), size, _size_words(book, size)))
    if receipt.get("root") != book.get("root"):
        bad.append(Mismatch(where, "root", book.get("root"), receipt.get("root")))
    lock = round_.get("lock")
    when = (
        f"before beacon round {lock.get('beacon_round')} (round {number})"
        if isinstance(lock, Mapping)  # bacc-pf-v2: locked before the beacon existed
        else f"at the deal of round {number}"
    )
    if not _included(data, index, size, _hashes(where, receipt.get("path")), book.get("root")):
        bad.append(
            Mismatch(
                where,
                "path",
                "a path from the leaf to the round's book root",
                f"leaf_index {index}, tree_size {size}",
                f"the slip is NOT in the book locked {when}: its leaf, "
                f"at index {index} of a tree of {size}, does not reach the root "
                f"{book.get('root')} by its path",
            )
        )
    shoe = _shoe(proof)
    want = _slip_money(shoe, number, leaf, round_, BookTotals())
    if receipt.get("settlement") != want:
        bad.append(
            Mismatch(
                where,
                "settlement",
                want,
                receipt.get("settlement"),
                f"the slip was not paid what its lines win on round {number}'s cards: expected "
                f"{canonical(want).decode()}, found "
                f"{canonical(receipt.get('settlement')).decode()}",
            )
        )
    net = want["net"]
    paid = "voided: stake back, net 0" if want.get("voided") else f"net {net:+,}"
    words = (
        f"slip in the book locked {when} (leaf {_nth(index)} of {size}) and paid exactly: {paid}"
    )
    return bad, words


def _included(data: bytes, index: Any, size: Any, path: list[bytes], root: Any) -> bool:
    """RFC 9162: the leaf at ``index`` of a tree of ``size`` reaches ``root`` (hex) by ``path``."""
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (index, size)):
        return False
    try:
        expected = bytes.fromhex(str(root))
    except ValueError:
        return False
    return booktree.verify_inclusion(booktree.leaf_hash(data), index, size, path, expected)


def _size_words(book: Mapping[str, Any], size: Any) -> str:
    return (
        f"the receipt's tree_size {size} is not the number of slips in the round's book "
        f"({book.get('count')})"
    )


def verify_receipt(proof: Mapping[str, Any], receipt: Any) -> BookVerdict:
    """Is ``receipt`` a slip of the book locked at the deal of its round in ``proof`` (an
    assembled public proof, already verified), paid exactly what its lines win? Every failure is
    listed."""
    if not isinstance(receipt, Mapping):
        return BookVerdict(False, "a receipt is a JSON object", [])
    try:
        bad, words = _receipt_mismatches(proof, receipt)
    except _Unusable as exc:
        return BookVerdict(False, str(exc.mismatch), [exc.mismatch])
    if bad:
        return BookVerdict(False, str(bad[0]), bad)
    return BookVerdict(True, words)


# --- a round's public book pages -----------------------------------------------------------------


def _page_facts(
    proof: Mapping[str, Any], number: int, book: Mapping[str, Any], page: Mapping[str, Any]
) -> list[Mismatch]:
    """One page names the proof's shoe, the round, the book's root, count and pages."""
    where = f"round {number} book page {page.get('page', {}).get('number')}"
    facts = {
        "spec": booktree.BOOK_SPEC,
        "shoe_id": proof.get("shoe_id"),
        "round_number": number,
        "root": book["root"],
        "count": book["count"],
    }
    bad = [Mismatch(where, k, v, page.get(k)) for k, v in facts.items() if page.get(k) != v]
    if page.get("page", {}).get("count") != book["pages"]:
        bad.append(Mismatch(where, "page count", book["pages"], page["page"].get("count")))
    entries = page.get("entries")
    if not isinstance(entries, list):
        bad.append(Mismatch(where, "entries", "a list", entries))
    elif len(entries) > PAGE_ENTRIES:
        bad.append(Mismatch(where, "entries", f"at most {PAGE_ENTRIES}", len(entries)))
    return bad


def _page_mismatches(
    proof: Mapping[str, Any], number: int, book: Mapping[str, Any], pages: Sequence[Any]
) -> list[Mismatch]:
    """Every page there once, in order; each full but the last."""
    where = f"round {number} book"
    numbers = [p.get("page", {}).get("number") for p in pages]
    want = list(range(FIRST_PAGE, FIRST_PAGE + book["pages"]))
    bad = [] if numbers == want else [Mismatch(where, "pages", want, numbers)]
    for p in pages:
        bad += _page_facts(proof, number, book, p)
    for p in pages[:-1]:
        entries = p.get("entries")
        if isinstance(entries, list) and len(entries) != PAGE_ENTRIES:
            k = p["page"].get("number")
            bad.append(Mismatch(f"{where} page {k}", "entries", PAGE_ENTRIES, len(entries)))
    return bad


def _entries_mismatches(
    shoe: _Shoe, number: int, round_: Mapping[str, Any], entries: list[Any]
) -> list[Mismatch]:
    """Refs ascending, the root of every leaf, the count, each settlement, Σ = totals."""
    where = f"round {number} book"
    book = round_["book"]
    round_id = _round_id(round_)
    if round_id is None and entries and isinstance(entries[0], Mapping):
        leaf = entries[0].get("leaf")
        round_id = leaf.get("round_id") if isinstance(leaf, Mapping) else None
    bad: list[Mismatch] = []
    unusable: list[Mismatch] = []
    leaves: list[bytes] = []
    totals = BookTotals()
    for i, entry in enumerate(entries):
        at = f"{where} entry {i}"
        if not isinstance(entry, Mapping):
            unusable.append(Mismatch(at, "entry", "{leaf, settlement}", entry))
            continue
        try:
            leaves.append(_leaf(at, entry.get("leaf"), round_id))
        except _Unusable as exc:
            unusable.append(exc.mismatch)
            continue
        try:
            want = _slip_money(shoe, number, entry["leaf"], round_, totals)
        except _Unusable as exc:
            unusable.append(exc.mismatch)
            continue
        if entry.get("settlement") != want:
            bad.append(Mismatch(at, "settlement", want, entry.get("settlement")))
    if unusable:
        return unusable + bad
    try:
        booktree.check_order(e["leaf"]["bettor_ref"] for e in entries)
    except booktree.BookError as exc:
        bad.append(Mismatch(where, "order", "bettor refs strictly ascending", str(exc)))
    if len(leaves) != book["count"]:
        bad.append(Mismatch(where, "count", book["count"], len(leaves)))
    root = booktree.root(leaves).hex()
    if root != book["root"]:
        bad.append(
            Mismatch(
                where,
                "root",
                book["root"],
                root,
                f"{where}: the root of its {len(leaves)} published leaves is {root}, not the "
                f"root locked at the deal ({book['root']})",
            )
        )
    if totals.as_dict() != book["totals"]:
        bad.append(Mismatch(where, "totals", totals.as_dict(), book["totals"]))
    return bad


def verify_books(proof: Mapping[str, Any], pages: Sequence[Any]) -> BookVerdict:
    """Every round of ``proof`` with a book against its public pages (``pages``: every page of
    every round, any order): the pages all there, refs strictly ascending across them, the root
    recomputed from every leaf, the count, every entry's settlement recomputed and their sum
    equal to the round's ``book.totals``."""
    try:
        shoe = _shoe(proof)
    except _Unusable as exc:
        return BookVerdict(False, str(exc.mismatch), [exc.mismatch])
    rounds = [r for r in proof.get("rounds") or [] if isinstance(r, Mapping) and "book" in r]
    bad: list[Mismatch] = []
    slips = 0
    for round_ in rounds:
        number = int(round_.get("round_number") or 0)
        mine = [p for p in pages if isinstance(p, Mapping) and p.get("round_number") == number]
        try:
            mine.sort(key=lambda p: p["page"]["number"])
            bad += _page_mismatches(proof, number, round_["book"], mine)
            entries = [e for p in mine for e in (p.get("entries") or [])]
            bad += _entries_mismatches(shoe, number, round_, entries)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            bad.append(Mismatch(f"round {number} book", "pages", "readable book pages", str(exc)))
            continue
        slips += len(entries)
    if bad:
        return BookVerdict(False, str(bad[0]), bad)
    return BookVerdict(
        True,
        f"{len(rounds)} book{'' if len(rounds) == 1 else 's'} of spectators' slips: every page, "
        f"{slips} slips in bettor-ref order, each root recomputed, each slip's money and the "
        "totals re-derived and matching",
    )


def _nth(index: Any) -> Any:
    """A leaf's place counted from 1 (its ``leaf_index`` counts from 0)."""
    return index + 1 if isinstance(index, int) else index
