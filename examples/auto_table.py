"""``play_shoe.py --auto``: running tables (``"dealing": "auto"``) played by their bettors alone.

Two tables are created running, with short timings: a star-city player-banker table and a
bid-squeeze table. Each is given its client seeds in advance (``POST …/client-seeds``: the first
makes the table commit shoe 1 itself, the next is queued for shoe 2) and its company is seated
(star-city: the player-banker and two bettors; bid-squeeze: two seated bettors). From then on
nobody drives the tables: the bettors follow each table's feed (``GET …/events?after=``) and,
when they see ``betting_opened``, alice and bob confirm their slips (``PUT …/bets/{bettor}``);
alice opens the hands she squeezes (``POST /v1/rounds/{id}/reveal``), bob never does (the system
opens his at their ``reveal_by``). The table closes each window, deals, reveals, settles, pauses
and opens the next window by itself, and commits shoe 2 with the seed given in advance.

Every request is counted by who would make it: the operator (anything but a slip, a reveal or a
read), a bettor (slips, reveals) or a reader (GETs). The operator's requests between the first
window and the end must be 0. Each time-driven event's ``at`` is checked against its deadline
(``closes_at``, a system reveal's ``revealed_at``, the moment the round's last card was shown,
the resolution + ``pause_seconds``, the previous shoe's last settlement) and its lateness
printed as p50 / p99 / max per step. At the end each table is paused, the bid-squeeze shoe
closed if it was cut short with ``--rounds``, and every ended shoe's proof fetched and verified
like a third party would."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from baccarat.verify import verify
from baccarat_verify import es256

#: The bettors' balances at the running tables.
AUTO_BALANCE = 5_000_000


def slips_for(round_number: int) -> dict[str, list[tuple[str, int]]]:
    """What alice and bob confirm in a round: alice Banker, bob Player — bob's stake the larger
    in odd rounds, so the cards are his to squeeze then (and, since he never does, the system's
    to open at their ``reveal_by``)."""
    return {"alice": [("banker", 2000)], "bob": [("player", 3000 if round_number % 2 else 1000)]}


#: Who squeezes: alice opens her hands; bob never does.
SQUEEZER, NEVER_SQUEEZES = "alice", "bob"
#: The steps a time-driven event belongs to, for the lateness figures.
STEPS = ("close", "reveal", "settle", "open", "commit")
#: A reveal refused because it cannot happen now (opened already, out of order, past due, no
#: third cards, or a hand of someone else): the system or a later poll takes care of it.
NOT_NOW = (
    "already_revealed",
    "reveal_out_of_order",
    "reveal_deadline_passed",
    "no_draws",
    "not_squeezer",
    "round_voided",
    "round_settled",
)


def epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def percentile(values: list[float], p: float) -> float:
    """The ``p`` percentile by nearest rank (0 of nothing)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


