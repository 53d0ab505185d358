"""The SQS timer's arithmetic and its failure rule, with a recording client (the queue itself,
on moto: tests/integration/test_table_clock_job.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat_api.adapters.sqs_scheduler import MAX_DELAY_SECONDS, SqsScheduler, delay_seconds
from baccarat_api.ports.scheduler import Tick

NOW = "2026-01-01T00:00:00.000Z"


def tick(due: str) -> Tick:
    return Tick(operator_id="op", table_id="tbl_a", step="close", key="k", due=due)


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.sent: list[dict[str, Any]] = []
        self.fail = fail

    def send_message(self, **kw: Any) -> dict[str, Any]:
        if self.fail:
            raise ConnectionError("no network")
        self.sent.append(kw)
        return {"MessageId": "m"}


@pytest.mark.parametrize(
    ("due", "delay"),
    [
        ("2026-01-01T00:00:00.000Z", 0),
        ("2026-01-01T00:00:00.999Z", 0),  # rounded down: the job waits out the rest
        ("2026-01-01T00:00:14.999Z", 14),
        ("2026-01-01T00:00:15.000Z", 15),
        ("2025-12-31T23:59:50.000Z", 0),  # already due
        ("2026-01-01T00:15:00.000Z", MAX_DELAY_SECONDS),
        ("2026-01-01T01:00:00.000Z", MAX_DELAY_SECONDS),  # SQS's longest: arrives early
    ],
)
def test_the_delay_is_the_whole_seconds_until_due_within_sqs_limits(due: str, delay: int) -> None:
    assert delay_seconds(due, NOW) == delay


def test_a_tick_is_sent_once_delayed_to_its_second_with_itself_as_the_body() -> None:
    sqs = Recorder()
    SqsScheduler(sqs, "https://queue", clock=lambda: NOW).schedule(tick("2026-01-01T00:00:12.400Z"))
    (sent,) = sqs.sent
    assert sent["QueueUrl"] == "https://queue"
    assert sent["DelaySeconds"] == 12
    assert json.loads(sent["MessageBody"]) == tick("2026-01-01T00:00:12.400Z")
    assert sent["MessageBody"] == json.dumps(json.loads(sent["MessageBody"]), sort_keys=True,
                                             separators=(",", ":"))  # fmt: skip


def test_a_failed_send_is_logged_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """The change it schedules has committed: the send failing must not fail the request (the
    sweep delivers the tick from the index)."""
    from baccarat_api.observability import logger

    logged: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(logger, "exception", lambda msg, extra: logged.append((msg, extra)))
    SqsScheduler(Recorder(fail=True), "https://queue", clock=lambda: NOW).schedule(tick(NOW))
    ((message, extra),) = logged
    assert "not sent" in message
    assert extra == tick(NOW)
