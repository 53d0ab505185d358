"""The ``sam local`` machinery (:mod:`baccarat_dev.samlocal`) against template.yaml: one event
file per route, job and authorizer, each of the shape ``sam local generate-event`` produces; an
environment file naming exactly each function's variables; checks that fail (and ``make
sam-local`` with them) the day a route, a job or a variable arrives without its part; ``take``
turning answers into ids and concrete events. (docs/sam-local.md itself is executed, in Docker, by
tests/sam_local/test_recipe.py; the built functions answer every event in test_sam_build.py.)"""

from __future__ import annotations

import base64
import copy
import functools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import boto3
import pytest

from baccarat_dev import samlocal
from baccarat_dev.template import REPO_ROOT, load, routes

TEMPLATE = load()
INVOCATIONS, PROBLEMS = samlocal.invocations(TEMPLATE)
BY_NAME = {i.name: i for i in INVOCATIONS}
SAM = REPO_ROOT / ".venv" / "bin" / "sam"
#: Stand-in ids for the placeholders (any id does for the shapes).
IDS = {"table_id": "tbl_x", "shoe_id": "tbl_x_s1", "round_id": "tbl_x_s1_r1", "operator_key": "bk_"}


def event(name: str) -> dict[str, Any]:
    return json.loads((REPO_ROOT / "events" / f"{name}.json").read_text())  # type: ignore[no-any-return]


def test_the_repository_passes_every_check() -> None:
    assert PROBLEMS == []
    assert samlocal.check(REPO_ROOT) == []


def test_every_route_job_and_function_has_exactly_one_event_file() -> None:
    """Read independently of the catalogue: the template's routes (baccarat_dev.template), its
    schedules, its authorizer and its custom resource, each with its own file; no other file."""
    http = {i.route.route_key: i for i in INVOCATIONS if i.route}
    assert set(http) == {r.route_key for r in routes()}
    for route in routes():
        assert http[route.route_key].function == route.function
    assert [(i.function, i.name) for i in INVOCATIONS if i.kind != "http"] == [
        ("AuthorizerFunction", "operator_key_authorizer"),
        ("AutoSettleFunction", "sweep"),
        ("TableClockFunction", "ticks"),
        ("SettleChunkFunction", "settle_chunks"),
        ("FeedIndexerFunction", "state_stream"),
        ("PushAuthorizerFunction", "push_api_authorizer"),
        ("PushFunction", "push_stream"),
        ("DeliveryFunction", "deliveries"),
        ("SeedTiersFunction", "tiers_seed"),
    ]
    functions = {k for k, r in TEMPLATE["Resources"].items() if r["Type"].endswith("::Function")}
    assert {i.function for i in INVOCATIONS} == functions
    files = sorted(p.name for p in (REPO_ROOT / "events").iterdir())
    assert files == sorted(f"{i.name}.json" for i in INVOCATIONS)


# --- the shapes, against sam local generate-event --------------------------------------------


#: ``sam local generate-event ARGS…`` for many ARGS in one interpreter: the SAM CLI's own command
#: (``samcli.cli.main.cli``, what ``.venv/bin/sam`` runs) invoked through click once per ARGS —
#: the same code and output as one ``sam`` process each, without paying the CLI's start-up
#: (about a second of CPU) for every event.
GENERATE_MANY = r"""
import json, sys
from click.testing import CliRunner
from samcli.cli.main import cli
runner = CliRunner(mix_stderr=False)
out = []
for args in json.load(sys.stdin):
    done = runner.invoke(cli, ["local", "generate-event", *args], catch_exceptions=False)
    if done.exit_code != 0:
        sys.exit(f"sam local generate-event {args}: exit {done.exit_code}: {done.stderr}")
    out.append(json.loads(done.stdout))
json.dump(out, sys.stdout)
"""


