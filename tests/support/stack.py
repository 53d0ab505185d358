"""Fixtures of the API tests: moto in memory (``mock_aws``) provisioned like the stack (tables
created from template.yaml's own definitions, a KMS key, tiers from infra/tiers.json, two
operators' keys), and an ``api`` client that turns each request into a real API Gateway HTTP API
v2 event and invokes the Lambda handler of the function that serves the route in template.yaml."""

from __future__ import annotations

import base64
import copy
import functools
import importlib.util
import json
import logging
import re
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import botocore.loaders
import botocore.session
import moto.dynamodb.models
import moto.kms.models
import pytest
from moto import mock_aws
from moto.dynamodb.models.table import Table as MotoTable

from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.jobs.seed import add_operator_key, seed_tiers
from baccarat_dev.events import http_api_event, path_pattern, scheduled_event  # noqa: F401
from baccarat_dev.template import REPO_ROOT, Route, create_tables, routes

TABLE_NAMES = {"StateTable": "test-state", "ConfigTable": "test-config"}
TIERS = REPO_ROOT / "infra" / "tiers.json"

# Every ``mock_aws`` starts boto3 on a new default session, whose new loader reads and parses the
# service models again (≈ 0.1 s for DynamoDB's, every test). The loader only caches botocore's
# data files, so one per process serves every session alike.
botocore.session.create_loader = functools.cache(botocore.loaders.create_loader)  # type: ignore[assignment]


def _unused_key_pair(generate: Any) -> Any:
    """moto gives every symmetric KMS key an RSA-2048 key pair it never uses (≈ 0.2 s of CPU per
    key, so per test): one per process serves them all. Other key specs are generated as
    before."""
    shared = functools.cache(lambda: generate("SYMMETRIC_DEFAULT"))

    def generate_private_key(key_spec: str) -> Any:
        return shared() if key_spec == "SYMMETRIC_DEFAULT" else generate(key_spec)

    return generate_private_key


moto.kms.models.generate_private_key = _unused_key_pair(moto.kms.models.generate_private_key)


