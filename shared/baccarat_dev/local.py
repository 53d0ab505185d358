"""``make run``: the whole API on one machine.

DynamoDB is DynamoDB Local (:mod:`baccarat_dev.dynamodb_local`) whenever a Java >= 17 is here,
KMS is moto's server, each on a free loopback port; the tables are created from template.yaml,
two KMS keys (secrets, proof signing), the tiers seeded from infra/tiers.json and a demo operator
key; then every router is served as one FastAPI app by uvicorn on http://127.0.0.1:8000. Ctrl-C
or SIGTERM stops everything. ``BACKEND`` (``dynamodb-local`` | ``moto``; moto behind one lock:
:mod:`baccarat_dev.localaws`), ``BACCARAT_DYNAMODB_URL`` (a running DynamoDB Local) and
``BACCARAT_LOCAL_TABLE_PREFIX`` change that; ``BACCARAT_STACK=<stack> make run`` serves a
deployed stack's tables and keys instead, creating nothing. The banner says which engine serves
DynamoDB and prints the admin command for it."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from baccarat_dev.template import REPO_ROOT

if TYPE_CHECKING:
    from baccarat_dev.dynamodb_local import DynamoDBLocal

TIERS = REPO_ROOT / "infra" / "tiers.json"
DEMO_OPERATOR = "demo-operator"
DEFAULT_PREFIX = "baccarat-local"
MOTO, DYNAMODB_LOCAL = "moto", "dynamodb-local"
#: Seconds uvicorn gives requests in flight at shutdown; and DynamoDB Local to exit on SIGTERM
#: before SIGKILL (it takes ~2 s to exit on its own; in memory it has nothing to flush).
#: Together well within the 5 s a stop may take.
GRACE_SECONDS = 2
ENGINE_STOP_SECONDS = 0.5


def local_tables(prefix: str = DEFAULT_PREFIX) -> dict[str, str]:
    """The template's logical table ids → the local table names."""
    return {"StateTable": f"{prefix}-state", "ConfigTable": f"{prefix}-config"}


LOCAL_TABLES = local_tables()


def use_stack(stack: str) -> None:
    """Point this process at a deployed stack (its outputs name the tables and the key)."""
    import boto3

    described = boto3.client("cloudformation").describe_stacks(StackName=stack)
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described["Stacks"][0].get("Outputs", [])}
    os.environ["STATE_TABLE"] = outputs["StateTableName"]
    os.environ["CONFIG_TABLE"] = outputs["ConfigTableName"]
    os.environ["KMS_KEY_ID"] = outputs["SecretsKeyArn"]
    os.environ["SIGNING_KEY_ID"] = outputs["SigningKeyArn"]


@dataclass
class LocalAWS:
    """What ``make run`` started: moto's server (KMS; DynamoDB too on the moto backend) and the
    DynamoDB engine. :meth:`stop` ends what it started (a shared DynamoDB Local is left running)."""

    moto: Any
    moto_url: str
    dynamodb_url: str
    engine: str  # "DynamoDB Local 1.25.1", "DynamoDB Local (shared)" or "moto"
    tables: dict[str, str]
    dynamodb_local: DynamoDBLocal | None = None  # the one started here, if any

    @property
    def description(self) -> str:
        return f"{self.engine} at {self.dynamodb_url}"

    def stop(self) -> None:
        try:
            self.moto.stop()
        finally:
            if self.dynamodb_local is not None:
                self.dynamodb_local.stop(timeout=ENGINE_STOP_SECONDS)


def _backend() -> str:
    """``BACKEND``: ``""`` (DynamoDB Local if it can run, else moto), ``moto`` or
    ``dynamodb-local``."""
    backend = os.environ.get("BACKEND", "").strip().lower()
    if backend not in ("", MOTO, DYNAMODB_LOCAL):
        raise SystemExit(f"BACKEND={backend!r}: use {MOTO!r} or {DYNAMODB_LOCAL!r} (or unset it)")
    return backend


def _start_dynamodb_local(backend: str) -> DynamoDBLocal | None:
    """A started DynamoDB Local, or ``None`` when it cannot run here and ``backend`` does not
    insist on it (then moto serves DynamoDB too, and the reason is printed)."""
    from baccarat_dev.dynamodb_local import DynamoDBLocal, DynamoDBLocalUnavailable

    engine = DynamoDBLocal()
    try:
        engine.start()
    except DynamoDBLocalUnavailable as exc:
        if backend == DYNAMODB_LOCAL:
            raise SystemExit(f"BACKEND={DYNAMODB_LOCAL}: {exc}") from exc
        print(
            f"make run: DynamoDB Local cannot run here ({exc});\n"
            "          DynamoDB on moto instead (install a Java 17+ runtime for the real engine)",
            file=sys.stderr,
        )
        return None
    return engine


