"""API Gateway's side of the operator key check, as template.yaml declares it: real HTTP API
Lambda authorizer events (payload format 2.0, REQUEST type, simple responses), and a client that
puts the authorizer in front of the functions the way API Gateway does: no ``Authorization``
header → 401 ``{"message":"Unauthorized"}`` without calling the authorizer; a refused key → 403
``{"message":"Forbidden"}``; an accepted one → the function's event carries the authorizer's
context in ``requestContext.authorizer.lambda``. Answers are cached per header value, as
``ReauthorizeEvery`` makes API Gateway do."""

from __future__ import annotations

from functools import cache
from typing import Any

from baccarat_dev.events import authorizer_event
from baccarat_dev.template import Route, load

from .stack import Api, LambdaContext, Response, function_module

AUTHORIZER_CODE_URI = "functions/authorizer/"


@cache
def public_route_keys() -> frozenset[str]:
    """Route keys the template exempts from the authorizer (``Auth: Authorizer: NONE``)."""
    found = set()
    for resource in load()["Resources"].values():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        for event in resource["Properties"].get("Events", {}).values():
            props = event.get("Properties", {})
            if event.get("Type") == "HttpApi" and props.get("Auth", {}).get("Authorizer") == "NONE":
                found.add(f"{props['Method'].upper()} {props['Path']}")
    return frozenset(found)


def authorize(event: dict[str, Any]) -> dict[str, Any]:
    handler = function_module(AUTHORIZER_CODE_URI).handler
    out = handler(event, LambdaContext(function_name="AuthorizerFunction"))
    assert isinstance(out, dict)
    return out


class GatewayApi(Api):
    """:class:`Api` with the Lambda authorizer in front, as deployed."""

    def __init__(self, key: str | None) -> None:
        super().__init__(key)
        self.cache: dict[str, dict[str, Any]] = {}
        self.authorizer_calls = 0

    def gate(self, route: Route, event: dict[str, Any]) -> Response | None:
        request_id = event["requestContext"]["requestId"]
        if route.route_key not in public_route_keys():
            header = event["headers"].get("authorization")
            if not header:
                return Response(401, {"message": "Unauthorized"}, {}, "apigateway", request_id)
            if header not in self.cache:
                self.authorizer_calls += 1
                self.cache[header] = authorize(authorizer_event(event))
            answer = self.cache[header]
            assert set(answer) <= {"isAuthorized", "context"}, answer  # simple response
            if answer["isAuthorized"] is not True:
                return Response(403, {"message": "Forbidden"}, {}, "apigateway", request_id)
            event["requestContext"]["authorizer"] = {"lambda": dict(answer.get("context", {}))}
        return None
