"""``sam build`` packages every function with all it imports (this stands in for
``sam local invoke``, which needs Docker).

Builds the template for this machine's architecture and slims a copy as ``make build`` does
(scripts/slim_build.py), then runs each built function from
``.aws-sam/test-build-<arch>-slim/<Function>`` in a CLEAN interpreter: no site-packages (``-S -s``),
nothing of the repository, ``PYTHONPATH`` = the function's build dir and the two built layers
only (as Lambda puts /var/task and /opt/python on the path). It is handed a real event and the
function's environment from the template, with Lambda's variables set (so Tracer really loads
the X-Ray SDK from the layer). The events are the files of ``events/`` — what
``sam local invoke -e`` sends (docs/sam-local.md) — every one of them, ids filled in as
``baccarat sam-local take`` fills them. The engines are the recipe's: DynamoDB Local (Amazon's
own engine, the pytest worker's, as ``make run`` runs it) through ``AWS_ENDPOINT_URL_DYNAMODB``,
and moto's server for KMS, reached through ``AWS_ENDPOINT_URL`` — the template's empty
``AWS_ENDPOINT_URL_KMS`` is set as in AWS (empty): the built botocore ignores it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import boto3
import pytest
from support.sam_build import ARCH, moto_server, sam_build, slimmed
from support.stack import TIERS, make_due

from baccarat.verify import verify_proof
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.jobs.seed import add_operator_key, seed_tiers
from baccarat_dev import samlocal
from baccarat_dev.template import REPO_ROOT, create_tables, load

BUILD = REPO_ROOT / ".aws-sam" / f"test-build-{ARCH}"
SLIM = REPO_ROOT / ".aws-sam" / f"test-build-{ARCH}-slim"
CACHE = REPO_ROOT / ".aws-sam" / f"test-cache-{ARCH}"
LAYERS = ("SharedLayer", "DependenciesLayer")
#: The tables under their local names, the ones the events name (the custom resource's).
NAMES = {t: samlocal.local_table_name(t) for t in ("StateTable", "ConfigTable")}
EVENTS = REPO_ROOT / "events"
INVOCATIONS = {i.name: i for i in samlocal.invocations(load())[0]}
#: What Lambda sets for an invocation (not sampled: nothing is sent to a daemon).
TRACE_HEADER = "Root=1-65f0c0de-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=0"

#: What no built function may import: test and local tooling, and the development package.
DEVELOPMENT_MODULES = ("uvicorn", "moto", "httpx", "yaml", "pytest", "mypy_boto3_dynamodb",
                       "baccarat_dev")  # fmt: skip

RUNNER = r"""
import importlib, json, sys
DEVELOPMENT_MODULES = %r
build_dirs = tuple(p for p in sys.path if p.startswith(sys.argv[3]))
module_name, handler_name = sys.argv[5].rsplit(".", 1)
app = importlib.import_module(module_name)  # the function's entry point, from its build dir
handler = getattr(app, handler_name)
import baccarat, baccarat_api, boto3, fastapi, mangum, pydantic, aws_lambda_powertools
modules = (app, baccarat, baccarat_api, boto3, fastapi, mangum, pydantic, aws_lambda_powertools)
for module in modules:
    assert module.__file__.startswith(build_dirs), module.__file__
for banned in DEVELOPMENT_MODULES:
    assert banned not in sys.modules, banned

class Context:
    function_name = sys.argv[4]
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + sys.argv[4]
    aws_request_id = "00000000-0000-0000-0000-000000000001"
    log_group_name = "/baccarat/test"
    log_stream_name = "stream"
    def get_remaining_time_in_millis(self):
        return 10000

def answer(event_path, out_path):
    out = handler(json.load(open(event_path)), Context())
    json.dump({"response": out, "tracing": not aws_lambda_powertools.Tracer().disabled},
              open(out_path, "w"))

if sys.argv[1] != "-":
    answer(sys.argv[1], sys.argv[2])
else:  # a warm container: one event per line of stdin ("event<TAB>out"), a mark after each
    for line in sys.stdin:  # (stdout carries the function's own logs and metrics too)
        answer(*line.rstrip("\n").split("\t"))
        print("runner: answered", flush=True)