def start_local_aws(
    tiers: Path = TIERS, *, backend: str | None = None, tables: dict[str, str] | None = None
) -> tuple[LocalAWS, str]:
    """Start the local engines on free loopback ports (``backend``: as ``BACKEND``; ``None`` reads
    it) and provision them like the stack; returns them (``.stop()`` it) and a fresh demo
    operator key. This process's environment then points at them (``AWS_ENDPOINT_URL`` = moto,
    ``AWS_ENDPOINT_URL_DYNAMODB`` = the DynamoDB engine, the table names, the KMS key)."""
    import logging

    from moto.moto_server.threaded_moto_server import ThreadedMotoServer

    from baccarat_dev.localaws import AtomicMotoServer

    backend = _backend() if backend is None else backend
    tables = tables or local_tables(os.environ.get("BACCARAT_LOCAL_TABLE_PREFIX") or DEFAULT_PREFIX)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
            "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        }
    )
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request lines
    shared = os.environ.get("BACCARAT_DYNAMODB_URL", "").strip()
    dynamodb_local = None
    if not shared and backend != MOTO:
        dynamodb_local = _start_dynamodb_local(backend)
    on_moto = not shared and dynamodb_local is None
    # moto for DynamoDB: one request at a time (moto's transactions are not atomic); for KMS
    # alone no lock (DynamoDB Local applies each request atomically itself)
    moto = (AtomicMotoServer if on_moto else ThreadedMotoServer)(
        ip_address="127.0.0.1", port=0, verbose=False
    )
    try:
        moto.start()
        host, port = moto.get_host_and_port()
        moto_url = f"http://{host}:{port}"
        if dynamodb_local is not None:
            engine, url = f"DynamoDB Local {dynamodb_local.version}", dynamodb_local.endpoint_url
        elif shared:
            engine, url = "DynamoDB Local (shared)", shared
        else:
            engine, url = MOTO, moto_url
        aws = LocalAWS(moto, moto_url, url, engine, tables, dynamodb_local)
        key = _provision(aws, tiers, pitr=on_moto)
    except BaseException:
        moto.stop()
        if dynamodb_local is not None:
            dynamodb_local.stop(timeout=ENGINE_STOP_SECONDS)
        raise
    return aws, key


def _provision(aws: LocalAWS, tiers: Path, *, pitr: bool) -> str:
    """Point this process at ``aws``; create the tables and the KMS key; seed the tiers and a
    demo operator key (returned)."""
    import boto3

    from baccarat_api import runtime
    from baccarat_api.adapters.dynamodb.repository import DynamoRepository
    from baccarat_api.jobs.seed import add_operator_key, seed_tiers
    from baccarat_dev.template import create_tables

    os.environ["AWS_ENDPOINT_URL"] = aws.moto_url
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = aws.dynamodb_url
    dynamodb = boto3.client("dynamodb")
    create_tables(dynamodb, aws.tables, pitr=pitr)  # DynamoDB Local has no PITR
    kms = boto3.client("kms")
    key_id = kms.create_key(Description="baccarat local secrets")["KeyMetadata"]
    signing = kms.create_key(
        Description="baccarat local proof signing", KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY"
    )["KeyMetadata"]
    os.environ["STATE_TABLE"] = aws.tables["StateTable"]
    os.environ["CONFIG_TABLE"] = aws.tables["ConfigTable"]
    os.environ["KMS_KEY_ID"] = key_id["Arn"]
    os.environ["SIGNING_KEY_ID"] = signing["Arn"]
    repo = DynamoRepository(dynamodb, aws.tables["StateTable"], aws.tables["ConfigTable"])
    seed_tiers(repo, tiers)
    key = add_operator_key(repo, DEMO_OPERATOR, os.environ.get("BACCARAT_DEMO_KEY") or None)
    runtime.reset()
    return key


def _start_feed() -> Any:
    """The operator feed's indexer over the local state table's stream, in the background (the
    same handler as ``FeedIndexerFunction``); returns the event that stops it."""
    from baccarat_api.jobs.feed_indexer import on_records
    from baccarat_api.runtime import get_runtime
    from baccarat_dev.streams import state_stream_poller

    every = float(os.environ.get("BACCARAT_FEED_POLL_SECONDS", "0.2"))
    return state_stream_poller(
        lambda records: on_records(get_runtime().repo, records), every
    ).start()


def _start_push(hub: Any) -> Any:
    """The push job over the local state table's stream, its own poller (the stand-in for
    ``PushFunction``: the same ``on_records``) publishing into ``hub``; returns the event that
    stops it. ``BACCARAT_PUSH_POLL_SECONDS`` (0.05): how often the stream is read."""
    from baccarat_api.jobs.push import on_records
    from baccarat_dev.push_local import LocalPublisher
    from baccarat_dev.streams import state_stream_poller

    publisher = LocalPublisher(hub)
    every = float(os.environ.get("BACCARAT_PUSH_POLL_SECONDS", "0.05"))
    return state_stream_poller(lambda records: on_records(records, publisher), every).start()


