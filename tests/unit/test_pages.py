"""The public pages (``http/pages.py``): each of ``/verify``, ``/lobby`` and ``/table`` is its
HTML with exactly its declared scripts inlined in order, and a CSP that lets run exactly those
scripts (by SHA-256) and nothing else; a page that loads another script, or a script that could
end its own ``<script>`` element, is refused when built."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable

import pytest

from baccarat_api.http import pages
from baccarat_api.http.lobby_page import lobby_page
from baccarat_api.http.table_page import SCRIPTS as TABLE_SCRIPTS
from baccarat_api.http.table_page import table_page
from baccarat_api.http.verifier import verifier_page


def _sha(code: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"


@pytest.mark.parametrize("build", [verifier_page, lobby_page, table_page])
def test_a_page_runs_exactly_its_inlined_scripts(build: Callable[[], pages.Page]) -> None:
    page = build()
    scripts = re.findall(r"<script>(.*?)</script>", page.html, re.DOTALL)
    assert scripts and "<script src=" not in page.html
    csp = dict(d.split(" ", 1) for d in page.headers["content-security-policy"].split("; "))
    assert csp["script-src"].split() == [_sha(s) for s in scripts]
    assert csp["default-src"] == "'none'" and csp["frame-ancestors"] == "'none'"
    assert page.headers["referrer-policy"] == "no-referrer"


def test_the_table_page_inlines_its_scripts_in_order_and_may_open_the_push_socket() -> None:
    page = table_page()
    assert page.html.count("</script>") == len(TABLE_SCRIPTS)
    assert (
        page.html.index("BaccI18n")
        < page.html.index("BaccTableRender")
        < page.html.index("BaccaratPush.subscribeTable({")
    )
    assert "ws:" in page.headers["content-security-policy"]
    # what a person typed is text: the page's own scripts never parse markup
    own = re.findall(r"<script>(.*?)</script>", page.html, re.DOTALL)
    assert not any("innerHTML" in s or "insertAdjacentHTML" in s for s in own)


def _fake(files: dict[str, str]) -> Callable[[str], str]:
    return lambda name: files[name]


def test_a_page_loading_another_script_or_an_uninlinable_one_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    build = pages.build_page.__wrapped__
    html = '<p><script src="a.js"></script><script src="b.js"></script></p>'
    monkeypatch.setattr(pages, "_read", _fake({"p.html": html, "a.js": "1", "b.js": "2"}))
    assert build("p.html", ("a.js", "b.js")).html.count("<script>") == 2
    with pytest.raises(RuntimeError, match=r"unknown script 'b\.js'"):
        build("p.html", ("a.js",))
    with pytest.raises(RuntimeError, match="in order"):
        build("p.html", ("a.js", "b.js", "c.js"))
    monkeypatch.setattr(pages, "_read", _fake({"p.html": html, "a.js": "'</SCRIPT>'", "b.js": ""}))
    with pytest.raises(RuntimeError, match="cannot be inlined"):
        build("p.html", ("a.js", "b.js"))
