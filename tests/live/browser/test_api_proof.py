"""End to end: the example client plays whole shoes against the local server (`make run`'s
runner: DynamoDB Local behind the real app over HTTP), and both verifiers — the `baccarat verify`
CLI and the browser page the API itself serves at /verify — say "verified" on the signed, paged
proofs the API serves (no ``--allow-unsigned``: the API signs; the keys come from its
``GET /v1/signing-keys``), print the interventions line, and catch a one-card tamper in any page
(a changed byte breaks the page's hash under the signature).

The non-browser checks (the example's own verification, the CLI) run without Chromium too; the
page checks need it (see conftest.py).
"""

from __future__ import annotations

import http.server
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from support.local_server import LocalServer, local_server

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "play_shoe.py"


@pytest.fixture(scope="module")
def local_api(shared_dynamodb: Any) -> Iterator[LocalServer]:
    """`python -m baccarat_dev.local` (what `make run` runs) on a free port; stopped by Ctrl-C."""
    with local_server(probe="/verify", dynamodb=shared_dynamodb) as server:
        yield server


@dataclass
class Played:
    summary: dict[str, Any]
    proof_text: str  # the example's --save-proof: {"pages": [...]}, as served
    stdout: str

    @property
    def pages(self) -> list[dict[str, Any]]:
        pages: list[dict[str, Any]] = json.loads(self.proof_text)["pages"]
        return pages

    @property
    def proof(self) -> dict[str, Any]:
        """The pages put together: page 1's header and every page's rounds."""
        pages = self.pages
        rounds = [r for page in pages for r in page["rounds"]]
        return {**{k: v for k, v in pages[0].items() if k != "rounds"}, "rounds": rounds}


def _play(api: LocalServer, tmp: Path, *args: str) -> Played:
    proof_file, summary_file = tmp / "proof.json", tmp / "summary.json"
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--url", api.url, "--key", api.key, "--quiet",
         "--save-proof", str(proof_file), "--summary-json", str(summary_file), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return Played(
        summary=json.loads(summary_file.read_text()),
        proof_text=proof_file.read_text(encoding="utf-8"),
        stdout=out.stdout,
    )


