"""The webhook ports' adapters: POST with the standard library (:class:`HttpSender`; no
redirects followed, a bounded answer read) and the delivery wake-up on SQS (:class:`SqsWakeup`:
a message naming the operator's feed shard, delayed)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from baccarat_api.ports.webhooks import Sent

#: SQS's longest message delay.
MAX_DELAY_SECONDS = 900


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is an answer (not a 2xx: retried), never followed


class HttpSender:
    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.opener = urllib.request.build_opener(_NoRedirect)

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with self.opener.open(request, timeout=self.timeout) as answer:
                answer.read(64 * 1024)
                return Sent(int(answer.status))
        except urllib.error.HTTPError as exc:
            return Sent(int(exc.code))
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return Sent(None, f"no answer: {type(reason).__name__}: {reason}"[:200])


class SqsWakeup:
    def __init__(self, sqs: Any, queue_url: str) -> None:
        self.sqs, self.queue_url = sqs, queue_url

    def later(self, operator_id: str, shard: int, delay_seconds: int, retry: bool = False) -> None:
        body: dict[str, Any] = {"operator_id": operator_id, "shard": shard}
        if retry:
            body["retry"] = True
        self.sqs.send_message(
            QueueUrl=self.queue_url,
            MessageBody=json.dumps(body),
            DelaySeconds=max(0, min(MAX_DELAY_SECONDS, int(delay_seconds))),
        )


class NoWakeup:
    """Where nothing needs waking (``make run``: its loop goes over every shard)."""

    def later(self, operator_id: str, shard: int, delay_seconds: int, retry: bool = False) -> None:
        return None
