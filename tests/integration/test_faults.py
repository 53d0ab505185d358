"""Faults: every DynamoDB and KMS call of every write path fails in turn.

A fault-injecting wrapper sits between the service and its boto3 clients (above botocore's own
retries: what it raises is what reaches the service after them). For each write path (create a
table, commit a shoe, deal, settle, close, void) × each call it makes × each fault:

* ``throttle``: ``ProvisionedThroughputExceededException`` (DynamoDB) / ``ThrottlingException``
  (KMS);
* ``conflict``: ``TransactionCanceledException`` with a ``TransactionConflict`` reason (on the
  transaction);
* ``read_timeout`` / ``no_connection``: botocore ``ReadTimeoutError`` / ``EndpointConnectionError``;
* ``crash``: the process dies between computing and committing (raised at the commit, before
  anything is sent; the client gets the gateway's 5xx, nothing of ours);
* ``lost_response``: the commit IS applied, then the response is lost (a read timeout after
  botocore's retries);
* ``lost_then_refused``: the commit IS applied, the response is lost, and the re-sent request
  (botocore's retry, which moto answers without honouring the token) fails its conditions.

After each fault that left the write unapplied: the client got a clear retryable 503
``unavailable`` in the error envelope (a crash gets nothing), the tables hold byte-for-byte what
they held before, and the retry succeeds with the same cards. After a lost response — with or
without an ``Idempotency-Key`` — the write re-reads what it wrote, finds its own write id there
and answers the committed result at once: no error, exactly the whole effect, once (with a key,
a retry then replays it and writes nothing). A write whose outcome is unknown costs that one
re-read (a GetItem; a shoe's, with its constants' item, a BatchGetItem). Every path runs with
an ``Idempotency-Key`` (every call of it) and without."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from moto import mock_aws
from support.stack import (
    TABLE_NAMES,
    TIERS,
    Api,
    LambdaContext,
    Response,
    Stack,
    function_module,
    http_api_event,
    star_city_bets,
    verified_proof,
)

from baccarat.fairness import derive_shoe
from baccarat.rules import ShoeRules
from baccarat_api import runtime
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.ids import parse_shoe_id
from baccarat_api.jobs.seed import add_operator_key, seed_tiers
from baccarat_api.ports.vault import shoe_context
from baccarat_dev.template import create_tables

TABLE = {"squeeze_seconds": 0, "profile": "star-city", "tier": "star-city-fun", "banking": "house"}


@dataclass
class World:
    dynamodb: Any
    kms: Any
    kms_key_id: str


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    """One moto (and one KMS key) for the module: the matrix has over a hundred cases."""
    with pytest.MonkeyPatch.context() as mp, mock_aws():
        for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN", "BACCARAT_STACK"):
            mp.delenv(name, raising=False)
        for name, value in {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "POWERTOOLS_SERVICE_NAME": "baccarat-test",
            "POWERTOOLS_METRICS_NAMESPACE": "BaccaratTest",
            "RATE_LIMIT_PER_SECOND": "0",
            "AUTH_CACHE_SECONDS": "3600",  # warm: a key looked up once stays cached
        }.items():
            mp.setenv(name, value)
        kms = boto3.client("kms")
        key_id = kms.create_key(Description="test secrets")["KeyMetadata"]["Arn"]
        mp.setenv("KMS_KEY_ID", key_id)
        signing = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]
        mp.setenv("SIGNING_KEY_ID", signing["Arn"])
        yield World(dynamodb=boto3.client("dynamodb"), kms=kms, kms_key_id=key_id)
        runtime.reset()


@pytest.fixture
def stack(world: World, monkeypatch: pytest.MonkeyPatch) -> Stack:
    """Fresh tables (from the template) for each case, so "the state" is exactly this case's:
    both tables are compared whole, item by item, before and after the fault."""
    suffix = uuid.uuid4().hex[:8]
    names = {logical: f"{name}-{suffix}" for logical, name in TABLE_NAMES.items()}
    create_tables(world.dynamodb, names)
    monkeypatch.setenv("STATE_TABLE", names["StateTable"])
    monkeypatch.setenv("CONFIG_TABLE", names["ConfigTable"])
    repo = DynamoRepository(world.dynamodb, names["StateTable"], names["ConfigTable"])
    seed_tiers(repo, TIERS)
    runtime.reset()
    return Stack(
        dynamodb=world.dynamodb,
        kms=world.kms,
        repo=repo,
        key_a=add_operator_key(repo, "operator-a"),
        key_b=add_operator_key(repo, "operator-b"),
        kms_key_id=world.kms_key_id,
    )


class CrashedApi(Api):
    """The raw Lambda answer (a crashed invocation has no JSON body of ours)."""

    def call(self, method: str, path: str, body: Any = None, **kw: Any) -> Response:
        route = self.route(method, path)
        headers = {**kw.get("headers", {}), "authorization": f"Bearer {self.key}"}
        event = http_api_event(method, path, route, body=body, headers=headers)
        handler = function_module(route.code_uri).handler
        out = handler(event, LambdaContext(function_name=route.function))
        return Response(
            status=out["statusCode"],
            body=out.get("body"),
            headers=out.get("headers", {}),
            function=route.function,
            request_id=event["requestContext"]["requestId"],
        )


class Crash(BaseException):
    """The process dies (Lambda timeout, out of memory, a kill): nothing after it runs. A
    BaseException, so no handler of the app turns it into an answer of ours."""


# --- the fault-injecting client wrapper ----------------------------------------------------


@dataclass
class Plan:
    """Which call (by index, counting every DynamoDB and KMS call) fails, and how."""

    fail_at: int | None
    kind: str
    seen: list[tuple[str, str]] = field(default_factory=list)

    def invoke(self, service: str, op: str, fn: Callable[..., Any], kwargs: Any) -> Any:
        index = len(self.seen)
        self.seen.append((service, op))
        if index != self.fail_at:
            return fn(**kwargs)
        endpoint = f"https://{service}.us-east-1.amazonaws.com"
        if self.kind == "throttle":
            code = "ProvisionedThroughputExceededException" if service == "dynamodb" else (
                "ThrottlingException"
            )  # fmt: skip
            raise ClientError({"Error": {"Code": code, "Message": "injected"}}, op)
        if self.kind == "conflict":
            items = kwargs["TransactItems"]
            reasons = [{"Code": "None"}] * (len(items) - 1) + [{"Code": "TransactionConflict"}]
            raise ClientError(
                {
                    "Error": {"Code": "TransactionCanceledException", "Message": "injected"},
                    "CancellationReasons": reasons,
                },
                op,
            )
        if self.kind == "read_timeout":
            raise ReadTimeoutError(endpoint_url=endpoint)
        if self.kind == "no_connection":
            raise EndpointConnectionError(endpoint_url=endpoint)
        if self.kind == "crash":
            raise Crash(f"killed before {op}")
        if self.kind == "lost_response":
            fn(**kwargs)  # applied ...
            raise ReadTimeoutError(endpoint_url=endpoint)  # ... but the answer never came
        if self.kind == "lost_then_refused":
            fn(**kwargs)  # applied, the answer lost; botocore sends it again (the same token):
            return fn(**kwargs)  # moto ignores tokens, so its conditions fail now
        raise AssertionError(self.kind)


class Faulty:
    """A boto3 client whose API calls go through a :class:`Plan`."""

    def __init__(self, real: Any, service: str, plan: Plan) -> None:
        self._real, self._service, self._plan = real, service, plan

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if name.startswith("_") or name in ("meta", "exceptions") or not callable(attr):
            return attr

        def call(**kwargs: Any) -> Any:
            op = self._real.meta.method_to_api_mapping.get(name, name)
            return self._plan.invoke(self._service, op, attr, kwargs)

        return call


def install(plan: Plan) -> None:
    """Route the container's DynamoDB and KMS calls through ``plan`` (cold shoe cache, so the
    KMS ``Decrypt`` of a deal is one of the calls)."""
    rt = runtime.get_runtime()
    rt.repo.client = Faulty(rt.dynamodb, "dynamodb", plan)  # type: ignore[assignment]
    rt.vault.client = Faulty(rt.kms, "kms", plan)  # type: ignore[assignment]
    rt.shoes.clear()


def uninstall() -> None:
    rt = runtime.get_runtime()
    rt.repo.client = rt.dynamodb
    rt.vault.client = rt.kms


# --- the write paths -------------------------------------------------------------------------


def expected_round(stack: Stack, shoe_id: str, number: int) -> dict[str, Any]:
    """Round ``number`` of the shoe as bacc-pf-v1 deals it (the test decrypts the secret)."""
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    shoe = runtime.get_runtime().repo.get_shoe("operator-a", ref)
    assert shoe is not None
    secret = stack.kms.decrypt(
        CiphertextBlob=shoe.secret_ct,
        EncryptionContext=shoe_context("operator-a", shoe.table_id, shoe.shoe_number),
    )["Plaintext"]
    rnd = derive_shoe(
        secret, shoe.client_seed, shoe.shoe_number, ShoeRules.from_dict(shoe.rules)
    ).rounds
    return rnd[number - 1].facts()


def new_shoe(api: Api) -> tuple[str, str]:
    table_id = api.post("/v1/tables", TABLE).body["table_id"]
    shoe_id = api.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "faults"}).body["shoe_id"]
    api.present(table_id, {"bets": star_city_bets()})  # the deal's company, before any fault
    return table_id, shoe_id


@dataclass
class WritePath:
    setup: Callable[[Api], dict[str, Any]]
    call: Callable[[Api, dict[str, Any], dict[str, str]], Response]
    check: Callable[[Api, Stack, dict[str, Any], dict[str, Any]], None]
    #: the calls it makes with an Idempotency-Key (cold shoe cache), and without one
    keyed: list[tuple[str, str]]
    bare: list[tuple[str, str]]
    #: how it re-reads its primary item: one GetItem — a shoe, with its constants' item, one
    #: BatchGetItem
    reread: str = "GetItem"
    #: the call that draws a table number from the operator's counter (an atomic increment,
    #: not the commit): a fault there or after it may leave the counter moved by one — that
    #: number unused (docs/storage.md) — and nothing else
    drawn_at: int | None = None


def _table_ok(api: Api, stack: Stack, ctx: dict[str, Any], body: dict[str, Any]) -> None:
    assert api.get(f"/v1/tables/{body['table_id']}").body == body
    assert api.get(f"/v1/tables/{body['table_id']}/audit").body["verified"]


def _shoe_ok(api: Api, stack: Stack, ctx: dict[str, Any], body: dict[str, Any]) -> None:
    assert body["shoe_id"] == f"{ctx['table_id']}_s1"  # the failed attempt used up nothing
    dealt = api.post(f"/v1/shoes/{body['shoe_id']}/rounds", {"bets": []}).body
    assert dealt["player"] == expected_round(stack, body["shoe_id"], 1)["player"]


def _round_ok(api: Api, stack: Stack, ctx: dict[str, Any], body: dict[str, Any]) -> None:
    want = expected_round(stack, ctx["shoe_id"], 1)
    assert body["round_number"] == 1 and body["start"] == want["start"]
    assert (body["player"], body["banker"]) == (want["player"], want["banker"])
    assert api.get(f"/v1/shoes/{ctx['shoe_id']}").body["rounds_dealt"] == 1
    assert api.get(f"/v1/tables/{ctx['table_id']}/audit").body["verified"]


def _settlement_ok(api: Api, stack: Stack, ctx: dict[str, Any], body: dict[str, Any]) -> None:
    stored = api.get(f"/v1/rounds/{ctx['round_id']}").body
    assert stored["settlement"] == body and body["voided"] is False
    assert stored["player"] == ctx["round"]["player"]  # the same cards
    assert sum(body["nets"].values()) + body["house"]["take"] == 0
    assert api.get(f"/v1/tables/{ctx['table_id']}/audit").body["verified"]


def _closed_ok(api: Api, stack: Stack, ctx: dict[str, Any], body: dict[str, Any]) -> None:
    assert body["status"] == "ended" and body["rounds_dealt"] == 1
    pending = api.get(f"/v1/shoes/{ctx['shoe_id']}/proof", key=None)  # round 1 not settled yet
    assert pending.status == 409 and pending.error["details"]["unresolved_rounds"] == [1]
    assert api.post(f"/v1/rounds/{ctx['round_id']}/settlement").status == 200
    verdict, (proof,) = verified_proof(api, ctx["shoe_id"])
    assert verdict.ok, verdict.mismatches
    assert proof["rounds"][0]["player"] == ctx["round"]["player"]["cards"]
    assert api.get(f"/v1/tables/{ctx['table_id']}").body["open_shoe_id"] is None


def _void_ok(api: Api, stack: Stack, ctx: dict[str, Any], body: dict[str, Any]) -> None:
    assert body["voided"] is True and all(line["net"] == 0 for line in body["lines"])
    assert api.get(f"/v1/rounds/{ctx['round_id']}").body["settlement"] == body


def _with_round(api: Api) -> dict[str, Any]:
    table_id, shoe_id = new_shoe(api)
    rnd = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()}).body
    return {"table_id": table_id, "shoe_id": shoe_id, "round_id": rnd["round_id"], "round": rnd}


DDB, KMS, TRANSACT, GDK = "dynamodb", "kms", "TransactWriteItems", "GenerateDataKey"
PATHS: dict[str, WritePath] = {
    "create table": WritePath(
        setup=lambda api: {},
        call=lambda api, ctx, h: api.post("/v1/tables", TABLE, headers=h),
        check=_table_ok,
        # the tier (and the key's record); the table's number drawn from the operator's
        # counter; the table + fairness totals + its number's claim, one transaction
        keyed=[(DDB, "BatchGetItem"), (KMS, GDK), (KMS, GDK), (DDB, "UpdateItem"), (DDB, TRANSACT)],
        bare=[(DDB, "GetItem"), (KMS, GDK), (KMS, GDK), (DDB, "UpdateItem"), (DDB, TRANSACT)],
        drawn_at=3,
    ),
    "commit shoe": WritePath(
        setup=lambda api: {"table_id": api.post("/v1/tables", TABLE).body["table_id"]},
        call=lambda api, ctx, h: api.post(
            f"/v1/tables/{ctx['table_id']}/shoes", {"client_seed": "faults"}, headers=h
        ),
        check=_shoe_ok,
        keyed=[(DDB, "BatchGetItem"), (KMS, "Decrypt"), (KMS, "Encrypt"), (DDB, TRANSACT)],
        bare=[(DDB, "BatchGetItem"), (KMS, "Decrypt"), (KMS, "Encrypt"), (DDB, TRANSACT)],
        reread="BatchGetItem",
    ),
    "deal": WritePath(
        setup=lambda api: dict(zip(("table_id", "shoe_id"), new_shoe(api), strict=True)),
        call=lambda api, ctx, h: api.post(
            f"/v1/shoes/{ctx['shoe_id']}/rounds", {"bets": star_city_bets()}, headers=h
        ),
        check=_round_ok,
        keyed=[(DDB, "BatchGetItem"), (KMS, "Decrypt"), (KMS, "Decrypt"), (DDB, TRANSACT)],
        bare=[(DDB, "BatchGetItem"), (KMS, "Decrypt"), (KMS, "Decrypt"), (DDB, TRANSACT)],
    ),
    "settle": WritePath(
        setup=_with_round,
        call=lambda api, ctx, h: api.post(f"/v1/rounds/{ctx['round_id']}/settlement", headers=h),
        check=_settlement_ok,
        keyed=[(DDB, "BatchGetItem"), (DDB, "TransactWriteItems")],
        bare=[(DDB, "BatchGetItem"), (DDB, "TransactWriteItems")],
    ),
    "close": WritePath(
        setup=_with_round,
        call=lambda api, ctx, h: api.post(f"/v1/shoes/{ctx['shoe_id']}/close", headers=h),
        check=_closed_ok,
        # + the shoe's last round (GetItem): is a card of it face down?
        keyed=[(DDB, "BatchGetItem"), (DDB, "GetItem"), (KMS, "Decrypt"), (DDB, TRANSACT)],
        bare=[(DDB, "BatchGetItem"), (DDB, "GetItem"), (KMS, "Decrypt"), (DDB, TRANSACT)],
        reread="BatchGetItem",
    ),
    "void": WritePath(
        setup=_with_round,
        call=lambda api, ctx, h: api.post(
            f"/v1/rounds/{ctx['round_id']}/void", {"reason": "misdeal"}, headers=h
        ),
        check=_void_ok,
        keyed=[(DDB, "BatchGetItem"), (DDB, "TransactWriteItems")],
        bare=[(DDB, "BatchGetItem"), (DDB, "TransactWriteItems")],
    ),
}  # fmt: skip

LOST = ("lost_response", "lost_then_refused")
KINDS = ("throttle", "conflict", "read_timeout", "no_connection", "crash", *LOST)
BARE_KINDS = ("throttle", "read_timeout", "crash", *LOST)
WRITES = ("TransactWriteItems", "PutItem", "UpdateItem")


def _cases() -> list[Any]:
    cases = []
    for name, path in PATHS.items():
        for keyed, calls, kinds in ((True, path.keyed, KINDS), (False, path.bare, BARE_KINDS)):
            for index, (service, op) in enumerate(calls):
                for kind in kinds:
                    if kind == "conflict" and op != "TransactWriteItems":
                        continue  # a transaction's cancellation reason
                    if kind in ("crash", *LOST) and op not in WRITES:
                        continue  # between computing and committing / after committing
                    if kind in LOST and index == path.drawn_at:
                        continue  # an increment's lost answer is an error like a timeout
                    label = f"{name}-{'key' if keyed else 'nokey'}-{index}:{service}.{op}-{kind}"
                    cases.append(pytest.param(name, keyed, index, kind, id=label))
    return cases


def state(stack: Stack) -> list[dict[str, Any]]:
    """Every item of both tables (all pages), in key order."""
    out = []
    for table in (stack.repo.state, stack.repo.config):
        items: list[dict[str, Any]] = []
        args: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
        while True:
            page = stack.dynamodb.scan(**args)
            items += page["Items"]
            if "LastEvaluatedKey" not in page:
                break
            args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        out += sorted(items, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))
    return out


def _drawn(after: list[dict[str, Any]], before: list[dict[str, Any]], path: WritePath) -> Any:
    """``after`` with the operator's number counter as it was ``before`` — when the path draws
    a number and the failed request moved the counter by exactly one (else ``after``)."""
    if path.drawn_at is None:
        return after

    def counter(items: list[dict[str, Any]]) -> int:
        found = [i for i in items if i["pk"]["S"].endswith("#TABLENO") and i["sk"]["S"] == "LAST"]
        return int(found[0]["last"]["N"]) if found else 0

    if counter(after) - counter(before) != 1:
        return after
    rest = [i for i in after if not (i["pk"]["S"].endswith("#TABLENO") and i["sk"]["S"] == "LAST")]
    old = [i for i in before if i["pk"]["S"].endswith("#TABLENO") and i["sk"]["S"] == "LAST"]
    return sorted(rest + old, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))


def _rereads(path_name: str, keyed: bool, op: str, kind: str) -> bool:
    """Whether the write re-reads its primary item after this fault (one read): when its
    outcome is unknown, or when it lost its conditions without the winner coming back with the
    failure (a settlement or void brings the round back in the same call)."""
    if op not in WRITES:
        return False
    if kind in ("read_timeout", "no_connection", "lost_response"):
        return True
    return kind == "lost_then_refused" and path_name not in ("settle", "void")


@pytest.mark.parametrize(("path_name", "keyed", "index", "kind"), _cases())
def test_a_fault_leaves_no_partial_state_and_the_retry_succeeds(
    api: Api, stack: Stack, path_name: str, keyed: bool, index: int, kind: str
) -> None:
    path = PATHS[path_name]
    ctx = path.setup(api)
    api.get("/v1/tiers")  # a warm container: the operator key is cached
    headers = {"Idempotency-Key": f"fault-{uuid.uuid4()}"} if keyed else {}
    calls = path.keyed if keyed else path.bare
    before = state(stack)
    plan = Plan(fail_at=index, kind=kind)
    install(plan)
    try:
        if kind == "crash":
            # the invocation dies: Lambda reports a function error and API Gateway answers
            # its own 5xx (here mangum's last-resort 500); nothing of ours ran after the crash
            crashed = path.call(CrashedApi(stack.key_a), ctx, headers)
            assert crashed.status >= 500 and "error" not in str(crashed.body)
        elif kind in LOST:
            # the write happened: it finds its own write id and answers the committed result
            answered = path.call(api, ctx, headers)
            assert answered.status in (200, 201), answered.body
        else:
            failed = path.call(api, ctx, headers)
            assert failed.status == 503, failed.body
            assert failed.error["code"] == "unavailable" and failed.error["retryable"] is True
            assert failed.error["request_id"] == failed.request_id
        rereads = index != path.drawn_at and _rereads(path_name, keyed, calls[index][1], kind)
        reread = [(DDB, path.reread)] if rereads else []
        assert plan.seen == calls[: index + 1] + reread, "the fault did not hit the intended call"
    finally:
        uninstall()

    after = state(stack)
    if kind in LOST:
        assert after != before  # the whole effect is there, once (checked through the API)
        if keyed:  # a retry with the key replays the answer and writes nothing
            retry = path.call(api, ctx, headers)
            assert retry.status == answered.status and retry.body == answered.body
            assert retry.headers.get("idempotent-replayed") == "true"
            assert state(stack) == after
        path.check(api, stack, ctx, answered.body)
        return
    assert _drawn(after, before, path) == before, "a failed request left partial state"

    plan = Plan(fail_at=None, kind="none")
    install(plan)  # the same wrapper, no fault: the retry's calls are counted too
    try:
        retry = path.call(api, ctx, headers)
    finally:
        uninstall()
    assert retry.status in (200, 201), retry.body
    assert plan.seen == calls
    path.check(api, stack, ctx, retry.body)


def test_the_matrix_covers_every_call_of_every_write_path() -> None:
    cases = {(c.values[0], c.values[1], c.values[2], c.values[3]) for c in _cases()}
    for name, path in PATHS.items():
        for index in range(len(path.keyed)):
            for kind in ("throttle", "read_timeout", "no_connection"):
                assert (name, True, index, kind) in cases
        last = len(path.keyed) - 1
        for kind in ("conflict", "crash", *LOST):
            assert (name, True, last, kind) in cases
        for kind in ("crash", *LOST):
            assert (name, False, len(path.bare) - 1, kind) in cases
    assert len(cases) > 100
