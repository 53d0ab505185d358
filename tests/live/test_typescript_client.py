"""The TypeScript client's example (clients/typescript/examples/play-shoe.ts) against the local
server as a user runs it (`make run`'s runner on a free port, its URL and key handed over as
BACCARAT_URL and KEY): it plays whole shoes, the browser verifier's JavaScript (web/verify.js,
loaded in Node) says "verified" on each proof, and what it was answered is the proof's. The
proofs it saved (the signed pages the API served) are checked again here with the service's own
verifier (the signature, cards and money). The example checks the signature against the API's
``GET /v1/signing-keys``: no allowUnsigned anywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.local_server import LocalServer, local_server
from support.typescript_client import output, require_client, run

from baccarat.verify import Verdict, verify
from baccarat_verify import es256

VERDICT = (
    "web/verify.js: verified: shoe 1: the server seed reaches the anchor, the client hash matches"
)


@pytest.fixture(scope="module")
def api(shared_dynamodb: Any) -> Iterator[LocalServer]:
    require_client()  # before starting a server for nothing
    with local_server(dynamodb=shared_dynamodb) as server:
        yield server


def verified(api: LocalServer, pages: list[dict[str, Any]]) -> Verdict:
    keys = httpx.get(f"{api.url}/v1/signing-keys", timeout=10).json()
    return verify(pages, keys=keys, signature_check=es256.check)


def play(
    api: LocalServer, tmp: Path, *args: str
) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """The example run as its README says (npm run example = tsx examples/play-shoe.ts):
    its summary, the proof it loaded, and what it printed."""
    summary, proof = tmp / "summary.json", tmp / "proof.json"
    proc = run(
        ["tsx", "examples/play-shoe.ts", "--quiet", "--summary-json", str(summary),
         "--save-proof", str(proof), *args],
        env={"BACCARAT_URL": api.url, "KEY": api.key},
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, output(proc)
    return json.loads(summary.read_text()), json.loads(proof.read_text()), proc.stdout


def test_a_whole_star_city_shoe_played_from_typescript_verifies_in_the_browser_verifier(
    api: LocalServer, tmp_path: Path
) -> None:
    summary, pages, stdout = play(api, tmp_path, "--rng-seed", "6")
    assert f"{VERDICT} and all 30 rounds re-derive exactly" in stdout, stdout
    assert "unsigned" not in stdout and "ES256" in stdout, stdout
    assert "interventions: no voids; played to the end (30 of 30 rounds)" in stdout, stdout
    assert "consistent: the cards we were dealt and the settlements we were answered" in stdout
    assert summary["verified"] is True and summary["consistent"] is True, summary
    assert summary["rounds"] == summary["settlements"] == 30
    assert summary["end_reason"] == "rules"
    # the same proof, from the service's own verifier: cards and every settlement recomputed
    verdict = verified(api, pages)
    assert verdict.ok, verdict.line()
    assert verdict.settlements_checked == 30 and verdict.signature
    rounds = [r for page in pages for r in page["rounds"]]
    assert [r["round_number"] for r in rounds] == list(range(1, 31))
    # the API agrees on what was played: the shoe ended, the nets the example kept are the API's
    shoe = httpx.get(
        f"{api.url}/v1/shoes/{summary['shoe_id']}",
        headers={"authorization": f"Bearer {api.key}"},
        timeout=10,
    ).json()
    assert (shoe["status"], shoe["rounds_dealt"]) == ("ended", 30)
    nets: dict[str, int] = {}  # by bettor_ref: the proof names no bettor
    for r in rounds:
        for ref, net in r["settlement"]["nets"].items():
            nets[ref] = nets.get(ref, 0) + net
    assert all(ref.startswith("br_") for ref in nets)
    nonzero = lambda values: sorted(n for n in values if n)  # noqa: E731
    assert nonzero(nets.values()) == nonzero(summary["nets"].values())


def test_a_closed_bid_squeeze_shoe_with_a_void_verifies_too(
    api: LocalServer, tmp_path: Path
) -> None:
    summary, pages, stdout = play(
        api, tmp_path,
        "--profile", "bid-squeeze", "--banking", "player_banker",
        "--close-after", "9", "--void-round", "4", "--rng-seed", "7",
    )  # fmt: skip
    assert f"{VERDICT} and all 9 rounds re-derive exactly (closed early, of " in stdout, stdout
    assert summary["verified"] is True and summary["consistent"] is True, summary
    assert (summary["rounds"], summary["settlements"], summary["voided"]) == (9, 8, [4])
    assert summary["end_reason"] == "closed"
    assert "interventions: 1 voided round" in stdout, stdout
    assert pages[0]["rounds"][3]["voided"] is True
    assert verified(api, pages).ok
