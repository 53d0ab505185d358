"""``GET /verify``: the browser verifier (``web/verify.html``, the independent JavaScript
implementation of bacc-pf-v1) served as one page (``http/pages.py``).

It may fetch a proof from any URL, which is how ``/verify?proof=<URL>`` works. Served here it
trusts only its own origin's ``/v1/signing-keys`` (a link's ``?keys=``/``?allow_unsigned=1`` are
ignored, a ``data:`` proof in a link is refused)."""

from __future__ import annotations

from baccarat_api.http.pages import Page, build_page

#: The page and the scripts it loads by relative path, in its order.
PAGE = "verify.html"
SCRIPTS = ("bacc-pf-v1.js", "roads.js", "booktree.js", "money.js", "receipt.js", "verify.js")


def verifier_page() -> Page:
    """The page with its scripts inlined, and the response headers (CSP by script hash)."""
    return build_page(PAGE, SCRIPTS, connect="* data: blob:", images="data:")
