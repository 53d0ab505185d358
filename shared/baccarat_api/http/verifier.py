"""``GET /verify``: the browser verifier (``web/verify.html``, the independent JavaScript
implementation of bacc-pf-v1) served as one page.

Its scripts are inlined, and a Content-Security-Policy allows exactly those (by SHA-256);
it may fetch a proof from any URL, which is how ``/verify?proof=<URL>`` works. Served here it
trusts only its own origin's ``/v1/signing-keys`` (a link's ``?keys=``/``?allow_unsigned=1`` are
ignored, a ``data:`` proof in a link is refused). The files ship with ``baccarat_api``
(``web/`` links to the repository's) and are read once per warm container."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

#: The page and the scripts it loads by relative path, in its order.
PAGE = "verify.html"
SCRIPTS = (
    "bacc-pf-v1.js",
    "roads.js",
    "booktree.js",
    "money.js",
    "receipt.js",
    "bacc-pf-v2.js",
    "drand.js",
    "verify-v2.js",
    "verify.js",
)
_SCRIPT_TAG = re.compile(r'<script src="([\w.-]+\.js)"></script>')


@dataclass(frozen=True, slots=True)
class VerifierPage:
    html: str
    headers: dict[str, str]


def _read(name: str) -> str:
    return (resources.files("baccarat_api.http") / "web" / name).read_text(encoding="utf-8")


def _sha256(code: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode() + "'"
    )


@cache
def verifier_page() -> VerifierPage:
    """The page with its scripts inlined, and the response headers (CSP by script hash)."""
    html = _read(PAGE)
    hashes: list[str] = []
    found: list[str] = []

    def inline(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in SCRIPTS:
            raise RuntimeError(f"{PAGE} loads an unknown script {name!r}")
        code = _read(name)
        if "</script" in code.lower():
            raise RuntimeError(f"{name} cannot be inlined: it contains '</script'")
        body = f"\n{code}\n"
        hashes.append(_sha256(body))
        found.append(name)
        return f"<script>{body}</script>"

    html = _SCRIPT_TAG.sub(inline, html)
    if tuple(found) != SCRIPTS:
        raise RuntimeError(f"{PAGE} must load {SCRIPTS} in order, found {tuple(found)}")
    csp = "; ".join(
        (
            "default-src 'none'",
            "script-src " + " ".join(hashes),
            "style-src 'unsafe-inline'",
            "img-src data:",
            "connect-src * data: blob:",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )
    headers = {
        "content-security-policy": csp,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "public, max-age=300",
    }
    return VerifierPage(html=html, headers=headers)