def _start_delivery() -> Any:
    """Webhook delivery (the same passes as ``DeliveryFunction``) over every operator with a
    webhook, in the background; ``WEBHOOK_BACKOFF_SCALE`` shortens its retry schedule."""
    import threading

    from baccarat_api.jobs.delivery import run_forever
    from baccarat_api.runtime import get_runtime
    from baccarat_dev.streams import webhook_operators

    rt = get_runtime()
    stop = threading.Event()
    every = float(os.environ.get("BACCARAT_FEED_POLL_SECONDS", "0.2"))
    threading.Thread(
        target=run_forever,
        args=(rt.repo, rt.vault, rt.sender, lambda: webhook_operators(rt.dynamodb), stop),
        kwargs={"every": every, "scale": rt.settings.webhook_backoff_scale},
        name="webhook-delivery",
        daemon=True,
    ).start()
    return stop


def _start_table_clock() -> Any:
    """The running tables' timers (the stand-in for ``TableClockFunction`` on its queue): a
    thread delivering each tick at its time through the same job code; ``None`` when the
    runtime sends them to SQS (``TABLE_CLOCK_QUEUE_URL``) or ``BACCARAT_TABLE_CLOCK=0`` (off:
    ticks are stored, never delivered — tests that deliver them by hand, racing). Returns the
    scheduler to stop."""
    from baccarat_api.jobs.table_clock import start_background
    from baccarat_api.runtime import get_runtime

    rt = get_runtime()
    if rt.settings.table_clock_queue_url or os.environ.get("BACCARAT_TABLE_CLOCK") == "0":
        return None
    return start_background(rt)


def _start_settle_chunks() -> Any:
    """A book round's settlement chunks (the stand-in for ``SettleChunkFunction`` on its
    queue): a thread running them through the same job code; ``None`` when the runtime sends
    them to SQS (``SETTLE_CHUNK_QUEUE_URL``). Returns the worker to stop."""
    from baccarat_api.jobs.settle_chunks import start_background
    from baccarat_api.runtime import get_runtime

    rt = get_runtime()
    return None if rt.settings.settle_chunk_queue_url else start_background(rt)


