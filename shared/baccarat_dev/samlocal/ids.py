"""Ids in, concrete events out: an answer (what ``sam local invoke`` prints, or
``baccarat operator create --json``) gives ids; the events' ``{{table_id}}``-style placeholders
are filled with them into ``.aws-sam/events/``."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from baccarat_dev.samlocal.catalogue import (
    IDS,
    IDS_FILE,
    RENDERED,
    TEMPLATE_FILE,
    SamLocalError,
    invocations,
)
from baccarat_dev.samlocal.checks import fill, load_event, placeholders
from baccarat_dev.template import load


def _answer(text: str) -> Any:
    """The JSON answer in ``text``: all of it, or its last line that is JSON (sam local invoke
    prints the function's answer last)."""
    text = text.strip()
    if not text:
        raise SamLocalError("nothing to read (did the command before the pipe fail? see above)")
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    raise SamLocalError("no JSON answer in the input")


def _http_answer(out: dict[str, Any]) -> tuple[str, dict[str, str], bool]:
    """A Lambda proxy response → (summary, ids, ok)."""
    status = int(out["statusCode"])
    body = out.get("body") or ""
    if out.get("isBase64Encoded"):
        body = base64.b64decode(body).decode("utf-8", "replace")
    headers = {k.lower(): v for k, v in (out.get("headers") or {}).items()}
    kind = headers.get("content-type", "")
    if "json" not in kind or not body:
        return f"HTTP {status}  {kind or 'no content-type'}, {len(body)} bytes", {}, status < 400
    doc = json.loads(body)
    if status >= 400:
        error = doc.get("error", doc) if isinstance(doc, dict) else doc
        return f"HTTP {status}  {json.dumps(error)}", {}, False
    ids = {k: str(doc[k]) for k in IDS if isinstance(doc, dict) and isinstance(doc.get(k), str)}
    shown = "  ".join(f"{k}={v}" for k, v in ids.items())
    compact = json.dumps(doc, separators=(",", ":"))
    return (
        f"HTTP {status}  {shown or (compact[:100] + ('…' if len(compact) > 100 else ''))}",
        ids,
        True,
    )


def read_answer(out: Any) -> tuple[str, dict[str, str], bool]:
    """What an answer says, the ids it gives, and whether it is a success."""
    if out is None:
        return "no answer (a custom resource answers CloudFormation at its ResponseURL)", {}, True
    if isinstance(out, dict) and "errorMessage" in out:
        return f"function error: {out.get('errorType')}: {out['errorMessage']}", {}, False
    if isinstance(out, dict) and "statusCode" in out:
        return _http_answer(out)
    if isinstance(out, dict) and "isAuthorized" in out:
        if out["isAuthorized"] is True:
            context = out.get("context") or out.get("handlerContext") or {}
            return f"authorized: operator {context.get('operator_id')}", {}, True
        return "refused (isAuthorized: false)", {}, False
    if isinstance(out, dict) and {"operator_id", "key"} <= set(out):
        return (
            f"operator {out['operator_id']}: key {out['key']}",
            {"operator_key": out["key"]},
            True,
        )
    return json.dumps(out, separators=(",", ":")), {}, True


def remembered_ids(root: Path) -> dict[str, str]:
    path = root / IDS_FILE
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else {}


def render(root: Path, ids: dict[str, str]) -> list[str]:
    """Write every event whose placeholders ``ids`` all give into .aws-sam/events/; the names
    of those whose file changed."""
    template = load(root / TEMPLATE_FILE)
    written = []
    (root / RENDERED).mkdir(parents=True, exist_ok=True)
    for inv in invocations(template)[0]:
        if not (root / inv.file).is_file():
            continue
        event = load_event(root, inv)
        needed = placeholders(event)
        if not needed or not needed <= set(ids):
            continue
        text = json.dumps(fill(event, ids), indent=2) + "\n"
        target = root / RENDERED / f"{inv.name}.json"
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written.append(inv.name)
    return written


def take(root: Path, text: str, expect: str | None = None) -> tuple[list[str], bool]:
    """Read one answer: its summary, the ids it gives (remembered in .aws-sam/events/ids.json)
    and the events that became concrete with them; and whether it is a success (with
    ``expect``: whether it is exactly that error code — a refusal the recipe demonstrates)."""
    summary, ids, ok = read_answer(_answer(text))
    if expect is not None:
        ok = not ok and f'"code": "{expect}"' in summary
    lines = [summary]
    if ids:
        known = {**remembered_ids(root), **ids}
        (root / RENDERED).mkdir(parents=True, exist_ok=True)
        (root / IDS_FILE).write_text(json.dumps(known, indent=2) + "\n", encoding="utf-8")
        written = render(root, known)
        if written:
            lines.append(f"→ {RENDERED}/: " + ", ".join(f"{n}.json" for n in written))
    return lines, ok
