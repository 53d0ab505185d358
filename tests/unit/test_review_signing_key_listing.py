"""The signing-key history: GET /v1/signing-keys."""

from __future__ import annotations

from baccarat_api.adapters.memory import MemoryRepository
from baccarat_api.adapters.memory_vault import MemoryVault
from baccarat_api.service import proofs


def test_a_warm_container_on_the_old_key_does_not_list_the_new_key_as_retired() -> None:
    """After a key change (the alias moved; 26c9316) a warm container keeps its old key K1 and
    a new container signs with K2. The listing decides 'current' by the serving container's
    own key: the old container lists K2 — the key every new container signs with — as
    ``retired`` with ``not_after`` = its last signature so far, and K1 as current. Served with
    ``cache-control: public, max-age=300``, that listing fails every K2 proof signed after it
    (verify: 'signed at …, outside the validity of key K2'), and two containers answer two
    different 'current' keys."""
    repo = MemoryRepository()
    old, new = MemoryVault(), MemoryVault()
    k1, k2 = old.public_jwk(), new.public_jwk()
    assert k1["kid"] != k2["kid"]
    repo.record_signing_key(k1, "2026-12-01T00:00:00.000Z")
    repo.record_signing_key(k2, "2026-12-02T00:00:00.000Z")  # the new key, signing since

    listed = {k.kid: k for k in proofs.signing_keys(repo, old).keys}
    newest = listed[k2["kid"]]
    assert (newest.status, newest.not_after) == ("current", None), (
        f"the key new containers sign with is listed {newest.status} until {newest.not_after} "
        "by a container still on the old key"
    )
