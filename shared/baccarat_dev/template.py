"""template.yaml as data, for the tests and the local runner: the DynamoDB tables are created
from the template's own resource definitions, so tests, ``make run`` and the deployed stack
cannot drift; and the HTTP routes of each function are read from its ``HttpApi`` events.

Development-time only (needs PyYAML, which the Lambda artifact does not ship)."""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = REPO_ROOT / "template.yaml"

#: Properties of ``AWS::DynamoDB::Table`` that ``CreateTable`` takes as they are.
_CREATE_TABLE_KEYS = (
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "ProvisionedThroughput",
    "StreamSpecification",
    "TableClass",
)


def load(path: Path = TEMPLATE) -> dict[str, Any]:
    """The template, with CloudFormation short-form tags (``!Ref``, ``!GetAtt``, ``!Sub`` …)
    read as their long forms (``{"Ref": …}``, ``{"Fn::GetAtt": …}``). Parsed once per version
    of the file (every API test builds its tables and routes from it); each caller gets its own
    copy."""
    stat = path.stat()
    return copy.deepcopy(_template_doc(path.resolve(), stat.st_mtime_ns, stat.st_size))


@functools.cache
def _template_doc(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    def construct(loader: Any, suffix: str, node: yaml.Node) -> dict[str, Any]:
        if isinstance(node, yaml.ScalarNode):
            value: Any = loader.construct_scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        if suffix == "Ref":
            return {"Ref": value}
        if suffix == "GetAtt" and isinstance(value, str):
            value = value.split(".", 1)
        return {f"Fn::{suffix}": value}

    Loader.add_multi_constructor("!", construct)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)
    assert isinstance(data, dict)
    return data


def table_definitions(path: Path = TEMPLATE) -> dict[str, dict[str, Any]]:
    """Logical id → ``CreateTable`` arguments (without ``TableName``) of every DynamoDB table."""
    out: dict[str, dict[str, Any]] = {}
    for logical_id, resource in load(path)["Resources"].items():
        if resource.get("Type") != "AWS::DynamoDB::Table":
            continue
        props = resource["Properties"]
        out[logical_id] = {k: props[k] for k in _CREATE_TABLE_KEYS if k in props}
        if "StreamSpecification" in out[logical_id]:  # CreateTable wants it said; CFN infers it
            out[logical_id]["StreamSpecification"] = {
                "StreamEnabled": True,
                **out[logical_id]["StreamSpecification"],
            }
        if props.get("PointInTimeRecoverySpecification", {}).get("PointInTimeRecoveryEnabled"):
            out[logical_id]["_pitr"] = True
        ttl = props.get("TimeToLiveSpecification", {})
        if ttl.get("Enabled"):
            out[logical_id]["_ttl"] = ttl["AttributeName"]
    return out


def create_tables(
    client: DynamoDBClient, names: dict[str, str], path: Path = TEMPLATE, *, pitr: bool = True
) -> dict[str, str]:
    """Create the template's tables (logical id → table name in ``names``); returns ``names``.

    ``pitr=False`` leaves point-in-time recovery off where the template switches it on: DynamoDB
    Local has no ``UpdateContinuousBackups`` (PITR is an AWS-side safety net with no effect on
    what the API reads or writes)."""
    definitions = table_definitions(path)
    missing = set(definitions) - set(names)
    if missing:
        raise ValueError(f"no table name given for {sorted(missing)}")
    for logical_id, spec in definitions.items():
        args = {k: v for k, v in spec.items() if not k.startswith("_")}
        client.create_table(TableName=names[logical_id], **args)
    for logical_id, spec in definitions.items():
        client.get_waiter("table_exists").wait(TableName=names[logical_id])
        if pitr and spec.get("_pitr"):
            client.update_continuous_backups(
                TableName=names[logical_id],
                PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
            )
        if spec.get("_ttl"):
            client.update_time_to_live(
                TableName=names[logical_id],
                TimeToLiveSpecification={"AttributeName": spec["_ttl"], "Enabled": True},
            )
    return names


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    path: str
    function: str
    code_uri: str

    @property
    def route_key(self) -> str:
        return f"{self.method} {self.path}"


def routes(path: Path = TEMPLATE, *, preflight: bool = False) -> list[Route]:
    """Every ``HttpApi`` route of the template with the function (and its code dir) serving it;
    the player paths' ``OPTIONS`` routes (CORS preflights, answered by ``http/cors.py``) only
    with ``preflight``."""
    found: list[Route] = []
    for logical_id, resource in load(path)["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        for event in props.get("Events", {}).values():
            if event.get("Type") == "HttpApi":
                ep = event["Properties"]
                if ep["Method"].upper() == "OPTIONS" and not preflight:
                    continue
                found.append(
                    Route(ep["Method"].upper(), ep["Path"], logical_id, str(props["CodeUri"]))
                )
    return found
