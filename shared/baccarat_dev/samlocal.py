"""``sam local`` for this project: the functions of template.yaml in Docker, on local engines
(DynamoDB Local and moto's server for KMS). docs/sam-local.md is the recipe; this module is the
machinery behind ``baccarat sam-local …`` and ``make sam-local``:

* **the catalogue** (:func:`invocations`): every way template.yaml invokes a function — each
  ``HttpApi`` route, each ``Schedule``, the HttpApi Lambda authorizer, each custom resource —
  and the event file it needs, ``events/<name>.json`` (``name``: the template's event /
  authorizer / resource id in snake case: ``DealRound`` → ``events/deal_round.json``);
* **the checks** (:func:`check`): every invocation has its event, of the right route and shape,
  with the authorizer context behind the authorizer; no event file is left over; the environment
  file ``infra/sam-local-env.json`` names, for every function, exactly the variables
  template.yaml gives it, with the local engines' endpoints, table names and key aliases
  (:func:`local_environment` writes it);
* **ids** (:func:`take`): events that need ids (a table, a shoe, a round, the operator key) hold
  ``{{table_id}}``-style placeholders; ``… | baccarat sam-local take`` reads an answer (what
  ``sam local invoke`` prints, or ``baccarat operator create --json``), remembers its ids and
  writes the concrete events into ``.aws-sam/events/``;
* **the engines** (:func:`setup`): the template's tables, KMS keys (behind their aliases) and
  the tiers, created on the local engines the ``AWS_ENDPOINT_URL_*`` variables name;
* **the lines** (:func:`commands`): the exact ``sam local invoke`` line of every event.

Every path is relative to the project root: the nearest folder, from the working directory up,
holding template.yaml and events/. Development-time only."""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baccarat_dev.events import path_pattern
from baccarat_dev.template import Route, load

STAGE = "local"
#: The Docker network of the engines and the function containers (``--docker-network``).
NETWORK = "baccarat-local"
#: The engines as the function containers reach them: their container names on :data:`NETWORK`.
DYNAMODB_URL = "http://dynamodb-local:8000"
MOTO_URL = "http://moto:5000"  # KMS, and S3 for the custom resource's answer
CONTAINER_ENDPOINTS = {"DYNAMODB": DYNAMODB_URL, "KMS": MOTO_URL}
#: The engines' images: scripts/sam-local-images.sh (AWS's, or the stand-ins built here).
#: The bucket of moto's S3 where a custom resource's event asks for its CloudFormation answer.
CFN_BUCKET = "cfn-responses"
CFN_PREFIX = f"{MOTO_URL}/{CFN_BUCKET}/"
#: The operator the events' authorizer context names (``baccarat operator create sam-local``).
OPERATOR = "sam-local"
ENV_FILE = "infra/sam-local-env.json"
EVENTS = "events"
RENDERED = ".aws-sam/events"
IDS_FILE = f"{RENDERED}/ids.json"
#: What the events' placeholders may name, and the answers' fields that give them.
IDS = ("table_id", "shoe_id", "round_id", "operator_key")
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
TEMPLATE_FILE = "template.yaml"


class SamLocalError(RuntimeError):
    """A one-line problem for the user (the CLI prints it, exit status 2)."""


# --- the project ---------------------------------------------------------------------------


def project_root(start: Path | None = None) -> Path:
    """The nearest folder from ``start`` (default: the working directory) up that holds
    template.yaml and events/."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / TEMPLATE_FILE).is_file() and (folder / EVENTS).is_dir():
            return folder
    raise SamLocalError(f"no {TEMPLATE_FILE} with an {EVENTS}/ folder here or above {here}")


def snake(name: str) -> str:
    """``DealRound`` → ``deal_round``; ``GetShoeProof`` → ``get_shoe_proof``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def kebab_without(name: str, suffix: str) -> str:
    """``StateTable`` less ``Table`` → ``state``; ``SecretsKey`` less ``Key`` → ``secrets``."""
    stem = name[: -len(suffix)] if name.endswith(suffix) and name != suffix else name
    return snake(stem).replace("_", "-")


