"""One DynamoDB Local (Amazon's own engine) per test session — per xdist worker —
and the template's tables on it.

The tiers that need it import its fixtures in their conftest (integration, infra, live; never
unit, which runs without moto or boto3's stand-ins). Fixtures:

* ``dynamodb_local`` (session): the running :class:`~baccarat_dev.dynamodb_local.DynamoDBLocal`;
  its ``endpoint_url``, ``client_kwargs()``. Started on first use, stopped at the session's end.
* ``dynamodb_local_client``: a boto3 DynamoDB client for it (botocore's default retries);
  ``dynamodb_local_client_factory(**config)`` makes more (one per thread, other retries).
* ``dynamodb_local_tables`` (module): the template's tables (``create_tables`` of
  :mod:`baccarat_dev.template`, so they are exactly the stack's), under names unique to the
  module: ``{"StateTable": …, "ConfigTable": …}``; deleted afterwards.
* ``dynamodb_local_stack`` / ``dynamodb_local_api``: what ``stack`` / ``api`` of
  :mod:`support.stack` are (the handlers with real HTTP API v2 events), with DynamoDB on
  DynamoDB Local (tables of the test's own, ``AWS_ENDPOINT_URL_DYNAMODB``) and KMS on moto in
  process — for the tests of limits, races and faults that need the real engine (moto applies
  no item size limit, no ``ClientRequestToken``, no atomic concurrent transactions).

Where DynamoDB Local cannot run (no Java >= 17, the package not installable) the tests that use
it are skipped, or fail when ``BACC_REQUIRE_DYNAMODB_LOCAL=1`` (``make test`` sets it, as it
does for the browser)."""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from baccarat_dev.dynamodb_local import DynamoDBLocal, DynamoDBLocalUnavailable
from baccarat_dev.template import create_tables, table_definitions

from .stack import Api, Stack, provision
from .stack import aws_env as _aws_env  # noqa: F401  (the fixture, for dynamodb_local_stack)

REQUIRE = "BACC_REQUIRE_DYNAMODB_LOCAL"


def unavailable(reason: str) -> None:
    """Skip (or fail, when DynamoDB Local is required here) with ``reason``."""
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"DynamoDB Local is required ({REQUIRE}=1): {reason}", pytrace=False)
    pytest.skip(f"DynamoDB Local unavailable: {reason}")


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[DynamoDBLocal]:
    engine = DynamoDBLocal()
    try:
        engine.start()
    except DynamoDBLocalUnavailable as exc:
        unavailable(str(exc))
    try:
        yield engine
    finally:
        engine.stop()


def local_client(engine: DynamoDBLocal, **config: Any) -> Any:
    """A boto3 DynamoDB client of ``engine`` (``config``: botocore ``Config`` arguments)."""
    from botocore.config import Config

    return boto3.client("dynamodb", config=Config(**config), **engine.client_kwargs())


@pytest.fixture(scope="session")
def dynamodb_local_client_factory(dynamodb_local: DynamoDBLocal) -> Callable[..., Any]:
    """``factory(**config)``: a new client of the session's DynamoDB Local (``config``: botocore
    ``Config`` arguments, e.g. ``retries={"max_attempts": 1, "mode": "standard"}``)."""
    return functools.partial(local_client, dynamodb_local)


@pytest.fixture
def dynamodb_local_client(dynamodb_local: DynamoDBLocal) -> Any:
    return local_client(dynamodb_local)


@pytest.fixture(scope="module")
def dynamodb_local_tables(dynamodb_local: DynamoDBLocal) -> Iterator[dict[str, str]]:
    client = local_client(dynamodb_local)
    suffix = uuid.uuid4().hex[:8]
    names = {logical_id: f"{logical_id}-{suffix}" for logical_id in table_definitions()}
    create_tables(client, names, pitr=False)
    try:
        yield names
    finally:
        for name in names.values():
            client.delete_table(TableName=name)


@pytest.fixture
def dynamodb_local_stack(
    dynamodb_local: DynamoDBLocal, aws_env: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Stack]:
    from moto import mock_aws

    from baccarat_api import runtime

    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb_local.endpoint_url)
    suffix = uuid.uuid4().hex[:8]
    names = {logical_id: f"{logical_id}-{suffix}" for logical_id in table_definitions()}
    with mock_aws():  # KMS; DynamoDB's endpoint is DynamoDB Local's, which moto passes through
        made = provision(monkeypatch, names, pitr=False)
        try:
            yield made
        finally:
            runtime.reset()
            for name in names.values():
                made.dynamodb.delete_table(TableName=name)


@pytest.fixture
def dynamodb_local_api(dynamodb_local_stack: Stack) -> Api:
    return Api(dynamodb_local_stack.key_a)
