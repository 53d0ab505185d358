"""What the API sections of `make bench` share: the Lambda functions of template.yaml (their
code, handler, environment and events), real events for them, and moto — in memory (``mock_aws``)
or as a server on loopback (``make run``'s own :func:`baccarat_dev.local.start_local_aws`).

Requests are turned into events by the tests' own builder (``tests/support/stack.py``:
``http_api_event``, a real API Gateway HTTP API v2 event), so the bench exercises exactly what the
tests do."""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from baccarat_dev.template import REPO_ROOT, Route, load, routes

TIERS = REPO_ROOT / "infra" / "tiers.json"
#: Lambda's own variables for an invocation (the trace header is not sampled: nothing is sent).
LAMBDA_ENV = {
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "_X_AMZN_TRACE_ID": (
        "Root=1-65f0c0de-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=0"
    ),
    "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
}


@dataclass(frozen=True)
class Function:
    """One ``AWS::Serverless::Function`` of template.yaml whose code is under functions/."""

    logical_id: str
    code_uri: str
    handler: str
    env: dict[str, Any]
    routes: tuple[Route, ...]
    event_types: tuple[str, ...]

    @property
    def code_dir(self) -> Path:
        return REPO_ROOT / self.code_uri

    @property
    def is_authorizer(self) -> bool:
        return not self.routes and "authoriz" in self.logical_id.lower()

    @property
    def is_scheduled(self) -> bool:
        return not self.routes and "Schedule" in self.event_types


@cache
def _template() -> dict[str, Any]:
    return load()


def functions() -> list[Function]:
    t = _template()
    glob = t["Globals"]["Function"]
    by_fn: dict[str, list[Route]] = {}
    for r in _routes():
        by_fn.setdefault(r.function, []).append(r)
    out = []
    for logical_id, res in t["Resources"].items():
        if res.get("Type") != "AWS::Serverless::Function":
            continue
        props = res["Properties"]
        code_uri = str(props["CodeUri"])
        if not code_uri.startswith("functions/"):
            continue
        env = dict(glob.get("Environment", {}).get("Variables", {}))
        env.update(props.get("Environment", {}).get("Variables", {}))
        out.append(
            Function(
                logical_id=logical_id,
                code_uri=code_uri,
                handler=str(props.get("Handler", glob["Handler"])),
                env=env,
                routes=tuple(by_fn.get(logical_id, ())),
                event_types=tuple(e.get("Type", "") for e in props.get("Events", {}).values()),
            )
        )
    return out


def resolve_env(fn: Function, names: dict[str, str], kms_key_arn: str) -> dict[str, str]:
    """The function's environment as deployed, with the stack's references resolved."""
    refs = {**names, "Stage": "bench"}
    env: dict[str, str] = {}
    for name, value in fn.env.items():
        if isinstance(value, str | int | float):
            env[name] = str(value)
        elif isinstance(value, dict) and "Ref" in value and value["Ref"] in refs:
            env[name] = refs[value["Ref"]]
        elif value == {"Fn::GetAtt": ["SecretsKey", "Arn"]}:
            env[name] = kms_key_arn
        elif isinstance(value, dict) and "Ref" in value:
            env[name] = _parameter_default(value["Ref"])
        # anything else (an ARN of another resource) is left out: the bench cannot resolve it
    return env


def _parameter_default(name: str) -> str:
    return str(_template().get("Parameters", {}).get(name, {}).get("Default", ""))


@cache
def _routes() -> tuple[Route, ...]:
    return tuple(routes())  # template.yaml parsed once (PyYAML is slow)


def route_of(method: str, path: str) -> Route:
    for r in _routes():
        if r.method == method and re.fullmatch(re.sub(r"{\w+}", "[^/]+", r.path), path):
            return r
    raise LookupError(f"no route {method} {path} in template.yaml")