class Counted:
    """The example's client with every request counted by who makes it (``operator``,
    ``bettor``, ``reader``) and in which phase (``setup``, ``play``, ``end``)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.phase = "setup"
        self.counts: dict[str, dict[str, int]] = {}

    def request(self, method: str, path: str, body: Any = None) -> Any:
        if method == "GET":
            who = "reader"
        elif (path.startswith("/v1/rounds/") and path.endswith("/reveal")) or "/bets/" in path:
            who = "bettor"
        else:
            who = "operator"
        phase = self.counts.setdefault(self.phase, {})
        phase[who] = phase.get(who, 0) + 1
        return self.client.request(method, path, body)

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, body)


@dataclass
class Running:
    """One running table as its bettors see it: its feed, its rounds, what they did."""

    api: Counted
    name: str
    body: dict[str, Any]
    company: list[tuple[str, dict[str, Any]]]
    rounds_wanted: int | None
    log: Any
    id: str = ""
    seq: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    round_number: int = 0
    rounds_dealt: int = 0
    shoe_of_window: str = ""
    slips: int = 0
    slips_missed: int = 0
    revealed_by: dict[str, int] = field(default_factory=dict)
    system_for: dict[str, int] = field(default_factory=dict)
    squeezers: dict[str, dict[str, dict[str, str | None]]] = field(default_factory=dict)
    open_round: str | None = None
    seeds: list[str] = field(default_factory=list)
    close_then_next: bool = False  # after rounds_wanted: close the shoe, play to shoe 2's commit
    closing: bool = False
    look: bool = False
    stopping: bool = False

    @property
    def path(self) -> str:
        return f"/v1/tables/{self.id}"

    def create(self, seeds: list[str]) -> None:
        """The table (running) and its first client seed: it commits shoe 1 itself once its
        company is seated (:meth:`seat`)."""
        self.id = self.api.post("/v1/tables", self.body)["table_id"]
        self.log(f"{self.name}: table {self.id} running ({self.body})")
        self.api.post(f"{self.path}/client-seeds", {"client_seed": seeds[0]})
        self.seeds = seeds[1:]

    def seat(self) -> None:
        """The company sits down: the table commits shoe 1 and opens its first window by
        itself; the next seeds are given once shoe 1 is committed (in advance of shoe 2)."""
        for route, body in self.company:
            self.api.request("PUT", f"{self.path}{route}", body)
        self.wait_for("shoe_committed")
        for e in self.events:  # what the bettors missed while waiting
            self.on_event(e)
        for seed in self.seeds:
            given = self.api.post(f"{self.path}/client-seeds", {"client_seed": seed})
            self.log(f"{self.name}: client seed for shoe {given['for_shoe_number']} given")

    def wait_for(self, kind: str, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while not any(e["type"] == kind for e in self.events):
            if time.monotonic() > end:
                raise TimeoutError(f"{self.name}: no {kind} within {timeout} s")
            self.follow()
            time.sleep(0.05)

    def follow(self) -> list[dict[str, Any]]:
        new: list[dict[str, Any]] = []
        more = True
        while more:
            page = self.api.get(f"{self.path}/events?after={self.seq}&limit=100")
            for e in page["events"]:
                assert e["seq"] == self.seq + 1, f"gap before {e['seq']}"
                self.seq = e["seq"]
                new.append(e)
            more = page["more"]
        self.events += new
        return new

    def step(self) -> None:
        """One poll of the feed and what the bettors do about it."""
        for e in self.follow():
            self.on_event(e)
        if self.look and self.open_round is not None:
            self.look = False
            self.squeeze()

    def on_event(self, e: dict[str, Any]) -> None:
        kind, data = e["type"], e["data"]
        if kind == "betting_opened" and not self.stopping:
            self.round_number, self.shoe_of_window = data["round_number"], data["shoe_id"]
            for bettor, bets in slips_for(self.round_number).items():
                self.slip(bettor, bets)
        elif kind == "round_dealt":
            self.rounds_dealt += 1
            self.open_round, self.look = data["round_id"], True
            if self.rounds_wanted is not None and self.rounds_dealt >= self.rounds_wanted:
                if self.close_then_next:  # the shoe ends after this round: shoe 2 follows
                    self.rounds_wanted, self.closing = None, True
                else:
                    self.stop()
        elif kind in ("round_settled", "round_voided"):
            self.open_round = None
            if self.closing:  # (once every card is shown)
                self.closing = False
                self.aside(f"/v1/shoes/{self.shoe_of_window}/close")
            self.log(f"{self.name}: {kind} {data['round_id']} nets {data.get('nets')}")
        elif kind == "squeeze_revealed":
            self.reveal_seen(data)
            self.look = True  # the next step may count down now
        elif kind == "shoe_committed":
            self.log(f"{self.name}: shoe {data['shoe_number']} committed by the table")
            if data["shoe_number"] == 2 and self.rounds_wanted is None:
                self.stop()

    def slip(self, bettor: str, bets: list[tuple[str, int]]) -> None:
        body = {
            "bets": [{"type": k, "amount": a} for k, a in bets],
            "round_number": self.round_number,
        }
        try:
            self.api.request("PUT", f"{self.path}/bets/{bettor}", body)
            self.slips += 1
        except Exception as exc:  # the window closed before the slip arrived: the round goes on
            if getattr(exc, "error", {}).get("code") not in ("betting_closed", "round_mismatch"):
                raise
            self.slips_missed += 1

    def squeeze(self, round_id: str | None = None) -> None:
        """alice opens every step of the round she squeezes that is counting down (bob never
        does); the round's squeezers noted."""
        round_id = round_id or self.open_round
        if round_id is None:
            return
        state = self.api.get(f"{self.path}/state")
        rnd = state.get("round") or {}
        if rnd.get("round_id") != round_id:
            return
        steps = (rnd.get("squeeze") or {}).get("steps") or {}
        plan = self.squeezers.setdefault(round_id, {})
        for step, s in steps.items():
            plan[step] = {h: v.get("squeezer") for h, v in s["hands"].items()}
            mine = [h for h, v in s["hands"].items() if v.get("squeezer") == SQUEEZER]
            if (
                s["status"] != "squeezing"
                or not mine
                or any(s["hands"][h].get("opened") for h in mine)
            ):
                continue
            try:
                self.api.post(
                    f"/v1/rounds/{round_id}/reveal", {"bettor_id": SQUEEZER, "step": step}
                )
            except Exception as exc:
                if getattr(exc, "error", {}).get("code") not in NOT_NOW:
                    raise

    def reveal_seen(self, data: dict[str, Any]) -> None:
        by = data["by"]
        if by != "system":
            self.revealed_by[by] = self.revealed_by.get(by, 0) + 1
            return
        if data["step"] not in self.squeezers.get(data["round_id"], {}):
            self.squeeze(
                data["round_id"]
            )  # read the plan of the step (the state shows the round's squeezers)
        plan = self.squeezers.get(data["round_id"], {}).get(data["step"], {})
        for hand in data.get("hands") or []:
            whose = plan.get(hand) or "nobody"
            self.system_for[whose] = self.system_for.get(whose, 0) + 1

    def stop(self) -> None:
        """Enough played: pause the table (the round in flight finishes; no new window) — an
        operator request, counted as the end's, not a round's."""
        self.stopping = True
        self.aside(f"{self.path}/pause")

    def aside(self, path: str) -> None:
        """An operator request that ends a shoe or the play, counted as the end's (not a
        round's)."""
        phase, self.api.phase = self.api.phase, "end"
        try:
            self.api.post(path)
        finally:
            self.api.phase = phase

    def finish(self) -> None:
        """Wait for the round in flight to resolve; a shoe cut short is closed."""
        end = time.monotonic() + 60
        while self.open_round is not None and time.monotonic() < end:
            self.step()
            time.sleep(0.05)
        state = self.api.get(f"{self.path}/state")
        shoe = state.get("shoe") or {}
        if shoe.get("status") == "open" and self.rounds_wanted is not None:
            self.api.post(f"/v1/shoes/{shoe['shoe_id']}/close")
        self.follow()


