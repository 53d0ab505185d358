"""Client seeds given a running table in advance, and its automatic shoe commit.

The rule (docs/bacc-pf-v1.md, "Shoe committed"): an automatic commit uses the oldest client
seed the operator gave the table for it in advance, and only such a seed; the service never
makes, changes, skips or reorders one; a table with no seed waits. Each seed is queued with the
number of the shoe it is for (its place in the queue fixes it, published in the
``client_seed_given`` event), and the commit consumes the head in the same transaction that
commits the shoe. An explicit commit at a table holding seeds is refused (409
``client_seeds_queued``): a queued seed is never used for another shoe than its own, which
anyone checks from the events and the proofs."""

from __future__ import annotations

from typing import Any

from baccarat.fairness import client_hash
from baccarat_api.ids import parse_shoe_id
from baccarat_api.limits import MAX_QUEUED_CLIENT_SEEDS
from baccarat_api.ports.documents import QueuedSeed
from baccarat_api.ports.records import LiveRecord, TableRecord
from baccarat_api.ports.repository import Repository
from baccarat_api.ports.vault import SecretVault
from baccarat_api.service import idempotency
from baccarat_api.service.errors import DomainError
from baccarat_api.service.events import Change, LiveMoved, emit, retrying
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.live import commit
from baccarat_api.service.models import ClientSeedOut
from baccarat_api.service.reading import table_live
from baccarat_api.service.tables import commit_next_shoe

#: Why a running table waits for a client seed (``ClockDoc.waiting``, ``table_waiting``).
NO_CLIENT_SEED = "no_client_seed"


def not_auto_dealing(table_id: str) -> DomainError:
    """409 ``not_auto_dealing``: the table is dealt by its operator."""
    return DomainError(
        "not_auto_dealing",
        f"table {table_id} is dealt by its operator: it does not run itself",
        details={"table_id": table_id},
    )


def give(
    repo: Repository,
    operator_id: str,
    table_id: str,
    client_seed: str,
    idem: IdempotencyRequest | None = None,
) -> ClientSeedOut:
    """Queue ``client_seed`` for the running table's next shoe without one (oldest first, at
    most :data:`MAX_QUEUED_CLIENT_SEEDS`). Reports ``client_seed_given``; a table waiting for
    a seed stops waiting (its next step is the commit)."""

    def attempt() -> ClientSeedOut:
        table, live = table_live(repo, operator_id, table_id, idem)
        at = repo.clock()
        reported, changes = _given(table, live, client_seed, at)
        ev = emit(live, operator_id, table_id, at, reported, **changes)
        out = _seed_view(table_id, ev.after)
        return commit(repo, "client seed", ev, out, operator_id, idem)

    return idempotency.replaying_refusals(repo, operator_id, idem, lambda: retrying(attempt))


def _given(
    table: TableRecord, live: LiveRecord | None, client_seed: str, at: str
) -> tuple[list[Change], dict[str, Any]]:
    """The ``client_seed_given`` event and the live state's changes, or a refusal."""
    if live is None or live.clock is None:
        raise not_auto_dealing(table.table_id)
    queued = list(live.client_seeds or [])
    if len(queued) >= MAX_QUEUED_CLIENT_SEEDS:
        raise DomainError(
            "client_seed_queue_full",
            f"the table already holds {len(queued)} client seeds given in advance (at most "
            f"{MAX_QUEUED_CLIENT_SEEDS}); give the next one once a shoe has used one",
            details={
                "queued": len(queued),
                "max_queued": MAX_QUEUED_CLIENT_SEEDS,
                "for_shoe_numbers": [q["for_shoe_number"] for q in queued],
            },
        )
    number = queued[-1]["for_shoe_number"] + 1 if queued else _next_number(table, live)
    if number > table.chain_length:  # a seed for a shoe that never comes
        raise DomainError(
            "chain_exhausted",
            f"all {table.chain_length} shoes of this table's chain are used or have their "
            "client seed; open a new table",
            details={"chain_length": table.chain_length},
        )
    hashed = client_hash(client_seed).hex()
    seed = QueuedSeed(
        client_seed=client_seed, client_hash=hashed, given_at=at, for_shoe_number=number
    )
    changes: dict[str, Any] = {"client_seeds": [*queued, seed]}
    if live.clock["waiting"] == NO_CLIENT_SEED:
        changes["clock"] = {**live.clock, "waiting": None}
    return [("client_seed_given", {"client_hash": hashed, "for_shoe_number": number})], changes


def _next_number(table: TableRecord, live: LiveRecord) -> int:
    """The number of the table's next shoe to commit. The live state's copy of the open shoe
    decides when the table item was read before that shoe's commit (the two are read together,
    not isolated from a transaction; the write is conditional on the live state)."""
    ref = None if live.open_shoe_id is None else parse_shoe_id(live.open_shoe_id)
    return max(table.next_shoe_number, 1 if ref is None else ref.shoe_number + 1)


def _seed_view(table_id: str, live: LiveRecord) -> ClientSeedOut:
    """The answer to a seed given: the seed just queued (the last) and the queue's length."""
    queued = live.client_seeds or []
    seed = queued[-1]
    return ClientSeedOut(
        table_id=table_id,
        client_hash=seed["client_hash"],
        for_shoe_number=seed["for_shoe_number"],
        given_at=seed["given_at"],
        queued=len(queued),
        seq=live.seq,
    )


def commit_next(
    repo: Repository, vault: SecretVault, operator_id: str, table_id: str
) -> str | None:
    """Commit the running table's next shoe with the head of its queue, consuming it in the
    same transaction; the shoe's id. ``None`` when nothing was committed: the table has an open
    shoe (a duplicate or late step), is paused, or has no seed queued — then it waits
    (``waiting`` set and ``table_waiting`` reported once; a seed given ends the wait). A commit
    written
    whose answer was lost is answered by its retry (same write id), never made twice: the
    write is conditional on the table's next shoe number and the live state's ``seq``."""

    def attempt() -> str | None:
        table, live = table_live(repo, operator_id, table_id)
        if live is None or live.clock is None:
            raise not_auto_dealing(table_id)
        if live.clock["paused"]:  # paused since the step was derived (decided on every retry)
            return None
        if table.open_shoe_id is not None or live.open_shoe_id is not None:
            return None
        if not live.client_seeds:
            _wait(repo, live)
            return None
        head = live.client_seeds[0]
        if head["for_shoe_number"] != table.next_shoe_number:
            raise LiveMoved  # read torn from a commit: read again (a seed is never moved)
        out = commit_next_shoe(repo, vault, table, live, head["client_seed"], queued=head)
        return str(out["shoe_id"])

    return retrying(attempt)


def _wait(repo: Repository, live: LiveRecord) -> None:
    """The table waits for a client seed: ``waiting`` set and ``table_waiting`` reported, once."""
    assert live.clock is not None
    if live.clock["waiting"] == NO_CLIENT_SEED:
        return
    waiting = ("table_waiting", {"reason": NO_CLIENT_SEED})
    clock = {**live.clock, "waiting": NO_CLIENT_SEED}
    ev = emit(live, live.operator_id, live.table_id, repo.clock(), [waiting], clock=clock)
    commit(repo, "table waiting", ev, None, live.operator_id, None)
