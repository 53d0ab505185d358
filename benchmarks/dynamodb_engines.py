"""DynamoDB Local vs moto, same run, same workload: start-up, per-call latency, memory over
thousands of writes. ``python -m benchmarks.dynamodb_engines [WRITES]`` prints the figures.

* start-up: process launch → first HTTP answer (DynamoDB Local: java; moto: ``moto.server`` in a
  subprocess), and the template's tables created on each;
* latency: median of ``GetItem`` (a ~3 KB round-like item) and of a two-item conditional
  ``TransactWriteItems`` (a deal: Put the round if absent + Update the shoe's counter if
  unchanged), on DynamoDB Local and moto's server over loopback HTTP, and on moto in process
  (``mock_aws``);
* memory: the engine process's RSS after start, then after every quarter of ``WRITES`` deals
  (each a TransactWriteItems) plus as many settlements (an UpdateItem of the round), i.e.
  2 × ``WRITES`` write requests of realistic items.

Figures only, nothing asserted (this machine is shared and noisy: compare ratios of one run)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from baccarat_dev.dynamodb_local import (
    DynamoDBLocal,
    free_port,
    java_available,
)
from baccarat_dev.template import create_tables

from ._timing import fmt_time, per_call

WRITES = 5_000
RSS_CAP_MIB = 3072  # a run stops there: this machine is shared (moto passes it)
WARM_UP = 300  # calls of each kind before latencies are timed, on every engine
TABLES = {"StateTable": "bench-state", "ConfigTable": "bench-config"}
STATE = TABLES["StateTable"]
CREDENTIALS = {
    "region_name": "us-east-1",
    "aws_access_key_id": "local",
    "aws_secret_access_key": "local",
}


def rss_mib(pid: int) -> float:
    """Resident set size of ``pid`` in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def client(endpoint_url: str | None) -> Any:
    import boto3
    from botocore.config import Config

    extra = {"endpoint_url": endpoint_url} if endpoint_url else {}
    return boto3.client(
        "dynamodb", config=Config(retries={"max_attempts": 1}), **CREDENTIALS, **extra
    )


def provision(ddb: Any) -> None:
    """The template's tables (PITR is not switched on: DynamoDB Local has no such operation)."""
    create_tables(ddb, TABLES, pitr=False)


# -- a realistic workload ------------------------------------------------------------------------


def _bets(n: int) -> str:
    return json.dumps(
        [
            {"bettor": f"player-{i:03d}@casino.example", "type": t, "amount": 2500 + i}
            for i, t in zip(range(n), ["player", "banker", "tie", "player_pair"] * n, strict=False)
        ]
    )


BETS = _bets(20)  # ~1.4 KB of JSON
SETTLEMENT = json.dumps({"lines": json.loads(BETS), "nets": {"house": -12345}, "v": 1})


def shoe_key(shoe: int) -> dict[str, Any]:
    return {"pk": {"S": f"OP#bench#TABLE#t{shoe % 50}"}, "sk": {"S": f"SHOE#{shoe:06d}"}}


def round_key(shoe: int, n: int) -> dict[str, Any]:
    return {
        "pk": {"S": f"OP#bench#TABLE#t{shoe % 50}"},
        "sk": {"S": f"SHOE#{shoe:06d}#ROUND#{n:05d}"},
    }


