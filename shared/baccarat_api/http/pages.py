"""The public HTML pages the API serves (``/verify``, ``/lobby``, ``/table``), built one way.

A page is an HTML file of ``web/`` whose ``<script src="x.js"></script>`` tags (exactly its
declared scripts, in order) are replaced by the scripts' text, and a Content-Security-Policy that
allows exactly those scripts by SHA-256 and nothing else to run. Pages hold no data: each reads
what it shows with the key or token in its URL's fragment, which never reaches a server. The files
ship with ``baccarat_api`` (``http/web/`` links to the repository's ``web/``) and are read once per
warm container."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

_SCRIPT_TAG = re.compile(r'<script src="([\w.-]+\.js)"></script>')


@dataclass(frozen=True, slots=True)
class Page:
    """A page ready to answer: its HTML (scripts inlined) and its response headers (the CSP)."""

    html: str
    headers: dict[str, str]


def _read(name: str) -> str:
    return (resources.files("baccarat_api.http") / "web" / name).read_text(encoding="utf-8")


def _sha256(code: str) -> str:
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode()
    return f"'sha256-{digest}'"


@cache
def build_page(
    page: str, scripts: tuple[str, ...], *, connect: str = "*", images: str | None = None
) -> Page:
    """``page`` with ``scripts`` inlined (it must load exactly those, in that order, and none may
    contain ``</script``), and its headers: the CSP by script hash (``connect-src`` = ``connect``,
    ``img-src`` = ``images`` when given), no sniffing, no referrer, cacheable for 5 minutes."""
    html = _read(page)
    hashes: list[str] = []
    found: list[str] = []

    def inline(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in scripts:
            raise RuntimeError(f"{page} loads an unknown script {name!r}")
        code = _read(name)
        if "</script" in code.lower():
            raise RuntimeError(f"{name} cannot be inlined: it contains '</script'")
        body = f"\n{code}\n"
        hashes.append(_sha256(body))
        found.append(name)
        return f"<script>{body}</script>"

    html = _SCRIPT_TAG.sub(inline, html)
    if tuple(found) != scripts:
        raise RuntimeError(f"{page} must load {scripts} in order, found {tuple(found)}")
    policy = [
        "default-src 'none'",
        "script-src " + " ".join(hashes),
        "style-src 'unsafe-inline'",
        *([f"img-src {images}"] if images else []),
        f"connect-src {connect}",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
    headers = {
        "content-security-policy": "; ".join(policy),
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "public, max-age=300",
    }
    return Page(html=html, headers=headers)


def page_responses(description: str) -> dict[int | str, dict[str, object]]:
    """A page route's documented answers: the HTML page, and errors as JSON in the envelope
    whatever the route's own media type."""
    from baccarat_api.http.deps import errors

    return {
        200: {"content": {"text/html": {}}, "description": description},
        **{
            status: {
                "description": response["description"],
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}
                },
            }
            for status, response in errors().items()
        },
    }
