"""Lambda entry points: one router served through mangum, wrapped in powertools' Logger
(correlation id = the HTTP API request id), Tracer and Metrics (with a cold-start metric)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from fastapi import APIRouter
from mangum import Mangum

from baccarat_api.http.app import create_app
from baccarat_api.http.threads import inline
from baccarat_api.observability import logger, metrics, tracer
from baccarat_api.runtime import get_runtime

# GET routes publish no business metric (only the cold-start one); that is not worth a warning.
warnings.filterwarnings("ignore", message="No application metrics to publish")

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def lambda_handler(router: APIRouter) -> LambdaHandler:
    """The function's handler, built at cold start: the settings are read and validated here
    (a missing variable fails the cold start, naming it), not on the first request."""
    settings = get_runtime().settings
    asgi = Mangum(create_app(router), lifespan="off", api_gateway_base_path=settings.api_base_path)

    @logger.inject_lambda_context(
        correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True
    )
    @tracer.capture_lambda_handler
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        with inline():  # one event at a time: the endpoint runs on Mangum's loop, no thread
            return asgi(event, context)

    return handler
