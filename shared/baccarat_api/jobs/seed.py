"""Seeding the config table: tiers from the one data file (``infra/tiers.json``), and operator
keys; and ``make run``'s demo tables, numbered as a lobby lists them. Used by ``make run``, the
tests, and on deploy by the ``TiersSeed`` custom resource (``infra/seed_tiers.py`` →
:func:`custom_resource`)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from baccarat.profiles import load_tiers
from baccarat_api.adapters.dynamodb.repository import DynamoRepository
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service.models import TableOut


def tier_docs(path: Path) -> list[dict[str, Any]]:
    """The tiers of ``path``, parsed and checked by ``baccarat.profiles`` (file order)."""
    return [tier.to_dict() for tier in load_tiers(path).values()]


def seed_tiers(repo: Repository, path: Path) -> list[str]:
    docs = tier_docs(path)
    repo.put_tiers(docs)
    return [str(d["id"]) for d in docs]


def add_operator_key(repo: DynamoRepository, operator_id: str, key: str | None = None) -> str:
    """Store a key (fresh from the CSPRNG unless given) for ``operator_id``, creating the
    operator if it does not exist yet; returns the key, which is not stored anywhere — only its
    SHA-256 is (:mod:`baccarat_api.adapters.dynamodb.operators`; the admin command is
    ``baccarat operator``)."""
    from baccarat_api.adapters.dynamodb.operators import (
        OperatorError,
        OperatorStore,
        ensure_operator_key,
    )

    try:
        return ensure_operator_key(
            OperatorStore(repo.client, repo.config, repo.clock), operator_id, key
        )
    except OperatorError as exc:
        raise ValueError(str(exc)) from None


#: ``make run``'s demo tables (``BACCARAT_DEMO_TABLES=1``): number, name, profile, tier, banking.
DEMO_TABLES: tuple[tuple[int, str, str, str, str], ...] = (
    (1, "Fun 歡樂", "star-city", "star-city-fun", "house"),
    (2, "VIP 貴賓", "star-city", "star-city-vip", "house"),
    (3, "Banker's 莊家", "star-city", "star-city-fun", "player_banker"),
    (8, "Dragon 龍", "bid-squeeze", "bid-squeeze-standard", "house"),
    (9, "High 高額", "bid-squeeze", "bid-squeeze-high", "house"),
)


def seed_demo_tables(repo: Repository, vault: SecretVault, operator_id: str) -> list[TableOut]:
    """The demo tables of :data:`DEMO_TABLES`, each with a shoe committed, in number order (a
    number already taken — a second run on the same store — is left as it is)."""
    from baccarat_api.service import tables
    from baccarat_api.service.errors import DomainError
    from baccarat_api.service.models import CreateTableRequest

    made: list[TableOut] = []
    for number, name, profile, tier, banking in DEMO_TABLES:
        request = CreateTableRequest.model_validate(
            {"profile": profile, "tier": tier, "banking": banking, "number": number, "name": name}
        )
        try:
            table = tables.create_table(repo, vault, operator_id, request)
        except DomainError as exc:
            if exc.code != "table_number_taken":
                raise
            continue
        tables.commit_shoe(repo, vault, operator_id, table.table_id, f"demo-{number}")
        made.append(table)
    return made


def _columns(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a wide character, as 歡, takes two)."""
    import unicodedata

    used = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - used)


def lobby_lines(made: list[TableOut]) -> list[str]:
    """The demo tables as a lobby lists them: number, name, profile and tier, banking."""
    return [
        f"#{t.number:<3} {_columns(t.name or '', 14)} {t.profile:11} {t.tier:21} {t.banking}  "
        f"{t.table_id}"
        for t in made
    ]


# --- CloudFormation custom resource ---------------------------------------------------------


def _respond(event: dict[str, Any], context: Any, status: str, reason: str, data: Any) -> None:
    body = json.dumps(
        {
            "Status": status,
            "Reason": reason[:1000],
            "PhysicalResourceId": event.get("PhysicalResourceId")
            or f"tiers-{event['ResourceProperties'].get('ConfigTable', 'config')}",
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
            "NoEcho": False,
            "Data": data,
        }
    ).encode("utf-8")
    request = urllib.request.Request(
        event["ResponseURL"],
        data=body,
        method="PUT",
        headers={"content-type": "", "content-length": str(len(body))},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


def custom_resource(event: dict[str, Any], context: Any, tiers_path: Path) -> None:
    """Create/Update: make the config table's tiers those of ``tiers_path``. Delete: nothing
    (the table is retained with the stack's data). Always answers CloudFormation, so a failure
    fails the deploy quickly instead of hanging it."""
    from baccarat_api.observability import logger

    status, reason, data = "SUCCESS", "", {}
    try:
        if event["RequestType"] in ("Create", "Update"):
            import boto3

            table = event["ResourceProperties"]["ConfigTable"]
            repo = DynamoRepository(boto3.client("dynamodb"), state_table="", config_table=table)
            ids = seed_tiers(repo, tiers_path)
            data = {"Tiers": ",".join(ids)}
            logger.info("tiers seeded", extra={"tiers": ids, "table": table})
    except Exception as exc:
        logger.exception("seeding tiers failed")
        status, reason = "FAILED", f"{type(exc).__name__}: {exc}"
    _respond(event, context, status, reason, data)
