"""The push channel's publisher in AWS: AppSync Events' HTTP publish
(``POST https://<api>.appsync-api.<region>.amazonaws.com/event``), signed with SigV4 (the
function's role: the Event API's publish is IAM-authorized), at most five events per request
(AppSync's batch). Each message is one event, a JSON text."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest

from baccarat_api.limits import PUSH_MESSAGES_PER_PUBLISH
from baccarat_api.ports.push import PushUnavailable

#: Sends a signed request: (url, body, headers) → (status, body). The adapter's seam (tests
#: stub it: moto has no AppSync Events).
Send = Callable[[str, bytes, dict[str, str]], tuple[int, bytes]]

TIMEOUT_SECONDS = 5.0


def _urlopen(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
            return int(answer.status), bytes(answer.read())
    except urllib.error.HTTPError as exc:
        return int(exc.code), bytes(exc.read())
    except OSError as exc:
        raise PushUnavailable(f"publish to {url}: {exc}") from exc


def _region(url: str) -> str:
    host = url.split("://", 1)[-1].split("/", 1)[0]
    parts = host.split(".")
    if len(parts) > 3 and parts[1] == "appsync-api":
        return parts[2]
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


class AppSyncPublisher:
    """:class:`~baccarat_api.ports.push.Publisher` over the Event API at ``url`` (its HTTP
    endpoint, ending ``/event``)."""

    def __init__(
        self,
        url: str,
        credentials: Any = None,
        send: Send | None = None,
        region: str | None = None,
    ) -> None:
        if credentials is None:
            import boto3

            credentials = boto3.Session().get_credentials()
        self.url, self.credentials, self.send = url, credentials, send
        self.region = region or _region(url)

    def signed(self, channel: str, events: Sequence[str]) -> AWSRequest:
        """The signed request publishing ``events`` to ``channel``."""
        body = json.dumps({"channel": channel, "events": list(events)}, separators=(",", ":"))
        request = AWSRequest(
            method="POST",
            url=self.url,
            data=body.encode(),
            headers={"content-type": "application/json"},
        )
        SigV4Auth(self.credentials, "appsync", self.region).add_auth(request)
        return request

    def publish(self, channel: str, messages: Sequence[str]) -> None:
        for start in range(0, len(messages), PUSH_MESSAGES_PER_PUBLISH):
            request = self.signed(channel, messages[start : start + PUSH_MESSAGES_PER_PUBLISH])
            body = request.body if isinstance(request.body, bytes) else b""
            send = self.send or _urlopen
            status, answer = send(self.url, body, dict(request.headers.items()))
            if status != 200:
                raise PushUnavailable(f"publish to {channel}: HTTP {status} {answer[:200]!r}")
            failed = (json.loads(answer or b"{}") or {}).get("failed") or []
            if failed:
                raise PushUnavailable(f"publish to {channel}: {len(failed)} failed: {failed!r}")
