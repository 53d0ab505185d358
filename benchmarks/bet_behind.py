"""Betting behind at scale (a bid-squeeze round whose spectators bet in a book): the figures of
issue 26 on DynamoDB Local, printed, never asserted.

Two parts, each on a DynamoDB Local of its own:

* **the book's storage, in process** (the BookStore and ChunkStore adapters on boto3, each call's
  consumed capacity read with ``ReturnConsumedCapacity``): for 10, 100, 1,000 and 10,000 slips
  of 1–13 random lines — the joins and confirms (16 threads), the lock (one transaction: its ms
  beside an empty book's, it should not grow with the book), the deal's work (the locked book
  read strongly consistent, the leaves, the Merkle root, each slip's money and the totals, the
  leaves stored), the public book pages' count and bytes (every entry built as the settlement
  writes it); the confirm's p50/p99 under 100 concurrent bettors (the transaction alone); write
  and read units per slip and the cost per 1,000 bettor-rounds (prices of
  :mod:`benchmarks.cost`);
* **the API over HTTP** (``python -m baccarat_dev.local`` — ``make run``'s server, its rate limit
  off, its own DynamoDB Local): examples/bet_behind.py at 10, 100 and 1,000 spectators (+ 7
  seated; 32 concurrent bettors; every receipt fetched and verified), then a round of 10,000
  (its receipts not fetched: 10,000 more requests) — seconds, requests, confirm p50/p99, the
  proof's bytes and the book pages; after each, every settlement chunk of the round run again in
  this process with the fan-out's own code, 1 and then 4 workers (a redelivery: the same bytes
  written), for slips/s per worker and the chunks' units per slip; the API process's RSS sampled
  every second across it all (first / max / last). ``BET_BEHIND_HTTP=10,1000`` picks the sizes.

Then ``benchmarks/out/bet_behind.svg``: time and cost per round against bettors, log-log, with
the slope of each least-squares line printed (1 = linear growth)."""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
import random
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .cost import PRICES, memory_gb

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "out"
SIZES = (10, 100, 1_000, 10_000)
HTTP_SIZES = (10, 100, 1_000)
BIG = 10_000
#: Concurrent bettors of the HTTP runs (one server process: 100 at once only queue there; the
#: 100-bettor confirm figure is the storage's, above).
HTTP_CONCURRENCY = 32
THREADS = 16
CONCURRENT_BETTORS = 100
CONFIRMS_EACH = 20
OP, TABLE = "operator-bench", "tbl_benchbetbehind01"
REF_KEY = b"\x07" * 32
OPENED, CLOSES = "2026-01-01T00:00:00.000Z", "2099-01-01T00:00:00.000Z"
NOW = "2026-01-01T00:00:05.000Z"
#: Assumed billed time of one confirm in Lambda (ms): its 2 DynamoDB calls and our own work.
CONFIRM_MS = 20.0
SQS_REQUEST = 0.40 / 1e6
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


class Units:
    """DynamoDB consumed capacity (read, write) by phase, from botocore's event hooks."""

    def __init__(self) -> None:
        self.phase = "setup"
        self.by_phase: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def register(self, client: Any) -> Any:
        def params(params: dict[str, Any], model: Any, **_: Any) -> None:
            if model.name not in ("DescribeTable", "ListTables", "CreateTable"):
                params["ReturnConsumedCapacity"] = "TOTAL"

        def parsed(parsed: dict[str, Any], model: Any, **_: Any) -> None:
            consumed = parsed.get("ConsumedCapacity")
            if not consumed:
                return
            total = sum(
                float(c.get("CapacityUnits", 0))
                for c in (consumed if isinstance(consumed, list) else [consumed])
            )
            with self._lock:
                units = self.by_phase.setdefault(self.phase, [0.0, 0.0])
                units[1 if model.name in WRITES else 0] += total

        client.meta.events.register("before-parameter-build.dynamodb", params)
        client.meta.events.register("after-call.dynamodb", parsed)
        return client

    def take(self, phase: str) -> tuple[float, float]:
        read, write = self.by_phase.pop(phase, [0.0, 0.0])
        return read, write


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def in_pool(fn: Callable[[Any], Any], items: Sequence[Any], workers: int = THREADS) -> list[Any]:
    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


def random_lines(rng: random.Random) -> list[dict[str, Any]]:
    """1–13 lines of the bid-squeeze-standard tier, near each type's minimum."""
    from baccarat.paytables import BID_SQUEEZE_BETS

    types = rng.sample(sorted(t.value for t in BID_SQUEEZE_BETS), rng.randint(1, 13))
    return [{"type": t, "amount": 100 * rng.randint(10, 30)} for t in types]


