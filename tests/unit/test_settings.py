"""Settings are read and validated once, at cold start, with a message naming what is wrong;
tracing is decided from the environment as powertools documents it, without its private API."""

from __future__ import annotations

import itertools

import pytest

from baccarat_api.observability import tracing_enabled
from baccarat_api.settings import Settings, SettingsError

TABLES = {"STATE_TABLE": "s", "CONFIG_TABLE": "c"}


def test_the_environment_is_read_with_defaults() -> None:
    s = Settings.from_env({**TABLES, "KMS_KEY_ID": "", "UNRELATED": "x"})
    assert (s.state_table, s.config_table, s.kms_key_id) == ("s", "c", None)
    assert (s.auth_cache_seconds, s.api_base_path) == (60.0, "/")
    s = Settings.from_env({**TABLES, "KMS_KEY_ID": "k", "AUTH_CACHE_SECONDS": "0"})
    assert (s.kms_key_id, s.auth_cache_seconds) == ("k", 0.0)


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"CONFIG_TABLE": "c"}, "STATE_TABLE is not set"),
        ({"STATE_TABLE": "s"}, "CONFIG_TABLE is not set"),
        ({**TABLES, "STATE_TABLE": ""}, "STATE_TABLE=''"),
        ({**TABLES, "RATE_LIMIT_BURST": "many"}, "RATE_LIMIT_BURST='many'"),
        ({**TABLES, "AUTH_CACHE_SECONDS": "-1"}, "AUTH_CACHE_SECONDS='-1'"),
    ],
)
def test_a_missing_or_malformed_variable_is_named(environ: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsError, match=named):
        Settings.from_env(environ)


def test_a_function_without_its_tables_fails_at_cold_start(monkeypatch: pytest.MonkeyPatch) -> None:
    from baccarat_api import runtime
    from baccarat_api.http.handler import lambda_handler
    from baccarat_api.http.routers import function_router

    monkeypatch.delenv("STATE_TABLE", raising=False)
    monkeypatch.setenv("CONFIG_TABLE", "c")
    runtime.reset()
    try:
        with pytest.raises(SettingsError, match="STATE_TABLE is not set"):
            lambda_handler(function_router("read"))
    finally:
        runtime.reset()


def test_tracing_is_decided_as_powertools_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Our reading of the environment agrees with powertools' own verdict in every combination
    (the private method is used here, in a test, only to catch a drift)."""
    from aws_lambda_powertools import Tracer

    names = ("LAMBDA_TASK_ROOT", "AWS_SAM_LOCAL", "AWS_CHALICE_CLI_MODE")
    for values in itertools.product(("", "x"), ("", "true"), ("", "1"), ("", "false", "true")):
        environ = {n: v for n, v in zip(names, values[:3], strict=True) if v}
        if values[3]:
            environ["POWERTOOLS_TRACE_DISABLED"] = values[3]
        for name in (*names, "POWERTOOLS_TRACE_DISABLED"):
            monkeypatch.delenv(name, raising=False)
        for name, value in environ.items():
            monkeypatch.setenv(name, value)
        assert tracing_enabled(environ) == (not Tracer._is_tracer_disabled()), environ
