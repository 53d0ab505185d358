"""``baccarat verify`` on signed v2 proofs (pages, manifest, ES256, lifecycle, voids,
interventions): the genuine two-page sample verifies; a change to any byte fails with a line
that says what changed — also where the rounds still re-derive; a dishonest signer's pages (edited
and signed again) fail on what the signature cannot vouch for. In-process through the console
script's verify path (``baccarat_verify.cli``), and over HTTP the way a player runs it on a proof
URL (every page followed, the keys from the URL's origin)."""

from __future__ import annotations

import copy
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.signed_proofs import TEST_KEY_ID, TEST_KEYS, resign

from baccarat import proofdoc
from baccarat.verify import Verdict, verify
from baccarat_verify import es256
from baccarat_verify.cli import main

SAMPLE_FILE = Path(__file__).resolve().parents[1] / "vectors" / "proof_v2_sample.json"
SAMPLE: list[dict[str, Any]] = json.loads(SAMPLE_FILE.read_text(encoding="utf-8"))["pages"]
LINE = (
    "interventions: 1 voided round, players would have netted +580; "
    "closed early after round 6 of 30"
)


def pages() -> list[dict[str, Any]]:
    return copy.deepcopy(SAMPLE)


def check(document: Any, **kw: Any) -> Verdict:
    return verify(document, keys=TEST_KEYS, signature_check=es256.check, **kw)


def run(
    tmp_path: Path, document: Any, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[str]]:
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(TEST_KEYS), encoding="utf-8")
    code = main(["verify", str(path), "--keys", str(keys), *args])
    captured = capsys.readouterr()
    return code, (captured.out + captured.err).strip().splitlines()


# --- genuine ------------------------------------------------------------------------------------


def test_the_signed_sample_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = run(tmp_path, {"pages": pages()}, capsys)
    assert code == 0, lines
    assert lines[0].startswith("verified: bacc-pf-v1 shoe 2: server seed reaches the anchor")
    assert "6 rounds and 5 settlements re-derived and matching, 1 voided round" in lines[0]
    assert f"signed by key {TEST_KEY_ID}" in lines[0] and "(ES256, 2 pages," in lines[0]
    assert lines[1] == LINE
    assert len(lines) == 2


