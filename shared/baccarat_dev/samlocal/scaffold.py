"""New event files: the catalogue's invocations that have none yet, written from a pattern."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from baccarat_dev.samlocal.catalogue import EVENTS, OPERATOR, TEMPLATE_FILE, Invocation, invocations
from baccarat_dev.template import load

#: The time in the events' request context (any time does; a fixed one keeps the files stable).
EVENT_EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def http_event(inv: Invocation, body: Any = None) -> dict[str, Any]:
    """The event of an HttpApi route as API Gateway sends it behind the authorizer (the
    operator in ``requestContext.authorizer.lambda``; a public route has none), path
    parameters as placeholders (``{table_id}`` → ``{{table_id}}``)."""
    import hashlib

    from baccarat_dev.events import http_api_event

    assert inv.route is not None
    path = re.sub(r"{(\w+)}", r"{{\1}}", inv.route.path)
    digest = hashlib.sha256(inv.name.encode()).digest()[:10]
    event = http_api_event(
        inv.route.method,
        path,
        inv.route,
        body=body,
        request_id=base64.b32encode(digest).decode()[:14] + "=",
        epoch_ms=EVENT_EPOCH_MS,
        user_agent="curl/8.5.0",
    )
    if not inv.public:
        event["requestContext"]["authorizer"] = {"lambda": {"operator_id": OPERATOR}}
    return event


def scaffold(root: Path) -> list[str]:
    """Write the event of every HttpApi route that has none (a POST with the body ``{}``: give
    it a realistic one); the files written."""
    written = []
    (root / EVENTS).mkdir(exist_ok=True)
    for inv in invocations(load(root / TEMPLATE_FILE))[0]:
        if inv.kind != "http" or (root / inv.file).exists():
            continue
        body: dict[str, Any] | None = {} if inv.route and inv.route.method == "POST" else None
        text = json.dumps(http_event(inv, body), indent=2) + "\n"
        (root / inv.file).write_text(text, encoding="utf-8")
        written.append(inv.file)
    return written