def lateness(events: list[dict[str, Any]], pause: int) -> dict[str, list[float]]:
    """Seconds from each time-driven event's deadline to its ``at``, by step."""
    out: dict[str, list[float]] = {s: [] for s in STEPS}
    closes_at = shown = resolved = last_settled = ended = None
    for e in events:
        kind, data, at = e["type"], e["data"], epoch(e["at"])
        if kind == "betting_opened":
            if resolved is not None:
                out["open"].append(at - resolved)
            closes_at = epoch(data["closes_at"])
        elif kind == "betting_closed" and closes_at is not None:
            out["close"].append(at - closes_at)
        elif kind == "round_dealt":
            shown = closes_at if closes_at is not None else at
        elif kind == "squeeze_revealed":
            revealed = epoch(data["revealed_at"])
            if data["by"] == "system":
                out["reveal"].append(at - revealed)
            shown = max(shown or revealed, revealed)
        elif kind == "round_settled":
            if shown is not None:
                out["settle"].append(at - shown)
            resolved = at + pause  # the next window is due then (a shoe's first: at its commit)
            last_settled = at
        elif kind == "shoe_ended":
            ended = at
        elif kind == "shoe_committed" and last_settled is not None and ended is not None:
            out["commit"].append(at - max(last_settled, ended))  # due once the shoe ended and
            resolved = at  # its last round was resolved; its first window: at the commit
    return out


