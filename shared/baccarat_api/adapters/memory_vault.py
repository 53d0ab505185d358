"""An in-memory :class:`~baccarat_api.ports.vault.SecretVault` for tests and local runs: no
KMS, the same calls and the same refusals."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from baccarat import proofdoc
from baccarat_api.ports.vault import SECRET_BYTES


class MemoryVault:
    """A :class:`~baccarat_api.ports.vault.SecretVault` without KMS: secrets from the OS
    CSPRNG, "ciphertexts" that are opaque tokens, each bound to its encryption context like a
    KMS ciphertext (another context does not open it); a P-256 signing key made on first use
    (with ``cryptography``, a development dependency: only tests sign with this vault)."""

    def __init__(self) -> None:
        self._sealed: dict[bytes, tuple[tuple[tuple[str, str], ...], bytes]] = {}
        #: calls by kind (``draw``, ``seal``, ``unseal``, ``sign``, ``public_key``), one per
        #: KMS call the adapter makes
        self.calls: Counter[str] = Counter()
        self._signing_key: Any = None

    def _key(self) -> Any:
        if self._signing_key is None:
            from cryptography.hazmat.primitives.asymmetric import ec

            self._signing_key = ec.generate_private_key(ec.SECP256R1())
        return self._signing_key

    def rotate_signing_key(self) -> None:
        """A new signing key from the next use on (what deploying a new KMS signing key does)."""
        self._signing_key = None

    def sign(self, message: bytes) -> bytes:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec

        if len(message) > proofdoc.MAX_MANIFEST_BYTES:
            raise ValueError(f"KMS signs a RAW message of at most 4096 bytes, not {len(message)}")
        self.calls["sign"] += 1
        return proofdoc.raw_signature(self._key().sign(message, ec.ECDSA(hashes.SHA256())))

    def public_jwk(self) -> dict[str, str]:
        self.calls["public_key"] += 1
        numbers = self._key().public_key().public_numbers()
        return proofdoc.public_jwk(numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big"))

    def _seal(self, plaintext: bytes, context: dict[str, str]) -> bytes:
        token = b"memory-vault:" + os.urandom(16)
        self._sealed[token] = (tuple(sorted(context.items())), bytes(plaintext))
        return token

    def draw_secret(self, context: dict[str, str]) -> tuple[bytes, bytes]:
        self.calls["draw"] += 1
        secret = os.urandom(SECRET_BYTES)
        return secret, self._seal(secret, context)

    def seal(self, plaintext: bytes, context: dict[str, str]) -> bytes:
        self.calls["seal"] += 1
        return self._seal(plaintext, context)

    def unseal(self, ciphertext: bytes, context: dict[str, str]) -> bytes:
        self.calls["unseal"] += 1
        bound, plaintext = self._sealed[ciphertext]
        if bound != tuple(sorted(context.items())):
            raise PermissionError("the ciphertext is bound to another encryption context")
        return plaintext
