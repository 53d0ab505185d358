"""``make run``: the whole API on one machine.

By default: moto's server (DynamoDB + KMS) on a free loopback port, the tables created from
template.yaml, a KMS key, the tiers seeded from infra/tiers.json and a demo operator key; then
every router served as one FastAPI app by uvicorn on http://127.0.0.1:8000. Ctrl-C stops both.
Two KMS keys, as in the stack: the secrets key and the proof signing key (ECC_NIST_P256).

Against real AWS instead: ``BACCARAT_STACK=<deployed stack name> make run`` — the table names
and KMS key come from the stack's outputs, nothing is created or seeded (the deploy seeded the
tiers), and you bring an operator key (``baccarat operator create|add-key OPERATOR --stack
<stack>`` makes one; ``--add-key OPERATOR`` here does the same for an existing setup).

The banner prints the admin command for the backend in use (``baccarat operator … --endpoint-url
<moto>`` locally)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from baccarat_dev.template import REPO_ROOT

TIERS = REPO_ROOT / "infra" / "tiers.json"
DEMO_OPERATOR = "demo-operator"
LOCAL_TABLES = {"StateTable": "baccarat-local-state", "ConfigTable": "baccarat-local-config"}


def use_stack(stack: str) -> None:
    """Point this process at a deployed stack (its outputs name the tables and the key)."""
    import boto3

    described = boto3.client("cloudformation").describe_stacks(StackName=stack)
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described["Stacks"][0].get("Outputs", [])}
    os.environ["STATE_TABLE"] = outputs["StateTableName"]
    os.environ["CONFIG_TABLE"] = outputs["ConfigTableName"]
    os.environ["KMS_KEY_ID"] = outputs["SecretsKeyArn"]
    os.environ["SIGNING_KEY_ID"] = outputs["SigningKeyArn"]


def start_local_aws(tiers: Path = TIERS) -> tuple[Any, str]:
    """Start moto's server on a free loopback port and provision it like the stack; returns the
    server (``.stop()`` it) and a fresh demo operator key."""
    import logging

    import boto3

    from baccarat_api import runtime
    from baccarat_api.adapters.dynamodb.repository import DynamoRepository
    from baccarat_api.jobs.seed import add_operator_key, seed_tiers
    from baccarat_dev.localaws import AtomicMotoServer
    from baccarat_dev.template import create_tables

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
    # each moto request atomic, as DynamoDB's are (concurrent clients see real semantics)
    server = AtomicMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ["AWS_ENDPOINT_URL"] = f"http://{host}:{port}"
    dynamodb = boto3.client("dynamodb")
    create_tables(dynamodb, LOCAL_TABLES)
    kms = boto3.client("kms")
    key_id = kms.create_key(Description="baccarat local secrets")["KeyMetadata"]
    signing = kms.create_key(
        Description="baccarat local proof signing", KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY"
    )["KeyMetadata"]
    os.environ["STATE_TABLE"] = LOCAL_TABLES["StateTable"]
    os.environ["CONFIG_TABLE"] = LOCAL_TABLES["ConfigTable"]
    os.environ["KMS_KEY_ID"] = key_id["Arn"]
    os.environ["SIGNING_KEY_ID"] = signing["Arn"]
    repo = DynamoRepository(dynamodb, LOCAL_TABLES["StateTable"], LOCAL_TABLES["ConfigTable"])
    seed_tiers(repo, tiers)
    key = add_operator_key(repo, DEMO_OPERATOR, os.environ.get("BACCARAT_DEMO_KEY") or None)
    runtime.reset()
    return server, key


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baccarat_dev.local", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument(
        "--add-key",
        metavar="OPERATOR_ID",
        help="with BACCARAT_STACK: store a new key for OPERATOR_ID, print it, and exit",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "baccarat-local")

    stack = os.environ.get("BACCARAT_STACK")
    server = None
    if stack:
        use_stack(stack)
        if args.add_key:
            from baccarat_api.jobs.seed import add_operator_key
            from baccarat_api.runtime import get_runtime

            print(add_operator_key(get_runtime().repo, args.add_key))
            return 0
        banner_key = "(your operator key)"
        admin = f"baccarat operator list --stack {stack}"
        where = (
            f"AWS stack {stack}: tables {os.environ['STATE_TABLE']}, {os.environ['CONFIG_TABLE']}"
        )
    else:
        if args.add_key:
            parser.error("--add-key needs BACCARAT_STACK (locally, a demo key is made each run)")
        server, banner_key = start_local_aws()
        where = f"moto (DynamoDB + KMS) at {os.environ['AWS_ENDPOINT_URL']}"
        admin = f"baccarat operator list --endpoint-url {os.environ['AWS_ENDPOINT_URL']}"
        # the stand-in for AutoSettleFunction's schedule: auto-settle what is due, every minute
        every = float(os.environ.get("BACCARAT_SWEEP_SECONDS", "60"))
        if every > 0:
            from baccarat_api.jobs.sweep import start_background
            from baccarat_api.runtime import get_runtime

            start_background(get_runtime().repo, every, get_runtime())

    import uvicorn

    from baccarat_api.http.app import create_app
    from baccarat_api.http.routers import all_routers

    app = create_app(*all_routers(), docs=True)
    url = f"http://{args.host}:{args.port}"
    print(
        f"\n  Baccarat engine API  {url}\n"
        f"  backend              {where}\n"
        f"  operator key         {banner_key}\n"
        f"  docs                 {url}/docs\n"
        f"  operators, keys      {admin}\n\n"
        f"  export BACCARAT_URL={url} KEY={banner_key}\n"
        f'  curl -s -H "Authorization: Bearer $KEY" $BACCARAT_URL/v1/tiers\n\n'
        f"  Ctrl-C stops everything.\n",
        flush=True,
    )
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        if server is not None:
            server.stop()
    print("stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
