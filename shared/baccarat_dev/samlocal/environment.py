"""The environment file ``infra/sam-local-env.json``: for every function, exactly the variables
template.yaml gives it, with the local engines' endpoints, table names and key aliases."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from baccarat_dev.samlocal.catalogue import (
    CONTAINER_ENDPOINTS,
    ENV_FILE,
    STAGE,
    SamLocalError,
    function_resources,
    kebab_without,
    referenced_id,
)


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
            and referenced_id(props.get("TargetKeyId")) == key_id
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
    kind: str = "plain"  # "plain", "table", "key", "endpoint", "queue", "appsync"


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
    target = referenced_id(value)
    if target == "Stage":
        return LocalValue(STAGE)
    kind = resources.get(target or "", {}).get("Type")
    if kind == "AWS::DynamoDB::Table" and isinstance(value, dict) and "Ref" in value:
        return LocalValue(local_table_name(str(target)), str(target), "table")
    if kind == "AWS::KMS::Key":
        return LocalValue(local_key_alias(template, str(target)), str(target), "key")
    if kind == "AWS::KMS::Alias":  # !Ref of an alias: its name
        key = str(referenced_id(resources[str(target)]["Properties"]["TargetKeyId"]))
        return LocalValue(local_key_alias(template, key), key, "key")
    if kind == "AWS::SQS::Queue":  # none locally: make run's loop and sam local need no wake-up
        return LocalValue("", str(target), "queue")
    appsync = _appsync_api(template, value)
    if appsync is not None:  # none locally: make run serves the push channel's stand-in
        return LocalValue("", appsync, "appsync")
    parameter = template.get("Parameters", {}).get(target or "")
    if parameter is not None and "Default" in parameter:
        return LocalValue(str(parameter["Default"]))
    raise SamLocalError(f"{name}={value!r}: no local value for it in {__name__}.local_value")


def _appsync_api(template: dict[str, Any], value: Any) -> str | None:
    """The AppSync API a ``!Sub`` names (``${PushApi.Dns.Http}``), if any."""
    text = value.get("Fn::Sub") if isinstance(value, dict) else None
    for name in re.findall(r"\$\{(\w+)\.", text if isinstance(text, str) else ""):
        if template["Resources"].get(name, {}).get("Type") == "AWS::AppSync::Api":
            return str(name)
    return None


def local_environment(template: dict[str, Any]) -> dict[str, dict[str, str]]:
    """What infra/sam-local-env.json holds: for every function, each of its variables' local
    value (``baccarat sam-local env-file --write`` writes it)."""
    return {
        function: {
            name: local_value(template, name, value).value
            for name, value in template_variables(template, function).items()
        }
        for function in function_resources(template)
    }


def check_environment(template: dict[str, Any], env: Any) -> list[str]:
    """The environment file names every function and exactly its variables; the engines'
    endpoints, table names and key aliases are the local ones (a value of the template's own,
    e.g. a log level, may be changed)."""
    if not isinstance(env, dict):
        return [f"{ENV_FILE}: not a JSON object of function → variables"]
    problems = []
    functions = function_resources(template)
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
