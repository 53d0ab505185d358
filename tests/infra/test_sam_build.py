"""``sam build`` packages every function with all it imports (this stands in for
``sam local invoke``, which needs Docker).

Builds the template for this machine's architecture, starts moto's server on loopback, then runs
each built function from ``.aws-sam/test-build-<arch>/<Function>`` in a CLEAN interpreter: no
site-packages (``-S -s``), nothing of the repository, ``PYTHONPATH`` = the function's build dir and
the two built layers only (as Lambda puts /var/task and /opt/python on the path). It is handed a
real HTTP API v2 event and the function's environment from the template, with Lambda's variables
set (so Tracer really loads the X-Ray SDK from the layer)."""

from __future__ import annotations

import json
import os
import re
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
from support.sam_build import ARCH, sam_build
from support.stack import TIERS, http_api_event, make_due, scheduled_event, star_city_bets

from baccarat.verify import verify_proof
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.jobs.seed import add_operator_key, seed_tiers
from baccarat_dev.template import REPO_ROOT, create_tables, load, routes

BUILD = REPO_ROOT / ".aws-sam" / f"test-build-{ARCH}"
CACHE = REPO_ROOT / ".aws-sam" / f"test-cache-{ARCH}"
LAYERS = ("SharedLayer", "DependenciesLayer")
NAMES = {"StateTable": "built-state", "ConfigTable": "built-config"}
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

event = json.load(open(sys.argv[1]))
out = handler(event, Context())
json.dump({"response": out, "tracing": not aws_lambda_powertools.Tracer().disabled},
          open(sys.argv[2], "w"))
""".replace("%r", repr(DEVELOPMENT_MODULES))


@dataclass
class Moto:
    url: str
    kms_key_arn: str
    key: str
    signing_key_arn: str = ""


@pytest.fixture(scope="module")
def built() -> Path:
    result = sam_build(BUILD, CACHE)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return BUILD


@pytest.fixture(scope="module")
def moto_server() -> Iterator[Moto]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    session = boto3.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    dynamodb = session.client("dynamodb", endpoint_url=url)
    kms = session.client("kms", endpoint_url=url)
    create_tables(dynamodb, NAMES)
    arn = kms.create_key()["KeyMetadata"]["Arn"]
    signing = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["Arn"]
    repo = DynamoRepository(dynamodb, NAMES["StateTable"], NAMES["ConfigTable"])
    key = add_operator_key(repo, "built-operator")
    try:
        yield Moto(url=url, kms_key_arn=arn, key=key, signing_key_arn=signing)
    finally:
        server.stop()


def function_env(function: str, moto: Moto, build_dir: Path) -> dict[str, str]:
    """The function's environment as the template gives it (Globals + its own), resolved."""
    t = load()
    variables = dict(t["Globals"]["Function"]["Environment"]["Variables"])
    props = t["Resources"][function]["Properties"]
    variables.update(props.get("Environment", {}).get("Variables", {}))
    refs = {
        "StateTable": NAMES["StateTable"],
        "ConfigTable": NAMES["ConfigTable"],
        "Stage": "test",
    }
    env: dict[str, str] = {}
    for name, value in variables.items():
        if isinstance(value, str):
            env[name] = value
        elif "Ref" in value:
            env[name] = refs[value["Ref"]]
        elif value == {"Fn::GetAtt": ["SecretsKey", "Arn"]}:
            env[name] = moto.kms_key_arn
        elif value == {"Fn::GetAtt": ["SigningKey", "Arn"]}:
            env[name] = moto.signing_key_arn
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
        "AWS_ENDPOINT_URL": moto.url,
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


def invoke(
    built: Path, moto: Moto, function: str, event: dict[str, Any], tmp: Path
) -> dict[str, Any]:
    event_file, out_file = tmp / "event.json", tmp / "out.json"
    event_file.write_text(json.dumps(event))
    out_file.unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "-S", "-s", "-c", RUNNER, str(event_file), str(out_file), str(built),
         function, handler_of(function)],
        cwd=tmp,
        env=function_env(function, moto, built),
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
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


def call(
    built: Path,
    moto: Moto,
    tmp: Path,
    method: str,
    path: str,
    body: Any = None,
    key: bool = True,
) -> tuple[str, dict[str, Any]]:
    import re

    for route in routes():
        if route.method == method and re.fullmatch(re.sub(r"{\w+}", "[^/]+", route.path), path):
            headers = {"authorization": f"Bearer {moto.key}"} if key else {}
            event = http_api_event(method, path, route, body=body, headers=headers)
            return route.function, invoke(built, moto, route.function, event, tmp)
    raise AssertionError(f"no route for {method} {path}")


