"""template.yaml against the code: routes, tables, least privilege, observability, packaging.
(``make test`` also runs ``cfn-lint`` and ``sam validate --lint`` on it.)"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from baccarat_api.http.routers import FUNCTIONS as ROUTE_MAP
from baccarat_api.http.routers import all_routers, function_router
from baccarat_api.ports.tokens import TOKEN_KEY_PURPOSE
from baccarat_api.ports.vault import CHAIN_PURPOSE, REF_KEY_PURPOSE, SHOE_PURPOSE
from baccarat_dev.template import REPO_ROOT, load, routes, table_definitions

T = load()
RESOURCES: dict[str, Any] = T["Resources"]
FUNCTIONS = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::Function"}
API_FUNCTIONS = {k: v for k, v in FUNCTIONS.items() if "HttpApi" in str(v["Properties"])}


def statements(function: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for policy in FUNCTIONS[function]["Properties"].get("Policies", []):
        out.extend(policy.get("Statement", []))
    return out


def actions(function: str, resource: str | None = None) -> set[str]:
    found: set[str] = set()
    for st in statements(function):
        if resource is None or resource in str(st["Resource"]):
            acts = st["Action"]
            found |= {acts} if isinstance(acts, str) else set(acts)
    return found


def test_every_route_is_served_by_the_function_the_route_map_names() -> None:
    template_routes = {(r.method, r.path): r for r in routes()}
    app_routes = {
        (method, route.path)
        for router in all_routers()
        for route in router.routes
        for method in route.methods  # type: ignore[attr-defined]
    }
    assert set(template_routes) == app_routes
    assert len(app_routes) == sum(len(names) for names in ROUTE_MAP.values())
    for (method, path), route in template_routes.items():
        name = route.code_uri.rstrip("/").rsplit("/", 1)[-1]
        entry = (REPO_ROOT / route.code_uri / "app.py").read_text(encoding="utf-8")
        assert f'lambda_handler(function_router("{name}"))' in entry
        assert (method, path) in {
            (m, r.path)
            for r in function_router(name).routes
            for m in r.methods  # type: ignore[attr-defined]
        }


def test_every_route_of_a_resource_router_is_served_by_exactly_one_function() -> None:
    folder = REPO_ROOT / "shared" / "baccarat_api" / "http" / "routers"
    declared = sorted(
        f"{module.stem}.{route.name}"  # type: ignore[attr-defined]
        for module in folder.glob("*.py")
        if module.stem != "__init__"
        for route in __import__(
            f"baccarat_api.http.routers.{module.stem}", fromlist=["router"]
        ).router.routes
    )
    served = sorted(name for names in ROUTE_MAP.values() for name in names)
    assert declared == served


def test_entry_points_are_thin() -> None:
    for function in API_FUNCTIONS.values():
        code = (REPO_ROOT / function["Properties"]["CodeUri"] / "app.py").read_text()
        assert len([line for line in code.splitlines() if line.strip()]) <= 6


def test_tables_are_on_demand_with_pitr_and_retained() -> None:
    defs = table_definitions()
    assert set(defs) == {"StateTable", "ConfigTable"}
    for logical_id, spec in defs.items():
        assert spec["BillingMode"] == "PAY_PER_REQUEST"
        assert spec["_pitr"] is True
        assert [k["AttributeName"] for k in spec["KeySchema"]] == ["pk", "sk"]
        assert RESOURCES[logical_id]["DeletionPolicy"] == "Retain"


def test_functions_share_globals_for_runtime_architecture_and_powertools() -> None:
    g = T["Globals"]["Function"]
    assert g["Runtime"] == "python3.11"
    assert g["Architectures"] == [{"Ref": "Architecture"}]
    assert T["Parameters"]["Architecture"]["Default"] == "arm64"
    assert "Stage" in T["Parameters"]
    env = g["Environment"]["Variables"]
    for name in ("POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL"):
        assert name in env
    assert env["POWERTOOLS_LOGGER_LOG_EVENT"] == "false"  # events carry operator keys
    assert g["Tracing"] == "Active"


def test_every_function_logs_to_a_retained_log_group_and_has_alarms() -> None:
    alarms = [r for r in RESOURCES.values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    for name, function in FUNCTIONS.items():
        group = function["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert RESOURCES[group]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
        if name in API_FUNCTIONS:
            metrics = {
                a["Properties"]["MetricName"]
                for a in alarms
                if {"Ref": name} in [d["Value"] for d in a["Properties"].get("Dimensions", [])]
            }
            assert metrics == {"Errors", "Throttles"}, name


def test_every_dead_letter_queue_has_an_alarm() -> None:
    """A message dead-lettered is work nobody does until someone redrives it: each queue some
    queue dead-letters to is watched by an alarm on its visible messages."""
    targets = {
        r["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for r in RESOURCES.values()
        if r["Type"] == "AWS::SQS::Queue" and "RedrivePolicy" in r["Properties"]
    }
    assert targets
    watched = {
        d["Value"]["Fn::GetAtt"][0]
        for r in RESOURCES.values()
        if r["Type"] == "AWS::CloudWatch::Alarm"
        and r["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"
        for d in r["Properties"].get("Dimensions", [])
        if d["Name"] == "QueueName"
    }
    assert targets <= watched, targets - watched


def test_http_api_settings() -> None:
    api = RESOURCES["HttpApi"]["Properties"]
    assert api["FailOnWarnings"] is True
    assert api["AccessLogSettings"]["Format"].startswith("{")
    assert "$context.requestId" in api["AccessLogSettings"]["Format"]
    assert "authorization" not in api["AccessLogSettings"]["Format"].lower()
    assert api["DefaultRouteSettings"]["ThrottlingRateLimit"] == {"Ref": "ThrottlingRateLimit"}


def test_least_privilege() -> None:
    everything = {a for f in FUNCTIONS for a in actions(f)}
    assert not any(a.endswith("*") for a in everything)
    assert "dynamodb:DeleteItem" not in actions("ShuffleCommitFunction") | actions(
        "DealAndResolveFunction"
    ) | actions("SettleBetsFunction") | actions("ReadFunction")
    # the read function writes only public items (a proof's pages and manifest, a table's
    # fairness line and totals), never game state: its writes are bound to those partitions
    assert actions("ReadFunction", "StateTable") == {
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
    }
    for st in statements("ReadFunction"):
        if {"dynamodb:PutItem", "dynamodb:UpdateItem"} & set(_listed(st["Action"])):
            bound = st["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
            assert bound == ["PROOF#*", "FAIR#*"]
    assert actions("SettleBetsFunction", "StateTable") == {
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:UpdateItem",
        "dynamodb:PutItem",  # an Idempotency-Key's record, in the settlement's transaction
    }
    kms = {f: {a for a in actions(f) if a.startswith("kms:")} for f in FUNCTIONS}
    assert kms["ShuffleCommitFunction"] == {"kms:GenerateDataKey", "kms:Encrypt", "kms:Decrypt"}
    assert kms["DealAndResolveFunction"] == {"kms:Decrypt"}
    signs = {"kms:Decrypt", "kms:Sign", "kms:GetPublicKey"}  # a final proof: ref key, signature
    assert kms["ReadFunction"] == signs
    assert kms["AutoSettleFunction"] == signs | {"kms:Encrypt"}  # a running table's commit
    # the reveal verifies player tokens (their key only); the authorizer too
    assert kms["SettleBetsFunction"] == kms["AuthorizerFunction"] == {"kms:Decrypt"}
    assert kms["SeedTiersFunction"] == set()
    for f in FUNCTIONS:
        for st in statements(f):
            assert st["Resource"] != "*", (f, st)
    # every KMS grant on the secrets key is bound to one purpose of the encryption context
    # (ports/vault.py): the deal can open shoe secrets and bettor-ref keys, never a chain
    # secret; besides it only the proof finalisers open a ref key, and shuffle-commit only draws
    # one (sealed) at table creation
    grants: dict[str, dict[str, set[str]]] = {}
    signing: dict[str, set[str]] = {}
    for f in FUNCTIONS:
        for st in statements(f):
            acts = {a for a in _listed(st["Action"]) if a.startswith("kms:")}
            if acts and st["Resource"] == {"Fn::GetAtt": ["SigningKey", "Arn"]}:
                signing.setdefault(f, set()).update(acts)
                if "kms:Sign" in acts:  # RAW ECDSA_SHA_256 only (what bacc-proof-sig-v1 is)
                    assert st["Condition"]["StringEquals"] == {
                        "kms:SigningAlgorithm": "ECDSA_SHA_256",
                        "kms:MessageType": "RAW",
                    }
            elif acts:
                assert st["Resource"] == {"Fn::GetAtt": ["SecretsKey", "Arn"]}, (f, st)
                purpose = st["Condition"]["StringEquals"]["kms:EncryptionContext:purpose"]
                grants.setdefault(f, {}).setdefault(purpose, set()).update(acts)
    # only the finalisers sign (the read function's first proof read, and the sweep)
    assert signing == {
        f: {"kms:Sign", "kms:GetPublicKey"} for f in ("ReadFunction", "AutoSettleFunction")
    }
    # they name bettors by ref: the ref key; the sweep also deals a betting window nobody dealt,
    # so it opens that shoe's secret too (as the deal does) — never a chain secret
    # every function serving a player route opens the player tokens' keys (that purpose
    # only); shuffle-commit, which mints, also draws one (docs/design/browsers.md §1)
    token = {TOKEN_KEY_PURPOSE: {"kms:Decrypt"}}
    for f in ("ReadFunction", "DealAndResolveFunction", "SettleBetsFunction", "AuthorizerFunction"):
        assert grants[f].pop(TOKEN_KEY_PURPOSE) == token[TOKEN_KEY_PURPOSE], f
    assert grants["ShuffleCommitFunction"].pop(TOKEN_KEY_PURPOSE) == {
        "kms:Decrypt", "kms:GenerateDataKey"
    }  # fmt: skip
    assert grants.pop("SettleBetsFunction") == grants.pop("AuthorizerFunction") == {}
    assert grants["ReadFunction"] == {REF_KEY_PURPOSE: {"kms:Decrypt"}}
    # and it takes a running table's overdue step as its timer would: a commit opens the chain
    # secret and seals the next shoe's s_i (never draws a chain secret)
    assert grants["AutoSettleFunction"] == {
        REF_KEY_PURPOSE: {"kms:Decrypt"},
        SHOE_PURPOSE: {"kms:Encrypt", "kms:Decrypt"},
        CHAIN_PURPOSE: {"kms:Decrypt"},
    }
    assert grants["ShuffleCommitFunction"] == {
        CHAIN_PURPOSE: {"kms:GenerateDataKey", "kms:Decrypt"},
        SHOE_PURPOSE: {"kms:Encrypt", "kms:Decrypt"},
        REF_KEY_PURPOSE: {"kms:GenerateDataKey"},
    }
    assert grants["DealAndResolveFunction"] == {
        SHOE_PURPOSE: {"kms:Decrypt"},
        REF_KEY_PURPOSE: {"kms:Decrypt"},
    }
    # the table clock deals from the book (s_i, ref key) and commits the next shoe (opens the
    # chain secret to seal its s_i): never draws a chain secret or a ref key
    assert grants["TableClockFunction"] == {
        CHAIN_PURPOSE: {"kms:Decrypt"},
        SHOE_PURPOSE: {"kms:Encrypt", "kms:Decrypt"},
        REF_KEY_PURPOSE: {"kms:Decrypt"},
    }
    # the key ids are only given to functions allowed to use them
    grants |= {"SettleBetsFunction": {}, "AuthorizerFunction": {}}  # token keys (above)
    for name, function in FUNCTIONS.items():
        env = str(function["Properties"].get("Environment", {}))
        assert ("KMS_KEY_ID" in env) == (name in grants), name
        assert ("SIGNING_KEY_ID" in env) == (name in signing), name


def _listed(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def test_tiers_are_seeded_on_deploy_from_the_one_data_file() -> None:
    seed = RESOURCES["TiersSeed"]
    assert seed["Properties"]["ServiceToken"] == {"Ref": "SeedTiersFunction.Alias"}
    assert seed["Properties"]["TiersVersion"] == {"Ref": "SeedTiersFunction.Version"}
    function = FUNCTIONS["SeedTiersFunction"]["Properties"]
    assert (REPO_ROOT / function["CodeUri"] / "tiers.json").is_file()
    assert "Handler" not in function  # app.handler, like every function (Globals)


def _requirements(lines: list[str]) -> dict[str, str]:
    """name (with extras) → specifier."""
    out = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            match = re.match(r"([A-Za-z0-9_.\-\[\]]+)\s*(.*)", line)
            assert match, line
            out[match[1].lower()] = match[2]
    return out


def test_the_lambda_dependencies_are_the_projects_pinned() -> None:
    from packaging.specifiers import SpecifierSet

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    wanted = _requirements(project["dependencies"])
    layer = (REPO_ROOT / "infra/layers/dependencies/requirements.txt").read_text().splitlines()
    pinned = _requirements(layer)
    assert set(pinned) == set(wanted)
    for name, pin in pinned.items():
        assert pin.startswith("=="), (name, pin)
        assert pin[2:] in SpecifierSet(wanted[name]), (name, pin, wanted[name])


def test_the_constraints_pin_every_requirement_within_pyproject_and_the_layer_alike() -> None:
    """infra/constraints.txt (what ``make install`` installs through) pins one version of every
    package each extra asks for, within pyproject.toml's range; the Lambda layer ships the same
    versions the suite runs with."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    lines = (REPO_ROOT / "infra/constraints.txt").read_text().splitlines()
    pins = {}
    for line in lines:
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    assert len(pins) == len([x for x in lines if x and not x.startswith("#")])  # once each
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    asked = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        asked += extra
    checked = 0
    for text in asked:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        if name == canonicalize_name(project["name"]):
            continue  # an extra including another
        assert name in pins, text
        assert pins[name] in req.specifier, (text, pins[name])
        checked += 1
    assert checked >= 25
    layer = (REPO_ROOT / "infra/layers/dependencies/requirements.txt").read_text().splitlines()
    for name, pin in _requirements(layer).items():
        assert pin[2:] == pins[canonicalize_name(Requirement(name).name)], (name, pin)


