"""The vault port: the table chain secrets, shoe secrets and bettor-ref keys, never stored in
clear (:class:`baccarat_api.adapters.kms.KmsVault` keeps them under KMS), each ciphertext bound
to its item by an encryption context (:func:`chain_context`, :func:`shoe_context`,
:func:`ref_key_context`) whose ``purpose`` the deployed policies grant separately: a function
that may open shoe secrets cannot open chain secrets or ref keys with the same key; and the
proof signing key, whose private half never leaves the vault (KMS: an ``ECC_NIST_P256`` key): it
signs a final proof's manifest (ES256, ``docs/bacc-pf-v1.md`` "The signature") and publishes its
public half (``GET /v1/signing-keys``)."""

from __future__ import annotations

from typing import Protocol

#: Chain and shoe secrets, and ref keys: 32 bytes.
SECRET_BYTES = 32

#: The ``purpose`` of each kind of sealed secret (template.yaml grants KMS use per purpose).
CHAIN_PURPOSE = "bacc-pf-v1/chain"
SHOE_PURPOSE = "bacc-pf-v1/shoe"
REF_KEY_PURPOSE = "bettor-ref"
WEBHOOK_PURPOSE = "webhook"


class SecretVault(Protocol):
    def draw_secret(self, context: dict[str, str]) -> tuple[bytes, bytes]:
        """A fresh 32-byte secret from the vault's random source and its ciphertext:
        ``(plaintext, ciphertext)``."""

    def seal(self, plaintext: bytes, context: dict[str, str]) -> bytes: ...

    def unseal(self, ciphertext: bytes, context: dict[str, str]) -> bytes: ...

    def sign(self, message: bytes) -> bytes:
        """ES256 over ``message`` (at most ``proofdoc.MAX_MANIFEST_BYTES``: KMS signs a RAW
        message of up to 4096 bytes; a proof's manifest) with the proof signing key:
        the 64-byte ``r ‖ s`` (IEEE P1363)."""

    def public_jwk(self) -> dict[str, str]:
        """The signing key's public half as ``GET /v1/signing-keys`` lists it (JWK, ``kid`` = its
        RFC 7638 thumbprint)."""


def chain_context(operator_id: str, table_id: str) -> dict[str, str]:
    return {"purpose": CHAIN_PURPOSE, "operator": operator_id, "table": table_id}


def shoe_context(operator_id: str, table_id: str, shoe_number: int) -> dict[str, str]:
    return {
        "purpose": SHOE_PURPOSE,
        "operator": operator_id,
        "table": table_id,
        "shoe": str(shoe_number),
    }


def ref_key_context(operator_id: str, table_id: str) -> dict[str, str]:
    """The table's ``ref_key`` (the HMAC key of its bettor refs, ``baccarat.proofdoc``)."""
    return {"purpose": REF_KEY_PURPOSE, "operator": operator_id, "table": table_id}


def webhook_context(operator_id: str) -> dict[str, str]:
    """The encryption context of an operator's webhook signing secret."""
    return {"purpose": WEBHOOK_PURPOSE, "operator": operator_id}
