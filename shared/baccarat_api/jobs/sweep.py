"""The auto-settlement sweep (:mod:`baccarat_api.service.auto_settle`), three ways:

* in AWS: ``AutoSettleFunction`` (template.yaml) runs :func:`lambda_handler` on an EventBridge
  schedule, ``rate(1 minute)``;
* by hand: ``python -m baccarat_api.jobs.sweep`` (``make sweep``) runs one sweep and prints what it
  did — against ``make run``'s moto (``AWS_ENDPOINT_URL=<the URL the banner prints>`` or
  ``--endpoint-url``), a deployed stack (``BACCARAT_STACK`` / ``--stack``), or the tables
  ``STATE_TABLE``/``CONFIG_TABLE`` name;
* inside ``make run``: :func:`start_background` runs it every minute, like the schedule.

For other commands (the ``baccarat`` admin CLI): :func:`run_sweep` does one sweep on a
repository, :func:`main` is the whole command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from baccarat_api.ports.repository import Repository
    from baccarat_api.runtime import Runtime
    from baccarat_api.service.auto_settle import SweepReport

#: ``make run``'s state table (:data:`baccarat_dev.local.LOCAL_TABLES`).
LOCAL_STATE_TABLE = "baccarat-local-state"
LOCAL_CONFIG_TABLE = "baccarat-local-config"


def run_sweep(
    repo: Repository,
    *,
    at: str | None = None,
    limit: int | None = None,
    runtime: Runtime | None = None,
) -> SweepReport:
    """One sweep: settle every round with locked bets past its deadline at ``at`` (ISO 8601
    UTC; default now); given a ``runtime``, take every running table's step overdue because
    its timer was lost and close every open shoe idle past its ``close_by`` (its table's
    ``idle_shoe_close_seconds`` without a deal); then, given a ``runtime`` with a
    signing key (``SIGNING_KEY_ID``), finalise the proofs that have become final. Safe to run
    concurrently with itself and with operators' calls."""
    from baccarat_api.service.auto_settle import DEFAULT_LIMIT, sweep

    signs = runtime is not None and bool(runtime.settings.signing_key_id)
    return sweep(
        repo,
        at=at,
        limit=limit or DEFAULT_LIMIT,
        vault=runtime.vault if runtime is not None and signs else None,
        ref_keys=runtime.shoes.ref_key if runtime is not None and signs else None,
        shoes=runtime.shoes if runtime is not None else None,
        unseal=runtime.vault if runtime is not None else None,
        beacon=runtime.beacon if runtime is not None else None,
    )


# --- AWS: the scheduled function ------------------------------------------------------------


def lambda_handler() -> Any:
    """``AutoSettleFunction``'s handler (one sweep per EventBridge event; returns the report),
    built at cold start: the settings are read and validated here."""
    from aws_lambda_powertools.metrics import MetricUnit

    from baccarat_api.observability import logger, metrics, tracer
    from baccarat_api.runtime import get_runtime

    get_runtime()

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        rt = get_runtime()
        report = run_sweep(rt.repo, runtime=rt)
        metrics.add_metric(
            name="RoundsAutoSettled", unit=MetricUnit.Count, value=len(report.settled)
        )
        metrics.add_metric(
            name="AutoSettleFailures", unit=MetricUnit.Count, value=len(report.failed)
        )
        metrics.add_metric(
            name="ProofsFinalised", unit=MetricUnit.Count, value=len(report.finalised)
        )
        metrics.add_metric(  # a tick whose timer was lost: non-zero means timers go missing
            name="TableStepsRecovered", unit=MetricUnit.Count, value=len(report.ticked)
        )
        logger.info("auto-settlement sweep", extra=report.as_dict())
        return report.as_dict()

    return handler


# --- make run: the schedule's stand-in ------------------------------------------------------


def start_background(
    repo: Repository, every_seconds: float, runtime: Runtime | None = None
) -> threading.Event:
    """Run a sweep every ``every_seconds`` in a daemon thread until the returned event is set."""
    from baccarat_api.observability import logger

    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(every_seconds):
            try:
                report = run_sweep(repo, runtime=runtime)
                if report.due or report.finalised or report.ticked:
                    logger.info("auto-settlement sweep", extra=report.as_dict())
            except Exception:  # the next tick tries again
                logger.exception("auto-settlement sweep failed")

    threading.Thread(target=loop, name="auto-settle-sweep", daemon=True).start()
    return stop


# --- the command ----------------------------------------------------------------------------


def _repository(args: argparse.Namespace) -> Repository:
    import boto3

    from baccarat_api.adapters.aws import client_config
    from baccarat_api.adapters.dynamodb.repository import DynamoRepository

    endpoint = args.endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or None
    stack = args.stack or os.environ.get("BACCARAT_STACK")
    session_args: dict[str, Any] = {}
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if endpoint and endpoint.startswith(("http://127.0.0.1", "http://localhost")):
        region = region or "us-east-1"  # make run's moto: any credentials do
        if not os.environ.get("AWS_ACCESS_KEY_ID") and not os.environ.get("AWS_PROFILE"):
            session_args = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
    session = boto3.Session(region_name=region, **session_args)
    state = os.environ.get("STATE_TABLE")
    config = os.environ.get("CONFIG_TABLE")
    if stack:
        described = session.client("cloudformation").describe_stacks(StackName=stack)
        outputs = {
            o["OutputKey"]: o["OutputValue"] for o in described["Stacks"][0].get("Outputs", [])
        }
        state, config = outputs["StateTableName"], outputs["ConfigTableName"]
    elif endpoint and not state:
        state, config = LOCAL_STATE_TABLE, LOCAL_CONFIG_TABLE
    if not state:
        raise SystemExit(
            "sweep: which tables? set AWS_ENDPOINT_URL (make run's moto), BACCARAT_STACK, or "
            "STATE_TABLE"
        )
    client = session.client("dynamodb", endpoint_url=endpoint, config=client_config())
    return DynamoRepository(client, state, config or "")


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    p = parser or argparse.ArgumentParser(
        prog="python -m baccarat_api.jobs.sweep",
        description="Auto-settle every round whose locked bets are past the table's deadline.",
    )
    p.add_argument("--at", help="sweep as if it were this time (ISO 8601 UTC, e.g. a test)")
    p.add_argument("--limit", type=int, help="most rounds to settle in this run")
    p.add_argument("--endpoint-url", help="make run's moto server URL (or AWS_ENDPOINT_URL)")
    p.add_argument("--stack", help="a deployed stack (or BACCARAT_STACK)")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    return p


def command(args: argparse.Namespace) -> int:
    """Run the parsed command; exit status 1 when some round failed (it is retried next run)."""
    report = run_sweep(_repository(args), at=args.at, limit=args.limit)
    print(json.dumps(report.as_dict()) if args.json else report.line())
    return 1 if report.failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    return command(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