def generate_many(commands: list[tuple[str, ...]]) -> list[dict[str, Any]]:
    """``sam local generate-event`` of each of ``commands``, in order (one process)."""
    done = subprocess.run(
        [str(SAM.with_name("python")), "-c", GENERATE_MANY],
        input=json.dumps(commands),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "SAM_CLI_TELEMETRY": "0"},
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def route_command(name: str) -> tuple[str, ...]:
    """The ``generate-event`` arguments of the route event ``name`` (its method, path, body)."""
    inv = BY_NAME[name]
    assert inv.route is not None
    ours = samlocal.fill(event(name), IDS)
    body = ours.get("body")
    args = ["--method", inv.route.method, "--path", ours["rawPath"].lstrip("/")]
    return ("apigateway", "http-api-proxy", *args, *(["--body", body] if body else []))


#: Every command the tests below ask for (what each test would run), generated on first use.
COMMANDS = [
    *(route_command(i.name) for i in INVOCATIONS if i.kind == "http"),
    ("apigateway", "http-api-proxy", "--method", "GET", "--path", "v1/tiers"),
    ("cloudwatch", "scheduled-event"),
    ("dynamodb", "update"),
    ("sqs", "receive-message"),
    ("cloudformation", "create-request"),
]


@functools.cache
def _generated() -> dict[tuple[str, ...], dict[str, Any]]:
    return dict(zip(COMMANDS, generate_many(COMMANDS), strict=True))


def generate(*args: str) -> dict[str, Any]:
    """What ``sam local generate-event ARGS…`` prints (a fresh copy: tests may change it)."""
    made = _generated().get(args)
    return copy.deepcopy(made) if made is not None else generate_many([args])[0]


#: Members the generated event has that API Gateway leaves out when the request has none.
OPTIONAL = {"cookies", "queryStringParameters", "stageVariables", "pathParameters", "body",
            "requestContext.authentication", "requestContext.authorizer"}  # fmt: skip
#: Maps whose members are the request's own (any names).
FREE = {"headers", "pathParameters", "queryStringParameters", "stageVariables",
        "requestContext.authorizer", "ResourceProperties"}  # fmt: skip


def shape(value: Any, at: str = "") -> dict[str, type]:
    """Every member's dotted path → its JSON type (free maps not entered)."""
    out: dict[str, type] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{at}.{key}" if at else key
            out[path] = dict if isinstance(item, dict) else type(item)
            if path not in FREE:
                out.update(shape(item, path))
    return out


def same_shape(ours: dict[str, Any], theirs: dict[str, Any], optional: set[str]) -> list[str]:
    mine, generated = shape(ours), shape(theirs)
    wrong = [f"{p}: not in the generated event" for p in sorted(set(mine) - set(generated))]
    for path in sorted(set(generated) - set(mine)):
        if not any(path == o or path.startswith(o + ".") for o in optional):
            wrong.append(f"{path}: missing")
    for path in sorted(set(mine) & set(generated)):
        if mine[path] is not generated[path]:
            wrong.append(f"{path}: {mine[path].__name__}, generated {generated[path].__name__}")
    return wrong


@pytest.mark.parametrize("name", [i.name for i in INVOCATIONS if i.kind == "http"])
def test_each_route_event_has_the_shape_sam_generates(name: str) -> None:
    inv = BY_NAME[name]
    assert inv.route is not None
    ours = samlocal.fill(event(name), IDS)
    body = ours.get("body")
    theirs = generate(*route_command(name))
    assert same_shape(ours, theirs, OPTIONAL) == []
    for member in ("version", "rawPath"):
        assert ours[member] == theirs[member], member
    for member in ("accountId", "stage"):
        assert ours["requestContext"][member] == theirs["requestContext"][member], member
    for member in ("method", "path", "protocol"):
        assert ours["requestContext"]["http"][member] == theirs["requestContext"]["http"][member]
    if body:  # sam's is base64; API Gateway sends a JSON body as text
        assert base64.b64decode(theirs["body"]).decode() == body
        assert ours["isBase64Encoded"] is False
    # behind the authorizer: its simple response's context, where SAM's start-api puts it too
    authorizer = ours["requestContext"].get("authorizer")
    if inv.public:
        assert authorizer is None
    else:
        assert authorizer == {"lambda": {"operator_id": samlocal.OPERATOR}}


