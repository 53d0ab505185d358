"""``GET /lobby``: the lobby page (``web/lobby.html``), public like ``/verify``
(``http/pages.py``): the browser reads the lobby with the token in its fragment
(``#token=…&api=…``); it may call any API origin (``connect-src *``)."""

from __future__ import annotations

from baccarat_api.http.pages import Page, build_page

PAGE = "lobby.html"
SCRIPTS = ("lobby.js",)


def lobby_page() -> Page:
    """The page with its script inlined, and the response headers (CSP by script hash)."""
    return build_page(PAGE, SCRIPTS)
