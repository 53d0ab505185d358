"""``GET /table``: the table page people play at (``web/table.html``), public like ``/lobby``
(``http/pages.py``). The player token is in the fragment (``#token=…&lang=…&lobby=…``), never
sent to a server; the page calls its own origin's player routes and the table's push channel
(``connect-src``: any origin, ``ws:``/``wss:`` included)."""

from __future__ import annotations

from baccarat_api.http.pages import Page, build_page

PAGE = "table.html"
#: The scripts in the page's order: the i18n table, roads, the push client, then the page (its
#: model moved by events, drawing, calls, the page).
SCRIPTS = ("i18n.js", "roads.js", "push.js", "table-state.js", "table-render.js",
           "table-actions.js", "table.js")  # fmt: skip


def table_page() -> Page:
    """The page with its scripts inlined, and the response headers (CSP by script hash)."""
    return build_page(PAGE, SCRIPTS, connect="* ws: wss:")
