"""The :class:`~baccarat_api.ports.chunks.ChunkStore` on DynamoDB, in the round's own book
partition ``OP#<op>#ROUND#<round_id>``: ``LEAVES#<nnnnn>`` items of at most
:data:`LEAVES_PER_ITEM` leaves each, a binary attribute of (27-byte ref ‖ 32-byte hash) per leaf
in book order (≈ 295 KB per full item: under the 400 KB item limit by construction)."""

from __future__ import annotations

from collections.abc import Sequence

from baccarat_api.adapters.dynamodb.base import DynamoBase
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.ports.chunks import Leaf

__all__ = ["LEAVES_PER_ITEM", "DynamoChunkStore", "round_pk"]

#: Leaves per ``LEAVES#`` item.
LEAVES_PER_ITEM = 5000
_REF = 27
_HASH = 32
_LEAVES = "LEAVES#"


def round_pk(operator_id: str, round_id: str) -> str:
    """The partition of a round's book-wide items (leaves; the settlement's chunks)."""
    return f"OP#{operator_id}#ROUND#{round_id}"


class DynamoChunkStore(DynamoBase):
    """The settlement's storage over the state table."""

    def put_leaves(self, operator_id: str, round_id: str, leaves: Sequence[Leaf]) -> None:
        pk = round_pk(operator_id, round_id)
        for n, start in enumerate(range(0, len(leaves), LEAVES_PER_ITEM)):
            part = leaves[start : start + LEAVES_PER_ITEM]
            blob = bytearray()
            for leaf in part:
                ref = leaf.bettor_ref.encode("ascii")
                if len(ref) != _REF or len(leaf.hash) != _HASH:
                    raise ValueError(f"not a leaf: {leaf!r}")
                blob += ref + leaf.hash
            with mapped_errors("put leaves"):
                self.client.put_item(
                    TableName=self.state,
                    Item={
                        "pk": {"S": pk},
                        "sk": {"S": f"{_LEAVES}{n:05d}"},
                        "kind": {"S": "leaves"},
                        "n": {"N": str(len(part))},
                        "b": {"B": bytes(blob)},
                    },
                )

    def leaves(self, operator_id: str, round_id: str) -> list[Leaf]:
        pk = round_pk(operator_id, round_id)
        items = self._partition("read leaves", pk, (_LEAVES, _LEAVES + "~"))
        out: list[Leaf] = []
        step = _REF + _HASH
        for item in items:
            blob = item["b"]["B"]
            for i in range(0, len(blob), step):
                out.append(Leaf(blob[i : i + _REF].decode("ascii"), blob[i + _REF : i + step]))
        return out
