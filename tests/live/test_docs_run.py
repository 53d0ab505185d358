"""Docs that run: every ``sh run`` example of README.md, docs/api.md and
docs/quick-tour.md is executed against the local server and its answers compared with the docs'
(the convention: the top of docs/api.md; the runner: :mod:`baccarat_dev.docs_run`). Each
document gets a fresh server with the fixed entropy, so its shoes, cards and money are the same
on every run; ids, times, keys and hashes are masked."""

from __future__ import annotations

from typing import Any

import pytest
from support.local_server import local_server

from baccarat_dev import docs_run
from baccarat_dev.template import REPO_ROOT

pytestmark = pytest.mark.live


@pytest.mark.parametrize("doc", docs_run.DOCS)
def test_every_example_answers_what_the_docs_show(doc: str, shared_dynamodb: Any) -> None:
    path = REPO_ROOT / doc
    assert docs_run.blocks(path.read_text(encoding="utf-8")), f"{doc} has no runnable example"
    env = {"BACCARAT_DEV_ENTROPY": "docs", "BACCARAT_SWEEP_SECONDS": "0"}
    with local_server(env, dynamodb=shared_dynamodb) as server:
        results, stderr = docs_run.run_document(
            path,
            {
                "BACCARAT_URL": server.url,
                "KEY": server.key,
                "BACCARAT_DYNAMODB": server.dynamodb_url,
                "STATE_TABLE": server.tables["StateTable"],
                "CONFIG_TABLE": server.tables["ConfigTable"],
                "AWS_ACCESS_KEY_ID": "local",
                "AWS_SECRET_ACCESS_KEY": "local",
                "AWS_DEFAULT_REGION": "us-east-1",
            },
        )
    assert results, f"{doc}: no answer was checked"
    problems = docs_run.report(path, results, stderr)
    assert not problems, (
        f"{problems}\n(fix the docs by running them: python -m baccarat_dev.docs_run {doc} --fix"
        " against BACCARAT_DEV_ENTROPY=docs make run)"
    )