def test_pages_in_any_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A list of pages, a bundle, pages out of order, or one file per page."""
    assert run(tmp_path, pages(), capsys)[0] == 0
    assert run(tmp_path, list(reversed(pages())), capsys)[0] == 0
    files = []
    for k, page in enumerate(pages(), start=1):
        files.append(tmp_path / f"page{k}.json")
        files[-1].write_text(json.dumps(page), encoding="utf-8")
    keys = tmp_path / "k.json"
    keys.write_text(json.dumps(TEST_KEYS), encoding="utf-8")
    assert main(["verify", *map(str, files), "--keys", str(keys)]) == 0
    capsys.readouterr()


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = run(tmp_path, pages(), capsys, "--json")
    report = json.loads(lines[0])
    assert code == 0 and report["verified"] is True
    assert report["interventions"] == SAMPLE[0]["interventions"]
    assert report["interventions_line"] == LINE
    assert report["signature"].startswith(f"signed by key {TEST_KEY_ID}")


# --- any changed byte fails ---------------------------------------------------------------------


def _flip(text: str, i: int) -> str:
    return text[:i] + ("B" if text[i] != "B" else "C") + text[i + 1 :]


def _set(path: tuple[Any, ...], value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def edit(doc: list[dict[str, Any]]) -> None:
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value

    return edit


EDITS = {
    "end_reason": (_set((0, "end_reason"), "rules"), "page 1 was changed after it was signed"),
    "a settlement line": (
        _set((1, "rounds", 0, "settlement", "lines", 1, "net"), lambda n: n + 1),
        "page 2 was changed after it was signed",
    ),
    "a timestamp": (
        _set((1, "rounds", 2, "settled_at"), "2025-06-01T12:06:31.000Z"),
        "page 2 was changed after it was signed",
    ),
    "a round's card": (
        _set((0, "rounds", 1, "player", 0), lambda c: ("K" if c[0] != "K" else "Q") + c[1]),
        "page 1 was changed after it was signed",
    ),
    "a round removed": (
        lambda doc: doc[1]["rounds"].pop(),
        "page 2 was changed after it was signed",
    ),
    "a void's note": (
        _set((0, "rounds", 2, "void", "note"), "dealer error"),
        "page 1 was changed after it was signed",
    ),
    "the interventions": (
        _set((1, "interventions", "voided_rounds"), 0),
        "page 2 was changed after it was signed",
    ),
    "a bettor ref": (
        _set((0, "rounds", 0, "bets", 0, "bettor_ref"), "br_" + "a" * 24),
        "page 1 was changed after it was signed",
    ),
    "the signature value": (
        lambda doc: [
            p["signature"].update(value=_flip(SAMPLE[0]["signature"]["value"], 20)) for p in doc
        ],
        "signature: the ES256 signature does not verify over the manifest",
    ),
    "the manifest's time": (
        lambda doc: [
            p["signature"]["manifest"].update(signed_at="2025-06-01T13:00:01.000Z") for p in doc
        ],
        "signature: the ES256 signature does not verify over the manifest",
    ),
    "a signature value of the wrong length": (
        lambda doc: [p["signature"].update(value="AAAA") for p in doc],
        "signature: its value is not the base64url of 64 bytes",
    ),
    "one page's signature": (
        _set((1, "signature", "value"), "A" * 86),
        "page 2 carries another signature than page 1",
    ),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_any_changed_byte_fails_with_a_clear_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit, words = EDITS[name]
    doc = pages()
    edit(doc)
    code, lines = run(tmp_path, doc, capsys)
    assert code == 1, lines
    assert lines[0].startswith(f"NOT verified: {words}"), lines


def _retime(doc: list[dict[str, Any]]) -> None:
    r = doc[1]["rounds"][2]
    r["settled_at"] = r["settlement"]["settled_at"] = "2025-06-01T12:09:59.000Z"


ONLY_THE_SIGNATURE_SEES = {
    "a void's note": EDITS["a void's note"][0],
    "a settlement's time, everywhere it is written": _retime,
    "auto-settled or not": _set((1, "rounds", 2, "settlement", "auto_settled"), False),
}


@pytest.mark.parametrize("name", list(ONLY_THE_SIGNATURE_SEES))
def test_edits_the_seed_cannot_catch_fail_on_the_signature(name: str) -> None:
    doc = pages()
    ONLY_THE_SIGNATURE_SEES[name](doc)
    # cards, money, lifecycle: all still fine
    assert verify([proofdoc.unsigned_page(p) for p in doc], require_signature=False).ok
    verdict = check(doc)
    assert not verdict.ok
    assert verdict.line().startswith("NOT verified: page "), verdict.line()
    assert "was changed after it was signed" in verdict.line()


# --- a dishonest signer: edited, then signed again ------------------------------------------------

RESIGNED = {
    "bets locked after the deal": (
        _set((0, "rounds", 1, "bets_locked_at"), "2025-06-01T12:02:10.000Z"),
        "NOT verified: round 2: bets_locked_at '2025-06-01T12:02:10.000Z' is not its dealt_at",
    ),
    "a settlement": (
        _set((0, "rounds", 0, "settlement", "house", "take"), lambda n: n - 1),
        "NOT verified: round 1, settlement house.take: expected 1066, found 1065",
    ),
    "a void's replaced nets": (
        _set((0, "rounds", 2, "void", "replaced", "house_take"), 0),
        "NOT verified: round 3, void replaced.house_take: expected -580, found 0",
    ),
    "the interventions": (
        lambda doc: [p["interventions"].update(voided_player_net=0) for p in doc],
        "NOT verified: shoe, interventions.voided_player_net: expected 580, found 0",
    ),
    "a void hidden as closed by the rules": (
        lambda doc: [p.update(end_reason="rules") for p in doc],
        "NOT verified: shoe, number of rounds (the shoe ended by its rules): expected 30",
    ),
    "a round neither settled nor voided": (
        lambda doc: doc[1]["rounds"][0].update(settlement=None, settled_at=None),
        "NOT verified: round 4 is neither settled nor voided",
    ),
    "settled before it was dealt": (
        _set((1, "rounds", 1, "settled_at"), "2025-06-01T12:04:59.000Z"),
        "NOT verified: round 5, settled_at: expected 'not before it was dealt",
    ),
    "an unknown void reason": (
        _set((0, "rounds", 2, "void", "reason"), "house lost"),
        """NOT verified: round 3, void reason: expected "one of ('misdeal',""",
    ),
    "two headers": (
        _set((1, "client_seed"), "other"),
        "NOT verified: page 2's client_seed differs from page 1's",
    ),
    "a broken link": (
        _set((0, "page", "next"), "https://elsewhere.example/proof?page=2"),
        "NOT verified: page 1, page.next: expected '/v1/shoes/tbl_vector_s2/proof?page=2'",
    ),
}


