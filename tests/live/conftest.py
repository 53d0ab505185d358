"""Live tier: the local server (uvicorn in front of DynamoDB Local, moto's server for KMS, on
loopback) under real concurrency, schemathesis and a real browser. Fixtures in
:mod:`support.stack` and :mod:`support.dynamodb_local`."""

from __future__ import annotations

import os
from typing import Any

import pytest
from support.dynamodb_local import (  # noqa: F401  (the fixtures)
    dynamodb_local,
    dynamodb_local_api,
    dynamodb_local_client,
    dynamodb_local_client_factory,
    dynamodb_local_stack,
    dynamodb_local_tables,
)
from support.stack import api, aws_env, logs, stack  # noqa: F401  (the fixtures)


@pytest.fixture(scope="module")
def shared_dynamodb(request: pytest.FixtureRequest) -> Any:
    """The worker's DynamoDB Local for ``local_server(dynamodb=…)`` (one java per pytest worker,
    not one per server), or ``None`` with ``BACKEND=moto`` (the server then runs all on moto)."""
    if os.environ.get("BACKEND", "").strip().lower() == "moto":
        return None
    return request.getfixturevalue("dynamodb_local")