def _start_beacon() -> Any:
    """The local test beacon (drand's HTTP API, its own key; baccarat_dev.beacon_local): its URL
    in ``BACCARAT_BEACON_URL`` unless set, the period in ``BACCARAT_BEACON_PERIOD_MS``. Its
    thread is a daemon: it ends with the process, nothing to stop."""
    from baccarat_dev.beacon_local import DEFAULT_PERIOD_MS, start

    beacon = start(int(os.environ.get("BACCARAT_BEACON_PERIOD_MS", DEFAULT_PERIOD_MS)))
    os.environ.setdefault("BACCARAT_BEACON_URL", beacon.url)
    return beacon


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM as Ctrl-C: the same orderly stop (uvicorn, then moto and DynamoDB Local)."""
    raise KeyboardInterrupt


def demo_tables_wanted(flag: bool) -> bool:
    """Whether to open the demo tables: ``BACCARAT_DEMO_TABLES`` says (``0`` no, else yes);
    unset, ``--demo-tables`` does (``make run``) unless the docs' fixed entropy is on (their
    examples answer as on an operator with no tables)."""
    value = os.environ.get("BACCARAT_DEMO_TABLES")
    if value is not None:
        return value not in ("", "0")
    return flag and not os.environ.get("BACCARAT_DEV_ENTROPY")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baccarat_dev.local", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument(
        "--add-key",
        metavar="OPERATOR_ID",
        help="with BACCARAT_STACK: store a new key for OPERATOR_ID, print it, and exit",
    )
    parser.add_argument(
        "--demo-tables",
        action="store_true",
        help="open the demo operator's numbered tables (make run does; see demo_tables_wanted)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "baccarat-local")
    os.environ.setdefault("WEBHOOK_PRIVATE_ADDRESSES", "true")  # a receiver on this machine
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        return _serve(parser, args)
    except KeyboardInterrupt:  # before uvicorn ran (it swallows its own); all stopped by then
        print("stopped", file=sys.stderr)
        return 130


def _serve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    stack = os.environ.get("BACCARAT_STACK")
    server: LocalAWS | None = None
    sweeping = None
    feeding = None
    delivering = None
    pushing = None
    hub: Any = None
    clocking = None
    if stack:
        use_stack(stack)
        if args.add_key:
            from baccarat_api.jobs.seed import add_operator_key
            from baccarat_api.runtime import get_runtime

            print(add_operator_key(get_runtime().repo, args.add_key))
            return 0
        banner_key = "(your operator key)"
        admin = f"baccarat operator list --stack {stack}"
        lines = [
            f"backend              AWS stack {stack}",
            f"tables               {os.environ['STATE_TABLE']}, {os.environ['CONFIG_TABLE']}",
        ]
    else:
        if args.add_key:
            parser.error("--add-key needs BACCARAT_STACK (locally, a demo key is made each run)")
        # the push channel's stand-in is served by this app (GET …/state's push_url)
        push_url = f"ws://{args.host}:{args.port}/event/realtime"
        os.environ.setdefault("BACCARAT_PUSH_URL", push_url)
        server, banner_key = start_local_aws()
        admin = f"baccarat operator list --endpoint-url {server.dynamodb_url}"
        if server.tables != LOCAL_TABLES:
            admin += f" --table {server.tables['ConfigTable']}"
        lines = [
            f"DynamoDB             {server.description}",
            f"KMS                  moto at {server.moto_url}",
            f"tables               {server.tables['StateTable']}, {server.tables['ConfigTable']}",
        ]
        seed = os.environ.get("BACCARAT_DEV_ENTROPY")
        if seed:  # the docs runner: the same shoes every run (baccarat_dev.entropy)
            from baccarat_api.runtime import get_runtime
            from baccarat_dev.entropy import SeededVault

            runtime = get_runtime()
            runtime.vault = SeededVault(runtime.vault, seed)  # type: ignore[assignment]
            lines.append("entropy              fixed (BACCARAT_DEV_ENTROPY): demo shoes only")
        if demo_tables_wanted(args.demo_tables):  # numbered demo tables, as a lobby lists them
            from baccarat_api.jobs.seed import lobby_lines, seed_demo_tables
            from baccarat_api.runtime import get_runtime

            made = seed_demo_tables(get_runtime().repo, get_runtime().vault, DEMO_OPERATOR)
            lines += [f"demo table           {line}" for line in lobby_lines(made)]
        # the stand-in for AutoSettleFunction's schedule: auto-settle what is due, every minute
        every = float(os.environ.get("BACCARAT_SWEEP_SECONDS", "60"))
        if every > 0:
            from baccarat_api.jobs.sweep import start_background
            from baccarat_api.runtime import get_runtime

            sweeping = start_background(get_runtime().repo, every, get_runtime())
        # the stand-in for FeedIndexerFunction: the state table's stream → the feed
        feeding = _start_feed()
        delivering = _start_delivery()
        from baccarat_dev.push_local import Hub

        hub = Hub()
        pushing = _start_push(hub)
        lines.append(f"push url             {os.environ['BACCARAT_PUSH_URL']}")
        beaconing = _start_beacon()
        lines.append(
            f"beacon               {beaconing.url} (a test beacon, its own key: not drand)"
        )
    clocking = _start_table_clock()
    chunking = _start_settle_chunks()
    if clocking is not None:
        lines.append("running tables       on (their timers on a thread, the table-clock job)")
    try:
        import uvicorn

        from baccarat_api.http.app import create_app
        from baccarat_api.http.routers import all_routers

        app = create_app(*all_routers(), docs=True)
        if pushing is not None:
            from baccarat_dev.push_local import mount

            mount(app, hub)
        # make sweep / the admin CLI against this engine: AWS_ENDPOINT_URL=$BACCARAT_DYNAMODB
        dynamodb_export = f" BACCARAT_DYNAMODB={server.dynamodb_url}" if server else ""
        url = f"http://{args.host}:{args.port}"
        lines.append(f"lobby page           {url}/lobby#token={banner_key}")
        print(
            f"\n  Baccarat engine API  {url}\n"
            + "".join(f"  {line}\n" for line in lines)
            + f"  operator key         {banner_key}\n"
            f"  docs                 {url}/docs\n"
            f"  operators, keys      {admin}\n\n"
            f"  export BACCARAT_URL={url} KEY={banner_key}{dynamodb_export}\n"
            f'  curl -s -H "Authorization: Bearer $KEY" $BACCARAT_URL/v1/tiers\n\n'
            f"  Ctrl-C stops everything.\n",
            flush=True,
        )
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level="warning",
            timeout_graceful_shutdown=GRACE_SECONDS,
        )
    finally:
        # a second Ctrl-C must not cut the stop short (java would outlive us until its watchdog
        # noticed); the stop is bounded (GRACE_SECONDS, ENGINE_STOP_SECONDS)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if clocking is not None:
            clocking.stop()
        if chunking is not None:
            chunking.stop()
        if sweeping is not None:
            sweeping.set()
        if feeding is not None:
            feeding.set()
        if delivering is not None:
            delivering.set()
        if pushing is not None:
            pushing.set()
        if server is not None:
            server.stop()
    print("stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