@pytest.mark.parametrize("name", list(RESIGNED))
def test_what_a_signature_cannot_vouch_for(name: str) -> None:
    edit, words = RESIGNED[name]
    doc = pages()
    edit(doc)
    verdict = check(resign(doc))
    assert not verdict.ok
    assert verdict.line().startswith(words), verdict.line()
    assert verdict.signature is not None  # the signature itself is valid


def test_a_page_missing_or_twice() -> None:
    one = check(pages()[:1])
    assert one.line() == (
        "NOT verified: page 2 of 2 is missing (give every page, a bundle or the proof's URL)"
    )
    twice = check([*pages(), pages()[1]])
    assert twice.line() == "NOT verified: page 2 is given twice"


# --- keys and unsigned proofs --------------------------------------------------------------------


def test_unknown_key_and_malformed_key_sets() -> None:
    from cryptography.hazmat.primitives.asymmetric import ec

    other = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    stranger = proofdoc.public_jwk(other.x.to_bytes(32, "big"), other.y.to_bytes(32, "big"))
    verdict = verify(pages(), keys={"keys": [stranger]}, keys_source="https://x.example",
                     signature_check=es256.check)  # fmt: skip
    assert verdict.line() == (
        f"NOT verified: signature: key {TEST_KEY_ID} is not among the signing keys of "
        "https://x.example; table tbl_vector, shoe tbl_vector_s2 (no shoe was named to check it "
        "against)"
    )
    # a key set claiming the key id for another key: keys are found by their thumbprint
    liar = {**stranger, "kid": TEST_KEY_ID}
    assert "is not among" in verify(pages(), keys={"keys": [liar]},
                                    signature_check=es256.check).line()  # fmt: skip
    assert "is not a JWK set" in verify(pages(), keys={"k": 1}, signature_check=es256.check).line()


def test_an_unsigned_proof_fails_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = pages()
    for p in doc:
        del p["signature"]
    code, lines = run(tmp_path, doc, capsys)
    assert code == 1 and lines[0].startswith("NOT verified: unsigned proof"), lines
    code, lines = run(tmp_path, doc, capsys, "--allow-unsigned")
    assert code == 0 and lines[0].startswith("verified:"), lines
    assert "; unsigned; table tbl_vector" in lines[0]
    assert lines[1] == LINE


def test_a_signed_proof_from_a_file_needs_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pages()), encoding="utf-8")
    assert main(["verify", str(path)]) == 2
    assert "give the signing keys with --keys FILE" in capsys.readouterr().err


def test_duplicate_keys_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = json.dumps(pages()[0])
    path = tmp_path / "dup.json"
    path.write_text(text[:-1] + ', "end_reason": "rules"}', encoding="utf-8")
    assert main(["verify", str(path), "--allow-unsigned"]) == 2
    assert "the key 'end_reason' appears twice" in capsys.readouterr().err


def test_es256_check_refuses_what_is_not_a_p256_key() -> None:
    message = b"m"
    sig = bytes(64)
    jwk = TEST_KEYS["keys"][0]
    assert es256.check(jwk, message, sig) is False
    assert es256.check({**jwk, "crv": "P-384"}, message, sig) is False
    assert es256.check({**jwk, "x": jwk["y"]}, message, sig) is False  # not on the curve
    assert es256.check({**jwk, "x": "!!"}, message, sig) is False
    manifest = SAMPLE[0]["signature"]["manifest"]
    value = proofdoc.b64url_decode(SAMPLE[0]["signature"]["value"])
    assert es256.check(jwk, proofdoc.proof_bytes(manifest), value) is True
    assert es256.check(jwk, proofdoc.proof_bytes(manifest) + b" ", value) is False