#: The functions that change a table's live state: each schedules the running table's next tick.
LIVE_WRITERS = (
    "ShuffleCommitFunction", "DealAndResolveFunction", "SettleBetsFunction",
    "AutoSettleFunction", "TableClockFunction",
)  # fmt: skip


def test_the_table_clock_queue_delivers_ticks_at_their_time_and_dead_letters_failures() -> None:
    """Ticks: a standard queue (FIFO has no per-message delay), visible again only after six
    times the function's timeout, dead-lettered after five receives; the function takes a
    batch at once (no batching window: a tick waits for no other) and reports each failed tick
    alone. Every function that changes a live table may send a tick, and knows the queue."""
    queue = RESOURCES["TableClockQueue"]["Properties"]
    function = FUNCTIONS["TableClockFunction"]["Properties"]
    assert "FifoQueue" not in queue
    assert queue["VisibilityTimeout"] >= 6 * function["Timeout"]
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": ["TableClockDeadLetterQueue", "Arn"]},
        "maxReceiveCount": 5,
    }
    (event,) = function["Events"].values()
    assert event["Type"] == "SQS"
    assert event["Properties"] == {
        "Queue": {"Fn::GetAtt": ["TableClockQueue", "Arn"]},
        "BatchSize": 10,
        "MaximumBatchingWindowInSeconds": 0,
        "FunctionResponseTypes": ["ReportBatchItemFailures"],
    }
    senders = {
        f
        for f in FUNCTIONS
        for st in statements(f)
        if "sqs:SendMessage" in _listed(st["Action"])
        and st["Resource"] == {"Fn::GetAtt": ["TableClockQueue", "Arn"]}
    }
    assert senders == set(LIVE_WRITERS)
    for name, f in FUNCTIONS.items():
        env = f["Properties"].get("Environment", {}).get("Variables", {})
        knows = env.get("TABLE_CLOCK_QUEUE_URL") == {"Ref": "TableClockQueue"}
        assert knows == (name in LIVE_WRITERS), name