def http_event(
    method: str,
    path: str,
    body: Any = None,
    *,
    key: str | None = None,
    operator_id: str | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A real HTTP API v2 event for ``method path``. With ``operator_id``, the event also carries
    what the Lambda authorizer hands over (``requestContext.authorizer.lambda``), as deployed."""
    from tests.support.stack import http_api_event

    hdrs = dict(headers or {})
    if key:
        hdrs["authorization"] = f"Bearer {key}"
    event = http_api_event(method, path, route_of(method, path), body=body, headers=hdrs)
    if operator_id is not None:
        event["requestContext"]["authorizer"] = {"lambda": {"operator_id": operator_id}}
    return event


def authorizer_event(key: str) -> dict[str, Any]:
    """The HTTP API authorizer (payload 2.0, REQUEST) event for a request with ``key``."""
    request = http_event("GET", "/v1/tiers", key=key)
    try:
        from tests.support.gateway import authorizer_event as build
    except ImportError:  # the authorizer's test helper is not there: the same shape by hand
        return {
            "version": "2.0",
            "type": "REQUEST",
            "identitySource": [request["headers"]["authorization"]],
            **{k: request[k] for k in ("routeKey", "rawPath", "rawQueryString", "headers")},
            "requestContext": request["requestContext"],
        }
    event: dict[str, Any] = build(request)
    return event


def scheduled_event() -> dict[str, Any]:
    """An EventBridge scheduled event (the tests' own builder)."""
    from tests.support.stack import scheduled_event as build

    return build()


def LambdaContext(function_name: str = "bench-function") -> Any:
    """A Lambda context object (the tests' own stand-in)."""
    from tests.support.stack import LambdaContext as Context

    return Context(function_name=function_name)


# --- moto ---------------------------------------------------------------------------------


@dataclass
class LocalAws:
    """moto provisioned like the stack: table names, the KMS key, an operator and its key."""

    names: dict[str, str]
    kms_key_arn: str
    operator_id: str
    key: str
    endpoint_url: str | None = None


_AWS_VARS = (
    "AWS_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_DYNAMODB",
)


@contextmanager
def _env(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in (*values, *_AWS_VARS, "STATE_TABLE", "CONFIG_TABLE")}
    saved["KMS_KEY_ID"] = os.environ.get("KMS_KEY_ID")
    saved["SIGNING_KEY_ID"] = os.environ.get("SIGNING_KEY_ID")
    for k in _AWS_VARS:
        os.environ.pop(k, None)
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


_QUIET = {
    "POWERTOOLS_SERVICE_NAME": "baccarat-bench",
    "POWERTOOLS_METRICS_NAMESPACE": "BaccaratBench",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@contextmanager
def moto_in_memory() -> Iterator[LocalAws]:
    """moto in this process (``mock_aws``), provisioned as the tests' ``stack`` fixture is."""
    import boto3
    from moto import mock_aws

    from baccarat_api import runtime
    from baccarat_api.adapters.dynamodb.repository import DynamoRepository
    from baccarat_api.jobs.seed import add_operator_key, seed_tiers
    from baccarat_dev.template import create_tables

    names = {"StateTable": "bench-state", "ConfigTable": "bench-config"}
    with _env(_QUIET), mock_aws():
        dynamodb = boto3.client("dynamodb")
        create_tables(dynamodb, names)
        arn = boto3.client("kms").create_key(Description="bench")["KeyMetadata"]["Arn"]
        repo = DynamoRepository(dynamodb, names["StateTable"], names["ConfigTable"])
        seed_tiers(repo, TIERS)
        key = add_operator_key(repo, "bench-operator")
        os.environ.update(
            {"STATE_TABLE": names["StateTable"], "CONFIG_TABLE": names["ConfigTable"]}
        )
        os.environ["KMS_KEY_ID"] = arn
        signing = boto3.client("kms").create_key(
            Description="bench proof signing", KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY"
        )["KeyMetadata"]["Arn"]
        os.environ["SIGNING_KEY_ID"] = signing  # the proof's signature (final proofs)
        runtime.reset()
        try:
            yield LocalAws(names, arn, "bench-operator", key)
        finally:
            runtime.reset()


@contextmanager
def moto_server() -> Iterator[LocalAws]:
    """moto's server (DynamoDB and KMS: one endpoint for the cold-started children) on a free
    loopback port, provisioned by ``make run``'s own code."""
    from baccarat_api import runtime
    from baccarat_dev.local import DEMO_OPERATOR, LOCAL_TABLES, start_local_aws

    with _env(_QUIET):
        server, key = start_local_aws(TIERS, backend="moto")
        try:
            yield LocalAws(
                dict(LOCAL_TABLES),
                os.environ["KMS_KEY_ID"],
                DEMO_OPERATOR,
                key,
                endpoint_url=os.environ["AWS_ENDPOINT_URL"],
            )
        finally:
            runtime.reset()
            server.stop()


# --- figures ------------------------------------------------------------------------------


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0–100) of non-empty ``samples``."""
    ordered = sorted(samples)
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:7.1f} ms"