class _OneBackupPerTable:
    """moto backs a table up (a deep copy of every item) before EACH item of a transaction that
    names it, so a 5-item deal on a 300-item table costs a second and a shoe played to its end
    costs the square of its rounds. Inside ``transact_write_items`` a table is copied once (the
    copies were all of the same, unchanged table: the state before the transaction); everywhere
    else ``copy`` is the standard module."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        backups: dict[int, tuple[Any, Any]] | None = getattr(self._local, "backups", None)
        if backups is None or memo is not None or not isinstance(value, MotoTable):
            return copy.deepcopy(value, memo)
        if id(value) not in backups:
            backups[id(value)] = (value, copy.deepcopy(value))
        return backups[id(value)][1]

    def wrap(self, transact: Any) -> Any:
        @functools.wraps(transact)
        def transact_write_items(backend: Any, *args: Any, **kwargs: Any) -> Any:
            self._local.backups = {}
            try:
                return transact(backend, *args, **kwargs)
            finally:
                self._local.backups = None

        return transact_write_items


if isinstance(getattr(moto.dynamodb.models, "copy", None), type(copy)):
    _backups = _OneBackupPerTable()
    moto.dynamodb.models.copy = _backups  # type: ignore[assignment]
    moto.dynamodb.models.DynamoDBBackend.transact_write_items = _backups.wrap(
        moto.dynamodb.models.DynamoDBBackend.transact_write_items
    )


# --- real events (one builder: baccarat_dev.events; re-exported here for the tests) -------------


def make_due(dynamodb: Any, state_table: str, operator_id: str, table_id: str) -> None:
    """Move the first round of the table's first shoe past its settle-by time (rather than
    waiting for its deadline), so the auto-settlement sweep finds it due."""
    dynamodb.update_item(
        TableName=state_table,
        Key={
            "pk": {"S": f"OP#{operator_id}#TABLE#{table_id}"},
            "sk": {"S": "SHOE#000001#ROUND#00001"},
        },
        UpdateExpression="SET due_at = :past",
        ExpressionAttributeValues={":past": {"S": "2000-01-01T00:00:00.000Z"}},
    )


@dataclass
class LambdaContext:
    function_name: str = "test-function"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:test-function"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = "/baccarat/test/fn"
    log_stream_name: str = "stream"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


@dataclass
class Response:
    status: int
    body: Any
    headers: dict[str, str]
    function: str
    request_id: str
    #: The body as the handler answered it (text), and the handler's whole answer (what
    #: Lambda serialises: the body inside its proxy envelope).
    text: str = ""
    lambda_bytes: int = 0

    @property
    def error(self) -> dict[str, Any]:
        assert isinstance(self.body, dict) and "error" in self.body, self.body
        err = self.body["error"]
        assert isinstance(err, dict)
        return err


_MODULES: dict[str, ModuleType] = {}


def function_module(code_uri: str) -> ModuleType:
    """Import ``functions/<name>/app.py`` (each under its own module name)."""
    if code_uri not in _MODULES:
        path = REPO_ROOT / code_uri / "app.py"
        name = "lambda_" + Path(code_uri).name
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[code_uri] = module
    return _MODULES[code_uri]


#: Who sits down when a deal's bets name no seated bettor (a round nobody bets on still needs
#: the company seed 000 asks for: 兩人成局).
HOST = {"bettor_id": "host", "balance": 50_000, "level": 5}
HOST_SEAT = 7
_EXPLICIT_DEAL = re.compile(r"/v1/shoes/(tbl_[a-z0-9]+)_s[0-9]+/rounds")


def _company_left(r: Response) -> bool:
    return (
        r.status == 409
        and isinstance(r.body, dict)
        and (r.body.get("error", {}).get("code") == "company_required")
    )


class Api:
    """Requests in, v2 events through the Lambda handler of the route's function, responses out.

    An explicit deal (``POST /v1/shoes/{id}/rounds`` with ``bets``) refused ``409
    company_required`` (no explicit deal without the profile's company) is sent again once the
    presence it needs is reported, as an operator does it: the bets' seated bettors take their
    seats, the player-banker the banker seat, and when nobody sits, :data:`HOST` takes seat 7 —
    over HTTP (``present=False`` on the call, or ``report_presence=False`` here: the bare
    answer). Tests that count calls or compare state report the presence first
    (:meth:`present`)."""

    def __init__(self, key: str | None, *, report_presence: bool = True) -> None:
        self.key = key
        self.routes = routes()
        self.report_presence = report_presence
        #: table id → the bettors this client seated there (and "banker")
        self.seated: dict[str, set[str]] = {}

    def present(self, table_id: str, body: Any) -> None:
        """Report the presence an explicit deal's ``body`` implies at ``table_id`` (see above)."""
        done = self.seated.setdefault(table_id, set())
        bets = body.get("bets") if isinstance(body, dict) else None
        for b in bets if isinstance(bets, list) else []:
            if not isinstance(b, dict) or b.get("role") != "seated":
                continue
            who, seat, balance = b.get("bettor_id"), b.get("seat"), b.get("balance")
            if not (isinstance(who, str) and isinstance(seat, int) and isinstance(balance, int)):
                continue
            if who in done:
                continue
            sit = {"bettor_id": who, "balance": balance}
            if isinstance(b.get("level"), int):
                sit["level"] = b["level"]
            if self.call("PUT", f"/v1/tables/{table_id}/seats/{seat}", sit).status == 200:
                done.add(who)
        pb = body.get("player_banker") if isinstance(body, dict) else None
        if isinstance(pb, dict) and "banker" not in done:
            r = self.call("PUT", f"/v1/tables/{table_id}/banker", pb)
            if r.status == 200:
                done.add("banker")
        if not done - {"banker"}:
            r = self.call("PUT", f"/v1/tables/{table_id}/seats/{HOST_SEAT}", HOST)
            if r.status == 200:
                done.add(str(HOST["bettor_id"]))

    def route(self, method: str, path: str) -> Route:
        for r in self.routes:
            if r.method == method and re.fullmatch(path_pattern(r.path), path):
                return r
        raise AssertionError(f"no route {method} {path} in template.yaml")

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        key: str | bool | None = True,
        headers: dict[str, str] | None = None,
        raw_body: str | None = None,
        base64_body: bool = False,
        query: str = "",
        present: bool = True,
    ) -> Response:
        explicit = _EXPLICIT_DEAL.fullmatch(path)
        if not (present and self.report_presence and method == "POST"
                and isinstance(body, dict) and "bets" in body):  # fmt: skip
            explicit = None
        route = self.route(method, path)
        hdrs = dict(headers or {})
        token = self.key if key is True else key
        if token:
            hdrs["authorization"] = f"Bearer {token}"
        event = http_api_event(
            method,
            path,
            route,
            body=body,
            headers=hdrs,
            raw_body=raw_body,
            base64_body=base64_body,
            query=query,
        )
        stopped = self.gate(route, event)
        out = stopped if stopped is not None else self.invoke(route, event)
        if explicit and _company_left(out):
            # nobody (or no longer anybody: idle, a balance below the minimum) to deal for: the
            # company reported, then the same request again
            self.seated.pop(explicit.group(1), None)
            self.present(explicit.group(1), body)
            return self.call(method, path, body, key=key, headers=headers, raw_body=raw_body,
                             base64_body=base64_body, query=query, present=False)  # fmt: skip
        return out

    def gate(self, route: Route, event: dict[str, Any]) -> Response | None:
        """What stands in front of the function: a response that stops the request there, or
        ``None`` to pass it on (here, always; :class:`gateway.GatewayApi` adds the authorizer)."""
        return None

    def invoke(self, route: Route, event: dict[str, Any]) -> Response:
        """The route's Lambda handler on ``event``, its answer as a :class:`Response`."""
        handler = function_module(route.code_uri).handler
        out = handler(event, LambdaContext(function_name=route.function))
        assert set(out) >= {"statusCode", "headers", "body"}, out
        text = out["body"]
        if out.get("isBase64Encoded"):
            text = base64.b64decode(text).decode()
        return Response(
            status=out["statusCode"],
            body=json.loads(text) if text else None,
            headers=out["headers"],
            function=route.function,
            request_id=event["requestContext"]["requestId"],
            text=text,
            lambda_bytes=len(json.dumps(out).encode("utf-8")),
        )

    def get(self, path: str, **kw: Any) -> Response:
        return self.call("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Response:
        return self.call("POST", path, body, **kw)


# --- moto, provisioned like the stack ----------------------------------------------------------


@dataclass
class Stack:
    dynamodb: Any
    kms: Any
    repo: DynamoRepository
    key_a: str
    key_b: str
    kms_key_id: str


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AWS_PROFILE",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_DYNAMODB",
        "AWS_SESSION_TOKEN",
        "BACCARAT_STACK",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "baccarat-test")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "BaccaratTest")


