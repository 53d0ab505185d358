"""A fixed random source for ``make run`` when ``BACCARAT_DEV_ENTROPY`` is set (the docs runner,
:mod:`baccarat_dev.docs_run`): the n-th secret the server draws (chain secrets, bettor-ref keys)
is HMAC-SHA-256(that text, "draw:<n>") instead of KMS's random bytes — sealed by KMS like any
other — so the same document plays the same shoes, cards and money on every run. Never in a
Lambda artifact (``baccarat_dev`` does not ship); never for real tables: anyone who knows the
text knows every shoe."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import threading

from baccarat_api.ports.vault import SecretVault

ENV = "BACCARAT_DEV_ENTROPY"


class SeededVault:
    """``inner`` with :meth:`draw_secret` drawn from ``seed`` (sealing and signing unchanged)."""

    def __init__(self, inner: SecretVault, seed: str) -> None:
        self.inner = inner
        self.key = seed.encode("utf-8")
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def draw_secret(self, context: dict[str, str]) -> tuple[bytes, bytes]:
        with self._lock:
            n = next(self._count)
        plaintext = hmac.new(self.key, f"draw:{n}".encode(), hashlib.sha256).digest()
        return plaintext, self.inner.seal(plaintext, context)

    def seal(self, plaintext: bytes, context: dict[str, str]) -> bytes:
        return self.inner.seal(plaintext, context)

    def unseal(self, ciphertext: bytes, context: dict[str, str]) -> bytes:
        return self.inner.unseal(ciphertext, context)

    def sign(self, message: bytes) -> bytes:
        return self.inner.sign(message)

    def public_jwk(self) -> dict[str, str]:
        return self.inner.public_jwk()