def deal(ddb: Any, i: int) -> None:
    """Round ``i``: 80 rounds per shoe; the shoe item is created with its first round."""
    shoe, n = divmod(i, 80)
    round_item = {
        **round_key(shoe, n),
        "operator_id": {"S": "bench"},
        "table_id": {"S": f"t{shoe % 50}"},
        "shoe_number": {"N": str(shoe)},
        "round_number": {"N": str(n)},
        "player": {"S": json.dumps({"cards": ["AS", "9H", "KD"], "positions": [1, 3, 5]})},
        "banker": {"S": json.dumps({"cards": ["2C", "7D"], "positions": [2, 4]})},
        "bets": {"S": BETS},
        "due_shard": {"S": f"DUE#{shoe % 8}"},
        "due_at": {"S": f"2026-01-01T00:{n % 60:02d}:00.000Z"},
        "commitment": {"S": "ab" * 32},
    }
    shoe_update: dict[str, Any] = {
        "TableName": STATE,
        "Key": shoe_key(shoe),
        "UpdateExpression": "SET rounds_dealt = :n, next_position = :p",
        "ExpressionAttributeValues": {":n": {"N": str(n + 1)}, ":p": {"N": str(6 * (n + 1))}},
    }
    if n:
        shoe_update["ConditionExpression"] = "rounds_dealt = :prev"
        shoe_update["ExpressionAttributeValues"][":prev"] = {"N": str(n)}
    ddb.transact_write_items(
        TransactItems=[
            {
                "Put": {
                    "TableName": STATE,
                    "Item": round_item,
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {"Update": shoe_update},
        ]
    )


def settle(ddb: Any, i: int) -> None:
    shoe, n = divmod(i, 80)
    ddb.update_item(
        TableName=STATE,
        Key=round_key(shoe, n),
        UpdateExpression="SET settlement = :s REMOVE due_shard, due_at",
        ConditionExpression="attribute_exists(due_shard)",
        ExpressionAttributeValues={":s": {"S": SETTLEMENT}},
    )


# -- the engines ----------------------------------------------------------------------------------


@contextmanager
def moto_server() -> Iterator[tuple[str, int, float]]:
    """moto's server (DynamoDB + KMS) in a subprocess: (url, pid, seconds to first answer)."""
    port = free_port()
    began = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import http.client

        while True:
            if proc.poll() is not None or time.monotonic() - began > 60:
                raise RuntimeError("moto.server did not start")
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            try:
                connection.request("GET", "/moto-api/")
                connection.getresponse().read()
                break
            except OSError:
                time.sleep(0.05)
            finally:
                connection.close()
        yield f"http://127.0.0.1:{port}", proc.pid, time.monotonic() - began
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def latencies(ddb: Any) -> dict[str, float]:
    provision(ddb)
    deal(ddb, 0)
    counter = iter(range(1, 10**9))
    get = lambda: ddb.get_item(TableName=STATE, Key=round_key(0, 0))  # noqa: E731
    for _ in range(WARM_UP):  # the JVM compiles its hot paths: the first calls are ~3× slower
        get()
    for _ in range(WARM_UP // 3):  # (fewer: moto's transactions slow down as its table grows)
        deal(ddb, next(counter))
    return {
        "GetItem": per_call(get, min_time=1.0),
        "TransactWriteItems": per_call(lambda: deal(ddb, next(counter)), min_time=1.0),
    }


def memory(ddb: Any, pid: int, writes: int) -> tuple[list[tuple[int, float]], float]:
    """(write requests so far, RSS MiB) before the first write, then after every quarter (and
    where the run stopped early: the engine's RSS passed ``RSS_CAP_MIB``); and the seconds the
    writes took."""
    points = [(0, rss_mib(pid))]
    quarter = max(1, writes // 4)
    began = time.monotonic()
    for i in range(writes):
        deal(ddb, i)
        settle(ddb, i)
        if (i + 1) % quarter == 0 or ((i + 1) % 50 == 0 and rss_mib(pid) > RSS_CAP_MIB):
            points.append((2 * (i + 1), rss_mib(pid)))
            if points[-1][1] > RSS_CAP_MIB:
                break
    return points, time.monotonic() - began


def run(writes: int = WRITES) -> list[str]:
    from moto import mock_aws

    lines = [f"## DynamoDB engines: DynamoDB Local vs moto ({writes} deals + {writes} settles)"]
    if not java_available():
        return [*lines, "skipped: no Java >= 17 (DynamoDB Local cannot run)"]
    starts = []
    for _ in range(3):
        with DynamoDBLocal() as local:
            assert local.startup_seconds is not None
            starts.append(local.startup_seconds)
    with moto_server() as (_, _, moto_start):
        pass
    lines.append(
        f"start-up (launch → answers): DynamoDB Local {statistics.median(starts):.2f} s "
        f"(median of 3), moto.server {moto_start:.2f} s"
    )

    figures: dict[str, dict[str, float]] = {}
    rss: dict[str, tuple[list[tuple[int, float]], float]] = {}
    with DynamoDBLocal() as local:
        pid = local.java_pid()
        assert pid is not None
        ddb = client(local.endpoint_url)
        t0 = time.monotonic()
        provision(ddb)
        lines.append(f"template tables created on DynamoDB Local in {time.monotonic() - t0:.2f} s")
        rss["DynamoDB Local (java)"] = memory(ddb, pid, writes)
    with DynamoDBLocal() as local:
        figures["DynamoDB Local (HTTP)"] = latencies(client(local.endpoint_url))
    with moto_server() as (url, pid, _):
        ddb = client(url)
        t0 = time.monotonic()
        provision(ddb)
        lines.append(f"template tables created on moto.server in {time.monotonic() - t0:.2f} s")
        rss["moto.server"] = memory(ddb, pid, writes)
    with moto_server() as (url, _, _):
        figures["moto.server (HTTP)"] = latencies(client(url))
    with mock_aws():
        figures["moto mock_aws (in process)"] = latencies(client(None))

    base = figures["moto mock_aws (in process)"]
    lines.append(f"{'per call (median)':30} {'GetItem':>22} {'TransactWriteItems':>26}")
    for name, f in figures.items():
        g, t = f["GetItem"], f["TransactWriteItems"]
        lines.append(
            f"{name:30} {fmt_time(g)} ({g / base['GetItem']:4.1f}×) "
            f"{fmt_time(t)} ({t / base['TransactWriteItems']:4.1f}×)"
        )
    lines.append("(× = relative to moto in process)")
    for name, (points, seconds) in rss.items():
        (n0, first), (n1, last) = points[1], points[-1]
        per_write = (last - first) * 1024 / (n1 - n0) if n1 > n0 else float("nan")
        capped = f" — stopped: over {RSS_CAP_MIB} MiB" if last > RSS_CAP_MIB else ""
        lines.append(
            f"RSS {name}: "
            + ", ".join(f"{n}: {mib:.0f} MiB" for n, mib in points)
            + f" (write requests: RSS) in {seconds:.0f} s{capped}; "
            f"{per_write:.1f} KiB per write request after the first point"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print("\n".join(run(int(args[0]) if args else WRITES)), flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    sys.exit(main())