OPENAPI = json.loads((REPO_ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", [i.name for i in INVOCATIONS if i.kind == "http"])
def test_each_route_event_sends_a_body_the_contract_takes(name: str) -> None:
    """The contract as docs/openapi.json states it (generated from the app; a drift test keeps it
    so): a route that requires a body has one valid against its schema (an unknown member, a
    missing required one, a wrong enum value fail here in a second, before the built functions
    answer 422); a route that takes none has none; an optional body, if sent, is valid."""
    from jsonschema import Draft202012Validator

    inv = BY_NAME[name]
    assert inv.route is not None
    operation = OPENAPI["paths"].get(inv.route.path, {}).get(inv.route.method.lower())
    assert operation is not None, f"{inv.route.route_key} is not in docs/openapi.json"
    ours = event(name)
    spec = operation.get("requestBody")
    if spec is None:
        assert "body" not in ours, f"{inv.route.route_key} takes no body"
        return
    if spec.get("required"):
        assert "body" in ours, f"{inv.route.route_key} requires a body"
    if "body" in ours:
        schema = spec["content"]["application/json"]["schema"]
        validator = Draft202012Validator({**schema, "components": OPENAPI["components"]})
        errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in validator.iter_errors(json.loads(ours["body"]))]  # fmt: skip
        assert errors == [], errors


def test_the_authorizer_event_has_the_shape_of_a_request_event_plus_the_authorizer_members() -> (
    None
):
    """Payload 2.0 authorizer event = the request's v2 event without its body, plus ``type``,
    ``routeArn``, ``identitySource`` (as SAM's start-api builds it, and API Gateway sends it)."""
    ours = samlocal.fill(event("operator_key_authorizer"), IDS)
    theirs = generate("apigateway", "http-api-proxy", "--method", "GET", "--path", "v1/tiers")
    for member in ("body", "isBase64Encoded"):
        del theirs[member]
    theirs.update({"type": "REQUEST", "routeArn": "arn", "identitySource": ["x"]})
    assert same_shape(ours, theirs, OPTIONAL) == []
    assert ours["identitySource"] == ["Bearer bk_"] == [ours["headers"]["authorization"]]
    assert ours["routeArn"].endswith("/$default/GET/v1/tiers")


def test_the_sweep_and_custom_resource_events_have_the_generated_shapes() -> None:
    sweep = event("sweep")
    theirs = generate("cloudwatch", "scheduled-event")
    assert same_shape(sweep, {**theirs, "version": "0"}, set()) == []  # EventBridge sends it
    (ours,) = event("state_stream")["Records"]
    theirs = generate("dynamodb", "update")["Records"][0]  # the INSERT
    strip = lambda r: {k: v for k, v in r.items() if k != "dynamodb"}  # noqa: E731
    assert same_shape(strip(ours), strip(theirs), set()) == []
    assert set(ours["dynamodb"]) == set(theirs["dynamodb"])  # the item's own attributes differ
    assert ours["eventName"] == theirs["eventName"] == "INSERT"
    assert ours["dynamodb"]["NewImage"]["kind"] == {"S": "event"}
    (ours,) = event("deliveries")["Records"]
    (theirs,) = generate("sqs", "receive-message")["Records"]
    assert same_shape(ours, theirs, set()) == []
    assert set(json.loads(ours["body"])) == {"operator_id", "shard"}
    (ours,) = event("ticks")["Records"]
    assert same_shape(ours, theirs, set()) == []
    assert set(json.loads(ours["body"])) == {"operator_id", "table_id", "step", "key", "due"}
    seed = event("tiers_seed")
    theirs = generate("cloudformation", "create-request")
    assert same_shape(seed, theirs, set()) == []
    assert set(seed["ResourceProperties"]) == {*TEMPLATE["Resources"]["TiersSeed"]["Properties"]}
    assert seed["ResourceProperties"]["ConfigTable"] == samlocal.local_table_name("ConfigTable")


# --- the environment file ----------------------------------------------------------------


def test_the_env_file_names_exactly_each_functions_variables() -> None:
    env = json.loads((REPO_ROOT / samlocal.ENV_FILE).read_text())
    functions = [k for k, r in TEMPLATE["Resources"].items() if r["Type"].endswith("::Function")]
    assert sorted(env) == sorted(functions)
    globals_ = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    for function in functions:
        own = TEMPLATE["Resources"][function]["Properties"].get("Environment", {})
        assert set(env[function]) == set(globals_) | set(own.get("Variables", {})), function
        assert env[function]["AWS_ENDPOINT_URL_DYNAMODB"] == "http://dynamodb-local:8000"
        assert env[function]["AWS_ENDPOINT_URL_KMS"] == "http://moto:5000"
        assert env[function]["STATE_TABLE"] == "baccarat-local-state"
        assert env[function]["CONFIG_TABLE"] == "baccarat-local-config"
        assert all(isinstance(v, str) for v in env[function].values())
    for function in ("ShuffleCommitFunction", "DealAndResolveFunction"):
        assert env[function]["KMS_KEY_ID"] == "alias/baccarat-local-secrets"
    assert samlocal.check_environment(TEMPLATE, env) == []


def test_boto3_ignores_an_empty_service_endpoint_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the template can declare AWS_ENDPOINT_URL_DYNAMODB / _KMS empty: in AWS they change
    nothing (and SAM passes a function only the variables the template declares)."""
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
    monkeypatch.setenv("AWS_ENDPOINT_URL_KMS", "")
    session = boto3.Session(
        aws_access_key_id="x", aws_secret_access_key="x", region_name="eu-west-1"
    )
    assert (
        session.client("dynamodb").meta.endpoint_url == "https://dynamodb.eu-west-1.amazonaws.com"
    )
    assert session.client("kms").meta.endpoint_url == "https://kms.eu-west-1.amazonaws.com"
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://dynamodb-local:8000")
    assert session.client("dynamodb").meta.endpoint_url == "http://dynamodb-local:8000"


# --- the checks fail when a part is missing --------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of what the checks read (and what ``make sam-local`` needs)."""
    for name in ("template.yaml", "Makefile", "pyproject.toml", samlocal.ENV_FILE):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, tmp_path / name)
    shutil.copytree(REPO_ROOT / "events", tmp_path / "events")
    (tmp_path / ".venv").symlink_to(REPO_ROOT / ".venv")
    return tmp_path