def provision(
    monkeypatch: pytest.MonkeyPatch, names: dict[str, str], *, pitr: bool = True
) -> Stack:
    """Inside ``mock_aws``: the template's tables under ``names`` (on whatever DynamoDB the
    environment points at), a KMS key, the tiers, two operators' keys; the runtime pointed at
    them."""
    dynamodb = boto3.client("dynamodb")
    kms = boto3.client("kms")
    create_tables(dynamodb, names, pitr=pitr)
    key_id = kms.create_key(Description="test secrets")["KeyMetadata"]["Arn"]
    signing = kms.create_key(
        Description="test proof signing", KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY"
    )["KeyMetadata"]["Arn"]
    repo = DynamoRepository(dynamodb, names["StateTable"], names["ConfigTable"])
    seed_tiers(repo, TIERS)
    monkeypatch.setenv("STATE_TABLE", names["StateTable"])
    monkeypatch.setenv("CONFIG_TABLE", names["ConfigTable"])
    monkeypatch.setenv("KMS_KEY_ID", key_id)
    monkeypatch.setenv("SIGNING_KEY_ID", signing)
    runtime.reset()
    return Stack(
        dynamodb=dynamodb,
        kms=kms,
        repo=repo,
        key_a=add_operator_key(repo, "operator-a"),
        key_b=add_operator_key(repo, "operator-b"),
        kms_key_id=key_id,
    )