# --- the catalogue -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Invocation:
    """One way template.yaml invokes a function, and the event file it needs."""

    function: str
    name: str  # the event file's stem
    kind: str  # "http", "authorizer", "schedule", "stream", "queue" or "custom-resource"
    source: str  # the template's event, authorizer or resource id
    route: Route | None = None  # "http"
    public: bool = False  # "http": no authorizer in front

    @property
    def file(self) -> str:
        return f"{EVENTS}/{self.name}.json"

    def describe(self) -> str:
        what = {
            "http": f"route {self.route.route_key if self.route else '?'}",
            "authorizer": f"HttpApi authorizer {self.source}",
            "schedule": f"schedule {self.source}",
            "stream": f"DynamoDB stream {self.source}",
            "queue": f"SQS queue {self.source}",
            "custom-resource": f"custom resource {self.source}",
        }[self.kind]
        return f"{self.function}, {what}"


def _functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"
    }


def _referenced(value: Any) -> str | None:
    """The resource (or parameter) a ``!GetAtt R.Arn`` / ``!Ref R`` / ``!Ref R.Alias`` names."""
    if isinstance(value, dict):
        if "Fn::GetAtt" in value:
            return str(value["Fn::GetAtt"][0])
        if "Ref" in value:
            return str(value["Ref"]).split(".")[0]
    return None


def _http_invocations(template: dict[str, Any]) -> Iterator[Invocation]:
    apis = {
        k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::HttpApi"
    }
    for function, resource in _functions(template).items():
        props = resource["Properties"]
        for event_id, event in props.get("Events", {}).items():
            if event.get("Type") != "HttpApi":
                continue
            ep = event["Properties"]
            api = apis.get(str((ep.get("ApiId") or {}).get("Ref", "")), {})
            default = api.get("Properties", {}).get("Auth", {}).get("DefaultAuthorizer")
            chosen = ep.get("Auth", {}).get("Authorizer", default)
            route = Route(ep["Method"].upper(), ep["Path"], function, str(props["CodeUri"]))
            public = chosen in (None, "NONE")
            yield Invocation(function, snake(event_id), "http", event_id, route, public)
    for api in apis.values():
        for name, authorizer in api["Properties"].get("Auth", {}).get("Authorizers", {}).items():
            target = _referenced(authorizer.get("FunctionArn"))
            if target:
                yield Invocation(target, f"{snake(name)}_authorizer", "authorizer", name)


def invocations(template: dict[str, Any]) -> tuple[list[Invocation], list[str]]:
    """Every invocation of every function (template order), and the problems: a function
    nothing invokes that this module knows of, or two invocations wanting one event file."""
    found = list(_http_invocations(template))
    for function, resource in _functions(template).items():
        for event_id, event in resource["Properties"].get("Events", {}).items():
            if event.get("Type") in ("Schedule", "ScheduleV2"):
                found.append(Invocation(function, snake(event_id), "schedule", event_id))
            if event.get("Type") == "DynamoDB":
                found.append(Invocation(function, snake(event_id), "stream", event_id))
            if event.get("Type") == "SQS":
                found.append(Invocation(function, snake(event_id), "queue", event_id))
    for logical_id, resource in template["Resources"].items():
        target = _referenced(resource.get("Properties", {}).get("ServiceToken"))
        if resource["Type"].startswith("Custom::") and target:
            found.append(Invocation(target, snake(logical_id), "custom-resource", logical_id))
    problems = []
    invoked = {i.function for i in found}
    for function in _functions(template):
        if function not in invoked:
            problems.append(
                f"{function}: nothing in template.yaml invokes it that {__name__} knows"
            )
    seen: dict[str, Invocation] = {}
    for inv in found:
        if inv.name in seen:
            problems.append(
                f"{inv.file} would serve both {seen[inv.name].describe()} and {inv.describe()}"
            )
        seen[inv.name] = inv
    order = list(_functions(template))
    found.sort(key=lambda i: order.index(i.function))
    return found, problems


# --- the environment file ------------------------------------------------------------------


def template_variables(template: dict[str, Any], function: str) -> dict[str, Any]:
    """The function's environment as template.yaml gives it: Globals, then its own."""
    variables = dict(
        template.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {})
    )
    own = template["Resources"][function]["Properties"].get("Environment", {})
    variables.update(own.get("Variables", {}))
    return variables


def local_table_name(logical_id: str) -> str:
    return f"baccarat-{STAGE}-{kebab_without(logical_id, 'Table')}"