""".replace("%r", repr(DEVELOPMENT_MODULES))


@dataclass
class Engines:
    """The engines: moto's server (KMS) and DynamoDB Local, the key and the operator key."""

    url: str
    dynamodb_url: str
    kms_key_arn: str
    key: str
    signing_key_arn: str = ""

    def dynamodb(self) -> Any:
        return local_client("dynamodb", self.dynamodb_url)


def local_client(service: str, url: str) -> Any:
    """A boto3 client for a local engine (the functions' test credentials and region)."""
    credentials = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", **credentials)


@pytest.fixture(scope="module")
def sam_built() -> Path:
    result = sam_build(BUILD, CACHE)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return BUILD


@pytest.fixture(scope="module")
def built(sam_built: Path) -> Path:
    """The artifacts as ``make build`` ships them: sam build's, slimmed (scripts/slim_build.py:
    bytecode, botocore models in use only, no pydantic.v1) — what the functions run from."""
    return slimmed(sam_built, SLIM)


@pytest.fixture(scope="module")
def engines(dynamodb_local: Any) -> Iterator[Engines]:
    """The engines, the tables under the events' names (dropped before and after: the recipe's
    test may use the same DynamoDB Local), a KMS key, the events' operator and its key."""
    with moto_server() as url:
        kms = local_client("kms", url)
        arn = kms.create_key()["KeyMetadata"]["Arn"]
        signing = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]
        found = Engines(url, str(dynamodb_local.endpoint_url), arn, key="")
        found.signing_key_arn = signing["Arn"]
        dynamodb = found.dynamodb()

        def drop() -> None:
            for name in set(NAMES.values()) & set(dynamodb.list_tables()["TableNames"]):
                dynamodb.delete_table(TableName=name)

        drop()
        create_tables(dynamodb, NAMES, pitr=False)  # DynamoDB Local has no PITR
        repo = DynamoRepository(dynamodb, NAMES["StateTable"], NAMES["ConfigTable"])
        found.key = add_operator_key(repo, samlocal.OPERATOR)  # the events' operator
        try:
            yield found
        finally:
            drop()


def function_env(function: str, engines: Engines, build_dir: Path) -> dict[str, str]:
    """The function's environment as the template gives it (Globals + its own), resolved."""
    t = load()
    variables = dict(t["Globals"]["Function"]["Environment"]["Variables"])
    props = t["Resources"][function]["Properties"]
    variables.update(props.get("Environment", {}).get("Variables", {}))
    refs = {
        "StateTable": NAMES["StateTable"],
        "ConfigTable": NAMES["ConfigTable"],
        "Stage": "test",
        "DeliveryQueue": "",  # no queue here: a delivery pass wakes nothing (as in make run)
        "TableClockQueue": "",  # no queue here: no timers (the sweep moves running tables)
        "SettleChunkQueue": "",  # no queue here: a book's chunks run in the request
        "BeaconRelays": "",  # the parameter's default: the service's own list of drand relays
    }
    env: dict[str, str] = {}
    for name, value in variables.items():
        if isinstance(value, str):
            env[name] = value
        elif "Ref" in value:
            env[name] = refs[value["Ref"]]
        elif value == {"Fn::GetAtt": ["SecretsKey", "Arn"]}:
            env[name] = engines.kms_key_arn
        elif value == {"Fn::GetAtt": ["SigningKey", "Arn"]}:
            env[name] = engines.signing_key_arn
        elif "${PushApi." in str(value.get("Fn::Sub", "")):
            env[name] = ""  # no Event API here: the push job counts its messages, sends none
        else:
            raise AssertionError(f"unresolved {name}: {value}")
    pythonpath = [build_dir / function, *(build_dir / layer / "python" for layer in LAYERS)]
    return {
        **env,
        "PATH": "/usr/bin:/bin",
        "HOME": str(build_dir),
        "PYTHONPATH": os.pathsep.join(str(p) for p in pythonpath),
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": engines.url,  # KMS (its own variable is the template's, empty)
        "AWS_ENDPOINT_URL_DYNAMODB": engines.dynamodb_url,
        "AWS_LAMBDA_FUNCTION_NAME": function,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024",
        "LAMBDA_TASK_ROOT": str(build_dir / function),
        "_X_AMZN_TRACE_ID": TRACE_HEADER,
        "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
    }  # fmt: skip


