"""Module-level powertools Logger, Tracer and Metrics, shared by every function of the service.

Settings come from the environment (template.yaml ``Globals``): ``POWERTOOLS_SERVICE_NAME``,
``POWERTOOLS_METRICS_NAMESPACE``, ``POWERTOOLS_LOG_LEVEL``. The correlation id is the API Gateway
request id (``correlation_paths.API_GATEWAY_HTTP``); locally a generated one. Tracing is on only
inside Lambda. Nothing secret is ever logged: events are not logged, and no log line carries a
key, a chain secret or an open shoe's secret."""

from __future__ import annotations

import os

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME", "baccarat")
NAMESPACE = os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Baccarat")

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)