def local_key_alias(template: dict[str, Any], key_id: str) -> str:
    """The alias of the template's ``AWS::KMS::Alias`` targeting ``key_id``, for stage
    ``local``; without one, ``alias/baccarat-local-<key>``."""
    for resource in template["Resources"].values():
        props = resource.get("Properties", {})
        if (
            resource["Type"] == "AWS::KMS::Alias"
            and _referenced(props.get("TargetKeyId")) == key_id
        ):
            name = props["AliasName"]
            text = name.get("Fn::Sub") if isinstance(name, dict) else name
            if isinstance(text, str):
                return text.replace("${Stage}", STAGE)
    return f"alias/baccarat-{STAGE}-{kebab_without(key_id, 'Key')}"


@dataclass(frozen=True, slots=True)
class LocalValue:
    """The local value of one variable, and the resource it stands for (if any)."""

    value: str
    resource: str | None = None  # a table's or key's logical id
    kind: str = "plain"  # "plain", "table", "key", "endpoint"


def local_value(template: dict[str, Any], name: str, value: Any) -> LocalValue:
    """The value a variable of template.yaml takes on the local engines."""
    resources = template["Resources"]
    if name.startswith("AWS_ENDPOINT_URL_"):
        service = name.removeprefix("AWS_ENDPOINT_URL_")
        if service not in CONTAINER_ENDPOINTS:
            raise SamLocalError(f"{name}: no local engine for {service} in {__name__}")
        return LocalValue(CONTAINER_ENDPOINTS[service], kind="endpoint")
    if isinstance(value, str | int | float | bool):
        return LocalValue(str(value))
    target = _referenced(value)
    if target == "Stage":
        return LocalValue(STAGE)
    kind = resources.get(target or "", {}).get("Type")
    if kind == "AWS::DynamoDB::Table" and isinstance(value, dict) and "Ref" in value:
        return LocalValue(local_table_name(str(target)), str(target), "table")
    if kind == "AWS::KMS::Key":
        return LocalValue(local_key_alias(template, str(target)), str(target), "key")
    if kind == "AWS::KMS::Alias":  # !Ref of an alias: its name
        key = str(_referenced(resources[str(target)]["Properties"]["TargetKeyId"]))
        return LocalValue(local_key_alias(template, key), key, "key")
    if kind == "AWS::SQS::Queue":  # none locally: make run's loop and sam local need no wake-up
        return LocalValue("", str(target), "queue")
    parameter = template.get("Parameters", {}).get(target or "")
    if parameter is not None and "Default" in parameter:
        return LocalValue(str(parameter["Default"]))
    raise SamLocalError(f"{name}={value!r}: no local value for it in {__name__}.local_value")


def local_environment(template: dict[str, Any]) -> dict[str, dict[str, str]]:
    """What infra/sam-local-env.json holds: for every function, each of its variables' local
    value (``baccarat sam-local env-file --write`` writes it)."""
    return {
        function: {
            name: local_value(template, name, value).value
            for name, value in template_variables(template, function).items()
        }
        for function in _functions(template)
    }


def check_environment(template: dict[str, Any], env: Any) -> list[str]:
    """The environment file names every function and exactly its variables; the engines'
    endpoints, table names and key aliases are the local ones (a value of the template's own,
    e.g. a log level, may be changed)."""
    if not isinstance(env, dict):
        return [f"{ENV_FILE}: not a JSON object of function → variables"]
    problems = []
    functions = _functions(template)
    for extra in sorted(set(env) - set(functions)):
        problems.append(f"{ENV_FILE}: {extra} is no function of template.yaml")
    for function in functions:
        given = env.get(function)
        if not isinstance(given, dict):
            problems.append(f"{ENV_FILE}: {function} is missing")
            continue
        variables = template_variables(template, function)
        for name in sorted(set(variables) - set(given)):
            problems.append(f"{ENV_FILE}: {function}.{name} is missing")
        for name in sorted(set(given) - set(variables)):
            problems.append(
                f"{ENV_FILE}: {function}.{name} is not a variable template.yaml gives it"
            )
        for name in sorted(set(variables) & set(given)):
            want = local_value(template, name, variables[name])
            if want.kind != "plain" and given[name] != want.value:
                problems.append(
                    f"{ENV_FILE}: {function}.{name} must be {want.value!r} (the local "
                    f"{want.kind}), not {given[name]!r}"
                )
            if not isinstance(given[name], str):
                problems.append(f"{ENV_FILE}: {function}.{name} must be a string")
    return problems


