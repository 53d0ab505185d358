"""``GET /verify``: the browser verifier (``web/verify.html``) served by the API as one page.

The page is the independent JavaScript implementation of bacc-pf-v1 (``web/``: it shares no code
with the engine). Served here, its three scripts are inlined into the HTML, so the page is one
response with no sibling routes, and a Content-Security-Policy allows exactly those three scripts
(by SHA-256), no others; it may fetch a proof from any URL (``connect-src``), which is how
``/verify?proof=<proof URL>`` works. Served over HTTP(S), the page trusts only its own origin's
``/v1/signing-keys``: a link's ``?keys=``/``?allow_unsigned=1`` are ignored and a ``data:`` proof
in the link is refused; anything else the person chooses on the page is shown as their choice
(``web/verify.js``, ``choices``), never as a green "verified". The files are packaged with
``baccarat_api`` (``web/`` in this package links to the repository's ``web/`` files, and
``sam build`` copies their contents into the shared layer), read once per warm container.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

#: The page and the scripts it loads by relative path, in its order.
PAGE = "verify.html"
SCRIPTS = ("bacc-pf-v1.js", "roads.js", "verify.js")
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