@pytest.fixture(scope="module")
def played(local_api: LocalServer, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A whole star-city shoe played to its end by the example client (30 rounds, bets from
    several seats, every round settled; the last one after the shoe ended)."""
    return _play(local_api, tmp_path_factory.mktemp("played"), "--rng-seed", "6")


@pytest.fixture(scope="module")
def played_closed(local_api: LocalServer, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A bid-squeeze shoe (burn, cut card, side bets, a spectator) on a player-banker table,
    round 4 voided (a misdeal: stakes returned), closed early after 9 rounds."""
    return _play(
        local_api,
        tmp_path_factory.mktemp("closed"),
        "--profile", "bid-squeeze", "--banking", "player_banker", "--close-after", "9",
        "--void-round", "4", "--rng-seed", "7", "--squeeze-seconds", "1",
    )  # fmt: skip


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("baccarat")
    if script.exists():
        return [str(script)]
    found = shutil.which("baccarat")
    assert found, "the baccarat command is not installed"
    return [found]


def _verify(
    source: str, stdin: str | None = None, keys: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``baccarat verify`` (a URL: the keys from its origin; a file or ``-``: ``keys``)."""
    given = [] if keys is None else ["--keys", str(keys)]
    return subprocess.run(
        [*_cli(), "verify", *given, source],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


class _CorsFiles(http.server.BaseHTTPRequestHandler):
    """A stranger's server holding a (tampered) copy of a proof, readable from any origin."""

    files: dict[str, bytes]

    def do_GET(self) -> None:
        body = self.files.get(self.path, self.files.get(self.path.split("?", 1)[0]))
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(body or b"{}")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def mirror() -> Iterator[tuple[str, dict[str, bytes]]]:
    files: dict[str, bytes] = {}
    handler = type("Handler", (_CorsFiles,), {"files": files})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", files
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- the example client ------------------------------------------------------------------------


def test_the_example_client_plays_a_whole_shoe_and_verifies_it(played: Played) -> None:
    s = played.summary
    assert s["rounds"] == 30 and s["end_reason"] == "rules"
    assert s["settlements"] == 30 and s["settlements_checked"] == 30
    assert s["settled_after_end"] == [30]  # the deal that ended the shoe published the proof
    assert s["bets"] >= 60 and len(s["nets"]) == 4
    assert s["verified"] and s["consistent"], s
    assert sum(s["nets"].values()) + s["house_take"] == 0  # no minor unit created or lost
    assert "verified: bacc-pf-v1 shoe 1:" in played.stdout
    assert "30 rounds and 30 settlements re-derived and matching" in played.stdout
    assert "(ES256, " in played.stdout  # signed: checked against GET /v1/signing-keys
    assert "interventions: no voids; played to the end (30 of 30 rounds)" in played.stdout
    proof = played.proof
    assert proof["rounds"][29]["settlement"]["round_number"] == 30
    refs = {b["bettor_ref"] for r in proof["rounds"] for b in r["bets"] or []}
    assert len(refs) >= 3 and all(r.startswith("br_") for r in refs)
    assert '"bettor_id"' not in played.proof_text and "alice" not in played.proof_text


def test_an_early_closed_shoe_with_a_voided_round_verifies(played_closed: Played) -> None:
    s = played_closed.summary
    assert s["rounds"] == 9 and s["end_reason"] == "closed" and s["verified"], s
    assert s["voided"] == [4] and s["settlements"] == 8
    assert s["settlements_checked"] == 8 and s["consistent"]
    assert "1 voided round (the settlement each replaced re-derived)" in s["verdict"]
    assert "(shoe closed early)" in s["verdict"]
    assert s["interventions"].startswith("interventions: 1 voided round, players would have ")
    proof = played_closed.proof
    assert proof["table_config"]["banking"] == "player_banker"
    voided = proof["rounds"][3]
    assert voided["voided"] is True and voided["settlement"] is None
    assert voided["void"]["reason"] == "misdeal" and voided["void"]["replaced"]["nets"]
    assert voided["player"] and voided["banker"]  # it keeps its cards


# --- baccarat verify ---------------------------------------------------------------------------


def test_baccarat_verify_on_the_proof_url_and_a_tampered_copy(
    played: Played, local_api: LocalServer, proofs: SimpleNamespace, tmp_path: Path
) -> None:
    good = _verify(played.summary["proof_url"])
    assert good.returncode == 0, good.stdout + good.stderr
    verdict, line = good.stdout.strip().splitlines()
    assert verdict.startswith("verified: bacc-pf-v1 shoe 1:") and "30 settlements" in verdict
    assert played.pages and "(ES256, 1 page," in verdict  # 30 rounds fit one page (≤ 900 KB)
    assert line == "interventions: no voids; played to the end (30 of 30 rounds)"

    keys = tmp_path / "keys.json"
    keys.write_text(httpx.get(f"{local_api.url}/v1/signing-keys").text, encoding="utf-8")
    saved = tmp_path / "proof.json"
    saved.write_text(played.proof_text, encoding="utf-8")
    assert _verify(str(saved), keys=keys).returncode == 0
    bad = _tampered_card(played, round_number=7)
    (tmp_path / "tampered.json").write_text(bad, encoding="utf-8")
    caught = _verify(str(tmp_path / "tampered.json"), keys=keys)
    assert caught.returncode == 1, caught.stdout + caught.stderr
    assert re.match(r"NOT verified: page \d+ was changed after it was signed", caught.stdout)
    from_stdin = _verify("-", stdin=bad, keys=keys)
    assert from_stdin.returncode == 1

    # an open shoe has no proof yet: the CLI says so (exit 2), it does not call it unverified
    headers = {"authorization": f"Bearer {local_api.key}"}
    table = httpx.post(
        f"{local_api.url}/v1/tables",
        json={"profile": "star-city", "tier": "star-city-fun", "banking": "house"},
        headers=headers,
    ).json()
    shoe = httpx.post(
        f"{local_api.url}/v1/tables/{table['table_id']}/shoes",
        json={"client_seed": "open"},
        headers=headers,
    ).json()
    early = _verify(f"{local_api.url}/v1/shoes/{shoe['shoe_id']}/proof")
    assert early.returncode == 2
    assert "HTTP 409 shoe_not_closed: the shoe is still open" in early.stderr, early.stderr
    assert "0 rounds dealt, 0 voided so far" in early.stderr, early.stderr


def _tampered_card(played: Played, round_number: int) -> str:
    """The saved pages with one banker card of one round replaced."""
    pages = played.pages
    for page in pages:
        for r in page["rounds"]:
            if r["round_number"] == round_number:
                r["banker"][1] = ("K" if r["banker"][1][0] != "K" else "Q") + r["banker"][1][1]
    return json.dumps({"pages": pages})


def test_baccarat_verify_catches_a_changed_settlement(
    played: Played, local_api: LocalServer, tmp_path: Path
) -> None:
    pages = played.pages
    settled = next(r for p in pages for r in p["rounds"] if r["round_number"] == 12)
    settled["settlement"]["house"]["take"] -= 1
    (tmp_path / "money.json").write_text(json.dumps({"pages": pages}), encoding="utf-8")
    keys = tmp_path / "keys.json"
    keys.write_text(httpx.get(f"{local_api.url}/v1/signing-keys").text, encoding="utf-8")
    caught = _verify(str(tmp_path / "money.json"), keys=keys)
    assert caught.returncode == 1
    assert "was changed after it was signed" in caught.stdout


# --- the page the API serves -------------------------------------------------------------------


def test_the_page_served_by_the_api_verifies_the_apis_signed_proof(
    page: Any, played: Played, local_api: LocalServer
) -> None:
    proof_url = played.summary["proof_url"]
    page.goto(f"{local_api.url}/verify?proof={quote(proof_url, safe='')}")
    v = page.wait_verdict()
    assert v["state"] == "verified", (v, page.errors())
    assert v["text"] == "verified"
    assert "all 30 rounds" in v["detail"]
    assert "(ES256, 1 page" in v["detail"]
    line = page.eval("document.getElementById('interventions').textContent")
    assert line == "Interventions: no voids; played to the end (30 of 30 rounds)", line
    rows = page.eval(
        "[...document.querySelectorAll('#rounds-body tr.round')].map(tr => tr.dataset.status)"
    )
    assert rows == ["ok"] * 30
    refs = page.eval("[...document.querySelectorAll('#bettors-body tr')].map(tr => tr.dataset.ref)")
    assert refs and all(r.startswith("br_") and len(r) == 27 for r in refs)
    assert page.errors() == []
    # nothing but the API itself was contacted: the scripts are inlined, the proof and the keys
    # are the API's
    hosts = {re.sub(r"^(\w+://[^/]+).*$", r"\1", u) for u in page.requested_urls()}
    assert hosts <= {local_api.url}, hosts


def _mirrored(files: dict[str, bytes], pages: list[dict[str, Any]]) -> str:
    """A stranger's copy of the pages (page 1 at the proof's path, the others at ?page=k)."""
    base = f"/v1/shoes/{pages[0]['shoe_id']}/proof"
    files[base] = json.dumps(pages[0]).encode()
    for k, one in enumerate(pages, start=1):
        files[f"{base}?page={k}"] = json.dumps(one).encode()
    return base


def test_the_page_served_by_the_api_finds_one_tampered_card(
    page: Any, played: Played, local_api: LocalServer, mirror: tuple[str, dict[str, bytes]]
) -> None:
    base, files = mirror
    bad = json.loads(_tampered_card(played, round_number=7))["pages"]
    tampered = quote(base + _mirrored(files, bad), safe="")
    page.goto(f"{local_api.url}/verify?proof={tampered}")
    v = page.wait_verdict()
    assert v["state"] == "failed", (v, page.errors())
    assert v["text"] == "NOT verified"
    assert re.match(r"page \d+ was changed after it was signed", v["detail"]), v
    assert page.errors() == []


def test_the_page_verifies_an_early_closed_shoe_with_a_void_by_relative_url(
    page: Any, played_closed: Played, local_api: LocalServer
) -> None:
    path = played_closed.summary["proof_url"].removeprefix(local_api.url)
    page.goto(f"{local_api.url}/verify?proof={quote(path)}")
    v = page.wait_verdict()
    assert v["state"] == "verified", (v, page.errors())
    assert "closed early" in v["detail"]
    line = page.eval("document.getElementById('interventions').textContent")
    assert line.startswith("Interventions: 1 voided round, players would have netted "), line
    tags = page.eval(
        "[...document.querySelectorAll('#rounds-body tr.round')].map(tr => "
        "[...tr.querySelectorAll('.tag')].map(t => t.textContent))"
    )
    assert len(tags) == 9 and "void" in tags[3]
    assert all("settled" in t for i, t in enumerate(tags) if i != 3)