def env_file_text(template: dict[str, Any]) -> str:
    return json.dumps(local_environment(template), indent=2) + "\n"


# --- the events ----------------------------------------------------------------------------


def placeholders(value: Any) -> set[str]:
    """The ``{{name}}`` placeholders anywhere in a JSON value."""
    if isinstance(value, str):
        return set(PLACEHOLDER.findall(value))
    if isinstance(value, dict):
        return set().union(*(placeholders(v) for v in value.values()), set())
    if isinstance(value, list):
        return set().union(*(placeholders(v) for v in value), set())
    return set()


def fill(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with every placeholder replaced by its id."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda m: ids[m.group(1)], value)
    if isinstance(value, dict):
        return {k: fill(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, ids) for v in value]
    return value


def _check_http(inv: Invocation, event: dict[str, Any], _: dict[str, Any]) -> Iterator[str]:
    assert inv.route is not None
    route = inv.route
    ctx = event.get("requestContext", {})
    http = ctx.get("http", {})
    if event.get("version") != "2.0":
        yield "version must be 2.0 (HTTP API payload 2.0)"
    keys = {"routeKey": event.get("routeKey"), "requestContext.routeKey": ctx.get("routeKey")}
    for where, key in keys.items():
        if key != route.route_key:
            yield f"{where} must be {route.route_key!r}, not {key!r}"
    if http.get("method") != route.method:
        yield f"requestContext.http.method must be {route.method}"
    raw = event.get("rawPath", "")
    if http.get("path") != raw:
        yield "requestContext.http.path must equal rawPath"
    names = re.findall(r"{(\w+)}", route.path)
    match = re.fullmatch(path_pattern(route.path), raw)
    if match is None:
        yield f"rawPath {raw!r} is not a path of {route.path}"
    elif names and event.get("pathParameters") != dict(zip(names, match.groups(), strict=True)):
        yield f"pathParameters must be {dict(zip(names, match.groups(), strict=True))}"
    elif not names and "pathParameters" in event:
        yield "pathParameters: the route has none (API Gateway leaves the key out)"
    authorizer = ctx.get("authorizer")
    if inv.public and authorizer is not None:
        yield "requestContext.authorizer: the route is public (no authorizer runs)"
    if not inv.public and (authorizer or {}).get("lambda", {}).get("operator_id") != OPERATOR:
        yield f"requestContext.authorizer.lambda.operator_id must be {OPERATOR!r}"
    yield from _check_body(event)


def _check_body(event: dict[str, Any]) -> Iterator[str]:
    headers = event.get("headers", {})
    if any(k != k.lower() for k in headers):
        yield "header names must be lowercase (API Gateway lowercases them)"
    if "body" not in event:
        if "content-length" in headers:
            yield "content-length without a body"
        return
    body = event["body"]
    if placeholders(body):
        yield "no placeholder in a body (its content-length would change)"
    raw = base64.b64decode(body) if event.get("isBase64Encoded") else body.encode()
    if headers.get("content-length") != str(len(raw)):
        yield f"content-length must be {len(raw)}"
    if "json" in headers.get("content-type", ""):
        try:
            json.loads(raw)
        except ValueError:
            yield "the body is not JSON"


def _check_authorizer(
    inv: Invocation, event: dict[str, Any], template: dict[str, Any]
) -> Iterator[str]:
    guarded = {i.route.route_key for i in invocations(template)[0] if i.route and not i.public}
    if event.get("routeKey") not in guarded:
        yield f"routeKey {event.get('routeKey')!r} is no route behind {inv.source}"
    if event.get("type") != "REQUEST" or event.get("version") != "2.0":
        yield "an HttpApi Lambda authorizer event: type REQUEST, version 2.0"
    header = event.get("headers", {}).get("authorization")
    if event.get("identitySource") != [header]:
        yield "identitySource must be [the authorization header]"
    if "body" in event:
        yield "an authorizer event has no body"
    yield from _check_body(event)


def _check_schedule(inv: Invocation, event: dict[str, Any], _: dict[str, Any]) -> Iterator[str]:
    if event.get("detail-type") != "Scheduled Event" or event.get("source") != "aws.events":
        yield "an EventBridge scheduled event: detail-type 'Scheduled Event', source aws.events"


def _check_custom_resource(
    inv: Invocation, event: dict[str, Any], template: dict[str, Any]
) -> Iterator[str]:
    resource = template["Resources"][inv.source]
    if event.get("LogicalResourceId") != inv.source:
        yield f"LogicalResourceId must be {inv.source}"
    if event.get("ResourceType") != resource["Type"]:
        yield f"ResourceType must be {resource['Type']}"
    props = event.get("ResourceProperties", {})
    for key, value in resource["Properties"].items():
        if key not in props:
            yield f"ResourceProperties.{key} is missing"
        elif is_table_ref(template, value):
            local = local_table_name(str(value["Ref"]))
            if props[key] != local:
                yield f"ResourceProperties.{key} must be {local}"
    if not str(event.get("ResponseURL", "")).startswith(CFN_PREFIX):
        yield f"ResponseURL must be under {CFN_PREFIX} (moto's S3)"


def is_table_ref(template: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` is a ``!Ref`` of one of the template's DynamoDB tables."""
    if not (isinstance(value, dict) and "Ref" in value):
        return False
    resource = template["Resources"].get(str(value["Ref"]), {})
    return bool(resource.get("Type") == "AWS::DynamoDB::Table")


def _check_stream(inv: Invocation, event: dict[str, Any], _: dict[str, Any]) -> Iterator[str]:
    records = event.get("Records")
    if not isinstance(records, list) or not records:
        yield "a DynamoDB Streams event: a non-empty Records list"
        return
    for record in records:
        if record.get("eventSource") != "aws:dynamodb" or "dynamodb" not in record:
            yield "each record: eventSource aws:dynamodb, with its dynamodb image"


def _check_queue(inv: Invocation, event: dict[str, Any], _: dict[str, Any]) -> Iterator[str]:
    records = event.get("Records")
    if not isinstance(records, list) or not records:
        yield "an SQS event: a non-empty Records list"
        return
    for record in records:
        if record.get("eventSource") != "aws:sqs" or "body" not in record:
            yield "each record: eventSource aws:sqs, with its body"


_CHECKS = {
    "stream": _check_stream,
    "queue": _check_queue,
    "http": _check_http,
    "authorizer": _check_authorizer,
    "schedule": _check_schedule,
    "custom-resource": _check_custom_resource,
}


def check_event(inv: Invocation, event: Any, template: dict[str, Any]) -> list[str]:
    """What is wrong with ``event`` as the event of ``inv`` (nothing: ``[]``)."""
    if not isinstance(event, dict):
        return [f"{inv.file}: not a JSON object"]
    problems = list(_CHECKS[inv.kind](inv, event, template))
    unknown = placeholders(event) - set(IDS)
    if unknown:
        problems.append(f"unknown placeholders {sorted(unknown)} (known: {', '.join(IDS)})")
    return [f"{inv.file} ({inv.describe()}): {p}" for p in problems]


def load_event(root: Path, inv: Invocation) -> Any:
    return json.loads((root / inv.file).read_text(encoding="utf-8"))


def check(root: Path) -> list[str]:
    """Every problem of the events and the environment file against template.yaml."""
    template = load(root / TEMPLATE_FILE)
    found, problems = invocations(template)
    files = {p.stem for p in (root / EVENTS).glob("*.json")}
    for inv in found:
        if inv.name not in files:
            problems.append(
                f"{inv.file} is missing ({inv.describe()}): write it (docs/sam-local.md, "
                "'Adding a route'), and its line in the recipe"
            )
            continue
        try:
            event = load_event(root, inv)
        except ValueError as exc:
            problems.append(f"{inv.file}: not JSON ({exc})")
            continue
        problems.extend(check_event(inv, event, template))
    for stale in sorted(files - {i.name for i in found}):
        problems.append(f"{EVENTS}/{stale}.json: template.yaml invokes nothing with it")
    try:
        env = json.loads((root / ENV_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"{ENV_FILE}: {exc}")
    else:
        problems.extend(check_environment(template, env))
    return problems


# --- ids: answers in, concrete events out --------------------------------------------------


def _answer(text: str) -> Any:
    """The JSON answer in ``text``: all of it, or its last line that is JSON (sam local invoke
    prints the function's answer last)."""
    text = text.strip()
    if not text:
        raise SamLocalError("nothing to read (did the command before the pipe fail? see above)")
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    raise SamLocalError("no JSON answer in the input")


def _http_answer(out: dict[str, Any]) -> tuple[str, dict[str, str], bool]:
    """A Lambda proxy response → (summary, ids, ok)."""
    status = int(out["statusCode"])
    body = out.get("body") or ""
    if out.get("isBase64Encoded"):
        body = base64.b64decode(body).decode("utf-8", "replace")
    headers = {k.lower(): v for k, v in (out.get("headers") or {}).items()}
    kind = headers.get("content-type", "")
    if "json" not in kind or not body:
        return f"HTTP {status}  {kind or 'no content-type'}, {len(body)} bytes", {}, status < 400
    doc = json.loads(body)
    if status >= 400:
        error = doc.get("error", doc) if isinstance(doc, dict) else doc
        return f"HTTP {status}  {json.dumps(error)}", {}, False
    ids = {k: str(doc[k]) for k in IDS if isinstance(doc, dict) and isinstance(doc.get(k), str)}
    shown = "  ".join(f"{k}={v}" for k, v in ids.items())
    compact = json.dumps(doc, separators=(",", ":"))
    return (
        f"HTTP {status}  {shown or (compact[:100] + ('…' if len(compact) > 100 else ''))}",
        ids,
        True,
    )


def read_answer(out: Any) -> tuple[str, dict[str, str], bool]:
    """What an answer says, the ids it gives, and whether it is a success."""
    if out is None:
        return "no answer (a custom resource answers CloudFormation at its ResponseURL)", {}, True
    if isinstance(out, dict) and "errorMessage" in out:
        return f"function error: {out.get('errorType')}: {out['errorMessage']}", {}, False
    if isinstance(out, dict) and "statusCode" in out:
        return _http_answer(out)
    if isinstance(out, dict) and "isAuthorized" in out:
        if out["isAuthorized"] is True:
            return f"authorized: operator {out.get('context', {}).get('operator_id')}", {}, True
        return "refused (isAuthorized: false)", {}, False
    if isinstance(out, dict) and {"operator_id", "key"} <= set(out):
        return (
            f"operator {out['operator_id']}: key {out['key']}",
            {"operator_key": out["key"]},
            True,
        )
    return json.dumps(out, separators=(",", ":")), {}, True


def remembered(root: Path) -> dict[str, str]:
    path = root / IDS_FILE
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else {}


def render(root: Path, ids: dict[str, str]) -> list[str]:
    """Write every event whose placeholders ``ids`` all give into .aws-sam/events/; the names
    of those whose file changed."""
    template = load(root / TEMPLATE_FILE)
    written = []
    (root / RENDERED).mkdir(parents=True, exist_ok=True)
    for inv in invocations(template)[0]:
        if not (root / inv.file).is_file():
            continue
        event = load_event(root, inv)
        needed = placeholders(event)
        if not needed or not needed <= set(ids):
            continue
        text = json.dumps(fill(event, ids), indent=2) + "\n"
        target = root / RENDERED / f"{inv.name}.json"
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written.append(inv.name)
    return written


def take(root: Path, text: str, expect: str | None = None) -> tuple[list[str], bool]:
    """Read one answer: its summary, the ids it gives (remembered in .aws-sam/events/ids.json)
    and the events that became concrete with them; and whether it is a success (with
    ``expect``: whether it is exactly that error code — a refusal the recipe demonstrates)."""
    summary, ids, ok = read_answer(_answer(text))
    if expect is not None:
        ok = not ok and f'"code": "{expect}"' in summary
    lines = [summary]
    if ids:
        known = {**remembered(root), **ids}
        (root / RENDERED).mkdir(parents=True, exist_ok=True)
        (root / IDS_FILE).write_text(json.dumps(known, indent=2) + "\n", encoding="utf-8")
        written = render(root, known)
        if written:
            lines.append(f"→ {RENDERED}/: " + ", ".join(f"{n}.json" for n in written))
    return lines, ok


# --- the command lines ---------------------------------------------------------------------


def event_path(root: Path, inv: Invocation) -> str:
    """Where ``sam local invoke -e`` reads the event: events/ itself, or .aws-sam/events/ for
    an event with placeholders."""
    if (root / inv.file).is_file() and placeholders(load_event(root, inv)):
        return f"{RENDERED}/{inv.name}.json"
    return inv.file


#: The shell variable holding the Lambda image ``sam local`` runs the functions in (AWS's, or the
#: stand-in built here: ``eval "$(scripts/sam-local-images.sh)"`` exports it, docs/sam-local.md).
#: ``--skip-pull-image``: SAM builds its image (its emulator, the layers) on that one as it is
#: here, without asking a registry.
LAMBDA_IMAGE = "$LAMBDA_IMAGE"


def local_flags(arch: str) -> str:
    network = f"--docker-network {NETWORK}"
    image = f"--invoke-image {LAMBDA_IMAGE} --skip-pull-image"
    return f"--env-vars {ENV_FILE} {network} {image} --parameter-overrides Architecture={arch}"


#: Events whose answer, in the recipe's order on its one table (star-city, banked by the house),
#: is a refusal — shown on purpose: that table has no player-banker seat and no betting
#: spectators, and its shoe is closed by the time betting is asked for (docs/sam-local.md).
REFUSED_IN_RECIPE: dict[str, str] = {
    "take_banker": "player_banker_not_allowed",
    "leave_banker": "not_found",
    "join_spectators": "spectator_betting_not_allowed",
    "leave_spectators": "not_found",
    "urge": "player_banker_not_allowed",
    "reveal_cards": "no_squeeze",
    "open_betting": "no_open_shoe",
    "place_slip": "betting_closed",
    "cancel_slip": "not_found",  # no slip to cancel (the window is not open either)
    "retry_webhook_failure": "not_found",  # an event never parked
}


def invoke_line(root: Path, inv: Invocation, arch: str) -> str:
    expect = REFUSED_IN_RECIPE.get(inv.name)
    return (
        f"sam local invoke {inv.function} -e {event_path(root, inv)} {local_flags(arch)}"
        " | baccarat sam-local take" + ("" if expect is None else f" --expect {expect}")
    )


def start_api_line(arch: str) -> str:
    return f"sam local start-api {local_flags(arch)} --warm-containers EAGER"


def commands(root: Path, arch: str) -> list[str]:
    """For each function, the ``sam local invoke`` line of each of its events; then
    ``sam local start-api``."""
    found, _ = invocations(load(root / TEMPLATE_FILE))
    lines = [
        "# sam local: one line per event of every function (docs/sam-local.md: engines up, "
        "`baccarat sam-local setup`,",
        "# an operator key taken). .aws-sam/events/ holds the events with ids, written by "
        "`baccarat sam-local take`",
        "# from the answers before them (the order: docs/sam-local.md).",
    ]
    current = None
    for inv in found:
        if inv.function != current:
            lines.append(f"# {inv.function}")
            current = inv.function
        lines.append(invoke_line(root, inv, arch))
    lines += ["# the whole API (Ctrl-C stops it)", start_api_line(arch)]
    return lines


# --- the engines ---------------------------------------------------------------------------


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
    for function in _functions(template):
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


# --- new events ----------------------------------------------------------------------------

#: The time in the events' request context (any time does; a fixed one keeps the files stable).
EVENT_EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def http_event(inv: Invocation, body: Any = None) -> dict[str, Any]:
    """The event of an HttpApi route as API Gateway sends it behind the authorizer (the
    operator in ``requestContext.authorizer.lambda``; a public route has none), path
    parameters as placeholders (``{table_id}`` → ``{{table_id}}``)."""
    import hashlib

    from baccarat_dev.events import http_api_event

    assert inv.route is not None
    path = re.sub(r"{(\w+)}", r"{{\1}}", inv.route.path)
    digest = hashlib.sha256(inv.name.encode()).digest()[:10]
    event = http_api_event(
        inv.route.method,
        path,
        inv.route,
        body=body,
        request_id=base64.b32encode(digest).decode()[:14] + "=",
        epoch_ms=EVENT_EPOCH_MS,
        user_agent="curl/8.5.0",
    )
    if not inv.public:
        event["requestContext"]["authorizer"] = {"lambda": {"operator_id": OPERATOR}}
    return event


def scaffold(root: Path) -> list[str]:
    """Write the event of every HttpApi route that has none (a POST with the body ``{}``: give
    it a realistic one); the files written."""
    written = []
    (root / EVENTS).mkdir(exist_ok=True)
    for inv in invocations(load(root / TEMPLATE_FILE))[0]:
        if inv.kind != "http" or (root / inv.file).exists():
            continue
        body: dict[str, Any] | None = {} if inv.route and inv.route.method == "POST" else None
        text = json.dumps(http_event(inv, body), indent=2) + "\n"
        (root / inv.file).write_text(text, encoding="utf-8")
        written.append(inv.file)
    return written
