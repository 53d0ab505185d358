"""End to end: the example client plays whole shoes against the local
server (`make run`'s runner: DynamoDB Local behind the real app over HTTP), and both verifiers — the
`baccarat verify` CLI and the browser page the API itself serves at /verify — say "verified" on
the proofs it produced and catch a one-card tamper.

The API serves v1 proofs (unsigned) until its side of proof v2 lands; the same shoes as signed v2
pages — made from the API's own proof and rounds by ``baccarat.proofdoc`` (tests/signed_proofs.py,
the TEST ONLY key), the shape the API will serve — verify in both verifiers too, and fail on a
changed byte.

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
from support.signed_proofs import TEST_KEYS, private_from_api, signed_pages

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
    proof_text: str
    stdout: str

    @property
    def proof(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.proof_text)
        return data


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
        "--void-round", "4", "--rng-seed", "7",
    )  # fmt: skip


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("baccarat")
    if script.exists():
        return [str(script)]
    found = shutil.which("baccarat")
    assert found, "the baccarat command is not installed"
    return [found]


def _verify(source: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_cli(), "verify", "--allow-unsigned", source],  # the API serves v1 proofs (unsigned)
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
    proof = played.proof
    assert proof["rounds"][29]["settlement"]["round_number"] == 30
    bettors = {b["bettor_id"] for r in proof["rounds"] for b in r["bets"] or []}
    assert len(bettors) >= 3


def test_an_early_closed_shoe_with_a_voided_round_verifies(played_closed: Played) -> None:
    s = played_closed.summary
    assert s["rounds"] == 9 and s["end_reason"] == "closed" and s["verified"], s
    assert s["voided"] == [4] and s["settlements"] == 8
    assert s["settlements_checked"] == 8 and s["consistent"]
    assert "1 voided round (shoe closed early)" in s["verdict"]
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
    assert good.stdout.startswith("verified: bacc-pf-v1 shoe 1:")
    assert "30 settlements" in good.stdout

    bad, old, new = proofs.tamper_card(played.proof_text, round_number=7, side="banker", index=1)
    (tmp_path / "tampered.json").write_text(bad, encoding="utf-8")
    caught = _verify(str(tmp_path / "tampered.json"))
    assert caught.returncode == 1, caught.stdout + caught.stderr
    line = caught.stdout.strip()
    assert line.startswith("NOT verified: round 7, banker cards: expected "), line
    assert old in line and new in line

    from_stdin = _verify("-", stdin=bad)
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
    assert "HTTP 404 not_found" in early.stderr, early.stderr


def test_baccarat_verify_catches_a_changed_settlement(played: Played, tmp_path: Path) -> None:
    proof = played.proof
    proof["rounds"][11]["settlement"]["house"]["take"] -= 1
    (tmp_path / "money.json").write_text(json.dumps(proof), encoding="utf-8")
    caught = _verify(str(tmp_path / "money.json"))
    assert caught.returncode == 1
    assert caught.stdout.startswith("NOT verified: round 12, settlement house.take: expected ")


# --- the page the API serves -------------------------------------------------------------------


def test_the_page_served_by_the_api_verifies_the_apis_proof(
    page: Any, played: Played, local_api: LocalServer
) -> None:
    proof_url = played.summary["proof_url"]
    page.goto(f"{local_api.url}/verify?allow_unsigned=1&proof={quote(proof_url, safe='')}")
    v = page.wait_verdict()
    assert v["state"] == "verified", (v, page.errors())
    assert v["text"] == "verified"
    assert "all 30 rounds" in v["detail"]
    rows = page.eval(
        "[...document.querySelectorAll('#rounds-body tr.round')].map(tr => tr.dataset.status)"
    )
    assert rows == ["ok"] * 30
    checks = dict(
        page.eval(
            "[...document.querySelectorAll('#checks li')].map(li => [li.dataset.check, "
            "li.className])"
        )
    )
    assert "settlements" in checks  # the page shows them (money is the CLI's job)
    assert page.errors() == []
    # nothing but the API itself was contacted: the scripts are inlined, the proof is the API's
    hosts = {re.sub(r"^(\w+://[^/]+).*$", r"\1", u) for u in page.requested_urls()}
    assert hosts <= {local_api.url}, hosts


def test_the_page_served_by_the_api_finds_one_tampered_card(
    page: Any,
    played: Played,
    local_api: LocalServer,
    mirror: tuple[str, dict[str, bytes]],
    proofs: SimpleNamespace,
) -> None:
    base, files = mirror
    bad, old, new = proofs.tamper_card(played.proof_text, round_number=7, side="banker", index=1)
    files["/tampered-proof.json"] = bad.encode()
    tampered = quote(base + "/tampered-proof.json", safe="")
    page.goto(f"{local_api.url}/verify?allow_unsigned=1&proof={tampered}")
    v = page.wait_verdict()
    assert v["state"] == "failed", (v, page.errors())
    assert v["text"] == "NOT verified"
    assert v["detail"].startswith("round 7, banker cards: expected "), v
    assert old in v["detail"] and new in v["detail"]
    statuses = dict(
        page.eval(
            "[...document.querySelectorAll('#rounds-body tr.round')].map(tr => "
            "[Number(tr.dataset.round), tr.dataset.status])"
        )
    )
    assert statuses.pop(7) == "mismatch" and set(statuses.values()) == {"ok"}
    assert page.errors() == []


def test_the_page_verifies_an_early_closed_shoe_with_a_void_by_relative_url(
    page: Any, played_closed: Played, local_api: LocalServer
) -> None:
    path = played_closed.summary["proof_url"].removeprefix(local_api.url)
    page.goto(f"{local_api.url}/verify?allow_unsigned=1&proof={quote(path)}")
    v = page.wait_verdict()
    assert v["state"] == "verified", (v, page.errors())
    assert "closed early" in v["detail"]
    tags = page.eval(
        "[...document.querySelectorAll('#rounds-body tr.round')].map(tr => "
        "[...tr.querySelectorAll('.tag')].map(t => t.textContent))"
    )
    assert len(tags) == 9 and "void" in tags[3]
    assert all("settled" in t for i, t in enumerate(tags) if i != 3)


# --- the same shoes as signed v2 pages ---------------------------------------------------------

#: Small pages, so that a 30-round shoe with bets from several seats spans several of them.
BUDGET = 20_000


def _v2_pages(api: LocalServer, played: Played) -> list[dict[str, Any]]:
    """The played shoe's proof and its rounds (the operator's view: deal time, bets) → the
    signed pages ``baccarat.proofdoc.final_pages`` makes of them."""
    proof = played.proof
    headers = {"authorization": f"Bearer {api.key}"}
    rounds = {}
    for r in proof["rounds"]:
        got = httpx.get(f"{api.url}/v1/rounds/{proof['shoe_id']}_r{r['round_number']}",
                        headers=headers)  # fmt: skip
        assert got.status_code == 200, got.text
        rounds[r["round_number"]] = got.json()
    return signed_pages(private_from_api(proof, rounds), budget=BUDGET)


def _serve(files: dict[str, bytes], pages: list[dict[str, Any]]) -> str:
    base = f"/v1/shoes/{pages[0]['shoe_id']}/proof"
    files[base] = json.dumps(pages[0]).encode()
    for k, page in enumerate(pages, start=1):
        files[f"{base}?page={k}"] = json.dumps(page).encode()
    files["/v1/signing-keys"] = json.dumps(TEST_KEYS).encode()
    return base


def _signed_verify(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_cli(), "verify", url], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def v2_played(local_api: LocalServer, played: Played) -> list[dict[str, Any]]:
    return _v2_pages(local_api, played)


@pytest.fixture(scope="module")
def v2_closed(local_api: LocalServer, played_closed: Played) -> list[dict[str, Any]]:
    return _v2_pages(local_api, played_closed)


def test_the_v2_pages_name_no_bettor_and_no_balance(
    played: Played, played_closed: Played, v2_played: list[Any], v2_closed: list[Any]
) -> None:
    assert len(v2_played) >= 2 and len(v2_closed) >= 2
    for shoe, pages in ((played, v2_played), (played_closed, v2_closed)):
        text = json.dumps(pages)
        bettors = {b["bettor_id"] for r in shoe.proof["rounds"] for b in r["bets"] or []}
        assert bettors and not any(f'"{b}"' in text for b in bettors)
        assert "balance" not in text.replace("min_balance", "")
        assert '"level"' not in text and "eligibility" not in text


def test_baccarat_verify_follows_the_signed_pages_of_both_shoes(
    v2_played: list[Any], v2_closed: list[Any], mirror: tuple[str, dict[str, bytes]]
) -> None:
    base, files = mirror
    out = _signed_verify(base + _serve(files, v2_played))
    assert out.returncode == 0, out.stdout + out.stderr
    verdict, line = out.stdout.strip().splitlines()
    assert verdict.startswith("verified: bacc-pf-v1 shoe 1:") and "30 settlements" in verdict
    assert f"(ES256, {len(v2_played)} pages," in verdict
    assert line == "interventions: no voids; played to the end (30 of 30 rounds)"

    out = _signed_verify(base + _serve(files, v2_closed))
    assert out.returncode == 0, out.stdout + out.stderr
    verdict, line = out.stdout.strip().splitlines()
    assert "8 settlements re-derived and matching, 1 voided round" in verdict
    iv = v2_closed[0]["interventions"]
    assert iv["voided_rounds"] == 1 and iv["closed_early"] and iv["rounds_dealt"] == 9
    assert line.startswith("interventions: 1 voided round, players would have netted ")
    assert line.endswith(f"; closed early after round 9 of {iv['rounds_possible']}")
    voided = next(r for p in v2_closed for r in p["rounds"] if r["round_number"] == 4)
    assert voided["void"]["reason"] == "misdeal" and voided["void"]["replaced"]["nets"]


def test_baccarat_verify_catches_a_changed_byte_in_any_page(
    v2_played: list[Any], mirror: tuple[str, dict[str, bytes]]
) -> None:
    base, files = mirror
    pages = json.loads(json.dumps(v2_played))
    last = pages[-1]
    last["rounds"][-1]["settlement"]["lines"][0]["net"] += 1
    out = _signed_verify(base + _serve(files, pages))
    assert out.returncode == 1
    assert out.stdout.startswith(f"NOT verified: page {len(pages)} was changed after it was signed")


def test_the_page_the_api_serves_verifies_the_signed_pages(
    page: Any,
    local_api: LocalServer,
    v2_closed: list[Any],
    mirror: tuple[str, dict[str, bytes]],
    proofs: SimpleNamespace,
) -> None:
    base, files = mirror
    url = base + _serve(files, v2_closed)
    keys = proofs.data_url(json.dumps(TEST_KEYS))  # (this API has no /v1/signing-keys yet)
    page.goto(f"{local_api.url}/verify?keys={quote(keys, safe='')}&proof={quote(url, safe='')}")
    v = page.wait_verdict()
    assert v["state"] == "verified", (v, page.errors())
    assert f"(ES256, {len(v2_closed)} pages)" in v["detail"]
    line = page.eval("document.getElementById('interventions').textContent")
    assert line.startswith("Interventions: 1 voided round, players would have netted ")
    refs = page.eval("[...document.querySelectorAll('#bettors-body tr')].map(tr => tr.dataset.ref)")
    assert refs and all(r.startswith("br_") and len(r) == 27 for r in refs)
    assert page.errors() == []

    pages = json.loads(json.dumps(v2_closed))
    first = pages[0]["rounds"][0]
    ts = first["dealt_at"]  # one millisecond digit changed: a timestamp edited
    first["dealt_at"] = ts[:-2] + ("1" if ts[-2] != "1" else "2") + "Z"
    _serve(files, pages)
    page.goto(f"{local_api.url}/verify?keys={quote(keys, safe='')}&proof={quote(url, safe='')}")
    v = page.wait_verdict()
    assert v["state"] == "failed"
    assert v["detail"].startswith("page 1 was changed after it was signed"), v