class Bench:
    """The book's storage on DynamoDB Local, one round per book size."""

    def __init__(self, factory: Callable[[], Any], tables: dict[str, str]) -> None:
        from baccarat_api.adapters.dynamodb.book import DynamoBookStore
        from baccarat_api.adapters.dynamodb.chunks import DynamoChunkStore

        self.units = Units()
        self.local = threading.local()
        self.factory, self.tables = factory, tables
        self.book_cls, self.chunks_cls = DynamoBookStore, DynamoChunkStore
        self.book = self.store()
        self.chunks = DynamoChunkStore(
            self.units.register(factory()), tables["StateTable"], tables["ConfigTable"]
        )

    def store(self) -> Any:
        """A book store of this thread (a boto3 client each, its units counted)."""
        if not hasattr(self.local, "book"):
            client = self.units.register(self.factory())
            self.local.book = self.book_cls(
                client, self.tables["StateTable"], self.tables["ConfigTable"]
            )
        return self.local.book

    def warm(self) -> None:
        """One empty window opened and locked first (the first transaction of a run is slow)."""
        for k in range(3):
            self.book.open_window(OP, f"{TABLE}warm_s1_r{k + 1}", OPENED, CLOSES)
            self.book.lock(OP, f"{TABLE}warm_s1_r{k + 1}", OPENED)
        self.units.take("setup")

    def size(self, n: int, rng: random.Random) -> dict[str, Any]:
        """One round of ``n`` slips through every stored step; its figures."""
        from baccarat import booktree
        from baccarat.bookmoney import BookTotals, slip_doc, slip_settlement
        from baccarat.proofdoc import bettor_ref
        from baccarat_api.ports.book import Line, Slip, Spectator, whole_book
        from baccarat_api.ports.chunks import Leaf

        table = f"{TABLE}{n}"
        round_id = f"{table}_s1_r1"
        ids = [f"b{n}-{i:05d}" for i in range(n)]
        refs = {b: bettor_ref(REF_KEY, table, b) for b in ids}
        lines = {b: random_lines(rng) for b in ids}
        fig: dict[str, Any] = {"n": n, "lines": sum(len(v) for v in lines.values())}

        self.units.phase = f"join{n}"
        t0 = time.perf_counter()
        in_pool(
            lambda b: self.store().join_spectator(
                OP, table, Spectator(b, refs[b], 10_000_000, OPENED)
            ),
            ids,
        )
        fig["join_s"] = time.perf_counter() - t0
        fig["join_units"] = self.units.take(f"join{n}")
        self.book.open_window(OP, round_id, OPENED, CLOSES)

        self.units.phase = f"confirm{n}"
        t0 = time.perf_counter()

        def confirm(b: str) -> float:
            slip = Slip(b, refs[b], tuple(Line(x["type"], x["amount"]) for x in lines[b]), NOW, 1)
            t = time.perf_counter()
            self.store().confirm_slip(OP, table, round_id, OPENED, slip, NOW)
            return time.perf_counter() - t

        fig["confirm_each"] = in_pool(confirm, ids)
        fig["confirm_s"] = time.perf_counter() - t0
        fig["confirm_units"] = self.units.take(f"confirm{n}")

        empty = []  # the same moment's lock of an empty book (the machine's noise beside it)
        for k in range(3):
            self.book.open_window(OP, f"{round_id}{k}", OPENED, CLOSES)
            t0 = time.perf_counter()
            self.book.lock(OP, f"{round_id}{k}", OPENED)
            empty.append(1e3 * (time.perf_counter() - t0))
        fig["lock_empty_ms"] = statistics.median(empty)
        self.units.take(f"confirm{n}")
        self.units.phase = f"lock{n}"
        t0 = time.perf_counter()
        self.book.lock(OP, round_id, OPENED)
        fig["lock_ms"] = 1e3 * (time.perf_counter() - t0)
        fig["lock_units"] = self.units.take(f"lock{n}")

        # the deal's work: the locked book, leaves, root, money, totals, the leaves stored
        self.units.phase = f"deal{n}"
        t0 = time.perf_counter()
        slips = whole_book(self.book, OP, round_id)
        fig["read_ms"] = 1e3 * (time.perf_counter() - t0)
        t1 = time.perf_counter()
        docs = [
            booktree.leaf_doc(
                round_id,
                s.bettor_ref,
                "spectator",
                [{"type": x.type, "amount": x.amount} for x in s.lines],
            )
            for s in slips
        ]
        leaves = [
            booktree.leaf_bytes(round_id, d["bettor_ref"], "spectator", d["lines"]) for d in docs
        ]
        root = booktree.root(leaves)
        config, facts = _table_and_round(rng)
        totals = BookTotals()
        settled = []
        for d in docs:
            s = slip_settlement(config, facts, d["lines"])
            totals.add(s)
            settled.append(slip_doc(s))
        fig["compute_ms"] = 1e3 * (time.perf_counter() - t1)
        t1 = time.perf_counter()
        self.chunks.put_leaves(
            OP,
            round_id,
            [
                Leaf(d["bettor_ref"], booktree.leaf_hash(b))
                for d, b in zip(docs, leaves, strict=True)
            ],
        )
        fig["leaves_ms"] = 1e3 * (time.perf_counter() - t1)
        fig["deal_s"] = time.perf_counter() - t0
        fig["deal_units"] = self.units.take(f"deal{n}")
        fig["count"], fig["root"] = len(slips), root.hex()
        assert len(slips) == n and totals.net + totals.as_dict()["house"]["take"] == 0

        # the public book pages: every entry as the settlement writes it (leaf + settlement)
        pages = _book_pages(round_id, root.hex(), docs, settled)
        fig["book_pages"] = len(pages)
        fig["book_bytes"] = sum(pages)
        return fig