def handler_of(function: str) -> str:
    t = load()
    return str(
        t["Resources"][function]["Properties"].get("Handler", t["Globals"]["Function"]["Handler"])
    )


def _runner(built: Path, function: str, event: str, out: str) -> list[str]:
    return [sys.executable, "-S", "-s", "-c", RUNNER, event, out, str(built), function,
            handler_of(function)]  # fmt: skip


def invoke(
    built: Path,
    engines: Engines,
    function: str,
    event: dict[str, Any],
    tmp: Path,
    warm: Containers | None = None,
) -> dict[str, Any]:
    """The function on ``event``: a cold start in a clean interpreter of its own, or the next
    event of its warm container in ``warm`` (as Lambda reuses one: cold once, then warm)."""
    event_file, out_file = tmp / "event.json", tmp / "out.json"
    event_file.write_text(json.dumps(event))
    out_file.unlink(missing_ok=True)
    if warm is not None:
        warm.invoke(function, event_file, out_file)
    else:
        proc = subprocess.run(
            _runner(built, function, str(event_file), str(out_file)),
            cwd=tmp,
            env=function_env(function, engines, built),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out_file.read_text())
    assert result["tracing"] is True  # Tracer is live, with the layer's X-Ray SDK
    out = result["response"]
    if out is None:  # the custom resource answers CloudFormation, not the caller
        return {}
    assert isinstance(out, dict)
    is_json = "json" in out.get("headers", {}).get("content-type", "json")
    out["json"] = json.loads(out["body"]) if out.get("body") and is_json else None
    return out


class Containers:
    """Each function's warm container: its interpreter started clean on its first event (the
    cold start, with the runner's checks of what it imports) and fed the next events on stdin."""

    def __init__(self, built: Path, engines: Engines, tmp: Path) -> None:
        self.built, self.engines, self.tmp = built, engines, tmp
        self.procs: dict[str, subprocess.Popen[str]] = {}
        self.files = contextlib.ExitStack()  # each one's stderr: a file, never a full pipe

    def invoke(self, function: str, event: Path, out: Path) -> None:
        proc = self.procs.get(function)
        if proc is None:
            proc = subprocess.Popen(
                _runner(self.built, function, "-", "-"),
                cwd=self.tmp,
                env=function_env(function, self.engines, self.built),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.files.enter_context((self.tmp / f"{function}.stderr").open("w")),
                text=True,
            )
            self.procs[function] = proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(f"{event}\t{out}\n")
        proc.stdin.flush()
        printed: list[str] = []
        while (line := proc.stdout.readline()) != "runner: answered\n":
            if not line:  # the interpreter ended: its error
                proc.wait(timeout=30)
                err = (self.tmp / f"{function}.stderr").read_text()
                raise AssertionError(f"{function}: {''.join(printed)[-3000:]} {err[-3000:]}")
            printed.append(line)

    def __enter__(self) -> Containers:
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs.values():
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=30)
        self.files.close()


def event_file(name: str, ids: dict[str, str]) -> dict[str, Any]:
    """``events/<name>.json`` with its placeholders filled from ``ids``."""
    event = json.loads((EVENTS / f"{name}.json").read_text(encoding="utf-8"))
    assert samlocal.placeholders(event) <= set(ids), (name, ids)
    return samlocal.fill(event, ids)  # type: ignore[no-any-return]


def invoke_file(
    built: Path,
    engines: Engines,
    tmp: Path,
    name: str,
    ids: dict[str, str],
    warm: Containers | None = None,
) -> dict[str, Any]:
    """The function template.yaml invokes with events/<name>.json, on that event; the ids of
    its answer join ``ids``."""
    out = invoke(built, engines, INVOCATIONS[name].function, event_file(name, ids), tmp, warm)
    if out:
        ids.update(samlocal.read_answer(strip(out))[1])
    return out


