"""Chain and shoe secrets, tables' bettor-ref keys and the proof signature, under KMS.

Secrets are drawn by ``GenerateDataKey`` (plaintext used once, only the ciphertext stored); a
shoe's ``s_i`` is encrypted onto the shoe item at its commit, so dealing needs one ``Decrypt``
on a cold cache and no chain walk. Every ciphertext is bound to its item by the encryption
context (:mod:`baccarat_api.ports.vault`): copied onto another item it does not decrypt. A final
proof's manifest is signed by a second, asymmetric key (ES256, ``Sign`` with ``RAW``). The same
code runs against moto's KMS locally: one code path."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from baccarat import proofdoc
from baccarat_api.ports.repository import StoreUnavailable
from baccarat_api.ports.vault import SECRET_BYTES

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient


_RETRYABLE = frozenset(
    {
        "ThrottlingException",
        "KMSInternalException",
        "DependencyTimeoutException",
        "LimitExceededException",
        "KeyUnavailableException",
    }
)


class KmsVault:
    """``key_id``: the symmetric key secrets are sealed under (``KMS_KEY_ID``);
    ``signing_key_id``: the proof signing key (``SIGNING_KEY_ID``). A function is given only the
    keys it may use; a call needing a missing one fails (a deployment error, not a request's)."""

    def __init__(
        self, client: KMSClient, key_id: str | None, signing_key_id: str | None = None
    ) -> None:
        self.client = client
        self._key_id = key_id
        self._signing_key_id = signing_key_id
        self._jwk: dict[str, str] | None = None
        #: the ARN of the key ``GetPublicKey`` answered for: what this container signs with
        self._signing_arn: str | None = None
        self._lock = threading.Lock()

    @property
    def key_id(self) -> str:
        if not self._key_id:
            raise RuntimeError("KMS_KEY_ID must be set for this route")
        return self._key_id

    @property
    def signing_key_id(self) -> str:
        if not self._signing_key_id:
            raise RuntimeError("SIGNING_KEY_ID must be set for this route")
        return self._signing_key_id

    def _call(self, what: str, fn: object, **kwargs: object) -> dict[str, object]:
        from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

        try:
            return fn(**kwargs)  # type: ignore[operator, no-any-return]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in _RETRYABLE:
                raise StoreUnavailable(f"kms {what}") from exc
            raise
        except (ConnectionError, HTTPClientError) as exc:  # HTTPClientError: read timeouts
            raise StoreUnavailable(f"kms {what}: {type(exc).__name__}") from exc

    def draw_secret(self, context: dict[str, str]) -> tuple[bytes, bytes]:
        out = self._call(
            "generate data key",
            self.client.generate_data_key,
            KeyId=self.key_id,
            NumberOfBytes=SECRET_BYTES,
            EncryptionContext=context,
        )
        plaintext, blob = out["Plaintext"], out["CiphertextBlob"]
        assert isinstance(plaintext, bytes) and isinstance(blob, bytes)
        if len(plaintext) != SECRET_BYTES:
            raise RuntimeError("KMS returned a data key of the wrong length")
        return plaintext, blob

    def seal(self, plaintext: bytes, context: dict[str, str]) -> bytes:
        out = self._call(
            "encrypt",
            self.client.encrypt,
            KeyId=self.key_id,
            Plaintext=plaintext,
            EncryptionContext=context,
        )
        blob = out["CiphertextBlob"]
        assert isinstance(blob, bytes)
        return blob

    def unseal(self, ciphertext: bytes, context: dict[str, str]) -> bytes:
        out = self._call(
            "decrypt",
            self.client.decrypt,
            KeyId=self.key_id,
            CiphertextBlob=ciphertext,
            EncryptionContext=context,
        )
        plaintext = out["Plaintext"]
        assert isinstance(plaintext, bytes)
        return plaintext

    def sign(self, message: bytes) -> bytes:
        """ECDSA P-256 over the message's bytes, as ``r ‖ s``. ``RAW`` (KMS hashes at most 4096
        bytes itself), not ``DIGEST``: moto's digest mode disagrees with KMS's, ``RAW`` agrees."""
        if len(message) > proofdoc.MAX_MANIFEST_BYTES:
            raise ValueError(f"KMS signs a RAW message of at most 4096 bytes, not {len(message)}")
        self.public_jwk()  # the key this container names (cached): sign with exactly that key
        out = self._call(
            "sign",
            self.client.sign,
            KeyId=self._signing_arn or self.signing_key_id,
            Message=message,
            MessageType="RAW",
            SigningAlgorithm="ECDSA_SHA_256",
        )
        der = out["Signature"]
        assert isinstance(der, bytes)
        return proofdoc.raw_signature(der)

    def public_jwk(self) -> dict[str, str]:
        """``GetPublicKey`` once per container, as a JWK. ``SIGNING_KEY_ID`` may name the key by
        an alias that is moved to a new key (a key change: KMS does not rotate asymmetric keys):
        this container keeps signing with the key it answered for (:meth:`sign` uses its ARN),
        so its proofs always verify with the key they name; a new container takes the new key."""
        if self._jwk is None:
            with self._lock:
                if self._jwk is None:
                    out = self._call(
                        "get public key", self.client.get_public_key, KeyId=self.signing_key_id
                    )
                    if "ECDSA_SHA_256" not in (out.get("SigningAlgorithms") or ()):  # type: ignore[operator]
                        raise RuntimeError("the signing key is not an ECC_NIST_P256 signing key")
                    der = out["PublicKey"]
                    assert isinstance(der, bytes)
                    arn = out.get("KeyId")
                    self._signing_arn = arn if isinstance(arn, str) else None
                    self._jwk = proofdoc.jwk_from_spki(der)
        return dict(self._jwk)
