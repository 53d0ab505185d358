"""Secrets over a whole lifecycle: operator commands, a bid-squeeze shoe played to its natural
end (bets, settlements, a void, reads, refused requests, audit), the next shoe committed, played
and closed early — behind the Lambda authorizer and through the plain handlers.

EVERY log record of any logger at any level (root and the service's powertools logger set to
DEBUG for the test) and everything written to stdout/stderr is captured, and every response
(body and headers) is kept in order. Then:

* the chain secret s_N appears nowhere, ever (hex or base64);
* a shoe's secret s_i appears in no response and no log line before the response that ended the
  shoe — and is revealed by it, and by the proof;
* no operator key appears in any log line or response (the admin command prints a new key on
  its own stdout exactly once, when it is made; ``list`` never shows one).

The test decrypts the stored ciphertexts with KMS to know what to look for."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.gateway import GatewayApi
from support.stack import TABLE_NAMES, Api, Response, Stack

from baccarat_api import runtime
from baccarat_api.adapters.logguard import WIRE_LOGGERS
from baccarat_api.apikeys import hash_key
from baccarat_api.ids import parse_shoe_id
from baccarat_api.observability import logger as service_logger
from baccarat_api.ports.vault import chain_context, shoe_context
from baccarat_dev.cli import main as cli_main
from baccarat_dev.template import load, routes

ROUTE_KEYS = {r.route_key for r in routes()}


def spellings(secret: bytes) -> list[str]:
    return [
        secret.hex(),
        secret.hex().upper(),
        base64.b64encode(secret).decode(),
        base64.urlsafe_b64encode(secret).decode().rstrip("="),
    ]


@dataclass
class Capture:
    """Every log line and every response, in order."""

    lines: list[str] = field(default_factory=list)
    responses: list[str] = field(default_factory=list)

    def mark(self) -> tuple[int, int]:
        return len(self.lines), len(self.responses)

    def text(self, upto: tuple[int, int] | None = None) -> str:
        lines, responses = upto or (len(self.lines), len(self.responses))
        return "\n".join(self.lines[:lines] + self.responses[:responses])


@pytest.fixture
def capture(capfd: pytest.CaptureFixture[str]) -> Iterator[Capture]:
    cap = Capture()

    class Everything(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            cap.lines.append(f"{record.name} {record.levelname} {record.getMessage()}")
            if record.exc_info:
                cap.lines.append(logging.Formatter().formatException(record.exc_info))
            cap.lines.append(self.format(record))

    handler = Everything(level=logging.DEBUG)
    handler.setFormatter(service_logger.registered_formatter)
    root = logging.getLogger()
    saved = (root.level, service_logger.log_level)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    service_logger.addHandler(handler)
    service_logger.setLevel(logging.DEBUG)
    try:
        yield cap
    finally:
        root.removeHandler(handler)
        service_logger.removeHandler(handler)
        root.setLevel(saved[0])
        service_logger.setLevel(saved[1])
        out, err = capfd.readouterr()
        cap.lines += [out, err]


class Recorder:
    """Calls through an API client and keeps every response (status, headers, body)."""

    def __init__(self, api: Api, capture: Capture) -> None:
        self.api = api
        self.capture = capture

    def call(self, method: str, path: str, body: Any = None, **kw: Any) -> Response:
        r = self.api.call(method, path, body, **kw)
        self.capture.responses.append(json.dumps([r.status, r.headers, r.body]))
        return r

    def get(self, path: str, **kw: Any) -> Response:
        return self.call("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Response:
        return self.call("POST", path, body, **kw)


def cli(capture: Capture, capfd: pytest.CaptureFixture[str], *argv: str) -> Any:
    before = capfd.readouterr()  # whatever was printed so far is log output
    capture.lines += [before.out, before.err]
    rc = cli_main([*argv, "--table", TABLE_NAMES["ConfigTable"], "--json"])
    out, err = capfd.readouterr()
    assert rc == 0, err
    capture.lines.append(err)  # stderr is a log; stdout is what the admin asked for
    return json.loads(out)


def decrypt_shoe_secret(stack: Stack, operator: str, shoe_id: str) -> bytes:
    ref = parse_shoe_id(shoe_id)
    assert ref is not None
    shoe = runtime.get_runtime().repo.get_shoe(operator, ref)
    assert shoe is not None
    context = shoe_context(operator, ref.table_id, ref.shoe_number)
    return bytes(stack.kms.decrypt(CiphertextBlob=shoe.secret_ct, EncryptionContext=context)[
        "Plaintext"
    ])  # fmt: skip


def test_no_secret_or_key_leaks_over_a_whole_lifecycle(
    stack: Stack, capture: Capture, capfd: pytest.CaptureFixture[str]
) -> None:
    # --- operator commands ------------------------------------------------------------------
    created = cli(capture, capfd, "operator", "create", "secret-casino")
    spare = cli(capture, capfd, "operator", "add-key", "secret-casino")
    listed = cli(capture, capfd, "operator", "list")
    capture.responses.append(json.dumps(listed))  # the listing must not show any key
    cli(capture, capfd, "operator", "revoke-key", "secret-casino", spare["key_id"])
    key = created["key"]
    keys = [key, spare["key"], stack.key_a, stack.key_b]

    gw = Recorder(GatewayApi(key), capture)  # as deployed: the authorizer in front
    plain = Recorder(Api(key), capture)  # as make run: the FastAPI dependency
    assert gw.get("/v1/tiers").status == 200
    assert plain.get("/v1/tiers", key=spare["key"]).status == 401  # the revoked one
    assert gw.get("/v1/tiers", key=spare["key"]).status == 403
    assert gw.get("/v1/tiers", key="bk_" + "x" * 43).status == 403

    # --- a table and shoe 1, played to its natural end --------------------------------------
    table = gw.post(
        "/v1/tables",
        {
            "squeeze_seconds": 0,
            "profile": "bid-squeeze",
            "tier": "bid-squeeze-standard",
            "banking": "house",
        },
    ).body
    table_id = table["table_id"]
    shoe_id = gw.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "life"}).body["shoe_id"]
    s1 = decrypt_shoe_secret(stack, "secret-casino", shoe_id)
    stored_table = runtime.get_runtime().repo.get_table("secret-casino", table_id)
    assert stored_table is not None
    chain_secret = bytes(stack.kms.decrypt(
        CiphertextBlob=stored_table.chain_secret_ct,
        EncryptionContext=chain_context("secret-casino", table_id),
    )["Plaintext"])  # fmt: skip

    assert plain.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "x"}).status == 409
    bets = [
        {"bettor_id": "s1", "role": "seated", "seat": 1, "type": "player", "amount": 1000,
         "balance": 10_000_000, "level": 2},
        {"bettor_id": "w1", "role": "spectator", "type": "tie", "amount": 500,
         "balance": 1_000_000},
    ]  # fmt: skip
    too_big = [{**bets[0], "amount": 10**9}]
    assert plain.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": too_big}).status == 422
    n = 0
    ended_at: tuple[int, int] | None = None
    while ended_at is None:
        n += 1
        api = gw if n % 2 else plain
        mark = capture.mark()
        dealt = api.post(f"/v1/shoes/{shoe_id}/rounds", {"bets": bets})
        assert dealt.status == 201, dealt.body
        round_id = dealt.body["round_id"]
        if dealt.body["shoe_status"] == "ended":
            ended_at = mark  # everything before this response is "before the end"
            assert dealt.body["shoe_status"] == "ended"
        elif n == 2 and "POST /v1/rounds/{round_id}/void" in ROUTE_KEYS:
            assert api.post(f"/v1/rounds/{round_id}/void", {"reason": "misdeal"}).status == 200
            continue
        settled = api.post(f"/v1/rounds/{round_id}/settlement")
        assert settled.status == 200, settled.body
        if n % 10 == 1 and ended_at is None:  # not once the last round has revealed the seed
            assert api.get(f"/v1/rounds/{round_id}").status == 200
            shoe = api.get(f"/v1/shoes/{shoe_id}").body
            assert shoe["server_seed"] is None
            early = api.get(f"/v1/shoes/{shoe_id}/proof", key=False)  # 409 shoe_not_closed
            assert early.status == 409 and "server_seed" not in early.text
            if "GET /v1/tables/{table_id}/audit" in ROUTE_KEYS:
                assert api.get(f"/v1/tables/{table_id}/audit").status == 200
        assert n < 200
    assert n > 20  # a real shoe, not a stub
    ended_shoe = gw.get(f"/v1/shoes/{shoe_id}").body
    assert ended_shoe["server_seed"] == s1.hex()  # revealed at the end
    assert gw.get(f"/v1/shoes/{shoe_id}/proof", key=False).body["server_seed"] == s1.hex()

    # --- shoe 2: committed, played, closed early ---------------------------------------------
    shoe2 = gw.post(f"/v1/tables/{table_id}/shoes", {"client_seed": "life-2"}).body["shoe_id"]
    s2 = decrypt_shoe_secret(stack, "secret-casino", shoe2)
    for _ in range(3):
        dealt = plain.post(f"/v1/shoes/{shoe2}/rounds", {"bets": bets})
        assert plain.post(f"/v1/rounds/{dealt.body['round_id']}/settlement").status == 200
    assert gw.get(f"/v1/shoes/{shoe2}").body["server_seed"] is None
    closing = capture.mark()
    closed = gw.post(f"/v1/shoes/{shoe2}/close")
    assert closed.status == 200 and closed.body["server_seed"] == s2.hex()

    # --- what was seen ----------------------------------------------------------------------
    assert any("round dealt" in line for line in capture.lines), "the capture is broken"
    assert any(name in line for line in capture.lines for name in ("botocore",)), (
        "third-party loggers were not captured"
    )
    everything = capture.text()
    for spelled in spellings(chain_secret):
        assert spelled not in everything, "the chain secret leaked"
    for spelled in spellings(s1):
        assert spelled not in capture.text(ended_at), "shoe 1's secret leaked before its end"
    for spelled in spellings(s2):
        assert spelled not in capture.text(closing), "shoe 2's secret leaked before its end"
    for k in keys:
        assert k not in everything, "an operator key leaked into a log or a response"
        assert hash_key(k) not in "\n".join(capture.responses)
    # the admin's own output showed each new key once, and the listing none
    assert key not in json.dumps(listed) and spare["key"] not in json.dumps(listed)


def test_the_template_never_logs_events_or_responses() -> None:
    """Events carry the Authorization header; responses carry settlements. Neither is logged."""
    env = load()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["POWERTOOLS_LOGGER_LOG_EVENT"] == "false"
    assert env["POWERTOOLS_TRACER_CAPTURE_RESPONSE"] == "false"


def test_botocore_wire_logs_never_carry_kms_plaintexts(stack: Stack, capture: Capture) -> None:
    """With every logger at DEBUG, a KMS data key drawn through the service's client leaves no
    trace of its plaintext (botocore would print the response body)."""
    kms = runtime.get_runtime().kms  # the service's client (its config installs the guard)
    out = kms.generate_data_key(KeyId=stack.kms_key_id, NumberOfBytes=32)
    kms.decrypt(CiphertextBlob=out["CiphertextBlob"])
    for spelled in spellings(out["Plaintext"]):
        assert spelled not in capture.text()
    for name in WIRE_LOGGERS:
        assert logging.getLogger(name).filters  # the guard is installed