# --- over HTTP: the proof URL ------------------------------------------------------------------


class _Api(http.server.BaseHTTPRequestHandler):
    routes: dict[str, bytes]

    def do_GET(self) -> None:
        body = self.routes.get(self.path)
        status = int(self.routes.get(f"{self.path}#status", b"200"))  # an error route's status
        self.send_response(status if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body or b'{"error": {"code": "not_found", "message": "no such page"}}')

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def api() -> Iterator[tuple[str, dict[str, bytes]]]:
    routes: dict[str, bytes] = {}
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), type("H", (_Api,), {"routes": routes})
    )
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", routes
    finally:
        httpd.shutdown()
        httpd.server_close()


def _serve(routes: dict[str, bytes], doc: list[dict[str, Any]], keys: Any = TEST_KEYS) -> str:
    base = "/v1/shoes/tbl_vector_s2/proof"
    routes[base] = json.dumps(doc[0]).encode()
    for k, page in enumerate(doc, start=1):
        routes[f"{base}?page={k}"] = json.dumps(page).encode()
    if keys is not None:
        routes["/v1/signing-keys"] = json.dumps(keys).encode()
    return base


def test_the_proof_url_follows_every_page_and_reads_the_keys_of_its_origin(
    api: tuple[str, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, routes = api
    path = _serve(routes, pages())
    assert main(["verify", url + path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"signed by key {TEST_KEY_ID} of {url}/v1/signing-keys" in out[0]
    assert out[1] == LINE

    doc = pages()
    doc[1]["rounds"][1]["settlement"]["nets"] = {}
    _serve(routes, doc)
    assert main(["verify", url + path]) == 1
    assert capsys.readouterr().out.startswith(
        "NOT verified: page 2 was changed after it was signed"
    )


def test_an_open_shoes_proof_url_says_the_shoe_is_open_not_unknown(
    api: tuple[str, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    """The API answers 409 shoe_not_closed for a known open shoe; the CLI says
    so with what is known (table, rounds dealt, voids so far, when it closes at the latest)."""
    url, routes = api
    path = "/v1/shoes/tbl_open_s1/proof"
    details = {"table_id": "tbl_open", "shoe_number": 1, "rounds_dealt": 6,
               "voided_rounds": 4, "close_by": "2026-12-05T03:00:00.000Z"}  # fmt: skip
    error = {"code": "shoe_not_closed", "message": "shoe tbl_open_s1 is still open",
             "retryable": True, "details": details}  # fmt: skip
    routes[path] = json.dumps({"error": error}).encode()
    routes[f"{path}#status"] = b"409"
    assert main(["verify", url + path]) == 2
    err = capsys.readouterr().err
    assert "HTTP 409 shoe_not_closed" in err
    assert (
        "the shoe is still open (table tbl_open, shoe 1): 6 rounds dealt, 4 voided so far; "
        "no proof until it ends — the service closes it by 2026-12-05T03:00:00.000Z at the "
        "latest if nothing more is dealt"
    ) in err


def test_the_proof_url_with_keys_from_elsewhere_or_none(
    api: tuple[str, dict[str, bytes]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url, routes = api
    path = _serve(routes, pages(), keys=None)
    assert main(["verify", url + path]) == 2
    assert "/v1/signing-keys: HTTP 404 not_found" in capsys.readouterr().err
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(TEST_KEYS), encoding="utf-8")
    assert main(["verify", url + path, "--keys", str(keys)]) == 0
    capsys.readouterr()


def test_the_proof_url_never_follows_a_link_off_the_api(
    api: tuple[str, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, routes = api
    doc = pages()
    doc[0]["page"]["next"] = "https://elsewhere.example/v1/shoes/x/proof?page=2"
    path = _serve(routes, doc)
    assert main(["verify", url + path]) == 2
    assert "links to 'https://elsewhere.example" in capsys.readouterr().err


# --- the proof is the shoe asked for ------------------------------------------------------------


def test_another_tables_signed_proof_at_my_shoe_url_fails(
    api: tuple[str, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    """A clean signed proof of table tbl_vector's shoe 2, served at a player's shoe URL (table
    tbl_mine), verifies as a proof but is not the player's shoe: NOT verified, both named."""
    url, routes = api
    _serve(routes, pages())  # its page 2 link stays on the API
    routes["/v1/shoes/tbl_mine_s2/proof"] = json.dumps(pages()[0]).encode()
    assert main(["verify", url + "/v1/shoes/tbl_mine_s2/proof"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        "NOT verified: this is the proof of shoe tbl_vector_s2 (table tbl_vector), not of the "
        "shoe asked for, tbl_mine_s2"
    ), out
    assert out[0].endswith("; table tbl_vector, shoe tbl_vector_s2 (not the shoe asked for)")

    assert main(["verify", url + "/v1/shoes/tbl_vector_s2/proof"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("; table tbl_vector, shoe tbl_vector_s2 (the shoe asked for)"), out


def test_the_verdict_names_table_and_shoe_and_checks_a_named_shoe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = run(tmp_path, pages(), capsys)
    assert code == 0
    assert lines[0].endswith(
        "; table tbl_vector, shoe tbl_vector_s2 (no shoe was named to check it against)"
    )
    assert run(tmp_path, pages(), capsys, "--shoe", "tbl_vector_s2")[0] == 0
    code, lines = run(tmp_path, pages(), capsys, "--shoe", "tbl_vector_s3")
    assert code == 1 and "not of the shoe asked for, tbl_vector_s3" in lines[0]
    report = json.loads(run(tmp_path, pages(), capsys, "--shoe", "tbl_x_s2", "--json")[1][0])
    assert report["verified"] is False
    assert report["subject"] == "table tbl_vector, shoe tbl_vector_s2 (not the shoe asked for)"
    assert report["mismatches"][0]["field"] == "shoe_id"


def test_a_header_whose_shoe_id_is_not_its_table_and_number_fails() -> None:
    """A dishonest signer re-labels a shoe: the signed header's ids must agree."""
    doc = pages()
    for page in doc:
        page["shoe_id"] = "tbl_mine_s2"
        if page["page"]["next"]:
            page["page"]["next"] = page["page"]["next"].replace("tbl_vector_s2", "tbl_mine_s2")
    doc = resign(doc)
    verdict = check(doc, shoe_id="tbl_mine_s2")
    assert not verdict.ok
    assert str(verdict.mismatches[0]).startswith(
        "the proof's shoe_id tbl_mine_s2 is not shoe 2 of its table tbl_vector"
    )
    # the table id alone, even unsigned (it used to be caught by the signature only)
    doc = pages()
    for page in doc:
        page["table_id"] = "tbl_elsewhere"
    verdict = verify([proofdoc.unsigned_page(p) for p in doc], require_signature=False)
    assert not verdict.ok
    assert str(verdict.mismatches[0]).startswith(
        "the proof's shoe_id tbl_vector_s2 is not shoe 2 of its table tbl_elsewhere"
    )


def test_a_key_is_picked_by_its_id_and_must_be_valid_when_it_signed() -> None:
    """GET /v1/signing-keys lists every key that ever signed with its validity;
    the verifier takes the key the proof names and checks signed_at falls in it."""
    at = SAMPLE[0]["signature"]["manifest"]["signed_at"]
    jwk = TEST_KEYS["keys"][0]

    def keys(lo: str | None, hi: str | None) -> dict[str, Any]:
        retired = {**jwk, "status": "retired", "not_before": lo, "not_after": hi}
        current = {**jwk, "x": jwk["y"], "y": jwk["x"], "kid": "another", "status": "current",
                   "not_before": "2025-07-01T00:00:00.000Z", "not_after": None}  # fmt: skip
        return {"keys": [current, retired]}

    good = verify(pages(), keys=keys("2025-01-01T00:00:00.000Z", "2025-06-30T00:00:00.000Z"),
                  signature_check=es256.check)  # fmt: skip
    assert good.ok, good.mismatches
    for lo, hi in (("2025-06-01T13:00:00.001Z", None), (None, "2025-06-01T12:59:59.999Z")):
        bad = verify(pages(), keys=keys(lo, hi), signature_check=es256.check)
        assert not bad.ok
        assert str(bad.mismatches[0]) == (
            f"signature: signed at {at}, outside the validity of key {TEST_KEY_ID} in the given "
            f"key set (from {lo or 'its start'} to {hi or 'now'})"
        )
