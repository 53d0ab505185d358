"""``make run`` as a user meets it: the runner starts moto and the API, prints the URL and a key,
serves every route over HTTP, and stops cleanly on Ctrl-C (SIGINT)."""

from __future__ import annotations

import socket

import httpx
from support.local_server import local_server

from baccarat.verify import verify
from baccarat_verify import es256


def test_make_run_serves_the_whole_api_and_stops_on_ctrl_c() -> None:
    with local_server() as server:
        url = server.url
        assert url in server.banner
        headers = {"authorization": f"Bearer {server.key}"}
        with httpx.Client(base_url=url, headers=headers, timeout=10) as http:
            r = http.get("/v1/tiers")
            assert r.status_code == 200 and r.json()["tiers"]
            table = http.post(
                "/v1/tables",
                # no squeeze: the round is shown at its deal, so the shoe can close at once
                json={
                    "profile": "bid-squeeze",
                    "tier": "bid-squeeze-standard",
                    "banking": "house",
                    "squeeze_seconds": 0,
                },
            ).json()
            shoe = http.post(
                f"/v1/tables/{table['table_id']}/shoes", json={"client_seed": "local"}
            ).json()
            sit = {"bettor_id": "ann", "balance": 50_000, "level": 5}  # the deal's company
            http.put(f"/v1/tables/{table['table_id']}/seats/1", json=sit)
            dealt = http.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", json={"bets": []})
            assert dealt.status_code == 201
            assert dealt.headers["x-request-id"]
            missing = http.get("/v1/shoes/tbl_aaaaaaaaaaaaaaaa_s1")
            assert missing.status_code == 404
            assert missing.json()["error"]["request_id"] == missing.headers["x-request-id"]
            assert http.post(f"/v1/shoes/{shoe['shoe_id']}/close").status_code == 200
            proof = httpx.get(f"{url}/v1/shoes/{shoe['shoe_id']}/proof").json()  # final, signed
            keys = httpx.get(f"{url}/v1/signing-keys").json()
            verdict = verify([proof], keys=keys, signature_check=es256.check)
            assert verdict.ok and verdict.signature, verdict.line()
            assert http.get("/docs").status_code == 200
    assert server.proc.returncode == 0, server.banner + "".join(server.output)
    with socket.socket() as s:  # the port is free again
        s.bind(("127.0.0.1", server.port))