def play_auto(
    client: Any,
    *,
    client_seed: str,
    betting_seconds: int,
    squeeze_seconds: int,
    pause_seconds: int,
    rounds: int | None,
    log: Any,
) -> dict[str, Any]:
    """Both running tables played to the end (see the module's docstring); the summary."""
    api = Counted(client)
    timings = {
        "dealing": "auto",
        "betting_seconds": betting_seconds,
        "squeeze_seconds": squeeze_seconds,
        "pause_seconds": pause_seconds,
    }
    seat = {"balance": AUTO_BALANCE}
    star = Running(
        api, "star-city",
        {"profile": "star-city", "tier": "star-city-fun", "banking": "player_banker", **timings},
        [("/banker", {"bettor_id": "banker-seat", "balance": 10_000_000}),
         ("/seats/1", {"bettor_id": "alice", **seat}), ("/seats/2", {"bettor_id": "bob", **seat})],
        None, log,
    )  # fmt: skip
    bid = Running(
        api, "bid-squeeze",
        {"profile": "bid-squeeze", "tier": "bid-squeeze-standard", "banking": "house", **timings},
        [("/seats/1", {"bettor_id": "alice", "level": 3, **seat}),
         ("/seats/2", {"bettor_id": "bob", "level": 3, **seat})],
        rounds, log,
    )  # fmt: skip
    tables = [star, bid]
    for t in tables:
        t.create([f"{client_seed}:{t.name}:1", f"{client_seed}:{t.name}:2"])
    for t in tables:
        t.seat()
    api.phase = "play"
    started = time.monotonic()
    while not all(t.stopping for t in tables):
        for t in tables:
            if not t.stopping:
                t.step()
        time.sleep(0.05)
    api.phase = "end"
    for t in tables:
        t.finish()
    played_seconds = time.monotonic() - started
    late: dict[str, list[float]] = {s: [] for s in STEPS}
    for t in tables:
        for s, values in lateness(t.events, pause_seconds).items():
            late[s] += values
    return {
        "tables": {t.name: table_summary(api, t) for t in tables},
        "requests": api.counts,
        "rounds": sum(t.rounds_dealt for t in tables),
        "operator_requests_per_round": api.counts.get("play", {}).get("operator", 0)
        / max(1, sum(t.rounds_dealt for t in tables)),
        "played_seconds": round(played_seconds, 1),
        "lateness_ms": {
            s: {
                "n": len(v),
                "p50": round(1000 * percentile(v, 50)),
                "p99": round(1000 * percentile(v, 99)),
                "max": round(1000 * max(v, default=0)),
            }
            for s, v in late.items()
        },
    }


def table_summary(api: Counted, t: Running) -> dict[str, Any]:
    """A table's figures and every ended shoe's proof verified."""
    committed = [e["data"] for e in t.events if e["type"] == "shoe_committed"]
    proofs = {}
    for c in committed:
        shoe = api.get(f"/v1/shoes/{c['shoe_id']}")
        if shoe.get("status") != "ended":
            continue
        pages = api.client.proof(c["shoe_id"])
        keys = api.get("/v1/signing-keys")
        verdict = verify(pages, keys=keys, signature_check=es256.check)
        in_proof = sum(len(p.get("rounds", [])) for p in pages)
        dealt = sum(
            1
            for e in t.events
            if e["type"] == "round_dealt" and e["data"]["shoe_id"] == c["shoe_id"]
        )
        proofs[c["shoe_id"]] = {
            "verified": verdict.ok,
            "verdict": verdict.line(),
            "rounds": in_proof,
            "consistent": in_proof == dealt,
            "committed_by": pages[0].get("committed_by"),
        }
    return {
        "table_id": t.id,
        "rounds": t.rounds_dealt,
        "slips": t.slips,
        "slips_missed": t.slips_missed,
        "shoes_committed": [c["shoe_number"] for c in committed],
        "revealed_by": t.revealed_by,
        "system_revealed_for": t.system_for,
        "types": sorted({e["type"] for e in t.events}),
        "events": len(t.events),
        "proofs": proofs,
    }
