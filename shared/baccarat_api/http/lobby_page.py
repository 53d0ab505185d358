"""``GET /lobby``: the lobby page (``web/lobby.html`` with ``web/lobby.js`` inlined), public like
``/verify``: it holds no data — the browser reads the lobby with the token in its fragment
(``#token=…&api=…``), which never reaches a server. A Content-Security-Policy allows exactly its
one script (by SHA-256); it may call any API origin (``connect-src *``). Read once per warm
container."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

PAGE = "lobby.html"
SCRIPT = "lobby.js"
_TAG = f'<script src="{SCRIPT}"></script>'


@dataclass(frozen=True, slots=True)
class LobbyPage:
    html: str
    headers: dict[str, str]


def _read(name: str) -> str:
    return (resources.files("baccarat_api.http") / "web" / name).read_text(encoding="utf-8")


@cache
def lobby_page() -> LobbyPage:
    """The page with its script inlined, and the response headers (CSP by script hash)."""
    html = _read(PAGE)
    code = _read(SCRIPT)
    if html.count(_TAG) != 1 or "</script" in code.lower():
        raise RuntimeError(f"{PAGE} must load {SCRIPT} once, and it must be inlinable")
    body = f"\n{code}\n"
    digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
    csp = "; ".join(
        (
            "default-src 'none'",
            f"script-src 'sha256-{digest}'",
            "style-src 'unsafe-inline'",
            "connect-src *",
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
    return LobbyPage(html.replace(_TAG, f"<script>{body}</script>"), headers)