def test_artifacts_hold_what_the_functions_import_and_nothing_for_development(
    built: Path,
) -> None:
    deps = {p.name for p in (built / "DependenciesLayer" / "python").iterdir()}
    assert {"fastapi", "mangum", "pydantic", "pydantic_core", "boto3", "aws_xray_sdk"} <= deps
    assert not {"uvicorn", "moto", "yaml", "pytest", "mypy_boto3_dynamodb", "boto3_stubs"} & deps
    shared = {p.name for p in (built / "SharedLayer" / "python").iterdir()}
    # the product's packages and nothing else: never the development package (shared/Makefile)
    assert shared == {"baccarat", "baccarat_api"}
    layer = built / "SharedLayer" / "python"
    assert not list(layer.rglob("baccarat_dev*"))
    assert not list(layer.rglob("__pycache__"))
    # GET /verify's page: the web/ files themselves (copied, not links), nothing else of web/
    web = built / "SharedLayer" / "python" / "baccarat_api" / "http" / "web"
    assert sorted(p.name for p in web.iterdir()) == [
        "bacc-pf-v1.js", "roads.js", "verify.html", "verify.js"
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
    built: Path, moto_server: Moto, tmp_path: Path
) -> None:
    """Every function of the template, its handler module imported (as at a cold start) in a
    clean interpreter from the built artifacts only: never moto, uvicorn, httpx, nor
    baccarat_dev (which the SharedLayer does not even contain)."""
    functions = [
        name for name, r in load()["Resources"].items() if r["Type"] == "AWS::Serverless::Function"
    ]
    assert len(functions) == 7
    for function in functions:
        proc = subprocess.run(
            [sys.executable, "-B", "-S", "-s", "-c", IMPORT_ONLY, handler_of(function),
             ",".join(DEVELOPMENT_MODULES)],
            cwd=tmp_path,
            env=function_env(function, moto_server, built),
            capture_output=True,
            text=True,
            timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, (function, proc.stderr[-3000:])
        assert proc.stdout.strip() == "", (function, proc.stdout)


def test_each_built_function_answers_real_v2_events_in_a_clean_interpreter(
    built: Path, moto_server: Moto, tmp_path: Path
) -> None:
    # tiers first, through the deployed seeding path (the custom resource function)
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
        seed_event = {
            "RequestType": "Create",
            "ResponseURL": f"http://127.0.0.1:{cfn.server_address[1]}/cfn",
            "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/test/1",
            "RequestId": "r1",
            "LogicalResourceId": "TiersSeed",
            "ResourceType": "Custom::TiersSeed",
            "ResourceProperties": {"ConfigTable": NAMES["ConfigTable"], "TiersVersion": "1"},
        }
        invoke(built, moto_server, "SeedTiersFunction", seed_event, tmp_path)
    finally:
        cfn.shutdown()
    assert answers and answers[0]["Status"] == "SUCCESS", answers

    def go(method: str, path: str, body: Any = None, key: bool = True) -> dict[str, Any]:
        function, out = call(built, moto_server, tmp_path, method, path, body, key)
        return {"function": function, **out}

    tiers = go("GET", "/v1/tiers")
    assert tiers["statusCode"] == 200 and tiers["function"] == "ReadFunction"
    assert tiers["json"]["tiers"][0]["id"] == "star-city-fun"

    table = go(
        "POST", "/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}
    )
    assert table["statusCode"] == 201 and table["function"] == "ShuffleCommitFunction", table
    shoe = go("POST", f"/v1/tables/{table['json']['table_id']}/shoes", {"client_seed": "built"})
    assert shoe["statusCode"] == 201, shoe
    shoe_id = shoe["json"]["shoe_id"]
    dealt = go("POST", f"/v1/shoes/{shoe_id}/rounds", {"bets": star_city_bets()})
    assert dealt["statusCode"] == 201 and dealt["function"] == "DealAndResolveFunction", dealt
    round_id = dealt["json"]["round_id"]
    settled = go("POST", f"/v1/rounds/{round_id}/settlement")
    assert settled["statusCode"] == 200 and settled["function"] == "SettleBetsFunction", settled
    again = go("GET", f"/v1/rounds/{round_id}")
    assert again["json"]["settlement"] == settled["json"]
    closed = go("POST", f"/v1/shoes/{shoe_id}/close")
    assert closed["statusCode"] == 200 and closed["json"]["status"] == "ended", closed
    proof = go("GET", f"/v1/shoes/{shoe_id}/proof", key=False)
    assert proof["statusCode"] == 200 and verify_proof(proof["json"]).ok
    page = go("GET", "/verify", key=False)
    assert page["statusCode"] == 200 and page["function"] == "ReadFunction", page
    assert page["headers"]["content-type"].startswith("text/html")
    assert "<script src=" not in page["body"] and "BaccVerify" in page["body"]
    refused = go("GET", "/v1/tiers", key=False)
    assert refused["statusCode"] == 401
    assert refused["json"]["error"]["code"] == "unauthorized"
    assert refused["json"]["error"]["request_id"] == refused["headers"]["x-request-id"]


def test_tiers_file_is_seedable(moto_server: Moto) -> None:
    """(The same file the custom resource ships; also checked by the seeding tests.)"""
    session = boto3.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    repo = DynamoRepository(
        session.client("dynamodb", endpoint_url=moto_server.url),
        NAMES["StateTable"],
        NAMES["ConfigTable"],
    )
    assert seed_tiers(repo, TIERS)


def test_the_built_authorizer_answers_real_authorizer_events_in_a_clean_interpreter(
    built: Path, moto_server: Moto, tmp_path: Path
) -> None:
    """The Lambda authorizer as built: an HTTP API authorizer v2 event with the seeded key →
    authorized with its operator; a wrong key → refused; and a built function served the
    authorizer's context (no Authorization header, as behind API Gateway) answers as that
    operator."""
    from support.gateway import authorizer_event

    (tiers_route,) = [r for r in routes() if r.route_key == "GET /v1/tiers"]

    def authorize(authorization: str) -> dict[str, Any]:
        request = http_api_event(
            "GET", "/v1/tiers", tiers_route, headers={"authorization": authorization}
        )
        out = invoke(built, moto_server, "AuthorizerFunction", authorizer_event(request), tmp_path)
        return {k: v for k, v in out.items() if k != "json"}

    allowed = authorize(f"Bearer {moto_server.key}")
    assert allowed == {"isAuthorized": True, "context": {"operator_id": "built-operator"}}
    assert authorize("Bearer bk_not-a-key") == {"isAuthorized": False}

    event = http_api_event("GET", "/v1/tiers", tiers_route)
    assert "authorization" not in event["headers"]
    event["requestContext"]["authorizer"] = {"lambda": allowed["context"]}
    tiers = invoke(built, moto_server, "ReadFunction", event, tmp_path)
    assert tiers["statusCode"] == 200 and "tiers" in tiers["json"], tiers


def test_the_built_auto_settle_function_sweeps_in_a_clean_interpreter(
    built: Path, moto_server: Moto, tmp_path: Path
) -> None:
    """AutoSettleFunction as built (only its app.py; the layers bring the rest) answers an
    EventBridge scheduled event with its sweep report, settling a round past its deadline."""
    assert sorted(p.name for p in (built / "AutoSettleFunction").iterdir()) == ["app.py"]
    key = {"authorization": f"Bearer {moto_server.key}"}
    session = boto3.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    dynamodb = session.client("dynamodb", endpoint_url=moto_server.url)
    seed_tiers(DynamoRepository(dynamodb, NAMES["StateTable"], NAMES["ConfigTable"]), TIERS)

    def post(path: str, body: Any = None) -> dict[str, Any]:
        (route,) = [r for r in routes() if r.method == "POST" and re.fullmatch(
            re.sub(r"{\w+}", "[^/]+", r.path), path
        )]  # fmt: skip
        event = http_api_event("POST", path, route, body=body, headers=key)
        return invoke(built, moto_server, route.function, event, tmp_path)["json"]  # type: ignore[no-any-return]

    table = post("/v1/tables", {"profile": "star-city", "tier": "star-city-fun",
                                "banking": "house"})  # fmt: skip
    assert "table_id" in table, table
    shoe = post(f"/v1/tables/{table['table_id']}/shoes", {"client_seed": "sweep"})
    dealt = post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"bets": star_city_bets()})
    assert dealt["settle_by"], dealt
    # its deadline passes (moved into the past rather than waited for)
    make_due(dynamodb, NAMES["StateTable"], "built-operator", table["table_id"])
    scheduled = scheduled_event()
    report = invoke(built, moto_server, "AutoSettleFunction", scheduled, tmp_path)
    assert dealt["round_id"] in report["settled"] and report["failed"] == {}, report
