"""The signing keys' history on DynamoDB Local: the record written before each
signature covers every signing time of its key — whatever order concurrent finalisers' writes
land in — and lists every key that ever signed, oldest first."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable
from typing import Any

from baccarat_api.adapters.dynamodb.repository import DynamoRepository


def _jwk(tag: str) -> dict[str, str]:
    return {"kty": "EC", "crv": "P-256", "x": tag, "y": tag, "kid": f"kid-{tag}", "alg": "ES256",
            "use": "sig"}  # fmt: skip


def test_concurrent_signatures_are_all_inside_their_keys_validity(
    dynamodb_local_client_factory: Callable[..., Any], dynamodb_local_tables: dict[str, str]
) -> None:
    repo = DynamoRepository(
        dynamodb_local_client_factory(),
        dynamodb_local_tables["StateTable"],
        dynamodb_local_tables["ConfigTable"],
    )
    tag = uuid.uuid4().hex[:8]
    old, new = _jwk(f"old{tag}"), _jwk(f"new{tag}")
    times = [f"2026-01-01T00:00:{s:02d}.{ms:03d}Z" for s in range(10) for ms in (0, 500)]
    rnd = random.Random(7)
    rnd.shuffle(times)  # the order the writes land in is not the order the times were taken

    def sign(at: str) -> None:
        repo.record_signing_key(old, at)

    threads = [threading.Thread(target=sign, args=(at,)) for at in times]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    repo.record_signing_key(new, "2026-01-02T00:00:00.000Z")
    repo.record_signing_key(old, "2026-01-01T00:00:00.250Z")  # a late write of an early time

    listed = [r for r in repo.signing_keys() if r.kid in (old["kid"], new["kid"])]
    assert [r.kid for r in listed] == [old["kid"], new["kid"]]
    assert (listed[0].first_signed_at, listed[0].last_signed_at) == (min(times), max(times))
    assert listed[0].jwk == old
    day2 = "2026-01-02T00:00:00.000Z"
    assert (listed[1].first_signed_at, listed[1].last_signed_at) == (day2, day2)