@pytest.fixture
def stack(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    with mock_aws():
        yield provision(monkeypatch, TABLE_NAMES)
        runtime.reset()


@pytest.fixture
def api(stack: Stack) -> Api:
    return Api(stack.key_a)


@pytest.fixture
def logs() -> Iterator[list[str]]:
    """Every line the service's powertools logger writes during the test (JSON, formatted as in
    Lambda), whatever pytest does with stdout."""
    from baccarat_api.observability import logger

    class Lines(logging.Handler):
        def __init__(self, sink: list[str]) -> None:
            super().__init__()
            self.sink = sink

        def emit(self, record: logging.LogRecord) -> None:
            self.sink.append(self.format(record))

    lines: list[str] = []
    handler = Lines(lines)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)


# --- helpers for the flows ---------------------------------------------------------------------


def star_city_bets() -> list[dict[str, Any]]:
    """A valid star-city (fun tier) round: two seated bettors."""
    return [
        {
            "bettor_id": "alice",
            "role": "seated",
            "seat": 1,
            "type": "banker",
            "amount": 2000,
            "balance": 50_000,
            "level": 3,
        },
        {
            "bettor_id": "alice",
            "role": "seated",
            "seat": 1,
            "type": "tie",
            "amount": 100,
            "balance": 50_000,
            "level": 3,
        },
        {
            "bettor_id": "bob",
            "role": "seated",
            "seat": 2,
            "type": "player",
            "amount": 1000,
            "balance": 20_000,
        },
    ]


def proof_pages(api: Api, shoe_id: str) -> list[dict[str, Any]]:
    """Every page of the shoe's served proof (no key), following each page's ``next``."""
    pages: list[dict[str, Any]] = []
    path, query = f"/v1/shoes/{shoe_id}/proof", ""
    while True:
        r = api.call("GET", path, key=None, query=query)
        assert r.status == 200 and r.function == "ReadFunction", (r.status, r.body)
        pages.append(r.body)
        nxt = r.body["page"]["next"]
        if nxt is None:
            return pages
        path, query = nxt.split("?", 1)


def signing_keys(api: Api) -> dict[str, Any]:
    """``GET /v1/signing-keys`` (no key)."""
    r = api.get("/v1/signing-keys", key=None)
    assert r.status == 200, r.body
    keys: dict[str, Any] = r.body
    return keys


def verified_proof(api: Api, shoe_id: str) -> tuple[Any, list[dict[str, Any]]]:
    """The served proof's verdict (every page, the signing keys the API serves) and its pages."""
    from baccarat.verify import verify
    from baccarat_verify import es256

    pages = proof_pages(api, shoe_id)
    return verify(pages, keys=signing_keys(api), signature_check=es256.check), pages


def new_table(api: Api, **fields: Any) -> str:
    """A table opened over HTTP (star-city at its first tier, house-banked, unless ``fields``
    say otherwise; bid-squeeze defaults to its standard tier): its id. Without a squeeze
    (``squeeze_seconds: 0``: every card shown at the deal, so a round may be settled at once)
    unless ``fields`` give one."""
    profile = fields.get("profile", "star-city")
    tier = "star-city-fun" if profile == "star-city" else "bid-squeeze-standard"
    body = {"profile": profile, "tier": tier, "banking": "house", "squeeze_seconds": 0, **fields}
    out = api.post("/v1/tables", body)
    assert out.status == 201, out.body
    return str(out.body["table_id"])


def new_shoe(api: Api, table_id: str, seed: str = "seed") -> str:
    """A shoe committed at ``table_id`` over HTTP: its id."""
    out = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": seed})
    assert out.status == 201, out.body
    return str(out.body["shoe_id"])


def open_shoe(api: Api, profile: str = "star-city", tier: str = "star-city-fun") -> str:
    return new_shoe(api, new_table(api, profile=profile, tier=tier))