def _table_and_round(rng: random.Random) -> tuple[Any, Any]:
    """The bid-squeeze-standard house table and a round dealt from a shuffled 8-deck shoe."""
    import json

    from baccarat.outcome import deal_round
    from baccarat.profiles import TableConfig

    tier = next(
        t
        for t in json.loads((ROOT / "infra" / "tiers.json").read_text())["tiers"]
        if t["id"] == "bid-squeeze-standard"
    )
    config = TableConfig.from_dict({"profile": "bid-squeeze", "tier": tier, "banking": "house"})
    cards = list(range(416))
    rng.shuffle(cards)
    return config, deal_round(cards, 0)


def _book_pages(
    round_id: str, root: str, docs: list[dict[str, Any]], settled: list[dict[str, Any]]
) -> list[int]:
    """The bytes of each public page (100 entries) as JSON."""
    import json

    size = 100
    count = max(1, -(-len(docs) // size))
    out = []
    for k in range(count):
        entries = [
            {"leaf": d, "settlement": s}
            for d, s in zip(
                docs[k * size : (k + 1) * size], settled[k * size : (k + 1) * size], strict=True
            )
        ]
        page = {
            "spec": "bacc-book-v1",
            "shoe_id": round_id.rsplit("_", 1)[0],
            "round_number": 1,
            "root": root,
            "count": len(docs),
            "page": {"number": k, "count": count, "next": k + 1 if k + 1 < count else None},
            "entries": entries,
        }
        out.append(len(json.dumps(page, separators=(",", ":"), ensure_ascii=False).encode()))
    return out


def confirm_under_load(bench: Bench, rng: random.Random) -> list[float]:
    """100 concurrent bettors, each confirming CONFIRMS_EACH slips in turn (a new slip replaces
    its last): every confirm's seconds."""
    from baccarat.proofdoc import bettor_ref
    from baccarat_api.ports.book import Line, Slip, Spectator

    table = f"{TABLE}load"
    round_id = f"{table}_s1_r1"
    ids = [f"load-{i:03d}" for i in range(CONCURRENT_BETTORS)]
    refs = {b: bettor_ref(REF_KEY, table, b) for b in ids}
    in_pool(
        lambda b: bench.store().join_spectator(
            OP, table, Spectator(b, refs[b], 10_000_000, OPENED)
        ),
        ids,
    )
    bench.book.open_window(OP, round_id, OPENED, CLOSES)
    slips = {b: [random_lines(rng) for _ in range(CONFIRMS_EACH)] for b in ids}

    def bettor(b: str) -> list[float]:
        out = []
        for lines in slips[b]:
            slip = Slip(b, refs[b], tuple(Line(x["type"], x["amount"]) for x in lines), NOW, 1)
            t0 = time.perf_counter()
            bench.store().confirm_slip(OP, table, round_id, OPENED, slip, NOW)
            out.append(time.perf_counter() - t0)
        return out

    return [s for each in in_pool(bettor, ids, CONCURRENT_BETTORS) for s in each]


def rechunk(
    tables: dict[str, str], url: str, round_id: str, workers: int, units: Units
) -> float | str:
    """Seconds for ``workers`` threads to run every settlement chunk of the round again with the
    fan-out's own code (read the leaves and slips, settle, build the receipts and pages, write
    them: a redelivery, which writes the same bytes), on the server's tables; or why not."""
    try:
        from baccarat_api.service.settle_chunks import chunk_out
    except ImportError:
        return "n/a: the settlement fan-out (service/settle_chunks.py) is not on this branch"
    import boto3

    from baccarat_api.adapters.dynamodb.repository import DynamoRepository
    from baccarat_api.ids import parse_round_id
    from baccarat_dev.local import DEMO_OPERATOR

    ref = parse_round_id(round_id)
    assert ref is not None
    local = threading.local()

    def repo() -> Any:
        if not hasattr(local, "repo"):
            client = units.register(
                boto3.client(
                    "dynamodb",
                    endpoint_url=url,
                    region_name="us-east-1",
                    aws_access_key_id="local",
                    aws_secret_access_key="local",
                )
            )
            local.repo = DynamoRepository(client, tables["StateTable"], tables["ConfigTable"])
        return local.repo

    r = repo().get_round(DEMO_OPERATOR, ref)
    if r is None or r.book is None:
        return "n/a: no book on the round"
    units.phase = f"chunks{workers}"

    def chunk(k: int) -> None:
        out = chunk_out(repo(), r, k)
        repo().chunks.put_chunk(DEMO_OPERATOR, ref, out)

    t0 = time.perf_counter()
    in_pool(chunk, range(int(r.book["chunks"])), workers)
    return time.perf_counter() - t0


def over_http() -> tuple[list[dict[str, Any]], list[str]]:
    """examples/bet_behind.py over HTTP at HTTP_SIZES, then a 10,000-spectator round (receipts
    not fetched); each round's chunks run again in process with 1 and 4 workers; the API
    process's RSS sampled every second across it all."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "examples"))
    import bet_behind as example
    from play_shoe import Client

    from tests.support.local_server import descendants, local_server

    from .dynamodb_engines import rss_mib

    runs: list[dict[str, Any]] = []
    notes: list[str] = []
    env = {"BACCARAT_SWEEP_SECONDS": "0", "RATE_LIMIT_PER_SECOND": "0"}
    sizes = [int(x) for x in os.environ.get("BET_BEHIND_HTTP", "").split(",") if x.strip()]
    with local_server(env) as server:  # its own DynamoDB Local, as make run starts it
        api = next(
            (pid for pid, a in descendants(server.proc.pid).items() if "baccarat_dev.local" in a),
            server.proc.pid,
        )
        rss: list[float] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                rss.append(rss_mib(api))
                stop.wait(1.0)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            for n in sizes or (*HTTP_SIZES, BIG):
                client = Client(server.url, server.key, timeout=120, attempts=8)
                try:
                    if n == BIG:  # its receipts would be 10,000 more requests: not fetched
                        out = big_round(example, client, n)
                    else:
                        out = example.run(
                            client,
                            spectators=n,
                            seed=n,
                            workers=HTTP_CONCURRENCY,
                            log=lambda line: None,
                        )
                except Exception as exc:  # a piece not there yet: said, the rest still runs
                    notes.append(f"over HTTP at {n:,}: FAILED {type(exc).__name__}: {exc}")
                    break
                finally:
                    client.close()
                units = Units()
                out["rechunk"] = {
                    w: rechunk(server.tables, server.dynamodb_url, out["round_id"], w, units)
                    for w in (1, 4)
                }
                out["chunk_units"] = units.take("chunks1")
                runs.append(out)
        finally:
            stop.set()
            sampler.join(timeout=5)
        if rss:
            flat = (max(rss) - rss[0]) / rss[0]
            notes.append(
                f"API process RSS across the HTTP runs ({len(rss)} samples, 1 s apart): "
                f"first {rss[0]:.0f} MiB, max {max(rss):.0f} MiB, last {rss[-1]:.0f} MiB "
                f"(max − first = {100 * flat:.1f} % of first)"
            )
    return runs, notes


def big_round(example: Any, client: Any, n: int) -> dict[str, Any]:
    """The example's round at ``n`` spectators without fetching receipts; the shoe closed and
    its proof's bytes and book pages read."""
    api = example.Counting(client)
    began = time.perf_counter()
    played = example.play(
        api,
        spectators=n,
        rng=random.Random(n),
        workers=HTTP_CONCURRENCY,
        log=lambda line: None,
        receipts=False,
    )
    shoe_id = played["shoe"]["shoe_id"]
    api.post(f"/v1/shoes/{shoe_id}/close")
    proof = example.proof_of(api, shoe_id)
    took = time.perf_counter() - began
    book = next(r for p in proof for r in p["rounds"] if r["round_number"] == 1)["book"]
    confirms = api.confirm_seconds
    return {
        "spectators": n,
        "round_id": played["dealt"]["round_id"],
        "seconds": {**played["seconds"], "total": took},
        "requests_total": sum(api.requests.values()),
        "confirm_ms": {"p50": 1e3 * pct(confirms, 50), "p99": 1e3 * pct(confirms, 99)},
        "proof_bytes": sum(len(json.dumps(p, separators=(",", ":")).encode()) for p in proof),
        "proof_pages": len(proof),
        "book_pages": book["pages"],
        "book_bytes": 0,
        "problems": ["receipts not fetched nor checked at this size"],
    }


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of log y against log x (1: linear growth)."""
    lx, ly = [math.log10(x) for x in xs], [math.log10(max(y, 1e-12)) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def plot(xs: Sequence[int], seconds: Sequence[float], cost: Sequence[float]) -> str:
    """benchmarks/out/bet_behind.svg (matplotlib, as make rng-report's plots), or why not."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot: skipped (matplotlib not installed: pip install -e '.[rng]')"
    OUT.mkdir(exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.loglog(xs, seconds, "o-", label=f"seconds per round (slope {slope(xs, seconds):.2f})")
    ax.loglog(
        xs,
        [c * 1e3 for c in cost],
        "s--",
        label=f"cost per round, milli-USD (slope {slope(xs, cost):.2f})",
    )
    ax.set_xlabel("bettors in the round's book")
    ax.set_title("Bet behind on DynamoDB Local: time and cost against bettors")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = OUT / "bet_behind.svg"
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    return f"plot: {path.relative_to(ROOT)}"


def cost_per_round(fig: dict[str, Any]) -> float:
    """USD of one round of ``n`` bettor-rounds: the units measured (join excluded: presence is
    not per round), an HTTP request and a Lambda invocation per confirm (CONFIRM_MS assumed)."""
    n = fig["n"]
    chunks = fig.get("chunk_units", (0.0, 0.0))
    read = fig["confirm_units"][0] + fig["lock_units"][0] + fig["deal_units"][0] + chunks[0]
    write = fig["confirm_units"][1] + fig["lock_units"][1] + fig["deal_units"][1] + chunks[1]
    dollars = (
        read * PRICES["dynamodb_read_request_unit"] + write * PRICES["dynamodb_write_request_unit"]
    )
    per_request = (
        PRICES["http_api_request"]
        + PRICES["lambda_request"]
        + CONFIRM_MS / 1e3 * memory_gb() * PRICES["lambda_gb_second_arm64"]
    )
    return dollars + n * per_request


def report(figs: list[dict[str, Any]], load: list[float]) -> list[str]:
    lines = [
        "size    lines  join s  confirm s  lock ms  read ms  compute ms  leaves ms  "
        "book pages  book bytes   WRU/slip  RRU/slip"
    ]
    for f in figs:
        n = f["n"]
        wru = (f["confirm_units"][1] + f["lock_units"][1] + f["deal_units"][1]) / n
        rru = (f["confirm_units"][0] + f["lock_units"][0] + f["deal_units"][0]) / n
        lines.append(
            f"{n:>6} {f['lines']:>6} {f['join_s']:>7.2f} {f['confirm_s']:>10.2f} "
            f"{f['lock_ms']:>8.1f} {f['read_ms']:>8.1f} {f['compute_ms']:>11.1f} "
            f"{f['leaves_ms']:>10.1f} {f['book_pages']:>11} {f['book_bytes']:>11,} "
            f"{wru:>10.2f} {rru:>9.2f}"
        )
    lines.append(
        "the lock (one transaction over the 32 window shards), ms with the book vs an empty "
        "book's lock just before (median of 3): "
        + ", ".join(f"{f['n']:,}: {f['lock_ms']:.1f} vs {f['lock_empty_ms']:.1f}" for f in figs)
    )
    big = figs[-1]
    each = big["confirm_each"]
    lines.append(
        f"confirm (the 3-action transaction, {THREADS} threads, {big['n']:,} slips): "
        f"p50 {1e3 * pct(each, 50):.1f} ms, p99 {1e3 * pct(each, 99):.1f} ms"
    )
    lines.append(
        f"confirm under {CONCURRENT_BETTORS} concurrent bettors ({len(load):,} slips): "
        f"p50 {1e3 * pct(load, 50):.1f} ms, p99 {1e3 * pct(load, 99):.1f} ms"
    )
    per_k = {f["n"]: 1e3 * cost_per_round(f) / f["n"] for f in figs}
    lines.append(
        "cost per 1,000 bettor-rounds without the settlement chunks (the units measured for "
        "confirms, lock and deal; an HTTP request and a Lambda call per confirm): "
        + ", ".join(f"{n:,}: ${c:.4f}" for n, c in per_k.items())
    )
    return lines


def run() -> list[str]:
    from baccarat_dev.dynamodb_local import DynamoDBLocal
    from baccarat_dev.template import create_tables, table_definitions

    started = time.perf_counter()
    lines = ["## bet behind at scale — DynamoDB Local (figures of this machine, not asserted)"]
    engine = DynamoDBLocal()
    engine.start()
    try:
        import boto3

        def factory() -> Any:
            return boto3.client("dynamodb", **engine.client_kwargs())

        names = {k: f"{k}-bb{uuid.uuid4().hex[:6]}" for k in table_definitions()}
        create_tables(factory(), names, pitr=False)
        bench = Bench(factory, names)
        bench.warm()
        rng = random.Random(26)
        figs = [bench.size(n, rng) for n in SIZES]
        load = confirm_under_load(bench, rng)
        lines += report(figs, load)
        runs, notes = over_http()
        if runs:
            lines.append(
                "over HTTP (examples/bet_behind.py on make run's server and its own DynamoDB "
                f"Local, 7 seated + N spectators, {HTTP_CONCURRENCY} concurrent):"
            )
        for r in runs:
            s = r["seconds"]
            lines.append(
                f"  {r['spectators']:>6,}: {s['total']:.1f} s, {r['requests_total']:,} "
                f"requests, confirm p50 {r['confirm_ms']['p50']:.1f} ms p99 "
                f"{r['confirm_ms']['p99']:.1f} ms, proof {r['proof_bytes']:,} B "
                f"({r['proof_pages']} page), book pages {r['book_pages']} "
                f"({r['book_bytes']:,} B), problems {len(r['problems'])}"
            )
            one, four = r["rechunk"][1], r["rechunk"][4]
            n = r["spectators"]
            if isinstance(one, str) or isinstance(four, str):
                lines.append(
                    f"          settlement chunks: {one if isinstance(one, str) else four}"
                )
                continue
            wru, rru = r["chunk_units"][1] / n, r["chunk_units"][0] / n
            lines.append(
                f"          settlement chunks run again in process (the fan-out's code): 1 worker "
                f"{one:.2f} s = {n / one:,.0f} slips/s per worker; 4 workers {four:.2f} s "
                f"({n / four:,.0f} slips/s); {wru:.2f} WRU + {rru:.2f} RRU per slip"
            )
            for f in figs:
                if f["n"] == n:
                    f["chunk_units"], f["chunk_s"] = r["chunk_units"], four
        lines += notes
        per_k = {f["n"]: 1e3 * cost_per_round(f) / f["n"] for f in figs if "chunk_units" in f}
        if per_k:
            lines.append(
                "cost per 1,000 bettor-rounds with the settlement chunks: "
                + ", ".join(f"{n:,}: ${c:.4f}" for n, c in per_k.items())
            )
        xs = [f["n"] for f in figs]
        secs = [
            f["confirm_s"] + f["lock_ms"] / 1e3 + f["deal_s"] + f.get("chunk_s", 0.0) for f in figs
        ]
        costs = [cost_per_round(f) for f in figs]
        lines.append(
            f"growth, log-log slope over {xs[0]}–{xs[-1]:,} bettors: time per round "
            f"(confirms + lock + deal + chunks with 4 workers where measured) "
            f"{slope(xs, secs):.2f}, cost per round "
            f"{slope(xs, costs):.2f} (1 = linear)"
        )
        lines.append(plot(xs, secs, costs))
        lines.append("deployed only: aws_confirm_conflicts n/a, aws_settle_seconds n/a (local run)")
    finally:
        engine.stop()
    lines.append(f"[bet behind: {time.perf_counter() - started:.0f} s]")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
