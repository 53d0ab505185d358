"""Webhooks: the operator's signed webhook — set (the secret answered once), removed,
its parked failures listed and retried. Delivery itself is DeliveryFunction's
(:mod:`baccarat_api.jobs.delivery`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from baccarat_api.http.deps import OperatorId, Rt, errors
from baccarat_api.http.idempotency import IDEM_ERRORS, Idem
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.service import webhooks
from baccarat_api.service.models import (
    WebhookFailuresOut,
    WebhookRequest,
    WebhookRetryOut,
    WebhookSecretOut,
)

router = APIRouter(route_class=JsonRoute, tags=["webhooks"])


@router.put(
    "/v1/webhook",
    response_model=WebhookSecretOut,
    operation_id="set_webhook",
    summary="Set the URL every feed event is POSTed to; answers its signing secret, once",
    responses=errors("unauthorized", "concurrent_update"),
)
def set_webhook(body: WebhookRequest, operator: OperatorId, rt: Rt) -> WebhookSecretOut:
    return webhooks.set_webhook(rt.repo, rt.vault, operator, body.url)


@router.delete(
    "/v1/webhook",
    status_code=204,
    operation_id="delete_webhook",
    summary="Remove the webhook (delivery stops; set one again and it goes on from there)",
    responses=errors("unauthorized", "not_found"),
)
def delete_webhook(operator: OperatorId, rt: Rt) -> Response:
    webhooks.delete_webhook(rt.repo, operator)
    return Response(status_code=204)


@router.get(
    "/v1/webhook/failures",
    response_model=WebhookFailuresOut,
    operation_id="list_webhook_failures",
    summary="Events whose delivery failed for 24 h (parked; retry each when your receiver is up)",
    responses=errors("unauthorized"),
)
def list_webhook_failures(
    operator: OperatorId,
    rt: Rt,
    limit: Annotated[int, Query(ge=1, le=webhooks.MAX_FAILURES_PAGE)] = webhooks.MAX_FAILURES_PAGE,
) -> WebhookFailuresOut:
    return webhooks.list_failures(rt.repo, operator, limit)


@router.post(
    "/v1/webhook/failures/{event_id}/retry",
    response_model=WebhookRetryOut,
    operation_id="retry_webhook_failure",
    summary="POST a parked event again, now (delivered: it is no longer parked)",
    responses=errors("unauthorized", "not_found", "webhook_not_set", *IDEM_ERRORS),
)
def retry_webhook_failure(
    event_id: str, operator: OperatorId, rt: Rt, idem: Idem
) -> WebhookRetryOut:
    return webhooks.retry_failure(rt.repo, rt.vault, rt.sender, operator, event_id, idem)
