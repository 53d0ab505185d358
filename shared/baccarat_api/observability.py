"""Module-level powertools Logger, Tracer and Metrics, shared by every function of the service.

Settings come from the environment (template.yaml ``Globals``): ``POWERTOOLS_SERVICE_NAME``,
``POWERTOOLS_METRICS_NAMESPACE``, ``POWERTOOLS_LOG_LEVEL``. The correlation id is the API Gateway
request id (``correlation_paths.API_GATEWAY_HTTP``); locally a generated one. Tracing is on only
inside Lambda. Nothing secret is ever logged: events are not logged, and no log line carries a
key, a chain secret or an open shoe's secret."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, cast

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME", "baccarat")
NAMESPACE = os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Baccarat")
#: What Tracer patches: the AWS calls (DynamoDB, KMS) become subsegments. Not ``patch_all``'s
#: every library it knows (http.client, requests, sqlite3 …): that costs cold-start time and
#: would only trace botocore's own HTTP calls a second time.
TRACED_MODULES = ("botocore",)


class Untraced:
    """What :class:`Tracer` does where tracing is off, without importing the X-Ray SDK (a
    disabled Tracer still imports it and builds its recorder: tests, ``make run``)."""

    disabled = True

    def capture_lambda_handler(
        self, lambda_handler: Callable[..., Any] | None = None, **_: Any
    ) -> Any:
        if lambda_handler is None:
            return self.capture_lambda_handler
        return lambda_handler

    def capture_method(self, method: Callable[..., Any] | None = None, **_: Any) -> Any:
        if method is None:
            return self.capture_method
        return method


_TRUTHY = frozenset({"1", "y", "yes", "t", "true", "on"})


def tracing_enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """The verdict powertools' Tracer documents, from the environment alone (no Tracer built, no
    private API): only inside Lambda (``LAMBDA_TASK_ROOT``), not under SAM local
    (``AWS_SAM_LOCAL``) or Chalice local (``AWS_CHALICE_CLI_MODE``), and not turned off by
    ``POWERTOOLS_TRACE_DISABLED``."""
    if not environ.get("LAMBDA_TASK_ROOT"):
        return False
    if environ.get("AWS_SAM_LOCAL") or environ.get("AWS_CHALICE_CLI_MODE"):
        return False
    return environ.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() not in _TRUTHY


class Unmetered:
    """What :class:`Metrics` does where metrics are off (``POWERTOOLS_METRICS_DISABLED``, as
    ``make run`` sets it): nothing. (A disabled Metrics still collects every value and, at 100,
    prints the EMF blob with a bare ``print`` — unsynchronised with the log lines of concurrent
    requests, which it then splices.)"""

    def add_metric(self, **_: Any) -> None:
        return None

    def log_metrics(self, lambda_handler: Callable[..., Any] | None = None, **_: Any) -> Any:
        if lambda_handler is None:
            return self.log_metrics
        return lambda_handler


def metrics_enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Unless ``POWERTOOLS_METRICS_DISABLED`` is true (or ``POWERTOOLS_DEV`` is, and the former
    unset), as powertools decides it."""
    disabled = environ.get("POWERTOOLS_METRICS_DISABLED")
    if disabled is not None:
        return disabled.strip().lower() not in _TRUTHY
    return environ.get("POWERTOOLS_DEV", "false").strip().lower() not in _TRUTHY


logger = Logger(service=SERVICE)
# (typed as Tracer: Untraced offers the part of its interface the service uses)
tracer = (
    Tracer(service=SERVICE, patch_modules=TRACED_MODULES)
    if tracing_enabled()
    else cast(Tracer, Untraced())
)
# (typed as Metrics: Unmetered offers the part of its interface the service uses)
metrics = (
    Metrics(namespace=NAMESPACE, service=SERVICE)
    if metrics_enabled()
    else cast(Metrics, Unmetered())
)