def edit_template(root: Path, change: Any) -> None:
    text = (root / "template.yaml").read_text()
    (root / "template.yaml").write_text(change(text))


def make_sam_local(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-o", ".venv/.installed", "sam-local"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_new_route_without_its_event_fails_make_sam_local_until_scaffolded(
    project: Path,
) -> None:
    route = (
        "        GetFairness:\n          Type: HttpApi\n          Properties:\n"
        "            ApiId: !Ref HttpApi\n            Method: GET\n"
        "            Path: /v1/tables/{table_id}/fairness\n            Auth:\n"
        "              Authorizer: NONE\n"
    )
    edit_template(
        project, lambda t: t.replace("        VerifyPage:", route + "        VerifyPage:")
    )
    done = make_sam_local(project)
    assert done.returncode != 0
    assert "events/get_fairness.json is missing (ReadFunction, route GET " in done.stderr
    written = samlocal.scaffold(project)
    assert written == ["events/get_fairness.json"]
    new = json.loads((project / "events" / "get_fairness.json").read_text())
    assert (
        new["rawPath"] == "/v1/tables/{{table_id}}/fairness"
        and "authorizer" not in new["requestContext"]
    )
    done = make_sam_local(project)
    assert done.returncode == 0, done.stderr
    assert "-e .aws-sam/events/get_fairness.json" in done.stdout


