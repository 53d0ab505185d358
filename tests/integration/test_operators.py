"""Operators and their API keys (``baccarat_api.adapters.dynamodb.operators``) and the admin command
``baccarat operator create|list|add-key|revoke-key`` (``baccarat_dev.cli``): keys from the CSPRNG,
shown once, stored only as SHA-256, several per operator, revocable, revoked ones kept; the
command works in-process against moto, as the installed console script against a moto server
(``make run``'s backend) and against a "deployed stack" found by name (``BACCARAT_STACK``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from support.stack import TABLE_NAMES, Api, Stack

from baccarat_api import apikeys, runtime
from baccarat_api.adapters.dynamodb.operators import (
    OperatorError,
    OperatorExists,
    OperatorStore,
    add_key,
    create_operator,
    key_id_of,
    list_operators,
    revoke_key,
)
from baccarat_dev.cli import LOCAL_CONFIG_TABLE, main
from baccarat_dev.local import LOCAL_TABLES
from baccarat_dev.template import create_tables, table_definitions

SCRIPT = Path(sys.executable).with_name("baccarat")


@pytest.fixture
def store(stack: Stack) -> OperatorStore:
    return OperatorStore(stack.dynamodb, TABLE_NAMES["ConfigTable"])


def config_items(stack: Stack) -> str:
    return json.dumps(stack.dynamodb.scan(TableName=TABLE_NAMES["ConfigTable"])["Items"])


def fresh_api(key: str, monkeypatch: pytest.MonkeyPatch) -> Api:
    """A client on a container that trusts no cached key (revocation is seen at once)."""
    monkeypatch.setenv("AUTH_CACHE_SECONDS", "0")
    runtime.reset()
    return Api(key)


# --- the store and the use cases --------------------------------------------------------------


def test_keys_come_from_the_csprng_and_are_stored_only_as_sha256(
    stack: Stack, store: OperatorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[int] = []
    real = apikeys.secrets.token_urlsafe

    def spy(nbytes: int) -> str:
        drawn.append(nbytes)
        return real(nbytes)

    monkeypatch.setattr(apikeys.secrets, "token_urlsafe", spy)
    issued = create_operator(store, "acme-casino", "Acme Casino")
    assert drawn == [32]  # 256 bits from secrets (the OS CSPRNG)
    assert issued.key.startswith(apikeys.KEY_PREFIX) and len(issued.key) == 3 + 43
    assert issued.key_id == apikeys.hash_key(issued.key)[:12] == key_id_of(issued.key)
    stored = config_items(stack)
    assert issued.key not in stored and issued.key[3:] not in stored
    assert apikeys.hash_key(issued.key) in stored
    # and the key works
    assert fresh_api(issued.key, monkeypatch).get("/v1/tiers").status == 200


def test_several_keys_per_operator_and_revocation(
    stack: Stack, store: OperatorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = create_operator(store, "acme-casino")
    second = add_key(store, "acme-casino")
    assert first.key != second.key and first.key_id != second.key_id
    for key in (first.key, second.key):
        assert fresh_api(key, monkeypatch).get("/v1/tiers").status == 200

    revoked = revoke_key(store, "acme-casino", first.key_id)
    assert revoked.revoked and revoked.revoked_at
    assert fresh_api(first.key, monkeypatch).get("/v1/tiers").status == 401
    assert fresh_api(second.key, monkeypatch).get("/v1/tiers").status == 200
    # revoking again changes nothing; the revoked key is kept (never deleted), marked revoked
    assert revoke_key(store, "acme-casino", first.key_id).revoked_at == revoked.revoked_at
    (acme,) = [o for o in list_operators(store) if o.operator_id == "acme-casino"]
    states = {k.key_id: k.revoked for k in acme.keys}
    assert states == {first.key_id: True, second.key_id: False}
    assert apikeys.hash_key(first.key) in config_items(stack)


def test_a_key_of_one_operator_cannot_be_revoked_through_another(
    stack: Stack, store: OperatorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = key_id_of(stack.key_a)
    with pytest.raises(OperatorError, match="no key"):
        revoke_key(store, "operator-b", a)
    assert fresh_api(stack.key_a, monkeypatch).get("/v1/tiers").status == 200


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (lambda s: create_operator(s, "operator-a"), "already exists"),
        (lambda s: create_operator(s, "Bad_Id"), "operator ids"),
        (lambda s: create_operator(s, "x" * 64), "operator ids"),
        (lambda s: create_operator(s, "ok", name="\x00"), "printable"),
        (lambda s: add_key(s, "nobody"), "no operator"),
        (lambda s: revoke_key(s, "operator-a", "0" * 12), "no key"),
        (lambda s: revoke_key(s, "operator-a", "not-an-id"), "12 hex digits"),
    ],
)
def test_refused_admin_actions_change_nothing(
    stack: Stack, store: OperatorStore, action: Any, match: str
) -> None:
    before = config_items(stack)
    with pytest.raises(OperatorError, match=match):
        action(store)
    assert config_items(stack) == before


def test_an_operator_never_exists_without_its_key(store: OperatorStore) -> None:
    """Creating the operator and its first key is one transaction: a second create of the same
    id fails whole, and the existing operator keeps exactly its key."""
    issued = create_operator(store, "acme-casino")
    with pytest.raises(OperatorExists):
        create_operator(store, "acme-casino")
    (acme,) = [o for o in list_operators(store) if o.operator_id == "acme-casino"]
    assert [k.key_id for k in acme.keys] == [issued.key_id]


# --- the command, in-process ------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, out, err


def test_the_admin_command_manages_operators(
    stack: Stack, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    where = ["--table", TABLE_NAMES["ConfigTable"], "--region", "us-east-1"]
    rc, created, err = cli(capsys, "operator", "create", "acme-casino", "--name", "Acme", *where,
                           "--json")  # fmt: skip
    assert (rc, err) == (0, "")
    assert set(created) == {"operator_id", "name", "key_id", "key", "created_at"}
    rc, added, _ = cli(capsys, "operator", "add-key", "acme-casino", *where, "--json")
    assert rc == 0 and added["key"] != created["key"]

    rc, listed, _ = cli(capsys, "operator", "list", *where, "--json")
    (acme,) = [o for o in listed["operators"] if o["operator_id"] == "acme-casino"]
    assert acme["name"] == "Acme"
    assert [k["key_id"] for k in acme["keys"]] == [created["key_id"], added["key_id"]]
    listing = json.dumps(listed)
    for key in (created["key"], added["key"], stack.key_a, stack.key_b):  # never shown again
        assert key not in listing

    api = fresh_api(created["key"], monkeypatch)
    assert api.get("/v1/tiers").status == 200
    rc, revoked, _ = cli(
        capsys, "operator", "revoke-key", "acme-casino", created["key_id"], *where, "--json"
    )
    assert rc == 0 and revoked["revoked"] is True
    assert api.get("/v1/tiers").status == 401
    assert Api(added["key"]).get("/v1/tiers").status == 200

    # human output: the key once, with the warning; the list without it
    rc, text, _ = cli(capsys, "operator", "add-key", "acme-casino", *where)
    assert rc == 0 and "shown this once" in text
    rc, text, _ = cli(capsys, "operator", "list", *where)
    assert rc == 0 and f"key {created['key_id']}" in text and "revoked" in text
    assert "bk_" not in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["operator", "create", "operator-a"], "already exists"),
        (["operator", "add-key", "nobody"], "no operator"),
        (["operator", "revoke-key", "operator-a", "abc"], "12 hex digits"),
        (["operator", "list", "--table", "no-such-table"], "ResourceNotFoundException"),
    ],
)
def test_admin_errors_are_one_line(
    stack: Stack, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    if "--table" not in argv:
        argv = [*argv, "--table", TABLE_NAMES["ConfigTable"]]
    rc, out, err = cli(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.startswith("baccarat: error: ") and message in err and err.count("\n") == 1


def test_without_a_target_the_command_says_how_to_name_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("BACCARAT_STACK", "CONFIG_TABLE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    rc, _, err = cli(capsys, "operator", "list")
    assert rc == 2 and "--stack" in err and "--endpoint-url" in err


def test_a_deployed_stack_is_found_by_name(
    stack: Stack, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``BACCARAT_STACK=<stack>``: the config table is the stack's ``ConfigTableName`` output
    (a CloudFormation stack in moto, its table defined as template.yaml defines it)."""
    definition = table_definitions()["ConfigTable"]
    props = {k: v for k, v in definition.items() if not k.startswith("_")}
    cfn_template = {
        "Resources": {"ConfigTable": {"Type": "AWS::DynamoDB::Table", "Properties": props}},
        "Outputs": {"ConfigTableName": {"Value": {"Ref": "ConfigTable"}}},
    }
    boto3.client("cloudformation").create_stack(
        StackName="baccarat-test", TemplateBody=json.dumps(cfn_template)
    )
    monkeypatch.setenv("BACCARAT_STACK", "baccarat-test")
    rc, created, err = cli(capsys, "operator", "create", "stack-casino", "--json")
    assert rc == 0, err
    outputs = boto3.client("cloudformation").describe_stacks(StackName="baccarat-test")
    (table,) = [o["OutputValue"] for o in outputs["Stacks"][0]["Outputs"]]
    items = json.dumps(stack.dynamodb.scan(TableName=table)["Items"])
    assert apikeys.hash_key(created["key"]) in items and created["key"] not in items
    monkeypatch.delenv("BACCARAT_STACK")
    rc, _, err = cli(capsys, "operator", "list", "--stack", "no-such-stack")
    assert rc == 2 and "no-such-stack" in err


