"""Tiers reach DynamoDB from the one data file: by ``make run``/the tests (seed_tiers) and, on
deploy, by the TiersSeed custom resource, which always answers CloudFormation."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from support.stack import TIERS, Stack

from baccarat.profiles import load_tiers
from baccarat_api.jobs.seed import custom_resource


@pytest.fixture
def cloudformation() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A stand-in for the pre-signed S3 URL CloudFormation waits on."""
    answers: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            length = int(self.headers["content-length"])
            answers.append(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/response", answers
    finally:
        server.shutdown()


def event(kind: str, url: str, table: str) -> dict[str, Any]:
    return {
        "RequestType": kind,
        "ResponseURL": url,
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/baccarat-dev/1",
        "RequestId": "req-1",
        "LogicalResourceId": "TiersSeed",
        "ResourceType": "Custom::TiersSeed",
        "ResourceProperties": {"ServiceToken": "arn", "ConfigTable": table, "TiersVersion": "3"},
    }


def test_seeded_tiers_are_the_data_files(stack: Stack) -> None:
    stored = stack.repo.list_tiers()
    assert [t["id"] for t in stored] == list(load_tiers(TIERS))
    assert stored == [t.to_dict() for t in load_tiers(TIERS).values()]


def test_the_custom_resource_seeds_and_answers(
    stack: Stack, cloudformation: tuple[str, list[dict[str, Any]]]
) -> None:
    url, answers = cloudformation
    table = stack.repo.config
    stack.repo.put_tiers([{**stack.repo.list_tiers()[0], "id": "retired-tier"}])
    custom_resource(event("Update", url, table), None, TIERS)
    assert answers[-1]["Status"] == "SUCCESS", answers[-1]
    assert answers[-1]["PhysicalResourceId"] == f"tiers-{table}"
    assert [t["id"] for t in stack.repo.list_tiers()] == list(load_tiers(TIERS))

    custom_resource(event("Delete", url, table), None, TIERS)
    assert answers[-1]["Status"] == "SUCCESS"
    assert len(stack.repo.list_tiers()) == len(load_tiers(TIERS))  # data is retained

    custom_resource(event("Create", url, "no-such-table"), None, TIERS)
    assert answers[-1]["Status"] == "FAILED" and "ResourceNotFound" in answers[-1]["Reason"]