def strip(out: dict[str, Any]) -> dict[str, Any] | None:
    """The function's answer as Lambda returned it (without what :func:`invoke` and the test
    added), or ``None`` for no answer."""
    return {k: v for k, v in out.items() if k not in ("json", "function")} or None


def test_artifacts_hold_what_the_functions_import_and_nothing_for_development(
    sam_built: Path, built: Path
) -> None:
    # the slimmed artifacts: the same packages, less pydantic's bundled v1 API
    slim_deps = built / "DependenciesLayer" / "python"
    assert (slim_deps / "pydantic").is_dir() and not (slim_deps / "pydantic" / "v1").exists()
    built = sam_built  # what sam build packages
    deps = {p.name for p in (built / "DependenciesLayer" / "python").iterdir()}
    assert {"fastapi", "mangum", "pydantic", "pydantic_core", "boto3", "aws_xray_sdk"} <= deps
    assert not {"uvicorn", "moto", "yaml", "pytest", "mypy_boto3_dynamodb", "boto3_stubs"} & deps
    shared = {p.name for p in (built / "SharedLayer" / "python").iterdir()}
    # the product's packages and nothing else: never the development package (shared/Makefile)
    assert shared == {"baccarat", "baccarat_api", "baccarat_bls"}
    layer = built / "SharedLayer" / "python"
    assert not list(layer.rglob("baccarat_dev*"))
    assert not list(layer.rglob("__pycache__"))
    # GET /verify's, GET /lobby's and GET /table's pages: the web/ files themselves (copied, not
    # links), nothing else of web/
    web = built / "SharedLayer" / "python" / "baccarat_api" / "http" / "web"
    assert sorted(p.name for p in web.iterdir()) == [
        "bacc-pf-v1.js", "bacc-pf-v2.js", "booktree.js", "drand.js", "i18n.js", "lobby.html",
        "lobby.js", "money.js", "push.js", "receipt.js", "roads.js", "table-actions.js",
        "table-render.js", "table-state.js", "table.html", "table.js", "verify-v2.js",
        "verify.html", "verify.js",
    ]  # fmt: skip
    for page in web.iterdir():
        assert not page.is_symlink()
        assert page.read_bytes() == (REPO_ROOT / "web" / page.name).read_bytes()
    for function in ("ShuffleCommitFunction", "DealAndResolveFunction", "SettleBetsFunction",
                     "ReadFunction", "AuthorizerFunction"):  # fmt: skip
        assert sorted(p.name for p in (built / function).iterdir()) == ["app.py"]
    seed = built / "SeedTiersFunction"
    assert sorted(p.name for p in seed.iterdir()) == ["app.py", "tiers.json"]
    assert not (seed / "tiers.json").is_symlink()
    assert (seed / "tiers.json").read_bytes() == TIERS.read_bytes()


IMPORT_ONLY = r"""
import importlib, sys
module_name = sys.argv[1].rsplit(".", 1)[0]
importlib.import_module(module_name)
print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in sys.argv[2].split(","))))
"""


