"""Headless Chromium for the browser verifier's tests, driven over the DevTools protocol.

No downloads and no extra packages: Debian's `chromium` (scripts/ensure-chromium.sh installs it)
is started with `--remote-debugging-pipe`, which speaks the Chrome DevTools Protocol as
NUL-separated JSON on file descriptors 3 (commands in) and 4 (replies and events out). A small
client below sends commands and waits on the replies; each test gets a fresh tab.

Without chromium the browser tests are skipped with the reason; set BACC_REQUIRE_BROWSER=1 to make
that a failure instead (what `make test` wants once the setup script has run).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import functools
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
WEB = ROOT / "web"

# The spec's example chain (fairness-v1.md): s_10 = H(phrase), N = 10, and its published anchor.
PHRASE = b"bacc-pf-v1 example chain secret - never use in production"
SPEC_ANCHOR = "cdde3d9965e506c2da1abc8577df22cbd6776269c294cd943e87bb7d44781d9a"
CHAIN_LENGTH = 10


# ------------------------------------------------------------------------------------------------
# Proofs


def chain_secret(shoe_number: int) -> str:
    """s_i of the spec's example chain, walked down from s_10 with hashlib."""
    s = hashlib.sha256(PHRASE).digest()
    for _ in range(CHAIN_LENGTH - shoe_number):
        s = hashlib.sha256(b"bacc-pf-v1/chain" + s).digest()
    return s.hex()


def chain_anchor() -> str:
    s = bytes.fromhex(chain_secret(1))
    anchor = hashlib.sha256(b"bacc-pf-v1/chain" + s).hexdigest()
    assert anchor == SPEC_ANCHOR, "the test chain must be the spec's example chain"
    return anchor


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("baccarat")
    if script.exists():
        return [str(script)]
    found = shutil.which("baccarat")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from baccarat.cli import main; sys.exit(main())"]


