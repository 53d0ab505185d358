"""The local engines: the template's tables, KMS keys (behind their aliases) and the tiers,
created where the ``AWS_ENDPOINT_URL_*`` variables point; the custom resource's answer."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from baccarat_dev.samlocal.catalogue import (
    CFN_BUCKET,
    EVENTS,
    MOTO_URL,
    TEMPLATE_FILE,
    SamLocalError,
    function_resources,
    invocations,
)
from baccarat_dev.samlocal.checks import load_event
from baccarat_dev.samlocal.environment import local_table_name, local_value, template_variables
from baccarat_dev.template import load


def _endpoint(service: str) -> str:
    name = f"AWS_ENDPOINT_URL_{service}"
    url = os.environ.get(name, "")
    if not url:
        raise SamLocalError(f"{name} is not set: export the local engine's URL (docs/sam-local.md)")
    if "amazonaws.com" in url:
        raise SamLocalError(f"{name}={url}: that is AWS; this command only sets up local engines")
    return url


def _keys(template: dict[str, Any]) -> dict[str, str]:
    """Every KMS key a function's variable names → its local alias."""
    out: dict[str, str] = {}
    for function in function_resources(template):
        for name, value in template_variables(template, function).items():
            local = local_value(template, name, value)
            if local.kind == "key" and local.resource:
                out[local.resource] = local.value
    return out


def _aliases(kms: Any) -> set[str]:
    names: set[str] = set()
    for page in kms.get_paginator("list_aliases").paginate():
        names.update(a["AliasName"] for a in page["Aliases"])
    return names


def wait_until_answering(url: str, seconds: float = 60.0) -> None:
    """Until ``url`` answers HTTP (any status): an engine's container is up before its server is
    (Docker's port accepts at once, then drops the connection)."""
    import http.client
    import time
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return  # an answer
        except (OSError, http.client.HTTPException) as exc:
            if time.monotonic() > deadline:
                raise SamLocalError(f"{url} does not answer after {seconds:.0f} s: {exc}") from None
            time.sleep(0.5)


def setup(root: Path) -> Iterable[str]:
    """Create the template's tables (those its functions name), its KMS keys behind their local
    aliases, the bucket of custom resource answers, and seed infra/tiers.json — on the engines
    ``AWS_ENDPOINT_URL_DYNAMODB`` / ``_KMS`` / ``_S3`` name (waiting for them to answer, as
    just-started containers). Run again, it changes nothing."""
    import boto3

    for service in ("DYNAMODB", "KMS"):
        wait_until_answering(_endpoint(service))

    from baccarat_api.adapters.dynamodb.repository import DynamoRepository
    from baccarat_api.jobs.seed import seed_tiers
    from baccarat_dev.template import create_tables, table_definitions

    template = load(root / TEMPLATE_FILE)
    wanted = {k: local_table_name(k) for k in table_definitions(root / TEMPLATE_FILE)}
    dynamodb = boto3.client("dynamodb", endpoint_url=_endpoint("DYNAMODB"))
    existing = set(dynamodb.list_tables()["TableNames"])
    if set(wanted.values()) <= existing:
        yield from (f"table {v} ({k}): exists" for k, v in wanted.items())
    elif set(wanted.values()) & existing:
        raise SamLocalError(
            f"some of {sorted(wanted.values())} exist, not all: restart DynamoDB Local (in memory)"
        )
    else:  # no point-in-time recovery on DynamoDB Local
        create_tables(dynamodb, wanted, root / TEMPLATE_FILE, pitr=False)
        yield from (f"table {v} ({k}): created" for k, v in wanted.items())

    kms = boto3.client("kms", endpoint_url=_endpoint("KMS"))
    aliases = _aliases(kms)
    for key_id, alias in _keys(template).items():
        props = template["Resources"][key_id]["Properties"]
        spec = props.get("KeySpec", "SYMMETRIC_DEFAULT")
        usage = props.get("KeyUsage", "ENCRYPT_DECRYPT")
        if alias in aliases:
            yield f"key {alias} ({key_id}): exists"
            continue
        made = kms.create_key(KeySpec=spec, KeyUsage=usage, Description=f"baccarat local {key_id}")
        kms.create_alias(AliasName=alias, TargetKeyId=made["KeyMetadata"]["KeyId"])
        yield f"key {alias} ({key_id}, {spec} {usage}): created"

    if any(i.kind == "custom-resource" for i in invocations(template)[0]):
        s3 = boto3.client("s3", endpoint_url=_endpoint("S3"))
        if CFN_BUCKET in {b["Name"] for b in s3.list_buckets().get("Buckets", [])}:
            yield f"bucket {CFN_BUCKET} (custom resource answers): exists"
        else:
            s3.create_bucket(Bucket=CFN_BUCKET)
            yield f"bucket {CFN_BUCKET} (custom resource answers): created"

    if "ConfigTable" in wanted:
        repo = DynamoRepository(dynamodb, wanted.get("StateTable", ""), wanted["ConfigTable"])
        tiers = seed_tiers(repo, root / "infra" / "tiers.json")
        yield f"tiers in {wanted['ConfigTable']}: {', '.join(tiers)}"


def cfn_answer(root: Path, name: str) -> str:
    """The CloudFormation answer a custom resource's function PUT at the ResponseURL of
    events/<name>.json (moto's S3)."""
    import boto3

    template = load(root / TEMPLATE_FILE)
    found = [i for i in invocations(template)[0] if i.name == name and i.kind == "custom-resource"]
    if not found:
        raise SamLocalError(f"{EVENTS}/{name}.json is no custom resource's event")
    inv = found[0]
    url = load_event(root, inv)["ResponseURL"]
    bucket, _, key = url.removeprefix(MOTO_URL + "/").partition("/")
    s3 = boto3.client("s3", endpoint_url=_endpoint("S3"))
    try:
        answer = json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    except s3.exceptions.NoSuchKey:
        raise SamLocalError(f"no answer at {url} yet (invoke the function first)") from None
    data = ", ".join(f"{k}={v}" for k, v in answer.get("Data", {}).items())
    reason = f" ({answer['Reason']})" if answer.get("Reason") else ""
    return f"{answer['Status']} {answer['LogicalResourceId']}{reason}: {data}"
