"""A function's cold start loads without garbage collection (:mod:`baccarat_api.coldstart`):
paused on import inside Lambda, resumed by ``ready`` with the init's objects frozen; elsewhere
(tests, ``make run``) nothing changes. Each case in a fresh interpreter (the module acts once,
on import)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = r"""
import gc, json
from baccarat_api import coldstart
paused = not gc.isenabled()
handler = object()
same = coldstart.ready(handler) is handler
after = (gc.isenabled(), gc.get_freeze_count() > 0)
coldstart.ready(handler)
print(json.dumps([paused, same, *after, gc.isenabled()]))
"""


def run(lambda_name: str | None) -> list[bool]:
    env = {k: v for k, v in os.environ.items() if k != "AWS_LAMBDA_FUNCTION_NAME"}
    if lambda_name:
        env["AWS_LAMBDA_FUNCTION_NAME"] = lambda_name
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    result: list[bool] = json.loads(out.stdout)
    return result


def test_inside_lambda_collection_pauses_on_import_and_resumes_frozen_at_ready() -> None:
    # paused, the handler handed back, collection on again with the init frozen, and stays on
    assert run("DealAndResolveFunction") == [True, True, True, True, True]


def test_outside_lambda_nothing_changes() -> None:
    assert run(None) == [False, True, True, False, True]
