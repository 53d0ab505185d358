"""docs/openapi.json is generated from the app and committed; it must not drift."""

from __future__ import annotations

import json
import re

from baccarat.validation import Refusal
from baccarat_api.service.errors import CODES
from baccarat_dev.openapi import OPENAPI_JSON, document, main, render
from baccarat_dev.template import routes


def _named_codes(described: str) -> set[str]:
    """The codes a response's description lists (``error codes: a, b``); empty: none named."""
    found = re.search(r"error codes: ([a-z0-9_, ]+)", described)
    return set(found[1].split(", ")) if found else {"<none>"}


def test_committed_openapi_is_current() -> None:
    assert OPENAPI_JSON.read_text(encoding="utf-8") == render(), (
        "docs/openapi.json is stale: run make regen"
    )
    assert main(["--check"]) == 0


def test_every_route_is_documented_with_the_error_envelope_and_no_bare_422() -> None:
    doc = document()
    documented = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    assert documented == {(r.method, r.path) for r in routes()}
    assert "HTTPValidationError" not in json.dumps(doc)
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            codes = op["responses"]
            described = json.dumps(codes.get("422", ""))
            assert (
                "422" not in codes
                or "refus" in described
                or "idempotency_key_reused" in described  # every POST's Idempotency-Key
                or "invalid_range" in described  # reconciliation: a schema-valid bad range
                or path == "/v1/tables"
                # presence: the core's own refusal codes, each a documented code
                or _named_codes(described) <= set(CODES) | {r.value for r in Refusal}
            )
            for status in ("400", "500", "503"):
                ref = codes[status]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorOut")
            secured = "security" in op
            # no key: the proof, the signing keys, a table's fairness summary, a round's public
            # book pages, the verifier, the lobby page (its token stays in the browser)
            public = path.endswith(("/proof", "/fairness")) or path in (
                "/verify",
                "/lobby",
                "/table",
                "/v1/signing-keys",
                "/v1/shoes/{shoe_id}/rounds/{round_number}/book",
            )
            assert secured == (not public), (method, path)