def test_a_new_variable_fails_the_checks_until_the_env_file_is_rewritten(project: Path) -> None:
    edit_template(
        project,
        lambda t: t.replace(
            'AUTH_CACHE_SECONDS: "0"', 'AUTH_CACHE_SECONDS: "0"\n          FOO: "1"', 1
        ),
    )
    assert samlocal.check(project) == [f"{samlocal.ENV_FILE}: AuthorizerFunction.FOO is missing"]
    (project / samlocal.ENV_FILE).write_text(
        samlocal.env_file_text(load(project / "template.yaml"))
    )
    assert samlocal.check(project) == []


def test_the_env_file_may_name_nothing_else_and_must_use_the_local_names(project: Path) -> None:
    path = project / samlocal.ENV_FILE
    env = json.loads(path.read_text())
    env["ReadFunction"]["EXTRA"] = "1"
    env["ReadFunction"]["STATE_TABLE"] = "my-table"
    env["ShuffleCommitFunction"]["KMS_KEY_ID"] = "arn:aws:kms:us-east-1:1:key/real"
    del env["SettleBetsFunction"]["AWS_ENDPOINT_URL_KMS"]
    env["NoSuchFunction"] = {}
    path.write_text(json.dumps(env))
    problems = samlocal.check(project)
    f = samlocal.ENV_FILE
    assert problems == [
        f"{f}: NoSuchFunction is no function of template.yaml",
        f"{f}: ShuffleCommitFunction.KMS_KEY_ID must be 'alias/baccarat-local-secrets' (the local "
        "key), not 'arn:aws:kms:us-east-1:1:key/real'",
        f"{f}: SettleBetsFunction.AWS_ENDPOINT_URL_KMS is missing",
        f"{f}: ReadFunction.EXTRA is not a variable template.yaml gives it",
        f"{f}: ReadFunction.STATE_TABLE must be 'baccarat-local-state' (the local table), not "
        "'my-table'",
    ]


def rewrite_event(root: Path, name: str, change: Any) -> None:
    path = root / "events" / f"{name}.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_wrong_events_are_refused_each_with_its_reason(project: Path) -> None:
    (project / "events" / "old_route.json").write_text("{}")
    (project / "events" / "sweep.json").unlink()
    rewrite_event(project, "deal_round", lambda e: e.update(routeKey="POST /v1/rounds"))
    rewrite_event(project, "get_table", lambda e: e["requestContext"].pop("authorizer"))
    rewrite_event(
        project,
        "get_shoe_proof",
        lambda e: e["requestContext"].update(authorizer={"lambda": {"operator_id": "x"}}),
    )
    rewrite_event(project, "create_table", lambda e: e.update(body=e["body"] + " "))
    rewrite_event(project, "get_round", lambda e: e.update(rawPath="/v1/rounds/{{round}}"))
    rewrite_event(project, "tiers_seed", lambda e: e["ResourceProperties"].pop("ConfigTable"))
    rewrite_event(project, "operator_key_authorizer", lambda e: e.update(routeKey="GET /verify"))
    problems = "\n".join(samlocal.check(project))
    for expected in (
        "events/deal_round.json (DealAndResolveFunction, route POST /v1/shoes/{shoe_id}/rounds): "
        "routeKey must be 'POST /v1/shoes/{shoe_id}/rounds', not 'POST /v1/rounds'",
        "events/get_table.json (ReadFunction, route GET /v1/tables/{table_id}): "
        "requestContext.authorizer.lambda.operator_id must be 'sam-local'",
        "events/get_shoe_proof.json (ReadFunction, route GET /v1/shoes/{shoe_id}/proof): "
        "requestContext.authorizer: the route is public",
        "events/create_table.json (ShuffleCommitFunction, route POST /v1/tables): content-length "
        "must be",
        "events/get_round.json (ReadFunction, route GET /v1/rounds/{round_id}): "
        "requestContext.http.path must equal rawPath",
        "unknown placeholders ['round']",
        "events/tiers_seed.json (SeedTiersFunction, custom resource TiersSeed): "
        "ResourceProperties.ConfigTable is missing",
        "events/operator_key_authorizer.json (AuthorizerFunction, HttpApi authorizer OperatorKey): "
        "routeKey 'GET /verify' is no route behind OperatorKey",
        "events/sweep.json is missing (AutoSettleFunction, schedule Sweep)",
        "events/old_route.json: template.yaml invokes nothing with it",
    ):
        assert expected in problems, (expected, problems)


