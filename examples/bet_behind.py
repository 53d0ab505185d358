#!/usr/bin/env python3
"""Bet behind at scale: one bid-squeeze round with 7 seated bettors and N spectators (default
1,000) betting behind them, every spectator's receipt verified against the public proof.

    make run                                   # terminal 1: the API on http://127.0.0.1:8000
    export BACCARAT_URL=http://127.0.0.1:8000 KEY=bk_...     # the line `make run` printed
    .venv/bin/python examples/bet_behind.py    # terminal 2 (--spectators N, default 1000)

What it does, with nothing but HTTP (httpx), the public proof and the verifier's library:

1. creates a house-banked bid-squeeze table whose spectators bet in a book (``POST /v1/tables``
   with ``"bet_behind": "book"``; the operator opens betting and deals, the quickest way to one
   round), commits a shoe, seats 7 bettors (``PUT …/seats/{n}``) and joins N spectators
   (``PUT …/spectators/{id}``, concurrent requests: nobody's join waits on another's);
2. opens betting (``POST …/betting``); the seated and every spectator confirm a slip of 1–13
   random lines within the tier's limits (``PUT …/bets/{id}``, concurrent; each confirm timed);
3. deals the round from the book (``POST /v1/shoes/{id}/rounds`` ``{"from_book": true}``: the
   book locks in one write and its Merkle root is in the deal's answer, before any card is
   shown), the seated squeeze (``POST /v1/rounds/{id}/reveal``) and the round is settled;
4. waits for the operator's settlement pages (``GET /v1/rounds/{id}/settlement/bettors?page=k``,
   100 bettors each, published by the settlement's fan-out) and fetches every spectator's
   receipt (``GET /v1/rounds/{id}/receipts/{bettor_id}``);
5. closes the shoe (``POST /v1/shoes/{id}/close``: its proof becomes final), fetches the proof
   (every page) and the round's public book pages (``GET /v1/shoes/{id}/rounds/1/book?page=k``),
   and checks: the proof verifies (:func:`baccarat.verify.verify`, as ``baccarat verify``);
   every receipt verifies against it (:func:`baccarat.receiptcheck.verify_receipt`, as
   ``baccarat verify --receipt``); each receipt's leaf is exactly the slip that bettor confirmed;
   the root recomputed here from every receipt's leaf is the deal's root; and every bettor's net
   — recomputed here by settling the WHOLE book at once (:func:`baccarat.settlement.settle` of
   every seated and spectator line on the proof's cards), not slip by slip — equals its
   receipt's, its settlement page's and, for the seated, the settlement's answer; the house's
   take is minus the sum of them all;
6. prints the figures (requests, seconds per phase, confirm p50/p99, proof bytes, pages); the
   exit status is 0 only when everything held.

Retried requests carry the same ``Idempotency-Key`` (play_shoe's client)."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import random
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from play_shoe import NOT_NOW, ApiFailure, Client

from baccarat import booktree
from baccarat.audit import canonical
from baccarat.bets import Bet, Role
from baccarat.cards import parse_code
from baccarat.outcome import deal_round
from baccarat.paytables import BetType
from baccarat.profiles import TableConfig
from baccarat.settlement import settle
from baccarat.verify import verify
from baccarat_verify import es256

TIER = "bid-squeeze-standard"
SEATED = 7
BALANCE = 2_000_000
#: Concurrent requests of the joins and the confirms (the bettors' own devices, in reality).
CONCURRENCY = 32
#: How long the settlement's fan-out may take to publish every page (seconds): this, plus
#: PAGES_TIMEOUT_PER_SLIP a slip (a loaded 2-core machine settled ≈ 25 slips/s).
PAGES_TIMEOUT = 120.0
PAGES_TIMEOUT_PER_SLIP = 0.1


class Counting:
    """play_shoe's client, thread-safe counters added: requests per phase, confirm latencies."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.phase = "setup"
        self.requests: Counter[str] = Counter()
        self.confirm_seconds: list[float] = []
        self._lock = threading.Lock()

    def request(self, method: str, path: str, body: Any = None) -> Any:
        with self._lock:
            self.requests[self.phase] += 1
        return self.client.request(method, path, body)

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, body)

    def public_get(self, path: str) -> Any:
        with self._lock:
            self.requests[self.phase] += 1
        return self.client.public_get(path)

    def confirm(self, path: str, body: Any) -> Any:
        t0 = time.perf_counter()
        out = self.request("PUT", path, body)
        with self._lock:
            self.confirm_seconds.append(time.perf_counter() - t0)
        return out


