"""Final proofs and what they rest on: a shoe's chain head, proof pages, the signing keys'
record, and a table's fairness lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baccarat_api.adapters.dynamodb import keys
from baccarat_api.adapters.dynamodb import pages as parts_of
from baccarat_api.adapters.dynamodb.base import DynamoBase, key_item
from baccarat_api.adapters.dynamodb.codec import from_item
from baccarat_api.adapters.dynamodb.errors import mapped_errors
from baccarat_api.ids import ShoeRef
from baccarat_api.ports.records import FairnessTotals, ProofRecord, ShoeFairness, SigningKeyRecord
from baccarat_api.ports.repository import ConditionFailed, FairnessPage


class ProofStore(DynamoBase):
    """Proof pages, signing keys, fairness."""

    def chain_head_of(self, operator_id: str, ref: ShoeRef) -> str | None:
        """One ``GetItem`` of the shoe projected to ``chain_head`` (a few dozen bytes)."""
        key = keys.shoe_key(operator_id, ref.table_id, ref.shoe_number)
        with mapped_errors("chain head"):
            out = self.client.get_item(
                TableName=self.state,
                Key=key_item(*key),
                ConsistentRead=True,
                ProjectionExpression="chain_head",
            )
        item = out.get("Item")
        if item is None:
            return None
        return str(item.get("chain_head", {}).get("S", ""))

    def proof_page(self, shoe_id: str, number: int) -> tuple[ProofRecord | None, bytes | None]:
        """ONE ``BatchGetItem``: the proof item and the first parts of page ``number``
        (:mod:`.pages`); a page of more parts than that (none at the documented limits) takes
        one more."""
        wanted = {keys.proof_key(shoe_id): ("proof", self.state)}
        prefetch = range(parts_of.PREFETCH_PARTS)
        wanted |= {k: ("part", self.state) for k in parts_of.part_keys(shoe_id, number, prefetch)}
        found = self._fetch(wanted)
        proof_items = [item for slot, item in found if slot == "proof"]
        parts = [item for slot, item in found if slot == "part"]
        proof = from_item(ProofRecord, proof_items[0]) if proof_items else None
        if parts and parts_of.parts_expected(parts[0]) > parts_of.PREFETCH_PARTS:
            rest = range(parts_of.PREFETCH_PARTS, parts_of.parts_expected(parts[0]))
            more = {k: ("part", self.state) for k in parts_of.part_keys(shoe_id, number, rest)}
            parts += [item for _, item in self._fetch(more)]
        return proof, parts_of.page_bytes(parts)

    def put_proof_pages(self, shoe_id: str, pages: Sequence[bytes]) -> None:
        """One plain ``PutItem`` per part item (never ``BatchWriteItem``, which can delete: no
        code path and no policy here deletes anything)."""
        with mapped_errors("store proof pages"):
            for number, page in enumerate(pages, start=1):
                for item in parts_of.part_items(shoe_id, number, page):
                    self.client.put_item(TableName=self.state, Item=item)

    def record_signing_key(self, jwk: dict[str, str], signed_at: str) -> None:
        """ONE ``UpdateItem`` of the key's item (``PROOF#signing-keys`` / ``KEY#{kid}``): the JWK
        and ``first_signed_at`` if not there yet, ``last_signed_at`` moved forward only. When a
        concurrent finaliser already recorded a later time (the condition fails), one more
        ``UpdateItem`` moves ``first_signed_at`` back to this time if it is earlier: the record
        covers every time a signature was made at, whatever order the writes land in."""
        import json

        key = key_item(*keys.signing_key_key(jwk["kid"]))
        try:
            with mapped_errors("record signing key"):
                self.client.update_item(
                    TableName=self.state,
                    Key=key,
                    UpdateExpression="SET jwk = if_not_exists(jwk, :jwk), "
                    "first_signed_at = if_not_exists(first_signed_at, :at), last_signed_at = :at",
                    ConditionExpression="attribute_not_exists(last_signed_at) OR "
                    "last_signed_at < :at",
                    ExpressionAttributeValues={
                        ":jwk": {"S": json.dumps(jwk, sort_keys=True)},
                        ":at": {"S": signed_at},
                    },
                )
        except ConditionFailed:  # a signature at a later time is already recorded
            try:
                with mapped_errors("record signing key (first)"):
                    self.client.update_item(
                        TableName=self.state,
                        Key=key,
                        UpdateExpression="SET first_signed_at = :at",
                        ConditionExpression="first_signed_at > :at",
                        ExpressionAttributeValues={":at": {"S": signed_at}},
                    )
            except ConditionFailed:
                pass  # an earlier (or this) time is already the first

    def signing_keys(self) -> list[SigningKeyRecord]:
        """ONE strongly consistent ``Query`` of the ``PROOF#signing-keys`` partition."""
        import json

        items = self._partition("signing keys", keys.SIGNING_KEYS_PK)
        out = [
            SigningKeyRecord(
                kid=i["sk"]["S"].removeprefix(keys.SIGNING_KEY_PREFIX),
                jwk=json.loads(i["jwk"]["S"]),
                first_signed_at=i["first_signed_at"]["S"],
                last_signed_at=i["last_signed_at"]["S"],
            )
            for i in items
        ]
        return sorted(out, key=lambda r: r.first_signed_at)

    def fairness(self, table_id: str, *, before: int | None, limit: int) -> FairnessPage:
        """From the newest: ONE ``Query`` of the table's ``FAIR#`` partition newest first (its
        ``TOTALS`` item sorts after every ``SHOE#``, so it comes first). From a cursor: a
        ``Query`` of the lines below it and a ``GetItem`` of the totals."""
        pk = keys.fairness_pk(table_id)
        args: dict[str, Any] = {"ScanIndexForward": False, "Limit": limit + 2}
        if before is None:
            condition, values = "pk = :pk", {":pk": {"S": pk}}
        else:
            condition = "pk = :pk AND sk < :before"
            values = {":pk": {"S": pk}, ":before": {"S": keys.shoe_sk(before)}}
        with mapped_errors("fairness"):
            out = self.client.query(
                TableName=self.state,
                KeyConditionExpression=condition,
                ExpressionAttributeValues=values,
                **args,
            )
        items = out.get("Items", [])
        page = FairnessPage()
        totals = [i for i in items if i["sk"]["S"] == keys.TOTALS_SK]
        if before is not None:
            got = self._get("fairness totals", *keys.fairness_totals_key(table_id))
            totals = [got] if got is not None else []
        page.totals = from_item(FairnessTotals, totals[0]) if totals else None
        lines = [from_item(ShoeFairness, i) for i in items if i["sk"]["S"] != keys.TOTALS_SK]
        page.shoes, page.more = lines[:limit], len(lines) > limit
        return page
