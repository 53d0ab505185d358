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


def _has_whole_float(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_whole_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_whole_float(v) for v in value)
    return False


@schemathesis.hook
def filter_failure(
    context: schemathesis.HookContext, failure: Any, case: schemathesis.Case, response: Any
) -> bool:
    if getattr(failure, "code", "") != "ST202" or response.status_code != 400:
        return True
    try:
        errors = json.loads(response.content)["error"]["details"]["errors"]
    except (ValueError, KeyError, TypeError):
        return True
    only_ints = bool(errors) and all(e.get("type") == "int_type" for e in errors)
    return not (only_ints and _has_whole_float(case.body))
