"""The events AWS hands our functions, built one way for the tests and for ``events/*.json``
(the files ``sam local invoke -e`` reads; :mod:`baccarat_dev.samlocal`): an HTTP API payload 2.0
event as API Gateway sends it for one route of template.yaml (:func:`http_api_event`), its Lambda
authorizer event (:func:`authorizer_event`), the EventBridge scheduled event
(:func:`scheduled_event`) and a CloudFormation custom resource request
(:func:`custom_resource_event`). Development-time only."""

from __future__ import annotations

import base64
import copy
import json
import re
import time
import urllib.parse
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from baccarat_dev.template import Route

ACCOUNT_ID = "123456789012"
REGION = "us-east-1"
API_ID = "abcd1234"
DOMAIN = f"{API_ID}.execute-api.{REGION}.amazonaws.com"
SOURCE_IP = "203.0.113.7"  # TEST-NET-3 (RFC 5737)


def path_pattern(template_path: str) -> str:
    """A regex matching the concrete paths of a template path (``{name}`` → one segment)."""
    return re.sub(r"{\w+}", r"([^/]+)", template_path)


def http_api_event(
    method: str,
    path: str,
    route: Route,
    *,
    body: Any = None,
    headers: dict[str, str] | None = None,
    raw_body: str | None = None,
    base64_body: bool = False,
    query: str = "",
    request_id: str | None = None,
    epoch_ms: int | None = None,
    user_agent: str = "pytest",
) -> dict[str, Any]:
    """An API Gateway HTTP API payload v2.0 event, as API Gateway sends it to Lambda for
    ``method path`` on ``route`` (a fresh request id and the current time unless given)."""
    if request_id is None:
        request_id = base64.b32encode(uuid.uuid4().bytes[:10]).decode().rstrip("=")[:14] + "="
    if epoch_ms is None:
        epoch_ms = int(time.time() * 1000)
    all_headers = {
        "accept": "*/*",
        "content-type": "application/json",
        "host": DOMAIN,
        "user-agent": user_agent,
        "x-amzn-trace-id": "Root=1-65f0c0de-0123456789abcdef01234567",
        "x-forwarded-for": SOURCE_IP,
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https",
    }
    all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
    text = raw_body if raw_body is not None else None if body is None else json.dumps(body)
    if text is not None:
        all_headers["content-length"] = str(len(text.encode()))
        if base64_body:
            text = base64.b64encode(text.encode()).decode()
    else:
        all_headers.pop("content-type")
    names = re.findall(r"{(\w+)}", route.path)
    values = re.fullmatch(path_pattern(route.path), path)
    assert values is not None, (path, route.path)
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route.route_key,
        "rawPath": path,
        "rawQueryString": query,
        "headers": all_headers,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": API_ID,
            "domainName": DOMAIN,
            "domainPrefix": API_ID,
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": SOURCE_IP,
                "userAgent": user_agent,
            },
            "requestId": request_id,
            "routeKey": route.route_key,
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(epoch_ms // 1000)),
            "timeEpoch": epoch_ms,
        },
        "isBase64Encoded": base64_body,
    }
    if names:
        event["pathParameters"] = dict(zip(names, values.groups(), strict=True))
    if query:  # API Gateway sends both; repeated names joined by commas
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        event["queryStringParameters"] = {
            name: ",".join(v for n, v in pairs if n == name) for name, _ in pairs
        }
    if text is not None:
        event["body"] = text
    return event


def authorizer_event(request_event: dict[str, Any]) -> dict[str, Any]:
    """The authorizer v2 event API Gateway sends for a request (given as the v2 event the
    function would get): same headers, path, route and request context; no body; the identity
    source's values in ``identitySource``."""
    ctx = request_event["requestContext"]
    route_key = request_event["routeKey"]
    method, _, path = route_key.partition(" ")
    event = {
        "version": "2.0",
        "type": "REQUEST",
        "routeArn": (
            f"arn:aws:execute-api:{REGION}:{ctx['accountId']}:{ctx['apiId']}/"
            f"{ctx['stage']}/{method}{path}"
        ),
        "identitySource": [request_event["headers"].get("authorization", "")],
        "routeKey": route_key,
        "rawPath": request_event["rawPath"],
        "rawQueryString": request_event["rawQueryString"],
        "headers": dict(request_event["headers"]),
        "requestContext": copy.deepcopy(ctx),
    }
    if "pathParameters" in request_event:
        event["pathParameters"] = dict(request_event["pathParameters"])
    return event


def scheduled_event(
    rule: str = "baccarat-dev-sweep", event_id: str | None = None, at: str = "2026-01-01T00:00:00Z"
) -> dict[str, Any]:
    """An EventBridge scheduled event, as the template's ``Schedule`` event source sends it."""
    return {
        "version": "0",
        "id": event_id or str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT_ID,
        "time": at,
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT_ID}:rule/{rule}"],
        "detail": {},
    }


def custom_resource_event(
    logical_id: str,
    resource_type: str,
    properties: dict[str, Any],
    response_url: str,
    *,
    stack: str = "baccarat-local",
    request_type: str = "Create",
    request_id: str = "00000000-0000-4000-8000-000000000001",
) -> dict[str, Any]:
    """A CloudFormation custom resource request (``properties`` as CloudFormation passes them:
    every value a string, ``ServiceToken`` included); the answer goes to ``response_url``."""
    stack_id = f"arn:aws:cloudformation:{REGION}:{ACCOUNT_ID}:stack/{stack}/00000000-0000-4000-8000-000000000000"  # noqa: E501
    return {
        "RequestType": request_type,
        "ResponseURL": response_url,
        "StackId": stack_id,
        "RequestId": request_id,
        "ResourceType": resource_type,
        "LogicalResourceId": logical_id,
        "ResourceProperties": properties,
    }