# --- take: answers in, ids and concrete events out -------------------------------------------


def lambda_http(status: int, body: Any, content_type: str = "application/json") -> str:
    return json.dumps(
        {"statusCode": status, "headers": {"content-type": content_type}, "body": json.dumps(body)}
    )


def test_take_remembers_ids_and_writes_the_events_they_complete(project: Path) -> None:
    lines, ok = samlocal.take(project, lambda_http(201, {"table_id": "tbl_a", "profile": "x"}))
    assert ok and lines[0] == "HTTP 201  table_id=tbl_a" and len(lines) == 2
    # every event a table id completes (whatever routes the template has), and only those
    completed = {
        f"{i.name}.json"
        for i in INVOCATIONS
        if samlocal.placeholders(event(i.name)) == {"table_id"}
    }
    assert {"commit_shoe.json", "get_table.json", "audit_table.json"} <= completed
    assert lines[1].startswith("→ .aws-sam/events/: ")
    written = lines[1].removeprefix("→ .aws-sam/events/: ").split(", ")
    assert sorted(written) == sorted(completed)
    commit = json.loads((project / samlocal.RENDERED / "commit_shoe.json").read_text())
    assert commit["rawPath"] == "/v1/tables/tbl_a/shoes"
    assert commit["pathParameters"] == {"table_id": "tbl_a"}
    assert samlocal.placeholders(commit) == set()
    # sam local invoke prints the function's log lines before its answer on some platforms
    text = 'START RequestId: 1\n{"level":"INFO"}\n' + lambda_http(201, {"table_id": "tbl_a"})
    assert samlocal.take(project, text) == (["HTTP 201  table_id=tbl_a"], True)  # nothing new
    again, ok = samlocal.take(project, lambda_http(201, {"table_id": "tbl_b"}))
    assert again[1] == lines[1]  # another table: its events written again
    assert samlocal.remembered_ids(project) == {"table_id": "tbl_b"}


def test_take_reads_every_kind_of_answer(project: Path) -> None:
    issued = {"operator_id": "sam-local", "key": "bk_k", "key_id": "k1", "created_at": "t"}
    assert samlocal.take(project, json.dumps(issued)) == (
        [
            "operator sam-local: key bk_k",
            "→ .aws-sam/events/: operator_key_authorizer.json, push_api_authorizer.json",
        ],
        True,
    )
    assert samlocal.remembered_ids(project) == {"operator_key": "bk_k"}
    assert samlocal.take(project, "null") == (
        ["no answer (a custom resource answers CloudFormation at its ResponseURL)"],
        True,
    )
    authorized = {"isAuthorized": True, "context": {"operator_id": "sam-local"}}
    assert samlocal.take(project, json.dumps(authorized)) == (
        ["authorized: operator sam-local"],
        True,
    )
    assert samlocal.take(project, '{"isAuthorized": false}')[1] is False
    error = {"error": {"code": "not_found", "message": "no such table"}}
    lines, ok = samlocal.take(project, lambda_http(404, error))
    assert not ok and lines == ['HTTP 404  {"code": "not_found", "message": "no such table"}']
    crash = {"errorMessage": "boom", "errorType": "RuntimeError", "stackTrace": []}
    assert samlocal.take(project, json.dumps(crash)) == (
        ["function error: RuntimeError: boom"],
        False,
    )
    page = json.dumps({"statusCode": 200, "headers": {"content-type": "text/html"}, "body": "<p>"})
    assert samlocal.take(project, page) == (["HTTP 200  text/html, 3 bytes"], True)
    report = {"settled": [], "failed": {}}
    assert samlocal.take(project, json.dumps(report)) == (['{"settled":[],"failed":{}}'], True)
    for nothing in ("", "Error: Running AWS SAM projects locally requires Docker."):
        with pytest.raises(samlocal.SamLocalError):
            samlocal.take(project, nothing)