def test_importing_each_built_handler_module_imports_no_development_module(
    built: Path, engines: Engines, tmp_path: Path
) -> None:
    """Every function of the template, its handler module imported (as at a cold start) in a
    clean interpreter from the built artifacts only: never moto, uvicorn, httpx, nor
    baccarat_dev (which the SharedLayer does not even contain)."""
    functions = [
        name for name, r in load()["Resources"].items() if r["Type"] == "AWS::Serverless::Function"
    ]
    assert len(functions) == 14  # + the feed indexer, the webhooks routes, the delivery, the clock,
    # the settlement chunks, the push job and its channel's authorizer
    for function in functions:
        proc = subprocess.run(
            [sys.executable, "-B", "-S", "-s", "-c", IMPORT_ONLY, handler_of(function),
             ",".join(DEVELOPMENT_MODULES)],
            cwd=tmp_path,
            env=function_env(function, engines, built),
            capture_output=True,
            text=True,
            timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, (function, proc.stderr[-3000:])
        assert proc.stdout.strip() == "", (function, proc.stdout)


@pytest.fixture
def warm(built: Path, engines: Engines, tmp_path: Path) -> Iterator[Containers]:
    with Containers(built, engines, tmp_path) as containers:
        yield containers


def test_each_built_function_answers_every_event_file_in_a_clean_interpreter(
    built: Path, engines: Engines, tmp_path: Path, warm: Containers
) -> None:
    """Every file of events/, to the function template.yaml invokes with it, in the order of
    docs/sam-local.md: the tiers through the deployed seeding path (the custom resource, its
    answer PUT to a stand-in for CloudFormation's URL), the authorizer, a table, a shoe, a round
    settled, one voided, the sweep, the early close, the public proof and page, the audit. Each
    function cold in a clean interpreter on its first event, then warm (as Lambda reuses its
    container: state a warm container keeps must not change an answer)."""
    answers: list[dict[str, Any]] = []

    class CloudFormation(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            answers.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    cfn = HTTPServer(("127.0.0.1", 0), CloudFormation)
    threading.Thread(target=cfn.serve_forever, daemon=True).start()
    try:
        seed_event = event_file("tiers_seed", {})
        seed_event["ResponseURL"] = f"http://127.0.0.1:{cfn.server_address[1]}/cfn"
        invoke(built, engines, "SeedTiersFunction", seed_event, tmp_path)
    finally:
        cfn.shutdown()
    assert answers and answers[0]["Status"] == "SUCCESS", answers
    assert answers[0]["LogicalResourceId"] == "TiersSeed"

    ids = {"operator_key": engines.key}
    used = {"tiers_seed"}

    def go(name: str) -> dict[str, Any]:
        used.add(name)
        return {"function": INVOCATIONS[name].function,
                **invoke_file(built, engines, tmp_path, name, ids, warm)}  # fmt: skip

    allowed = go("operator_key_authorizer")
    assert allowed["isAuthorized"] is True
    assert allowed["context"] == {"operator_id": samlocal.OPERATOR}
    tiers = go("list_tiers")
    assert tiers["statusCode"] == 200 and tiers["function"] == "ReadFunction"
    assert tiers["json"]["tiers"][0]["id"] == "star-city-fun"
    table = go("create_table")
    assert table["statusCode"] == 201 and table["function"] == "ShuffleCommitFunction", table
    assert go("get_table")["json"]["table_id"] == ids["table_id"]
    shoe = go("commit_shoe")
    assert shoe["statusCode"] == 201 and shoe["json"]["table_id"] == ids["table_id"], shoe
    assert go("get_shoe")["json"]["shoe_id"] == ids["shoe_id"]
    seated = go("take_seat")  # a round is dealt only when someone is seated
    assert seated["statusCode"] == 200, seated
    said = go("post_chat")  # someone at the table chats (the seated one)
    assert said["statusCode"] == 201 and said["function"] == "ShuffleCommitFunction", said
    dealt = go("deal_round")
    assert dealt["statusCode"] == 201 and dealt["function"] == "DealAndResolveFunction", dealt
    settled = go("settle_round")
    assert settled["statusCode"] == 200 and settled["function"] == "SettleBetsFunction", settled
    again = go("get_round")
    assert again["json"]["round_id"] == dealt["json"]["round_id"]
    assert again["json"]["settlement"] == settled["json"]
    second = go("deal_round")
    assert second["statusCode"] == 201 and ids["round_id"] != dealt["json"]["round_id"], second
    # the reveal of the open round (before its void): the table deals face up, nothing to reveal
    summary, _, ok = samlocal.read_answer(strip(go("reveal_cards")))
    assert not ok and f'"code": "{samlocal.REFUSED_IN_RECIPE["reveal_cards"]}"' in summary, summary
    voided = go("void_round")
    assert voided["statusCode"] == 200 and voided["json"]["round_id"] == ids["round_id"], voided
    void_body = json.loads(event_file("void_round", ids)["body"])
    assert voided["json"]["voided"] is True
    assert {k: voided["json"]["void"][k] for k in void_body} == void_body  # reason, note kept
    swept = go("sweep")
    assert swept["settled"] == [] and swept["failed"] == {}, swept  # nothing is due yet
    closed = go("close_shoe")
    assert closed["statusCode"] == 200 and closed["json"]["status"] == "ended", closed
    proof = go("get_shoe_proof")
    assert proof["statusCode"] == 200 and verify_proof(proof["json"]).ok
    assert [r["voided"] for r in proof["json"]["rounds"]] == [False, True]  # r1 settled, r2 void
    audit = go("audit_table")
    assert audit["statusCode"] == 200 and audit["function"] == "ReadFunction", audit
    page = go("verify_page")
    assert page["statusCode"] == 200 and page["function"] == "ReadFunction", page
    assert page["headers"]["content-type"].startswith("text/html")
    assert "<script src=" not in page["body"] and "BaccVerify" in page["body"]
    # any event not named above (a route added since): fed too, with the ids at hand
    for name in [n for n in INVOCATIONS if n not in used]:  # template order: take, then leave
        summary, _, ok = samlocal.read_answer(strip(go(name)))
        refused = samlocal.REFUSED_IN_RECIPE.get(name)  # a refusal shown on purpose
        if refused is not None:
            ok = not ok and f'"code": "{refused}"' in summary
        assert ok, (name, summary)
    assert used == set(INVOCATIONS)  # every event file, fed


def test_a_built_function_called_without_the_authorizer_refuses_an_unkeyed_request(
    built: Path, engines: Engines, tmp_path: Path
) -> None:
    """events/list_tiers.json without the authorizer's context (a direct invocation, not behind
    API Gateway) and without a key: 401 in the error envelope."""
    event = event_file("list_tiers", {})
    del event["requestContext"]["authorizer"]
    refused = invoke(built, engines, "ReadFunction", event, tmp_path)
    assert refused["statusCode"] == 401
    assert refused["json"]["error"]["code"] == "unauthorized"
    assert refused["json"]["error"]["request_id"] == refused["headers"]["x-request-id"]


def test_tiers_file_is_seedable(engines: Engines) -> None:
    """(The same file the custom resource ships; also checked by the seeding tests.)"""
    repo = DynamoRepository(engines.dynamodb(), NAMES["StateTable"], NAMES["ConfigTable"])
    assert seed_tiers(repo, TIERS)


def test_the_built_authorizer_refuses_a_wrong_key_in_a_clean_interpreter(
    built: Path, engines: Engines, tmp_path: Path
) -> None:
    """events/operator_key_authorizer.json with the seeded key → authorized as its operator
    (also above); with another key → refused, no context."""
    wrong = event_file("operator_key_authorizer", {"operator_key": "bk_not-a-key"})
    out = invoke(built, engines, "AuthorizerFunction", wrong, tmp_path)
    assert {k: v for k, v in out.items() if k != "json"} == {"isAuthorized": False}


def test_the_built_auto_settle_function_sweeps_in_a_clean_interpreter(
    built: Path, engines: Engines, tmp_path: Path
) -> None:
    """AutoSettleFunction as built (only its app.py; the layers bring the rest) answers
    events/sweep.json with its sweep report, settling a round past its deadline."""
    code = {p.name for p in (built / "AutoSettleFunction").iterdir()} - {"__pycache__"}
    assert code == {"app.py"}  # (bytecode from the runs here aside)
    dynamodb = engines.dynamodb()
    seed_tiers(DynamoRepository(dynamodb, NAMES["StateTable"], NAMES["ConfigTable"]), TIERS)
    ids: dict[str, str] = {}
    for name in ("create_table", "commit_shoe", "take_seat", "deal_round"):
        out = invoke_file(built, engines, tmp_path, name, ids)
        assert out["statusCode"] in (200, 201), out
    assert out["json"]["settle_by"], out
    # its deadline passes (moved into the past rather than waited for)
    make_due(dynamodb, NAMES["StateTable"], samlocal.OPERATOR, ids["table_id"])
    report = invoke_file(built, engines, tmp_path, "sweep", ids)
    assert ids["round_id"] in report["settled"] and report["failed"] == {}, report
