"""The project's layout and the catalogue: every way template.yaml invokes a function (each
``HttpApi`` route, each ``Schedule``, the HttpApi Lambda authorizer, an AppSync Event API's
Lambda authorizer, each custom resource) and
the event file it needs, ``events/<name>.json``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baccarat_dev.template import Route

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


@dataclass(frozen=True, slots=True)
class Invocation:
    """One way template.yaml invokes a function, and the event file it needs."""

    function: str
    name: str  # the event file's stem
    # "http", "authorizer", "appsync-authorizer", "schedule", "stream", "queue" or
    # "custom-resource"
    kind: str
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
            "appsync-authorizer": f"AppSync Events authorizer of {self.source}",
            "schedule": f"schedule {self.source}",
            "stream": f"DynamoDB stream {self.source}",
            "queue": f"SQS queue {self.source}",
            "custom-resource": f"custom resource {self.source}",
        }[self.kind]
        return f"{self.function}, {what}"


def function_resources(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"
    }


def referenced_id(value: Any) -> str | None:
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
    for function, resource in function_resources(template).items():
        props = resource["Properties"]
        for event_id, event in props.get("Events", {}).items():
            if event.get("Type") != "HttpApi":
                continue
            ep = event["Properties"]
            if ep["Method"].upper() == "OPTIONS":  # a CORS preflight: answered before any route
                continue
            api = apis.get(str((ep.get("ApiId") or {}).get("Ref", "")), {})
            default = api.get("Properties", {}).get("Auth", {}).get("DefaultAuthorizer")
            chosen = ep.get("Auth", {}).get("Authorizer", default)
            route = Route(ep["Method"].upper(), ep["Path"], function, str(props["CodeUri"]))
            public = chosen in (None, "NONE")
            yield Invocation(function, snake(event_id), "http", event_id, route, public)
    for api in apis.values():
        for name, authorizer in api["Properties"].get("Auth", {}).get("Authorizers", {}).items():
            target = referenced_id(authorizer.get("FunctionArn"))
            if target:
                yield Invocation(target, f"{snake(name)}_authorizer", "authorizer", name)


def _appsync_authorizers(template: dict[str, Any]) -> list[Invocation]:
    """The Lambda authorizers of the template's AppSync Event APIs (connect, subscribe)."""
    found = []
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != "AWS::AppSync::Api":
            continue
        providers = resource["Properties"].get("EventConfig", {}).get("AuthProviders", [])
        for provider in providers:
            uri = provider.get("LambdaAuthorizerConfig", {}).get("AuthorizerUri")
            target = referenced_id(uri)
            if target:
                name = f"{snake(logical_id)}_authorizer"
                found.append(Invocation(target, name, "appsync-authorizer", logical_id))
    return found


def invocations(template: dict[str, Any]) -> tuple[list[Invocation], list[str]]:
    """Every invocation of every function (template order), and the problems: a function
    nothing invokes that this module knows of, or two invocations wanting one event file."""
    found = list(_http_invocations(template))
    for function, resource in function_resources(template).items():
        for event_id, event in resource["Properties"].get("Events", {}).items():
            if event.get("Type") in ("Schedule", "ScheduleV2"):
                found.append(Invocation(function, snake(event_id), "schedule", event_id))
            if event.get("Type") == "DynamoDB":
                found.append(Invocation(function, snake(event_id), "stream", event_id))
            if event.get("Type") == "SQS":
                found.append(Invocation(function, snake(event_id), "queue", event_id))
    found += _appsync_authorizers(template)
    for logical_id, resource in template["Resources"].items():
        target = referenced_id(resource.get("Properties", {}).get("ServiceToken"))
        if resource["Type"].startswith("Custom::") and target:
            found.append(Invocation(target, snake(logical_id), "custom-resource", logical_id))
    problems = []
    invoked = {i.function for i in found}
    for function in function_resources(template):
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
    order = list(function_resources(template))
    found.sort(key=lambda i: order.index(i.function))
    return found, problems