def test_an_event_with_a_placeholder_runs_from_the_rendered_folder() -> None:
    lines = samlocal.commands(REPO_ROOT, "x86_64")
    assert len([line for line in lines if line.startswith("sam local invoke ")]) == len(INVOCATIONS)
    invoke = {line.split(" -e ")[1].split()[0] for line in lines if " -e " in line}
    for inv in INVOCATIONS:
        where = samlocal.RENDERED if samlocal.placeholders(event(inv.name)) else "events"
        assert f"{where}/{inv.name}.json" in invoke
    assert lines[-1] == (
        "sam local start-api --env-vars infra/sam-local-env.json --docker-network baccarat-local "
        "--invoke-image $LAMBDA_IMAGE --skip-pull-image "
        "--parameter-overrides Architecture=x86_64 --warm-containers EAGER"
    )


def test_the_recipe_invokes_every_event_with_the_line_make_sam_local_prints() -> None:
    """docs/sam-local.md has, for every event, exactly the line ``make sam-local`` prints (with
    ``$ARCH``), so the page and the tool cannot drift."""
    doc = (REPO_ROOT / "docs" / "sam-local.md").read_text()
    printed = [
        line for line in samlocal.commands(REPO_ROOT, "$ARCH") if line.startswith("sam local ")
    ]
    for line in printed:
        assert line in doc.splitlines(), line
    for line in doc.splitlines():
        if line.startswith("sam local "):
            assert line in printed, line


# --- the engines ---------------------------------------------------------------------------


def test_motos_kms_does_what_the_functions_call_through_an_alias() -> None:
    """docs/sam-local.md's reasons for moto's KMS, pinned on moto's server (the image's code):
    by alias, ``GenerateDataKey`` / ``Encrypt`` / ``Decrypt`` bound to an encryption context
    (another context does not decrypt), ``GenerateRandom``, and ``Sign`` of a RAW message with
    an ``ECC_NIST_P256`` key that verifies against ``GetPublicKey``."""
    from botocore.exceptions import ClientError
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import load_der_public_key
    from support.sam_build import moto_server

    with moto_server() as url:
        kms = boto3.Session(
            aws_access_key_id="local", aws_secret_access_key="local", region_name="us-east-1"
        ).client("kms", endpoint_url=url)
        secrets = kms.create_key()["KeyMetadata"]["KeyId"]
        kms.create_alias(AliasName="alias/secrets", TargetKeyId=secrets)
        context = {"purpose": "bacc-pf-v1/chain", "table": "tbl_x"}
        drawn = kms.generate_data_key(
            KeyId="alias/secrets", NumberOfBytes=32, EncryptionContext=context
        )
        assert len(drawn["Plaintext"]) == 32
        opened = kms.decrypt(
            KeyId="alias/secrets", CiphertextBlob=drawn["CiphertextBlob"], EncryptionContext=context
        )
        assert opened["Plaintext"] == drawn["Plaintext"]
        with pytest.raises(ClientError, match="InvalidCiphertext"):
            kms.decrypt(
                KeyId="alias/secrets",
                CiphertextBlob=drawn["CiphertextBlob"],
                EncryptionContext={**context, "table": "tbl_y"},
            )
        sealed = kms.encrypt(KeyId="alias/secrets", Plaintext=b"s_i", EncryptionContext=context)
        blob = sealed["CiphertextBlob"]
        assert kms.decrypt(CiphertextBlob=blob, EncryptionContext=context)["Plaintext"] == b"s_i"
        assert len(kms.generate_random(NumberOfBytes=32)["Plaintext"]) == 32
        signing = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]
        kms.create_alias(AliasName="alias/signing", TargetKeyId=signing["KeyId"])
        message = b'{"manifest": "a small RAW message"}'
        signature = kms.sign(
            KeyId="alias/signing",
            Message=message,
            MessageType="RAW",
            SigningAlgorithm="ECDSA_SHA_256",
        )["Signature"]
        public = load_der_public_key(kms.get_public_key(KeyId="alias/signing")["PublicKey"])
        assert isinstance(public, ec.EllipticCurvePublicKey)
        public.verify(signature, message, ec.ECDSA(hashes.SHA256()))  # raises if it does not


