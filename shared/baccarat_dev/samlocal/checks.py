"""The checks of the event files: every invocation has its event, of the right route and shape,
with the authorizer context behind the authorizer; no event file is left over."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from baccarat_dev.events import path_pattern
from baccarat_dev.samlocal.catalogue import (
    CFN_PREFIX,
    ENV_FILE,
    EVENTS,
    IDS,
    OPERATOR,
    PLACEHOLDER,
    TEMPLATE_FILE,
    Invocation,
    invocations,
)
from baccarat_dev.samlocal.environment import check_environment, local_table_name
from baccarat_dev.template import load


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


def _check_appsync_authorizer(
    inv: Invocation, event: dict[str, Any], _: dict[str, Any]
) -> Iterator[str]:
    context = event.get("requestContext") or {}
    if context.get("operation") not in ("EVENT_CONNECT", "EVENT_SUBSCRIBE"):
        yield "an AppSync Events authorizer event: operation EVENT_CONNECT or EVENT_SUBSCRIBE"
    if not isinstance(event.get("authorizationToken"), str):
        yield "authorizationToken: the Authorization the client sent"


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
    "appsync-authorizer": _check_appsync_authorizer,
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
