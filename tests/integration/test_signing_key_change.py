"""A signing key change seen by a warm container: KMS does not rotate
asymmetric keys, a key change is a new key behind the name the functions are given. A container
that cached the old key's public half (the key id its proofs name) must not sign with the new key
meanwhile: it signs with the key it named until it is replaced, so each proof verifies with the
key it names (and the key history lists both)."""

from __future__ import annotations

from typing import Any

import boto3
from moto import mock_aws

from baccarat_api.adapters.kms import KmsVault
from baccarat_verify import es256


def _signing_key(kms: Any) -> str:
    out = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")
    return str(out["KeyMetadata"]["Arn"])


def test_a_warm_container_signs_with_the_key_it_names_after_the_alias_moves(
    aws_env: None,
) -> None:
    with mock_aws():
        kms = boto3.client("kms", region_name="us-east-1")
        old = _signing_key(kms)
        kms.create_alias(AliasName="alias/proof-signing", TargetKeyId=old)
        vault = KmsVault(kms, None, "alias/proof-signing")
        named = vault.public_jwk()  # cached for the container's life
        new = _signing_key(kms)
        kms.update_alias(AliasName="alias/proof-signing", TargetKeyId=new)

        message = b'{"spec":"bacc-proof-sig-v1"}'
        assert es256.check(named, message, vault.sign(message))
        fresh = KmsVault(kms, None, "alias/proof-signing")  # a new container: the new key
        assert fresh.public_jwk()["kid"] != named["kid"]
        assert es256.check(fresh.public_jwk(), message, fresh.sign(message))