def test_setup_creates_the_templates_resources_once_and_never_touches_aws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``baccarat sam-local setup`` against DynamoDB Local-like and moto engines (moto's server
    for all three here): everything created, then 'exists' on a second run; AWS endpoints or
    none are refused before anything is called."""
    from support.sam_build import moto_server

    for name in ("template.yaml", "infra/tiers.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, tmp_path / name)
    (tmp_path / "events").mkdir()
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with pytest.raises(samlocal.SamLocalError, match="AWS_ENDPOINT_URL_DYNAMODB is not set"):
        list(samlocal.setup(tmp_path))
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", "https://dynamodb.us-east-1.amazonaws.com")
    with pytest.raises(samlocal.SamLocalError, match="that is AWS"):
        list(samlocal.setup(tmp_path))
    with moto_server() as url:
        for service in ("DYNAMODB", "KMS", "S3"):
            monkeypatch.setenv(f"AWS_ENDPOINT_URL_{service}", url)
        first = list(samlocal.setup(tmp_path))
        keys = [line for line in first if line.startswith("key ")]  # one per key of the template
        assert first == [
            "table baccarat-local-state (StateTable): created",
            "table baccarat-local-config (ConfigTable): created",
            *keys,
            "bucket cfn-responses (custom resource answers): created",
            "tiers in baccarat-local-config: star-city-fun, star-city-vip, star-city-supreme, "
            "bid-squeeze-standard, bid-squeeze-high",
        ]
        secrets = "key alias/baccarat-local-secrets (SecretsKey, SYMMETRIC_DEFAULT ENCRYPT_DECRYPT)"
        assert f"{secrets}: created" in keys and all(k.endswith(": created") for k in keys)
        again = list(samlocal.setup(tmp_path))
        assert [line.rsplit(": ", 1)[1] for line in again[:-1]] == ["exists"] * (len(first) - 1)
        kms = boto3.client("kms", endpoint_url=url)
        aliases = [a["AliasName"] for a in kms.list_aliases()["Aliases"]]
        assert aliases.count("alias/baccarat-local-secrets") == 1


def test_setup_waits_for_an_engine_that_starts_late_and_names_one_that_never_answers() -> None:
    """An engine's container is up (Docker's port accepts) before its server answers: setup
    waits for an HTTP answer — any status — and gives up with the URL."""
    import http.server
    import socket
    import threading

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"

    class Refusing(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # DynamoDB Local's answer to a bare GET
            self.send_response(400)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    servers: list[http.server.HTTPServer] = []

    def start() -> None:
        servers.append(http.server.HTTPServer(("127.0.0.1", port), Refusing))
        servers[0].serve_forever()

    late = threading.Timer(1.0, start)  # until then: connection refused
    late.start()
    try:
        samlocal.wait_until_answering(url, seconds=20)
        assert servers, "answered before the server existed"
    finally:
        late.cancel()  # if it has not started yet
        if servers:
            servers[0].shutdown()
        late.join()
        for server in servers:
            server.server_close()
    with pytest.raises(samlocal.SamLocalError, match=f"{url} does not answer after 1 s"):
        samlocal.wait_until_answering(url, seconds=1)
