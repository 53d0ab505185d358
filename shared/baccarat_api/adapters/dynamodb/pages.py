"""A final proof's pages as DynamoDB items: each page's canonical JSON cut into parts of
:data:`PART_BYTES`, each part zlib-compressed into one item (``PROOF#<shoe_id>`` /
``PAGE#<page>#<part>``).

Parts of the *raw* bytes, compressed one by one, so the worst case is a bound
(:func:`compress_bound`, :data:`MAX_PART_ITEM_BYTES`, under DynamoDB's 400 KB item limit) and
the parts depend only on the page's bytes: two finalisers racing write identical items. A page of
at most ``PREFETCH_PARTS × PART_BYTES`` bytes is read in ONE ``BatchGetItem`` with the proof
item."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any

from baccarat import proofdoc
from baccarat_api.adapters.dynamodb import keys

#: Raw bytes of a page per stored part.
PART_BYTES = 350_000
#: zlib level: what the parts are compressed with (any level decompresses the same).
LEVEL = 6
#: DynamoDB's item limit (names and values, UTF-8 / raw bytes).
ITEM_LIMIT = 400 * 1024
#: The ``page`` member (``{"count":…,"first_round":…,"last_round":…,"next":"/v1/shoes/…?page=…",
#: "number":…}``) is not counted by the split rule: at most this many bytes more.
PAGE_MEMBER_BYTES = 200
#: Parts read with the proof item in the first request: enough for every split-rule page.
PREFETCH_PARTS = math.ceil((proofdoc.PAGE_BUDGET + PAGE_MEMBER_BYTES) / PART_BYTES)

#: Attribute names of a part item.
_DATA, _PAGE, _PART, _PARTS = "data", "page", "part", "parts"


def compress_bound(n: int) -> int:
    """zlib's ``compressBound(n)``: no input of ``n`` bytes compresses to more."""
    return n + (n >> 12) + (n >> 14) + (n >> 25) + 13


def _overhead(shoe_id: str) -> int:
    """Bytes of a part item besides its data: key, names, the small numbers (at their widest)."""
    pk, sk = keys.proof_pk(shoe_id), keys.page_part_sk(proofdoc.MAX_PAGES, 99)
    names = ("pk", "sk", "kind", _PAGE, _PART, _PARTS, _DATA)
    values = len(pk) + len(sk) + len("proof_page") + 3 * 21  # numbers: ≤ 21 bytes each
    return sum(map(len, names)) + values


#: The largest part item any page makes, for the longest shoe id (a 6-digit shoe number).
MAX_PART_ITEM_BYTES = compress_bound(PART_BYTES) + _overhead("tbl_" + "a" * 16 + "_s999999")
assert MAX_PART_ITEM_BYTES < 0.9 * ITEM_LIMIT, "a part item could pass the item limit"


def part_items(shoe_id: str, number: int, page: bytes) -> list[dict[str, Any]]:
    """The items of page ``number`` (its canonical bytes ``page``)."""
    pk = keys.proof_pk(shoe_id)
    cuts = [page[i : i + PART_BYTES] for i in range(0, len(page), PART_BYTES)] or [b""]
    return [
        {
            "pk": {"S": pk},
            "sk": {"S": keys.page_part_sk(number, part)},
            "kind": {"S": "proof_page"},
            _PAGE: {"N": str(number)},
            _PART: {"N": str(part)},
            _PARTS: {"N": str(len(cuts))},
            _DATA: {"B": zlib.compress(cut, LEVEL)},
        }
        for part, cut in enumerate(cuts)
    ]


def part_keys(shoe_id: str, number: int, parts: Sequence[int]) -> list[tuple[str, str]]:
    return [(keys.proof_pk(shoe_id), keys.page_part_sk(number, p)) for p in parts]


def parts_expected(item: dict[str, Any]) -> int:
    """How many parts the page of this part item has."""
    return int(item[_PARTS]["N"])


def part_number(item: dict[str, Any]) -> int:
    return int(item[_PART]["N"])


def page_bytes(items: Sequence[dict[str, Any]]) -> bytes | None:
    """The page's bytes from all its part items (any order), or ``None`` if one is missing."""
    if not items:
        return None
    by_part = {part_number(i): i for i in items}
    count = parts_expected(items[0])
    if sorted(by_part) != list(range(count)):
        return None
    return b"".join(zlib.decompress(bytes(by_part[p][_DATA]["B"])) for p in range(count))
