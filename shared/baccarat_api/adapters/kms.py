"""Chain and shoe secrets, and tables' bettor-ref keys, under KMS.

* A table's chain secret ``s_N`` is drawn by KMS ``GenerateDataKey`` (32 bytes from the KMS
  HSMs' CSPRNG — the same source as ``GenerateRandom``), which returns it together with its
  ciphertext under our key in ONE call: the plaintext is used once to compute the anchor and is
  never stored; only the ciphertext is.
* A table's bettor-ref key is drawn the same way (its own ``GenerateDataKey``, purpose
  ``bettor-ref``); only its ciphertext is kept, opened by the functions that compute refs.
* When a shoe is committed, ``s_N`` is decrypted, walked down to ``s_i``, and ``s_i`` is
  encrypted (``Encrypt``) onto the shoe item, so dealing needs one ``Decrypt`` on a cold cache and
  no chain walk.
* Every ciphertext is bound to its item by the KMS encryption context (operator, table, shoe
  number, purpose): a ciphertext copied onto another item does not decrypt.

The same code runs against moto's KMS locally (``make run``, tests), so there is one code path.
The port (:class:`~baccarat_api.ports.vault.SecretVault`) and the encryption contexts are in
:mod:`baccarat_api.ports.vault`."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    def __init__(self, client: KMSClient, key_id: str) -> None:
        self.client = client
        self.key_id = key_id

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
