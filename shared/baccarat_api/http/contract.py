"""Precision for the OpenAPI document beyond what the routes declare, applied in one place to
every route (``create_app``'s ``openapi()``), so clients and fuzzers (the schemathesis run of
``make test``) generate meaningful requests:

* every ``table_id`` / ``shoe_id`` / ``round_id`` path parameter gets the pattern of its ids
  (:data:`baccarat_api.ids.ID_PATTERNS`) — documentation only: an id of another shape is simply
  not found (404), like a missing one or another operator's;
* every operation whose success response carries one of those ids links to the operations that
  take it (OpenAPI ``links``: create a table → commit its shoe → deal → settle …);
* the ``Idempotency-Key`` header gets its pattern (1 to 255 printable ASCII characters)."""

from __future__ import annotations

import re
from typing import Any

from baccarat_api.ids import ID_PATTERNS

_IDEMPOTENCY_KEY_PATTERN = r"^[ -~]{1,255}$"


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        resolved = schema.get("components", {}).get("schemas", {}).get(ref.rsplit("/", 1)[-1])
        return resolved if isinstance(resolved, dict) else {}
    return node


def _returned_ids(schema: dict[str, Any], operation: dict[str, Any]) -> set[str]:
    """The id fields of the operation's success response body."""
    found: set[str] = set()
    for status, response in operation.get("responses", {}).items():
        if not str(status).startswith("2"):
            continue
        media = response.get("content", {}).get("application/json", {})
        body = _resolve(schema, media.get("schema", {}))
        found |= set(body.get("properties", {})) & set(ID_PATTERNS)
    return found


Operation = dict[str, Any]


def _operations(schema: dict[str, Any]) -> list[tuple[str, Operation]]:
    """Every operation of the document with its path."""
    return [
        (path, op)
        for path, item in schema.get("paths", {}).items()
        for op in item.values()
        if isinstance(op, dict) and "responses" in op
    ]


def _pattern_parameters(op: Operation) -> None:
    """Id path parameters get their id's pattern; ``Idempotency-Key`` gets its own."""
    for param in op.get("parameters", []):
        name, where = param.get("name"), param.get("in")
        if where == "path" and name in ID_PATTERNS:
            param.setdefault("schema", {})["pattern"] = ID_PATTERNS[name]
        elif where == "header" and str(name).lower() == "idempotency-key":
            _pattern_strings(param.setdefault("schema", {}), _IDEMPOTENCY_KEY_PATTERN)


def _pattern_strings(target: dict[str, Any], pattern: str) -> None:
    """``pattern`` on the string schema ``target`` (or its string options), unless it has one."""
    for option in target.get("anyOf", [target]):
        if option.get("type") == "string":
            option.setdefault("pattern", pattern)


def _links_from(ids: set[str], operations: list[tuple[str, Operation]]) -> dict[str, Any]:
    """OpenAPI links to every operation whose path parameters are all among ``ids``."""
    links: dict[str, Any] = {}
    for path, target in operations:
        needed = set(re.findall(r"{(\w+)}", path))
        if needed and needed <= ids and "operationId" in target:
            links[target["operationId"]] = {
                "operationId": target["operationId"],
                "parameters": {name: f"$response.body#/{name}" for name in sorted(needed)},
            }
    return links


def _link(
    schema: dict[str, Any], source: Operation, operations: list[tuple[str, Operation]]
) -> None:
    """The source's success responses link to the operations its returned ids lead to."""
    links = _links_from(_returned_ids(schema, source), operations)
    if links:
        for status, response in source["responses"].items():
            if str(status).startswith("2"):
                response["links"] = links


def _push_messages(schema: dict[str, Any]) -> None:
    """The push channel's messages (no route answers them: they arrive over the WebSocket,
    docs/api.md "Push") as ``components/schemas/PushMessage`` and its parts."""
    from pydantic import TypeAdapter

    from baccarat_api.service.models.push import PushMessage

    doc = TypeAdapter(PushMessage).json_schema(
        ref_template="#/components/schemas/{model}", mode="serialization"
    )
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    for name, part in doc.pop("$defs", {}).items():
        schemas.setdefault(name, part)
    schemas["PushMessage"] = {"title": "PushMessage", **doc}


def refine(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the patterns and links above and the push channel's messages (changed
    in place, and returned)."""
    _push_messages(schema)
    operations = _operations(schema)
    for _, op in operations:
        _pattern_parameters(op)
    for _, source in operations:
        _link(schema, source, operations)
    return schema
