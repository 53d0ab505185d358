"""Schemathesis hooks of the fuzz run (tests/live/test_schemathesis.py loads them through
``SCHEMATHESIS_HOOKS``; standalone: schemathesis imports this file, not pytest).

* Real ids: the test seeds tables, shoes and rounds and hands their ids over in
  ``BACC_FUZZ_IDS`` (JSON: parameter → ids, plus ``close_shoe_id`` for the close route, so that
  closing does not end the shoes the deal route is fuzzed on). Two cases in three get a real id
  (deterministically, by count), so fuzzed bodies reach bet validation, dealing and settlement
  instead of stopping at 404; the third keeps the generated id (not found). A generated id that
  is not even shaped like one (a negative case: it must be refused) is never replaced — a real
  id would turn the refusal schemathesis expects into a valid request.
* One documented strictness: the API takes integers only as JSON integers (money is never a
  float), while JSON Schema's ``integer`` also admits ``2.0``. A "schema-valid request
  rejected" failure whose only reason is such a whole float (400 ``invalid_request``, every
  error ``int_type``) is that strictness, not a bug, and is dropped; any other failure stays."""

from __future__ import annotations

import itertools
import json
import os
import re
from typing import Any

import schemathesis

_IDS: dict[str, list[str]] = json.loads(os.environ.get("BACC_FUZZ_IDS", "{}"))
_COUNTER = itertools.count()
#: The shape of every id the API issues (tables, shoes ``_s<n>``, rounds ``_r<n>``).
_ID_SHAPE = re.compile(r"tbl_[a-z2-7]{16}(?:_s[1-9][0-9]*(?:_r[1-9][0-9]*)?)?")


@schemathesis.hook
def map_path_parameters(
    context: schemathesis.HookContext, path_parameters: dict[str, Any]
) -> dict[str, Any]:
    n = next(_COUNTER)
    if n % 3 == 2 or not path_parameters:
        return path_parameters
    path = context.operation.path if context.operation is not None else ""
    out = dict(path_parameters)
    for name in path_parameters:
        pool = _IDS.get("close_shoe_id" if path.endswith("/close") else name, [])
        generated = path_parameters[name]
        if pool and isinstance(generated, str) and _ID_SHAPE.fullmatch(generated):
            out[name] = pool[n % len(pool)]
    return out


def _path_at(body: Any, loc: list[Any]) -> tuple[Any, ...]:
    """The keys of ``body`` an error's ``loc`` walks (``loc`` starts with ``"body"``; the
    segments pydantic adds for a union's branches name no key and are passed over)."""
    value, path = body, []
    for segment in loc[1:]:  # the API writes list indexes as strings too
        key = int(segment) if isinstance(value, list) and str(segment).isdigit() else segment
        inside = isinstance(value, dict) and key in value
        if inside or (isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value)):
            value = value[key]
            path.append(key)
    return tuple(path)


def _at(body: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        body = body[key]
    return body


def _whole_float(value: Any) -> bool:
    return isinstance(value, float) and value.is_integer()


def _only_whole_floats(body: Any, errors: list[dict[str, Any]]) -> bool:
    """Whether every error is about a whole float where an integer is due: at the float itself,
    or (a union of an integer and an object, e.g. a personal limit) the integer branch's error on
    an object whose own branch's error is about a whole float inside it."""
    paths = [_path_at(body, e["loc"]) for e in errors]
    floats = [p for p in paths if _whole_float(_at(body, p))]

    def fine(error: dict[str, Any], path: tuple[Any, ...]) -> bool:
        # an object branch refuses a number as ``model_type`` or, parsed from JSON,
        # ``model_attributes_type``
        if error.get("type") not in ("int_type", "model_type", "model_attributes_type"):
            return False
        if path in floats:
            return True
        return isinstance(_at(body, path), dict) and any(
            f[: len(path)] == path and len(f) > len(path) for f in floats
        )

    return bool(errors) and all(fine(e, p) for e, p in zip(errors, paths, strict=True))


@schemathesis.hook
def filter_failure(
    context: schemathesis.HookContext, failure: Any, case: schemathesis.Case, response: Any
) -> bool:
    """Drops a "schema-valid request rejected" whose every error points at a whole float (an
    integer field: ``int_type``; a union of an integer and an object, e.g. a personal limit
    ``5.0``: each branch's error) — the documented strictness, nothing else."""
    if getattr(failure, "code", "") != "ST202" or response.status_code != 400:
        return True
    try:
        errors = json.loads(response.content)["error"]["details"]["errors"]
    except (ValueError, KeyError, TypeError):
        return True
    return not _only_whole_floats(case.body, errors)