def test_the_core_commands_load_no_aws_code() -> None:
    """The console script is ``baccarat_dev.cli``; ``shoe``/``rtp``/``verify`` still import
    nothing of AWS or the web stack (boto3 is imported by ``operator`` only)."""
    probe = (
        "import sys; from baccarat_dev.cli import main; "
        "rc = main(['rtp', '--profile', 'star-city', '--decks', '1', '--json']); "
        "heavy = [m for m in ('boto3', 'botocore', 'fastapi', 'pydantic', "
        "'aws_lambda_powertools') if m in sys.modules]; "
        "print(heavy, file=sys.stderr); sys.exit(rc or len(heavy))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)  # the rtp report
    entry = (Path(sys.executable).parent / "baccarat").read_text(encoding="utf-8")
    assert "from baccarat_dev.cli import main" in entry


# --- the console script against make run's backend --------------------------------------------


@pytest.fixture
def moto_server() -> Iterator[str]:
    """A moto server on loopback with make run's tables (what ``make run`` starts)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    client = boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )
    create_tables(client, LOCAL_TABLES)
    try:
        yield url
    finally:
        server.stop()


def test_the_console_script_works_against_make_runs_backend(moto_server: str) -> None:
    """No AWS settings at all, only the endpoint make run's banner prints."""
    assert LOCAL_TABLES["ConfigTable"] == LOCAL_CONFIG_TABLE
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "BACCARAT_"))}
    env.pop("CONFIG_TABLE", None)
    env["HOME"] = "/nonexistent"  # no ~/.aws either

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(SCRIPT), "operator", *args, "--endpoint-url", moto_server, "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    created = run("create", "local-casino")
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)["key"]
    listed = run("list")
    assert listed.returncode == 0, listed.stderr
    assert key not in listed.stdout
    (op,) = json.loads(listed.stdout)["operators"]
    assert op["operator_id"] == "local-casino" and op["keys"][0]["key_id"] == key_id_of(key)
    revoked = run("revoke-key", "local-casino", key_id_of(key))
    assert revoked.returncode == 0 and json.loads(revoked.stdout)["revoked"] is True
    refused = run("add-key", "someone-else")
    assert refused.returncode == 2 and refused.stderr.startswith("baccarat: error: no operator")
