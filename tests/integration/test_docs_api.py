"""docs/api.md stays true to the code: every error code the API can answer (the catalogue
``service.errors.CODES`` with ``http.errors.STATUS``, and every bet refusal) is documented with its
HTTP status and whether to retry, and every route of the template is in the routes table."""

from __future__ import annotations

import re

from baccarat.validation import Refusal
from baccarat_api.http.errors import STATUS
from baccarat_api.service.errors import CODES
from baccarat_dev.template import REPO_ROOT, routes

DOC = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| `([a-z0-9_]+)` \| (\d{3}) \| (yes|no) \|", re.MULTILINE)


def _documented() -> dict[str, tuple[int, bool]]:
    out: dict[str, tuple[int, bool]] = {}
    for code, status, retry in ROW.findall(DOC):
        assert code not in out, f"{code} is documented twice"
        out[code] = (int(status), retry == "yes")
    return out


def test_every_error_code_is_documented_with_its_status_and_retryability() -> None:
    documented = _documented()
    for code, (retryable, _) in CODES.items():
        assert code in documented, f"docs/api.md does not document the error code {code!r}"
        assert documented[code] == (STATUS[code], retryable), code
    for refusal in Refusal:
        assert documented.get(refusal.value) == (422, False), refusal.value
    assert set(documented) == set(CODES) | {r.value for r in Refusal}, "a documented code is gone"


def test_every_route_is_documented() -> None:
    table = {
        (m, p)
        for m, p in re.findall(r"^\| `(GET|POST|PUT|DELETE) (/[^`]*)` \|", DOC, flags=re.MULTILINE)
    }
    for route in routes():
        assert (route.method, route.path) in table, f"docs/api.md lacks {route.route_key}"
    assert {(r.method, r.path) for r in routes()} == table
