"""``baccarat``: the core's commands (``shoe``, ``rtp``, ``verify``; :mod:`baccarat.cli`) plus
the ones that need AWS: ``baccarat operator create|add-key|revoke-key|list`` (operators and
their API keys; a key is printed once, when it is made, and only its SHA-256 is stored) and
``baccarat sam-local …`` (:mod:`baccarat_dev.samlocal`; docs/sam-local.md).

The config table is a deployed stack's (``--stack`` / ``BACCARAT_STACK``), a named one
(``--table`` / ``CONFIG_TABLE``) or ``make run``'s (``--endpoint-url`` / ``AWS_ENDPOINT_URL``
alone). boto3 is imported only by the AWS commands, so ``baccarat shoe|rtp|verify`` start as fast
as the core alone."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from baccarat.cli import CliError, parse, run
from baccarat_verify.cli import build_parser as core_parser

if TYPE_CHECKING:
    from baccarat_api.adapters.dynamodb.operators import OperatorStore

#: ``make run``'s config table (``baccarat_dev.local.LOCAL_TABLES``), the default with an endpoint.
LOCAL_CONFIG_TABLE = "baccarat-local-config"
_LOOPBACK = ("http://127.0.0.1", "http://localhost", "http://[::1]")


def _store(args: argparse.Namespace) -> OperatorStore:
    """The operator store of the table the flags (or the environment) name."""
    import boto3
    from botocore.config import Config

    from baccarat_api.adapters.dynamodb.operators import OperatorStore

    endpoint = args.endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or None
    region = args.region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    session_args: dict[str, Any] = {}
    if endpoint and endpoint.startswith(_LOOPBACK):
        # make run's moto: any credentials do, and none may be configured on this machine
        region = region or "us-east-1"
        if not os.environ.get("AWS_ACCESS_KEY_ID") and not os.environ.get("AWS_PROFILE"):
            session_args = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
    session = boto3.Session(region_name=region, **session_args)
    config = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=5)
    stack = args.stack or os.environ.get("BACCARAT_STACK")
    table = args.table or None
    if table is None and stack:
        table = _stack_config_table(session, stack)
    table = table or os.environ.get("CONFIG_TABLE") or (LOCAL_CONFIG_TABLE if endpoint else None)
    if not table:
        raise CliError(
            "which config table? give --stack NAME (or BACCARAT_STACK), --table NAME, or "
            "--endpoint-url URL for make run's local backend"
        )
    client = session.client("dynamodb", endpoint_url=endpoint, config=config)
    return OperatorStore(client, table)


def _stack_config_table(session: Any, stack: str) -> str:
    described = session.client("cloudformation").describe_stacks(StackName=stack)
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described["Stacks"][0].get("Outputs", [])}
    if "ConfigTableName" not in outputs:
        raise CliError(f"stack {stack!r} has no ConfigTableName output")
    return str(outputs["ConfigTableName"])


def _aws_errors(fn: Any) -> Any:
    """AWS and admin failures → one-line :class:`CliError` (exit status 2)."""

    def wrapped(args: argparse.Namespace) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError

        from baccarat_api.adapters.dynamodb.operators import OperatorError
        from baccarat_api.ports.repository import StoreError

        try:
            return fn(args)
        except OperatorError as exc:
            raise CliError(str(exc)) from None
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise CliError(f"AWS: {error.get('Code', '?')}: {error.get('Message', '')}") from None
        except (BotoCoreError, StoreError) as exc:
            raise CliError(f"AWS: {exc}") from None

    return wrapped


def _issued_key(out: Any, args: argparse.Namespace, what: str) -> str | dict[str, Any]:
    if args.json:
        return dict(out.as_dict())
    name = f"  ({out.name})" if out.name and out.name != out.operator_id else ""
    return (
        f"{what} for operator {out.operator_id}{name}\n"
        f"  key id  {out.key_id}\n"
        f"  key     {out.key}\n"
        "The key is shown this once: hand it to the operator now. Only its SHA-256 is stored."
    )


@_aws_errors
def _cmd_create(args: argparse.Namespace) -> str | dict[str, Any]:
    from baccarat_api.adapters.dynamodb.operators import create_operator

    return _issued_key(create_operator(_store(args), args.operator_id, args.name), args, "created")


@_aws_errors
def _cmd_add_key(args: argparse.Namespace) -> str | dict[str, Any]:
    from baccarat_api.adapters.dynamodb.operators import add_key

    return _issued_key(add_key(_store(args), args.operator_id), args, "new key")


@_aws_errors
def _cmd_revoke_key(args: argparse.Namespace) -> str | dict[str, Any]:
    from baccarat_api.adapters.dynamodb.operators import revoke_key

    info = revoke_key(_store(args), args.operator_id, args.key_id)
    if args.json:
        return {"operator_id": info.operator_id, **info.as_dict()}
    return (
        f"revoked key {info.key_id} of operator {info.operator_id} at {info.revoked_at}; "
        "it may still be accepted for up to a minute (authorizer and warm-container caches)"
    )


@_aws_errors
def _cmd_list(args: argparse.Namespace) -> str | dict[str, Any]:
    from baccarat_api.adapters.dynamodb.operators import list_operators

    operators = list_operators(_store(args))
    if args.json:
        return {"operators": [o.as_dict() for o in operators]}
    if not operators:
        return "no operators"
    lines = []
    for o in operators:
        lines.append(f"{o.operator_id}  {o.name}  created {o.created_at}")
        for k in o.keys:
            state = f"revoked {k.revoked_at}" if k.revoked else "active"
            lines.append(f"  key {k.key_id}  created {k.created_at}  {state}")
    return "\n".join(lines)


def _sam_local(fn: Any) -> Any:
    """A ``baccarat sam-local`` command: run in the project root; its problems → one line."""

    def wrapped(args: argparse.Namespace) -> Any:
        from baccarat_dev.samlocal import SamLocalError, project_root

        try:
            return fn(project_root(), args)
        except SamLocalError as exc:
            raise CliError(str(exc)) from None

    return _aws_errors(wrapped)


@_sam_local
def _cmd_sam_setup(root: Any, args: argparse.Namespace) -> int:
    from baccarat_dev.samlocal import setup

    for line in setup(root):
        print(line, flush=True)
    return 0


@_sam_local
def _cmd_sam_take(root: Any, args: argparse.Namespace) -> int:
    from baccarat_dev.samlocal import take

    lines, ok = take(root, sys.stdin.read(), expect=args.expect)
    print("\n".join(lines))
    return 0 if ok else 1


@_sam_local
def _cmd_sam_show(root: Any, args: argparse.Namespace) -> str:
    from baccarat_dev.samlocal import IDS_FILE, remembered_ids

    ids = remembered_ids(root)
    if args.name not in ids:
        raise CliError(f"no {args.name} in {IDS_FILE} yet (`… | baccarat sam-local take` first)")
    return ids[args.name]


@_sam_local
def _cmd_sam_commands(root: Any, args: argparse.Namespace) -> int:
    from baccarat_dev.samlocal import check, commands

    problems = check(root)
    if not args.check_only:
        print("\n".join(commands(root, args.arch)))
    for problem in problems:
        print(f"baccarat sam-local: {problem}", file=sys.stderr)
    return 1 if problems else 0


@_sam_local
def _cmd_sam_env_file(root: Any, args: argparse.Namespace) -> str:
    from baccarat_dev.samlocal import ENV_FILE, TEMPLATE_FILE, env_file_text
    from baccarat_dev.template import load

    text = env_file_text(load(root / TEMPLATE_FILE))
    if args.write:
        (root / ENV_FILE).write_text(text, encoding="utf-8")
        return f"wrote {ENV_FILE}"
    return text.rstrip("\n")


@_sam_local
def _cmd_sam_scaffold(root: Any, args: argparse.Namespace) -> str:
    from baccarat_dev.samlocal import scaffold

    written = scaffold(root)
    return "\n".join(f"wrote {f}: give it a realistic body" for f in written) or "nothing missing"


@_sam_local
def _cmd_sam_cfn_answer(root: Any, args: argparse.Namespace) -> str:
    from baccarat_dev.samlocal import cfn_answer

    return cfn_answer(root, args.name)


def _group(sub: Any, name: str, **kwargs: Any) -> Any:
    """A command of subcommands (``baccarat operator …``, ``baccarat sam-local …``)."""
    group = sub.add_parser(name, **kwargs)
    dest = name.replace("-", "_") + "_command"
    return group.add_subparsers(dest=dest, required=True, parser_class=type(group))


def _add_sam_local(sub: Any) -> None:
    import platform

    cmds = _group(
        sub,
        "sam-local",
        help="sam local on local engines: setup, events, command lines (docs/sam-local.md)",
        description="The machinery of `sam local` on DynamoDB Local and moto (docs/sam-local.md). "
        "Run in the project (or below it).",
    )
    cmds.add_parser(
        "setup",
        help="tables, KMS keys, the custom resources' bucket and the tiers on the local engines "
        "(AWS_ENDPOINT_URL_DYNAMODB / _KMS / _S3)",
    ).set_defaults(func=_cmd_sam_setup)
    taker = cmds.add_parser(
        "take",
        help="read an answer on stdin (sam local invoke, baccarat operator create --json): "
        "summary, ids remembered, events with ids written to .aws-sam/events/",
    )
    taker.add_argument(
        "--expect",
        metavar="CODE",
        help="the answer is this error code (a refusal the recipe demonstrates): success",
    )
    taker.set_defaults(func=_cmd_sam_take)
    show = cmds.add_parser("show", help="print a remembered id (e.g. operator_key)")
    show.add_argument("name")
    show.set_defaults(func=_cmd_sam_show)
    machine = platform.machine().lower()
    here = "x86_64" if machine in ("x86_64", "amd64") else "arm64"
    lines = cmds.add_parser(
        "commands",
        help="every function's sam local invoke line; exit 1 when an event or variable is missing",
    )
    lines.add_argument("--arch", default=os.environ.get("ARCH") or here, help=f"default {here}")
    lines.add_argument("--check-only", action="store_true", help="the checks, no lines")
    lines.set_defaults(func=_cmd_sam_commands)
    env = cmds.add_parser("env-file", help="infra/sam-local-env.json from template.yaml")
    env.add_argument("--write", action="store_true", help="write it (default: print it)")
    env.set_defaults(func=_cmd_sam_env_file)
    cmds.add_parser(
        "scaffold", help="write the event of every route that has none (then edit its body)"
    ).set_defaults(func=_cmd_sam_scaffold)
    cfn = cmds.add_parser("cfn-answer", help="a custom resource's CloudFormation answer (moto S3)")
    cfn.add_argument("name", help="its event's name, e.g. tiers_seed")
    cfn.set_defaults(func=_cmd_sam_cfn_answer)


def build_parser() -> argparse.ArgumentParser:
    parser, sub = core_parser()
    target = argparse.ArgumentParser(add_help=False)
    where = target.add_argument_group("which config table")
    where.add_argument("--stack", help="a deployed stack (default: $BACCARAT_STACK)")
    where.add_argument("--table", help="the config table's name (default: $CONFIG_TABLE)")
    where.add_argument(
        "--endpoint-url",
        help="a DynamoDB endpoint, e.g. make run's moto (default: $AWS_ENDPOINT_URL)",
    )
    where.add_argument("--region", help="AWS region (default: the usual AWS settings)")
    target.add_argument("--json", action="store_true", help="print JSON")

    ops = _group(
        sub,
        "operator",
        help="manage operators and their API keys (local or AWS)",
        description="Operators and their API keys. A key is shown once; only its SHA-256 is "
        "stored. Revoked keys are kept, marked revoked.",
    )
    c = ops.add_parser("create", parents=[target], help="a new operator and its first key")
    c.add_argument("operator_id", help="lowercase letters, digits and '-' (e.g. acme-casino)")
    c.add_argument("--name", help="display name (default: the id)")
    c.set_defaults(func=_cmd_create)
    a = ops.add_parser("add-key", parents=[target], help="another key for an operator (rotation)")
    a.add_argument("operator_id")
    a.set_defaults(func=_cmd_add_key)
    r = ops.add_parser("revoke-key", parents=[target], help="revoke one key (by its id)")
    r.add_argument("operator_id")
    r.add_argument("key_id", help="the key's id, as `list` shows it")
    r.set_defaults(func=_cmd_revoke_key)
    ls = ops.add_parser("list", parents=[target], help="operators, their key ids and states")
    ls.set_defaults(func=_cmd_list)
    _add_sam_local(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(build_parser(), argv)
    return args if isinstance(args, int) else run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