def random_slip(rng: random.Random, tier: dict[str, Any]) -> list[dict[str, Any]]:
    """1–13 lines, one per bet type, each a whole number of chip units within the type's
    limits (kept near the minimum: the balances stay small)."""
    limits = tier["limits"]
    unit = int(tier["unit"])
    types = rng.sample(sorted(limits), rng.randint(1, len(limits)))
    lines = []
    for t in types:
        low = -(-int(limits[t]["min"]) // unit)
        high = min(int(limits[t]["max"]) // unit, low * 5)
        lines.append({"type": t, "amount": unit * rng.randint(low, high)})
    return lines


def pool_map(fn: Callable[[Any], Any], items: Sequence[Any], workers: int) -> list[Any]:
    """``fn`` over ``items`` on ``workers`` threads; the first failure is raised."""
    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def play(
    api: Counting,
    *,
    spectators: int,
    rng: random.Random,
    workers: int,
    log: Any,
    receipts: bool = True,
) -> dict[str, Any]:
    """Steps 1–4: the table, the round and everything the operator is told of it."""
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    tier = next(t for t in api.get("/v1/tiers")["tiers"] if t["id"] == TIER)
    table = api.post(
        "/v1/tables",
        {
            "profile": "bid-squeeze",
            "tier": TIER,
            "banking": "house",
            "bet_behind": "book",
            "betting_seconds": 600,
            "squeeze_seconds": 2,
        },
    )
    t = f"/v1/tables/{table['table_id']}"
    shoe = api.post(f"{t}/shoes", {"client_seed": f"bet-behind:{uuid.uuid4()}"})
    seated = [f"seat-{n}" for n in range(1, SEATED + 1)]
    for n, bettor in enumerate(seated, 1):
        api.request("PUT", f"{t}/seats/{n}", {"bettor_id": bettor, "balance": BALANCE, "level": 3})
    behind = [f"behind-{i:05d}" for i in range(spectators)]
    seconds["setup"] = time.perf_counter() - t0
    log(f"table {table['table_id']} (bet_behind {table.get('bet_behind')}), shoe {shoe['shoe_id']}")

    api.phase, t0 = "join", time.perf_counter()
    pool_map(
        lambda b: api.request("PUT", f"{t}/spectators/{b}", {"balance": BALANCE}), behind, workers
    )
    seconds["join"] = time.perf_counter() - t0
    log(f"{spectators} spectators joined in {seconds['join']:.2f} s")

    api.phase, t0 = "confirm", time.perf_counter()
    window = api.post(f"{t}/betting")["betting"]
    number = int(window["round_number"])
    slips = {b: random_slip(rng, tier) for b in seated + behind}
    # the seated bet on both hands, so every hand has a squeezer (nobody waits for the system)
    for i, b in enumerate(seated):
        side = "banker" if i % 2 else "player"
        slips[b] = [ln for ln in slips[b] if ln["type"] != side] + [
            {"type": side, "amount": 10_000}
        ]

    def confirm(bettor: str) -> Any:
        return api.confirm(f"{t}/bets/{bettor}", {"bets": slips[bettor], "round_number": number})

    pool_map(confirm, seated + behind, workers)
    seconds["confirm"] = time.perf_counter() - t0
    log(f"{len(slips)} slips confirmed in {seconds['confirm']:.2f} s")

    api.phase, t0 = "deal", time.perf_counter()
    dealt = api.post(f"/v1/shoes/{shoe['shoe_id']}/rounds", {"from_book": True})
    seconds["deal"] = time.perf_counter() - t0
    book = dealt["book"]
    log(f"dealt {dealt['round_id']}: book {book['count']} slips, root {book['root'][:16]}…")

    api.phase, t0 = "squeeze+settle", time.perf_counter()
    settlement = squeeze_and_settle(api, dealt)
    seconds["squeeze+settle"] = time.perf_counter() - t0

    api.phase, t0 = "pages", time.perf_counter()
    pages = settlement_pages(api, dealt["round_id"], len(behind))
    seconds["pages"] = time.perf_counter() - t0
    log(f"{len(pages)} settlement pages in {seconds['pages']:.2f} s")

    api.phase, t0 = "receipts", time.perf_counter()
    rid = dealt["round_id"]
    fetch = behind if receipts else []
    got = pool_map(lambda b: api.get(f"/v1/rounds/{rid}/receipts/{b}"), fetch, workers)
    kept = dict(zip(fetch, got, strict=True))
    seconds["receipts"] = time.perf_counter() - t0
    log(f"{len(kept)} receipts in {seconds['receipts']:.2f} s")
    return {
        "table": table,
        "shoe": shoe,
        "dealt": dealt,
        "settlement": settlement,
        "slips": slips,
        "seated": seated,
        "behind": behind,
        "pages": pages,
        "receipts": kept,
        "seconds": seconds,
    }


def squeeze_and_settle(api: Counting, dealt: dict[str, Any]) -> dict[str, Any]:
    """The seated squeezers open their cards (the initial step, then the draws, the player's
    hand first); the round is settled once every card is shown (``409 cards_not_shown`` is
    retried by the client)."""
    path = f"/v1/rounds/{dealt['round_id']}"
    steps = dealt["squeeze"]["steps"]
    for step in ("initial", "draws"):
        for hand in ("player", "banker"):
            squeezer = steps.get(step, {}).get("hands", {}).get(hand, {}).get("squeezer")
            if squeezer is None:
                continue
            try:
                api.post(f"{path}/reveal", {"bettor_id": squeezer, "step": step})
            except ApiFailure as exc:
                if exc.error.get("code") not in (*NOT_NOW, "no_draws"):
                    raise
    for _ in range(60):
        try:
            out: dict[str, Any] = api.post(f"{path}/settlement")
            return out
        except ApiFailure as exc:
            if exc.error.get("code") != "cards_not_shown":
                raise
            time.sleep(0.5)
    raise TimeoutError("the round's cards were never all shown")


def _pending(exc: ApiFailure) -> bool:
    return exc.error.get("code") == "settlement_pending" or bool(exc.error.get("retryable"))


def settlement_pages(api: Counting, round_id: str, slips: int) -> list[dict[str, Any]]:
    """Every operator settlement page of the round, waiting for the fan-out to write each."""
    pages: list[dict[str, Any]] = []
    deadline = time.monotonic() + PAGES_TIMEOUT + PAGES_TIMEOUT_PER_SLIP * slips
    k: int | None = 0
    while k is not None:
        try:
            page = api.get(f"/v1/rounds/{round_id}/settlement/bettors?page={k}")
        except ApiFailure as exc:
            if not _pending(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)
            continue
        pages.append(page)
        k = page.get("next")
    return pages


def book_pages(api: Counting, shoe_id: str, round_number: int) -> list[dict[str, Any]]:
    """Every public book page of the round (no key), from the first, following ``page.next``."""
    from baccarat.receiptcheck import FIRST_PAGE

    pages = [api.public_get(f"/v1/shoes/{shoe_id}/rounds/{round_number}/book?page={FIRST_PAGE}")]
    while (nxt := pages[-1]["page"]["next"]) is not None:
        pages.append(api.public_get(f"/v1/shoes/{shoe_id}/rounds/{round_number}/book?page={nxt}"))
    return pages


def proof_of(api: Counting, shoe_id: str) -> list[dict[str, Any]]:
    pages = [api.public_get(f"/v1/shoes/{shoe_id}/proof")]
    while (nxt := pages[-1]["page"]["next"]) is not None:
        pages.append(api.public_get(nxt))
    return pages


# --- the independent checks -----------------------------------------------------------------


def whole_book_nets(
    config: TableConfig,
    proof_round: dict[str, Any],
    slips: dict[str, list[dict[str, Any]]],
    seats: dict[str, int],
) -> tuple[dict[str, int], int]:
    """Every bettor's net and the house's take with the WHOLE book settled at once — seated and
    spectators in one :func:`baccarat.settlement.settle` on the proof's cards (at a house table
    nobody's money depends on anyone else's: this must equal each slip settled alone)."""
    player = [parse_code(c) for c in proof_round["player"]]
    banker = [parse_code(c) for c in proof_round["banker"]]
    cards = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    dealt = deal_round(cards, 0, int(proof_round["round_number"]))
    if [dealt.player, dealt.banker] != [tuple(player), tuple(banker)]:
        raise AssertionError("the proof's cards are not a round dealt by the drawing rules")
    bets = [
        Bet(
            bettor_id=bettor,
            role=Role.SEATED if bettor in seats else Role.SPECTATOR,
            type=BetType(line["type"]),
            amount=int(line["amount"]),
            order=i,
            seat=seats.get(bettor),
        )
        for i, (bettor, lines) in enumerate(sorted(slips.items()))
        for line in lines
    ]
    settled = settle(config, dealt, bets)
    return settled.nets(), settled.house_take


def check(
    api: Counting, played: dict[str, Any], url: str, save: Path | None = None
) -> dict[str, Any]:
    """Step 5: close the shoe, fetch and verify the proof, the book pages and every receipt, and
    recompute every net independently. Returns the problems found (none: all held)."""
    from baccarat.proofpages import assemble
    from baccarat.receiptcheck import verify_receipt  # `baccarat verify --receipt`'s check

    problems: list[str] = []
    shoe_id, dealt = played["shoe"]["shoe_id"], played["dealt"]
    api.phase, t0 = "proof", time.perf_counter()
    api.post(f"/v1/shoes/{shoe_id}/close")
    proof = proof_of(api, shoe_id)
    keys = api.public_get("/v1/signing-keys")
    book = book_pages(api, shoe_id, int(dealt["round_number"]))
    if save is not None:
        write_files(save, proof, keys, played["receipts"])
    verdict = verify(
        proof, keys=keys, keys_source=f"{url}/v1/signing-keys", signature_check=es256.check
    )
    if not verdict.ok:
        problems.append(f"the proof does not verify: {verdict.line()}")
    whole = assemble(proof)[1]  # the proof's pages put together
    rounds = {r["round_number"]: r for r in whole["rounds"]}
    pround = rounds[dealt["round_number"]]
    if pround.get("book", {}).get("root") != dealt["book"]["root"]:
        problems.append("the proof's book root is not the one the deal answered")

    # every receipt: the verifier's check, and the slip in it is the one its bettor confirmed
    behind, receipts, slips = played["behind"], played["receipts"], played["slips"]
    refs: dict[str, str] = {}
    verified = 0
    for bettor in behind:
        receipt = receipts[bettor]
        result = verify_receipt(whole, receipt)
        if result.ok:
            verified += 1
        else:
            problems.append(f"{bettor}'s receipt does not verify: {result.summary}")
        leaf = receipt["leaf"]
        refs[bettor] = leaf["bettor_ref"]
        confirmed = sorted(slips[bettor], key=lambda line: line["type"])
        if [{"type": x["type"], "amount": x["amount"]} for x in leaf["lines"]] != confirmed:
            problems.append(f"{bettor}'s receipt holds another slip than the one confirmed")
    ordered = booktree.in_book_order(behind, lambda b: refs[b])
    leaves = [canonical(receipts[b]["leaf"]) for b in ordered]
    if (
        booktree.root(leaves).hex() != dealt["book"]["root"]
        or len(leaves) != dealt["book"]["count"]
    ):
        problems.append("the root of the receipts' leaves is not the book's root")
    if [receipts[b]["leaf_index"] for b in ordered] != list(range(len(ordered))):
        problems.append("the receipts' leaf indexes are not the book's order")

    # every net recomputed with the whole book settled at once
    config = TableConfig.from_dict(whole["table_config"])
    seats = {b: n for n, b in enumerate(played["seated"], 1)}
    nets, house_take = whole_book_nets(config, pround, slips, seats)
    paged = {e["bettor_id"]: e for page in played["pages"] for e in page["bettors"]}
    for bettor in behind:
        if receipts[bettor]["settlement"]["net"] != nets[bettor]:
            problems.append(
                f"{bettor}: receipt net {receipts[bettor]['settlement']['net']} ≠ {nets[bettor]}"
            )
        page_net = paged.get(bettor, {}).get("net")
        if page_net != nets[bettor]:
            problems.append(f"{bettor}: settlement page net {page_net} ≠ {nets[bettor]}")
    if set(paged) != set(behind):
        problems.append(
            f"the settlement pages name {len(paged)} bettors, not the {len(behind)} spectators"
        )
    answered = played["settlement"]
    for bettor in played["seated"]:
        if answered["nets"].get(bettor) != nets[bettor]:
            problems.append(
                f"{bettor} (seated): settlement net {answered['nets'].get(bettor)} ≠ {nets[bettor]}"
            )
    # the house's result of a book round: the seated money's take + the book's
    book_totals = pround["book"]["totals"]
    book_net = sum(nets[b] for b in behind)
    if book_totals["net"] != book_net or book_totals["house"]["take"] != -book_net:
        problems.append(f"the book's totals {book_totals['net']} ≠ Σ recomputed {book_net}")
    seated_take = -sum(nets[b] for b in played["seated"])
    if answered["house"]["take"] not in (seated_take, house_take):
        problems.append(f"the settlement's house take is neither {seated_take} nor {house_take}")
    if seated_take + book_totals["house"]["take"] != house_take:
        problems.append(f"seated take + book take ≠ the whole book's house take {house_take}")
    entries = [e for page in book for e in page["entries"]]
    if [canonical(e["leaf"]) for e in entries] != leaves:
        problems.append("the public book pages are not the receipts' leaves in book order")
    seconds = time.perf_counter() - t0
    return {
        "problems": problems,
        "verdict": verdict.line(),
        "receipts_verified": verified,
        "nets_checked": len(nets),
        "house_take": house_take,
        "proof_bytes": sum(len(json.dumps(p, separators=(",", ":")).encode()) for p in proof),
        "proof_pages": len(proof),
        "book_pages": len(book),
        "book_bytes": sum(len(json.dumps(p, separators=(",", ":")).encode()) for p in book),
        "check_seconds": seconds,
    }


def write_files(
    folder: Path, proof: list[dict[str, Any]], keys: Any, receipts: dict[str, Any]
) -> None:
    """The proof as a bundle of its pages, the signing keys, and one file per receipt."""
    folder.mkdir(parents=True, exist_ok=True)
    dump = lambda value: json.dumps(value, indent=1, ensure_ascii=False)  # noqa: E731
    (folder / "proof.json").write_text(dump({"pages": proof}), encoding="utf-8")
    (folder / "signing-keys.json").write_text(dump(keys), encoding="utf-8")
    for bettor, receipt in receipts.items():
        (folder / f"receipt-{bettor}.json").write_text(dump(receipt), encoding="utf-8")


def run(
    client: Client,
    *,
    spectators: int,
    seed: int | None = None,
    workers: int = CONCURRENCY,
    log: Any = print,
    save: Path | None = None,
) -> dict[str, Any]:
    """The whole example; its figures and problems as a JSON-ready summary."""
    api = Counting(client)
    began = time.perf_counter()
    played = play(api, spectators=spectators, rng=random.Random(seed), workers=workers, log=log)
    checked = check(api, played, client.url, save)
    took = time.perf_counter() - began
    confirms = api.confirm_seconds
    return {
        "table_id": played["table"]["table_id"],
        "shoe_id": played["shoe"]["shoe_id"],
        "round_id": played["dealt"]["round_id"],
        "spectators": spectators,
        "seated": len(played["seated"]),
        "book": played["dealt"]["book"],
        "lines": sum(len(s) for s in played["slips"].values()),
        "requests": dict(api.requests),
        "requests_total": sum(api.requests.values()),
        "seconds": {**played["seconds"], "check": checked.pop("check_seconds"), "total": took},
        "confirm_ms": {
            "p50": 1e3 * percentile(confirms, 50),
            "p99": 1e3 * percentile(confirms, 99),
            "n": len(confirms),
        },
        "settlement_pages": len(played["pages"]),
        **checked,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("BACCARAT_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--key", default=os.environ.get("KEY") or os.environ.get("BACCARAT_KEY"))
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    parser.add_argument("--rng-seed", type=int, default=None)
    parser.add_argument("--summary-json", type=Path, metavar="FILE")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--save",
        type=Path,
        metavar="DIR",
        help="write the proof (proof.json: `baccarat verify` reads it), the signing keys and "
        "every receipt (receipt-<bettor>.json: `baccarat verify --receipt FILE proof.json`)",
    )
    args = parser.parse_args(argv)
    if not args.key:
        parser.error("no operator key: pass --key or set KEY (the key `make run` printed)")
    client = Client(args.url, args.key, timeout=60, attempts=8)
    log = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    try:
        out = run(
            client,
            spectators=args.spectators,
            seed=args.rng_seed,
            workers=args.concurrency,
            log=log,
            save=args.save,
        )
    except (ApiFailure, TimeoutError) as exc:
        print(f"bet_behind: {exc}", file=sys.stderr)
        return 2
    finally:
        client.close()
    s = out["seconds"]
    print(
        f"\n{out['spectators']} spectators + {out['seated']} seated, {out['lines']} lines: "
        f"{out['requests_total']} requests in {s['total']:.1f} s "
        f"(join {s['join']:.1f}, confirm {s['confirm']:.1f}, deal {s['deal']:.2f}, "
        f"settle {s['squeeze+settle']:.1f}, pages {s['pages']:.1f}, receipts {s['receipts']:.1f}, "
        f"checks {s['check']:.1f})"
    )
    print(
        f"confirm p50 {out['confirm_ms']['p50']:.1f} ms, p99 {out['confirm_ms']['p99']:.1f} ms "
        f"({args.concurrency} concurrent)"
    )
    print(
        f"book {out['book']['count']} slips, root {out['book']['root']}; "
        f"{out['settlement_pages']} settlement pages, {out['book_pages']} public book pages "
        f"({out['book_bytes']:,} B); proof {out['proof_pages']} page(s), {out['proof_bytes']:,} B"
    )
    print(out["verdict"])
    print(
        f"receipts verified: {out['receipts_verified']} of {out['spectators']}; "
        f"nets recomputed (whole book at once): {out['nets_checked']}"
    )
    for problem in out["problems"][:20]:
        print(f"NOT consistent: {problem}")
    if not out["problems"]:
        print("consistent: every net, receipt, settlement page and book page agrees")
    if args.summary_json:
        args.summary_json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0 if not out["problems"] and out["receipts_verified"] == out["spectators"] else 1


if __name__ == "__main__":
    sys.exit(main())
