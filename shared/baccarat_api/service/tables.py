"""shuffle-commit: create a table (draw its seed chain), commit a shoe, close a shoe early.

Round trips (DynamoDB): create = GetItem tier + TransactWriteItems (table, its number's claim:
2; + the number drawn from the operator's counter, :mod:`.table_numbers`, when none is
given: 3); commit = GetItem
table + TransactWriteItems (2); close = GetItem shoe + TransactWriteItems (2). KMS: create =
GenerateDataKey ×2 (the chain secret; the table's bettor-ref key, purpose ``bettor-ref``, only
its ciphertext kept); commit = Decrypt (s_N) + Encrypt (s_i); close = Decrypt (s_i).

With an ``Idempotency-Key`` (:mod:`.idempotency`) the first read becomes one ``BatchGetItem``
(the same item + the key's record) and the write one ``TransactWriteItems`` carrying the record
(create: table put + record put): still 2; a replay is 1 (no KMS)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baccarat import currency
from baccarat.audit import genesis
from baccarat.beacon import Chain
from baccarat.fairness import anchor_of, client_hash, derive_shoe, shoe_secret
from baccarat.profiles import PROFILES, Banking, Rounding, TableConfig, Tier, TierError
from baccarat.rules import ShoeRules
from baccarat_api.clock import seconds_after
from baccarat_api.ids import RoundRef, ShoeRef, new_table_id
from baccarat_api.limits import FAIRNESS_V2
from baccarat_api.ports.documents import ClockDoc, QueuedSeed, ShoeV2Doc
from baccarat_api.ports.records import (
    ENDED,
    OPEN,
    LiveRecord,
    ProofRecord,
    ShoeRecord,
    TableRecord,
)
from baccarat_api.ports.repository import ConditionFailed, OutcomeUnknown, Repository
from baccarat_api.ports.vault import SecretVault, chain_context, ref_key_context, shoe_context
from baccarat_api.ports.writes import Emit
from baccarat_api.service import idempotency
from baccarat_api.service.errors import DomainError, lost_race
from baccarat_api.service.events import (
    BettingCancelled,
    Change,
    LiveMoved,
    ShoeCommitted,
    ShoeEnded,
    complete,
    emit,
    retrying,
)
from baccarat_api.service.idempotency import IdempotencyRequest
from baccarat_api.service.models import CreateTableRequest, ShoeOut, ShoeStateOut, TableOut
from baccarat_api.service.reading import shoe_live, table_live
from baccarat_api.service.reveals import cards_not_shown, face_down
from baccarat_api.service.table_numbers import write_table
from baccarat_api.service.table_options import asked, bet_behind, dealing, fairness
from baccarat_api.service.v2_rounds import locked, round_locked
from baccarat_api.service.views import shoe_state_view, shoe_view
from baccarat_api.service.writeids import write_id


def create_table(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    request: CreateTableRequest,
    idem: IdempotencyRequest | None = None,
    beacon: Chain | None = None,
) -> TableOut:
    """Create a table (``beacon``: the deployment's beacon chain, which a bacc-pf-v2 table
    copies)."""
    tier = request.tier
    if idem is None:
        snap = repo.load(operator_id, tier_id=tier)
    else:  # the tier and the key's record in one round trip (a live record replays)
        snap = idempotency.load(repo, operator_id, idem, tier_id=tier)
    tier_doc = snap.tier
    if tier_doc is None:
        raise DomainError("invalid_table", f"unknown tier {tier!r}", details={"tier": tier})
    _check_currency(request, tier_doc)
    try:
        config = TableConfig(
            profile=PROFILES[request.profile],
            tier=Tier.from_dict(tier_doc),
            banking=Banking(request.banking),
            banker_pays=request.banker_pays,
            dragon_table=request.dragon_table,
            rounding=Rounding(request.rounding),
        )
    except (TierError, KeyError, ValueError) as exc:
        raise DomainError("invalid_table", str(exc)) from None
    rules = config.profile.shoe_rules.check()
    table_id = new_table_id()
    top_secret, secret_ct = vault.draw_secret(chain_context(operator_id, table_id))
    _, ref_key_ct = vault.draw_secret(ref_key_context(operator_id, table_id))
    record = TableRecord(
        operator_id=operator_id,
        table_id=table_id,
        config=config.to_dict(),
        rules=rules.as_dict(),
        anchor=anchor_of(top_secret, request.chain_length).hex(),
        chain_length=request.chain_length,
        chain_secret_ct=secret_ct,
        next_shoe_number=1,
        open_shoe_id=None,
        created_at=repo.clock(),
        settle_deadline_seconds=request.settle_deadline_seconds,
        ref_key_ct=ref_key_ct,
        void_window_seconds=request.void_window_seconds,
        betting_seconds=request.betting_seconds,
        squeeze_seconds=request.squeeze_seconds,
        idle_shoe_close_seconds=request.idle_shoe_close_seconds,
        write_id=write_id(operator_id, "create table", table_id, asked(request), idem),
        number=request.number,
        name=request.name,
        **dealing(request),
        **bet_behind(request, config),
        **fairness(request, beacon),
    )
    record = replace(record, chain_head=genesis(table_id, record.anchor))
    del top_secret
    live = _running_live(record, config, repo.clock())
    return write_table(repo, record, idem, live)


def _running_live(table: TableRecord, config: TableConfig, at: str) -> Emit | None:
    """A running table's live state from its creation (seq 0, no event), so its clock — and
    its first step — exist before anything happens at it; ``None`` at an operator table (its
    live item comes with its first event)."""
    if table.dealing != "auto":
        return None
    assert table.pause_seconds is not None
    clock: ClockDoc = {
        "dealing": "auto",
        "pause_seconds": table.pause_seconds,
        "paused": False,
        "needs_banker": config.banking is Banking.PLAYER_BANKER,
        "waiting": None,
        "resolved_at": at,
    }
    return emit(None, table.operator_id, table.table_id, at, [], clock=clock)


def _check_currency(request: CreateTableRequest, tier_doc: dict[str, Any]) -> None:
    """The table's currency and exponent, when given, are its tier's (tiers are per currency:
    a tier's amounts are minor units of its own currency). Absent: the tier's."""
    code, exponent = currency.of_tier(tier_doc)
    if request.currency is not None and request.currency not in currency.DEFAULT_EXPONENTS:
        raise DomainError(
            "unknown_currency",
            f"unknown currency {request.currency!r}",
            details={"currency": request.currency, "accepted": sorted(currency.DEFAULT_EXPONENTS)},
        )
    if (request.currency or code) != code or request.minor_unit_exponent not in (None, exponent):
        raise DomainError(
            "currency_mismatch",
            f"tier {tier_doc.get('id')!r} is in {code} (minor_unit_exponent {exponent}): a table "
            "is in its tier's currency",
            details={
                "tier": tier_doc.get("id"),
                "tier_currency": code,
                "tier_minor_unit_exponent": exponent,
            },
        )


def commit_shoe(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    table_id: str,
    client_seed: str,
    idem: IdempotencyRequest | None = None,
) -> ShoeOut:
    """Fix the next shoe of the table before any card is dealt: ``s_i`` is computed from the
    chain, stored only encrypted, and the shoe's commitment (number, client hash, rules, anchor)
    is returned. Reports ``shoe_committed``."""
    return idempotency.replaying_refusals(
        repo,
        operator_id,
        idem,
        lambda: retrying(
            lambda: _commit_shoe(repo, vault, operator_id, table_id, client_seed, idem)
        ),
    )


def _commit_shoe(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    table_id: str,
    client_seed: str,
    idem: IdempotencyRequest | None,
) -> ShoeOut:
    table, live = table_live(repo, operator_id, table_id, idem)
    if live is not None and live.client_seeds:
        raise DomainError(
            "client_seeds_queued",
            f"{len(live.client_seeds)} client seed(s) given in advance wait for shoes "
            f"{', '.join(str(q['for_shoe_number']) for q in live.client_seeds)}: the table "
            "commits them itself, each shoe with its own seed",
            details={"for_shoe_numbers": [q["for_shoe_number"] for q in live.client_seeds]},
        )
    return ShoeOut.model_validate(commit_next_shoe(repo, vault, table, live, client_seed, idem))


def commit_next_shoe(
    repo: Repository,
    vault: SecretVault,
    table: TableRecord,
    live: LiveRecord | None,
    client_seed: str,
    idem: IdempotencyRequest | None = None,
    queued: QueuedSeed | None = None,
) -> dict[str, Any]:
    """Commit the next shoe of ``table`` (and ``live``, as read together) with ``client_seed``
    — with ``queued`` (the running table's automatic commit): the head of the live state's
    queue, consumed in the same transaction — and answer the shoe's view. The write is
    conditional on the table's next shoe number and the live state's ``seq``: a retry of a
    commit that was written answers it (same write id), never commits twice."""
    operator_id, table_id = table.operator_id, table.table_id
    seq = 0 if live is None else live.seq
    if table.open_shoe_id is not None:
        raise DomainError(
            "shoe_open",
            f"the table's shoe {table.open_shoe_id} is still open; close it or play it out",
            details={"open_shoe_id": table.open_shoe_id},
        )
    number = table.next_shoe_number
    if number > table.chain_length:
        raise DomainError(
            "chain_exhausted",
            f"all {table.chain_length} shoes of this table's chain are used; open a new table",
            details={"chain_length": table.chain_length},
        )
    rules = ShoeRules.from_dict(table.rules)
    top_secret = vault.unseal(table.chain_secret_ct, chain_context(operator_id, table_id))
    secret = shoe_secret(top_secret, table.chain_length, number)
    del top_secret
    v2 = table.fairness == FAIRNESS_V2  # its cards are drawn round by round, none before
    first_start = 0 if v2 else derive_shoe(secret, client_seed, number, rules).first_start
    shoe = ShoeRecord(
        operator_id=operator_id,
        table_id=table_id,
        shoe_number=number,
        client_seed=client_seed,
        client_hash=client_hash(client_seed).hex(),
        rules=table.rules,
        anchor=table.anchor,
        config=table.config,
        secret_ct=vault.seal(secret, shoe_context(operator_id, table_id, number)),
        status=OPEN,
        rounds_dealt=0,
        cursor=first_start,
        version=0,
        created_at=repo.clock(),
        settle_deadline_seconds=table.settle_deadline_seconds,
        void_window_seconds=table.void_window_seconds,
        betting_seconds=table.betting_seconds,
        squeeze_seconds=table.squeeze_seconds,
        idle_shoe_close_seconds=table.idle_shoe_close_seconds,
        ref_key_ct=table.ref_key_ct,
        chain_start=table.chain_head,
        chain_head=table.chain_head,
        write_id=write_id(operator_id, "commit shoe", table_id, client_seed, idem, [number, seq]),
        client_seed_given_at=None if queued is None else queued["given_at"],
        **(v2_shoe(table, rules) if v2 else {}),
    )
    shoe = replace(shoe, close_by=seconds_after(shoe.created_at, shoe.idle_shoe_close_seconds))
    del secret
    view = shoe_view(shoe)
    remaining = shoe_state_view(shoe)["cards_remaining"]
    committed = (
        "shoe_committed",
        ShoeCommitted(shoe_id=shoe.shoe_id, shoe_number=number, cards_remaining=remaining),
    )
    ev = emit(
        live,
        operator_id,
        table_id,
        shoe.created_at,
        [committed],
        open_shoe_id=shoe.shoe_id,
        **_clock_changes(live, queued),
    )
    ev = complete(repo, ev)
    try:
        repo.commit_shoe(table, shoe, idempotency.record(repo.clock(), idem, operator_id, view), ev)
    except (ConditionFailed, OutcomeUnknown) as exc:
        current = repo.get_shoe(operator_id, ShoeRef(table_id, number))
        if current is not None and current.write_id == shoe.write_id:
            return shoe_view(current)  # it was written: a lost answer
        if isinstance(exc, OutcomeUnknown):
            raise
        idempotency.check_duplicate(exc)
        if current is None:
            raise LiveMoved from None  # not this shoe's race: another change at the table
        raise lost_race() from None
    return view


def _clock_changes(live: LiveRecord | None, queued: QueuedSeed | None) -> dict[str, Any]:
    """A commit at a running table: it no longer waits for a seed, and an automatic commit
    consumes the head of the queue (``queued``). Nothing at an operator table."""
    if live is None or live.clock is None:
        return {}
    changes: dict[str, Any] = {"clock": {**live.clock, "waiting": None}}
    if queued is not None:
        changes["client_seeds"] = list(live.client_seeds or [])[1:]
    return changes


def v2_shoe(table: TableRecord, rules: ShoeRules) -> dict[str, Any]:
    """A bacc-pf-v2 shoe's fields at its commit: the table's fairness and beacon, no card
    drawn, no round locked."""
    state: ShoeV2Doc = {
        "drawn": bytes(-(-rules.size // 8)).hex(), "dealt": 0, "last_due": False, "locked": None,
    }  # fmt: skip
    return {"fairness": FAIRNESS_V2, "beacon": table.beacon, "v2": state}


def end_shoe(
    before: ShoeRecord, secret: bytes, reason: str, end_write_id: str, ended_at: str
) -> tuple[ShoeRecord, ProofRecord]:
    """The shoe as ended (``reason``: ``rules`` or ``closed``) by the write ``end_write_id``,
    and its public proof record."""
    after = replace(
        before,
        status=ENDED,
        end_reason=reason,
        ended_at=ended_at,
        server_seed=secret.hex(),
        version=before.version + 1,
        end_write_id=end_write_id,
        close_by=None,
    )
    proof = ProofRecord(
        shoe_id=before.shoe_id,
        table_id=before.table_id,
        shoe_number=before.shoe_number,
        anchor=before.anchor,
        client_seed=before.client_seed,
        client_hash=before.client_hash,
        rules=before.rules,
        server_seed=secret.hex(),
        rounds_dealt=after.rounds_dealt,
        end_reason=reason,
        ended_at=ended_at,
        config=before.config,
        operator_id=before.operator_id,
    )
    return after, proof


def shoe_ended_change(after: ShoeRecord) -> Change:
    """The ``shoe_ended`` event of a shoe as ended."""
    data = ShoeEnded(
        shoe_id=after.shoe_id, reason=after.end_reason, rounds_dealt=after.rounds_dealt
    )
    return "shoe_ended", data


def _window_of(live: LiveRecord | None, shoe_id: str) -> tuple[list[Change], dict[str, Any]]:
    """A betting window of ``shoe_id`` not dealt yet, as its closing cancels it: reported
    ``betting_cancelled`` (reason ``shoe_ended``, the code its deal would answer) and dropped
    with its book (else the table would show ``betting`` on an ended shoe's window, and the
    feed would not say its slips are gone). No bet was locked: no money moves."""
    betting = None if live is None else live.betting
    if live is None or betting is None or betting["shoe_id"] != shoe_id:
        return [], {}
    if betting["status"] == "dealt":
        return [], {}
    data = BettingCancelled(
        shoe_id=shoe_id,
        round_number=betting["round_number"],
        reason="shoe_ended",
        slips=len(live.book),
    )
    return [("betting_cancelled", data)], {"betting": None, "book": {}}


class NotIdle(Exception):
    """The shoe is not idle at the moment the sweep asked (:func:`close_shoe` with
    ``idle_at``): dealt from since, a round awaiting settlement or still squeezed, or a betting
    window open. Nothing was written."""


def close_shoe(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    shoe_id: str,
    idem: IdempotencyRequest | None = None,
    *,
    idle_at: str | None = None,
) -> ShoeStateOut:
    """End the shoe now (void of the rest) and reveal it, like a normal end. Reports
    ``shoe_ended``. With ``idle_at`` (the sweep closing an idle shoe): only if the shoe, as read
    — the write is conditional on its version, so a deal meanwhile wins —, is idle then
    (:func:`idle_reason`), else :class:`NotIdle`."""
    return idempotency.replaying_refusals(
        repo,
        operator_id,
        idem,
        lambda: retrying(
            lambda: _close_shoe(repo, vault, operator_id, shoe_id, idem, idle_at=idle_at)
        ),
    )


def idle_reason(repo: Repository, shoe: ShoeRecord, live: LiveRecord | None, at: str) -> str | None:
    """Why the open ``shoe`` must not be closed as idle at ``at`` (``None``: it may): its
    ``close_by`` not reached (a deal moved it), a betting window of it open (the sweep deals
    it), a round awaiting settlement (settled by its deadline, then the shoe closes: a proof is
    published complete, never pending on an idle close), or its last round still squeezed
    (no card is revealed before the table shows it)."""
    if shoe.close_by is None or shoe.close_by > at:
        return "dealt from since"
    window = None if live is None else live.betting
    if window is not None and window["shoe_id"] == shoe.shoe_id and window["status"] != "dealt":
        return "a betting window is open"
    if repo.open_rounds(shoe.shoe_id):
        return "a round awaits settlement"
    if _squeezed_error(repo, shoe, at) is not None:
        return "its last round is still squeezed"
    return None


def _squeezed_error(repo: Repository, shoe: ShoeRecord, at: str) -> DomainError | None:
    """409 ``cards_not_shown`` when a card of the shoe's last round is still face down at
    ``at``: ending the shoe reveals its seed, and with it every card — so nobody (the close's
    answer, the public proof) sees a card before the table shows it. Else ``None``."""
    if not shoe.rounds_dealt:
        return None
    ref = RoundRef(shoe.table_id, shoe.shoe_number, shoe.rounds_dealt)
    last = repo.load(shoe.operator_id, round_=ref).round
    pending = None if last is None else face_down(last, at)
    if last is None or pending is None:
        return None
    return cards_not_shown(last, pending, at, "the shoe closes (its seed shows every card)")


def _close_shoe(
    repo: Repository,
    vault: SecretVault,
    operator_id: str,
    shoe_id: str,
    idem: IdempotencyRequest | None,
    *,
    idle_at: str | None = None,
) -> ShoeStateOut:
    shoe, live = shoe_live(repo, operator_id, shoe_id, idem)
    if shoe.status == ENDED:
        raise DomainError("shoe_ended", f"shoe {shoe_id} has already ended")
    if (held := locked(shoe)) is not None:  # bacc-pf-v2: its locked round is drawn or voided first
        raise round_locked(shoe, held, repo.clock(), "the shoe closes")
    if idle_at is not None and (why := idle_reason(repo, shoe, live, idle_at)) is not None:
        raise NotIdle(why)
    if idle_at is None and (squeezed := _squeezed_error(repo, shoe, repo.clock())) is not None:
        raise squeezed
    secret = vault.unseal(
        shoe.secret_ct, shoe_context(operator_id, shoe.table_id, shoe.shoe_number)
    )
    seq = 0 if live is None else live.seq
    wid = write_id(operator_id, "close shoe", shoe_id, None, idem, [shoe.version, seq])
    after, proof = end_shoe(shoe, secret, "closed", wid, repo.clock())
    view = shoe_state_view(after)
    assert after.ended_at is not None
    dropped, window = _window_of(live, shoe_id)
    ev = emit(
        live,
        operator_id,
        shoe.table_id,
        after.ended_at,
        [*dropped, shoe_ended_change(after)],
        deal_by=None,
        open_shoe_id=None,
        **window,
    )
    ev = complete(repo, ev)
    try:
        repo.close_shoe(
            shoe, after, proof, idempotency.record(repo.clock(), idem, operator_id, view), ev
        )
    except (ConditionFailed, OutcomeUnknown) as exc:
        current = repo.get_shoe(operator_id, shoe.ref)
        if current is not None and current.end_write_id == wid:
            return ShoeStateOut.model_validate(shoe_state_view(current))  # a lost answer
        if isinstance(exc, OutcomeUnknown):
            raise
        idempotency.check_duplicate(exc)
        if current is not None and current.version == shoe.version:
            raise LiveMoved from None  # the shoe did not move: another change at the table
        raise lost_race() from None
    return ShoeStateOut.model_validate(view)