@functools.cache
def make_proof(
    shoe_number: int = 3, client_seed: str = "browser-test:table-1", profile: str = "bid-squeeze"
) -> str:
    """A shoe proof in the proof route's format, from the engine's CLI (`baccarat shoe`).

    The lead will switch this to a proof produced by the local API; the tests only need JSON text.
    """
    secret = chain_secret(shoe_number)
    out = subprocess.run(
        [
            *_cli(),
            "shoe",
            f"--server-seed={secret}",
            f"--shoe-number={shoe_number}",
            f"--client-seed={client_seed}",
            f"--profile={profile}",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    shoe = json.loads(out.stdout)
    keys = ("round_number", "start", "player", "banker", "player_total", "banker_total", "result")
    proof = {
        "spec": shoe["spec"],
        "table_id": "tbl_browser_test",
        "anchor": chain_anchor(),
        "shoe_number": shoe["shoe_number"],
        "client_seed": shoe["client_seed"],
        "client_hash": shoe["client_hash"],
        "rules": shoe["rules"],
        "server_seed": secret,
        "rounds": [{k: r[k] for k in keys} for r in shoe["rounds"]],
    }
    return json.dumps(proof)


def tamper_card(proof_json: str, round_number: int, side: str, index: int) -> tuple[str, str, str]:
    """Replaces one card of one round by another card; returns (proof, old code, new code)."""
    proof = json.loads(proof_json)
    hand = proof["rounds"][round_number - 1][side]
    cards = hand["cards"] if isinstance(hand, dict) else hand
    old = cards[index]
    new = ("K" if old[0] != "K" else "Q") + old[1]
    cards[index] = new
    return json.dumps(proof), old, new


def data_url(text: str) -> str:
    return "data:application/json;base64," + base64.b64encode(text.encode()).decode()


# ------------------------------------------------------------------------------------------------
# Chromium over the DevTools pipe


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (path := shutil.which(candidate)):
            return path
    return None


class CDPError(RuntimeError):
    pass


class Browser:
    """One headless Chromium; commands and replies over --remote-debugging-pipe."""

    def __init__(self, executable: str, profile_dir: Path, log_path: Path) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def child_fds() -> None:  # runs in the child before exec: commands on 3, replies on 4
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [
            executable,
            "--headless",
            "--no-sandbox",  # root in containers; the page is our own
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
            "--metrics-recording-only",
            "--mute-audio",
            "--hide-scrollbars",
            f"--user-data-dir={profile_dir}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            preexec_fn=child_fds,  # before the reader thread exists
            close_fds=False,  # Python's own fds are close-on-exec; 3 and 4 must stay open
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next_id = 0
        self._lock = threading.Lock()
        self._cond = threading.Condition()
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.send("Browser.getVersion", timeout=30)

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_chrome, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._closed = True
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self._cond:
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        self.events.append(msg)
                    self._cond.notify_all()

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict[str, Any]:
        with self._lock:  # one message at a time on the pipe (tests may drive tabs on threads)
            self._next_id += 1
            msg_id = self._next_id
            msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = session
            data = json.dumps(msg).encode() + b"\0"
            while data:
                data = data[os.write(self._to_chrome, data) :]
        deadline = time.monotonic() + timeout
        with self._cond:
            while msg_id not in self._replies:
                if self._closed:
                    raise CDPError(f"chromium exited; see {self.log_path}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CDPError(f"{method}: no reply in {timeout}s")
                self._cond.wait(left)
            reply = self._replies.pop(msg_id)
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def wait_event(
        self, pred: Callable[[dict[str, Any]], bool], since: int, timeout: float = 30
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for ev in self.events[since:]:
                    if pred(ev):
                        return ev
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise CDPError("event not seen in time")
                self._cond.wait(left)

    def new_context(self) -> str:
        """A browser context of its own (like an incognito window: its own storage and
        cookies): two people at one table, each in theirs."""
        context: str = self.send("Target.createBrowserContext")["browserContextId"]
        return context

    def new_page(self, context: str | None = None) -> Page:
        params = {"url": "about:blank", **({"browserContextId": context} if context else {})}
        target = self.send("Target.createTarget", params)["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        return Page(self, target, session)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.send("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._to_chrome, self._from_chrome):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._log.close()


FINAL = ("verified", "unconfirmed", "failed", "error")


class Page:
    """A tab: navigate, evaluate, wait for the verdict, screenshot."""

    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        self.first_event = len(browser.events)
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def _mine(self) -> list[dict[str, Any]]:
        return [
            e for e in self.browser.events[self.first_event :] if e.get("sessionId") == self.session
        ]

    def goto(self, url: str, timeout: float = 30) -> None:
        mark = len(self.browser.events)
        reply = self.send("Page.navigate", {"url": url})
        if reply.get("errorText"):
            raise CDPError(f"navigation to {url[:120]} failed: {reply['errorText']}")
        self.browser.wait_event(
            lambda e: (
                e.get("sessionId") == self.session and e.get("method") == "Page.loadEventFired"
            ),
            since=mark,
            timeout=timeout,
        )
        # a new tab's own about:blank may fire its load event after ``mark``: wait until the
        # document is the one asked for and complete (every script run), or say where it is
        deadline = time.monotonic() + timeout
        while True:
            where = self.eval("[location.href.slice(0, 120), document.readyState]")
            if where[0] != "about:blank" and where[1] == "complete":
                return
            if time.monotonic() > deadline:
                raise CDPError(f"navigation to {url[:120]} did not complete: {where}")
            time.sleep(0.05)

    def eval(self, expression: str) -> Any:
        reply = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in reply:
            raise CDPError(f"{expression[:80]}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def verdict(self) -> dict[str, Any]:
        value: dict[str, Any] = self.eval(
            """(() => {
                const v = document.getElementById('verdict');
                const d = document.getElementById('verdict-detail');
                return v ? {state: v.dataset.verdict, text: v.textContent.trim(),
                            detail: d ? d.textContent.trim() : ''} : null;
            })()"""
        ) or {"state": None, "text": "", "detail": ""}
        return value

    def wait_verdict(self, timeout: float = 30) -> dict[str, Any]:
        """Polls #verdict until it leaves 'pending'/'checking'."""
        deadline = time.monotonic() + timeout
        while True:
            v = self.verdict()
            if v["state"] in FINAL:
                return v
            if time.monotonic() > deadline:
                raise AssertionError(f"no verdict after {timeout}s: {v}; errors: {self.errors()}")
            time.sleep(0.05)

    def errors(self) -> list[str]:
        """Uncaught exceptions and console errors of this tab."""
        out = []
        for e in self._mine():
            if e["method"] == "Runtime.exceptionThrown":
                d = e["params"]["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text", "?"))
            elif e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error":
                out.append(" ".join(str(a.get("value", "")) for a in e["params"]["args"]))
        return out

    def requested_urls(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self._mine()
            if e["method"] == "Network.requestWillBeSent"
        ]

    def set_file(self, selector: str, *paths: Path) -> None:
        root = self.send("DOM.getDocument")["root"]["nodeId"]
        node = self.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        self.send("DOM.setFileInputFiles", {"nodeId": node, "files": [str(p) for p in paths]})

    def screenshot(self, path: Path) -> None:
        size = self.send("Page.getLayoutMetrics")["cssContentSize"]
        shot = self.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {
                    "x": 0,
                    "y": 0,
                    "width": 1280,
                    "height": min(int(size["height"]) + 1, 6000),
                    "scale": 1,
                },
            },
        )
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.browser.send("Target.closeTarget", {"targetId": self.target})


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        reason = (
            "Debian's chromium is not installed (run scripts/ensure-chromium.sh, "
            "or as root: apt-get install chromium)"
        )
        if os.environ.get("BACC_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    tmp = tmp_path_factory.mktemp("chromium")
    b = Browser(chromium_path, tmp / "profile", tmp / "chromium.log")
    try:
        yield b
    finally:
        b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    p = browser.new_page()
    try:
        yield p
    finally:
        p.close()


# ------------------------------------------------------------------------------------------------
# A loopback HTTP server: the page's files as the API serves them, and proofs


class _Handler(http.server.SimpleHTTPRequestHandler):
    proofs: Path
    extra: dict[str, tuple[int, str, bytes]]

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        if clean.startswith("/proofs/"):
            return str(self.proofs / Path(clean).name)
        if clean == "/verify":  # as the API serves it: GET /verify, siblings at the root
            return str(WEB / "verify.html")
        return str(WEB / clean.lstrip("/"))

    def do_GET(self) -> None:
        clean = self.path.split("?", 1)[0]
        key = self.path if self.path in self.extra else clean  # a route may name its query
        if key in self.extra:
            status, ctype, body = self.extra[key]
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        if str(path).endswith("verify.html"):
            return "text/html; charset=utf-8"
        return super().guess_type(path)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


class Server:
    def __init__(self, proofs: Path) -> None:
        self.extra: dict[str, tuple[int, str, bytes]] = {}
        handler = type("Handler", (_Handler,), {"proofs": proofs, "extra": self.extra})
        self.proofs = proofs
        # a page asks for its ten scripts at once; the default backlog (5) drops connections
        # on a loaded machine and Chromium's SYN retries then take seconds each
        server_class = type(
            "Httpd", (http.server.ThreadingHTTPServer,), {"request_queue_size": 128}
        )
        self.httpd = server_class(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def add_proof(self, name: str, text: str) -> str:
        (self.proofs / name).write_text(text, encoding="utf-8")
        return f"/proofs/{name}"

    def route(self, path: str, status: int, body: object) -> None:
        self.extra[path] = (status, "application/json", json.dumps(body).encode())

    def serve_pages(self, pages: list[dict[str, Any]], keys: object | None = None) -> str:
        """A signed v2 proof where the API serves it (page 1 at /v1/shoes/{id}/proof, page k at
        ?page=k) and, given ``keys``, the JWK set at /v1/signing-keys; returns page 1's path."""
        base = f"/v1/shoes/{pages[0]['shoe_id']}/proof"
        self.route(base, 200, pages[0])
        for k, page in enumerate(pages, start=1):
            self.route(f"{base}?page={k}", 200, page)
        if keys is not None:
            self.route("/v1/signing-keys", 200, keys)
        return base

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    proofs = tmp_path / "proofs"
    proofs.mkdir()
    s = Server(proofs)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture(scope="session")
def proof_json() -> str:
    """A verified-good proof (bid-squeeze, shoe 3 of the spec's example chain)."""
    return make_proof()


@pytest.fixture(scope="session")
def proofs() -> SimpleNamespace:
    """The proof helpers, for tests that build variants."""
    return SimpleNamespace(make=make_proof, tamper_card=tamper_card, data_url=data_url)


#: The signed two-page sample proof (tests/make_proof_vectors.py; the TEST ONLY key).
SIGNED_SAMPLE = ROOT / "tests" / "vectors" / "proof_v2_sample.json"


@pytest.fixture
def signed_pages() -> list[dict[str, Any]]:
    """A fresh copy of the signed sample's pages (tests edit them)."""
    pages: list[dict[str, Any]] = json.loads(SIGNED_SAMPLE.read_text(encoding="utf-8"))["pages"]
    return pages


@pytest.fixture(scope="session")
def signing_keys() -> dict[str, Any]:
    """The JWK set of the TEST ONLY signing key (what /v1/signing-keys would serve)."""
    from support.signed_proofs import TEST_KEYS

    return TEST_KEYS