#: The functions that settle or void a round (or sweep): each sends a book round's chunks.
CHUNK_SENDERS = (
    "DealAndResolveFunction", "SettleBetsFunction", "AutoSettleFunction", "TableClockFunction",
)  # fmt: skip


def test_the_settle_chunk_queue_runs_chunks_and_dead_letters_failures() -> None:
    """A book round's chunks: a standard queue visible again only after six times the
    function's timeout, dead-lettered after five receives (with an alarm); the function reports
    each failed chunk alone; every function that settles knows the queue and may send to it;
    the chunk function reads and writes the state table only (no KMS, no delete)."""
    queue = RESOURCES["SettleChunkQueue"]["Properties"]
    function = FUNCTIONS["SettleChunkFunction"]["Properties"]
    assert "FifoQueue" not in queue
    assert queue["VisibilityTimeout"] >= 6 * function["Timeout"]
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": ["SettleChunkDeadLetterQueue", "Arn"]},
        "maxReceiveCount": 5,
    }
    alarm = RESOURCES["SettleChunkDeadLetterAlarm"]["Properties"]
    assert alarm["Dimensions"][0]["Value"] == {
        "Fn::GetAtt": ["SettleChunkDeadLetterQueue", "QueueName"]
    }
    (event,) = function["Events"].values()
    assert event["Type"] == "SQS"
    assert event["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert event["Properties"]["Queue"] == {"Fn::GetAtt": ["SettleChunkQueue", "Arn"]}
    senders = {
        f
        for f in FUNCTIONS
        for st in statements(f)
        if "sqs:SendMessage" in _listed(st["Action"])
        and st["Resource"] == {"Fn::GetAtt": ["SettleChunkQueue", "Arn"]}
    }
    assert senders == set(CHUNK_SENDERS)
    for name, f in FUNCTIONS.items():
        env = f["Properties"].get("Environment", {}).get("Variables", {})
        knows = env.get("SETTLE_CHUNK_QUEUE_URL") == {"Ref": "SettleChunkQueue"}
        assert knows == (name in CHUNK_SENDERS), name
    actions = {a for st in statements("SettleChunkFunction") for a in _listed(st["Action"])}
    assert actions == {
        "dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem",
        "dynamodb:UpdateItem",
    }  # fmt: skip


def test_the_beacon_relays_are_a_parameter_every_function_reads() -> None:
    """``BeaconRelays`` → ``BACCARAT_BEACON_RELAYS`` (the runtime's drand quicknet relays):
    empty by default (the service's own default, drand's public relays, written once in
    ``baccarat.beacon``); only https base URLs, comma-separated."""
    import re

    from baccarat.beacon import QUICKNET_RELAYS

    param = T["Parameters"]["BeaconRelays"]
    assert param["Default"] == ""
    env = T["Globals"]["Function"]["Environment"]["Variables"]
    assert env["BACCARAT_BEACON_RELAYS"] == {"Ref": "BeaconRelays"}
    pattern = re.compile(param["AllowedPattern"])
    assert pattern.match(",".join(QUICKNET_RELAYS)) and pattern.match("")
    assert not pattern.match("http://api.drand.sh") and not pattern.match("https://a b")
