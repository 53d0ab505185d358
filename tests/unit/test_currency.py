"""Currency: a tier is denominated in one currency, a table is its tier's,
every money answer says which (and its minor-unit exponent), the daily report never adds two
currencies, and what was stored before currencies existed reads as coins."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from iso4217 import Currency
from pydantic import ValidationError

from baccarat import currency
from baccarat.profiles import TableConfig, Tier, TierError, repo_tiers
from baccarat_api.ports.records import RoundRecord, TableRecord
from baccarat_api.service import presence, reading, reconciliation, table_state, tables
from baccarat_api.service.models import CreateTableRequest
from baccarat_api.service.settling import settle_round
from baccarat_api.service.views import table_view
from baccarat_api.service.voiding import void_round

from .conftest import TIERS, Game, star_city_bets
from .test_service import OP, code_of, deal

pytestmark = pytest.mark.unit


def test_the_accepted_iso_codes_carry_iso_4217s_own_exponents() -> None:
    """The short table is checked against the maintained ISO 4217 data package (a code ISO
    withdrew, e.g. BGN when Bulgaria joined the euro, fails here)."""
    for code, exponent in currency.ISO_EXPONENTS.items():
        assert code in Currency.__members__, f"{code} is not an ISO 4217 code"
        assert Currency[code].exponent == exponent, code
    assert currency.COIN not in Currency.__members__  # the play-money code is no currency
    assert currency.DEFAULT_EXPONENTS[currency.COIN] == 0
    assert {c: currency.default_exponent(c) for c in ("USD", "JPY", "KWD", "EUR")} == {
        "USD": 2,
        "JPY": 0,
        "KWD": 3,
        "EUR": 2,
    }


def fun_tier(**fields: Any) -> dict[str, Any]:
    doc = repo_tiers()["star-city-fun"].to_dict()
    doc.pop("currency"), doc.pop("minor_unit_exponent")
    return {**doc, **fields}


def test_a_tier_states_its_currency_coins_by_default() -> None:
    assert all((t.currency, t.minor_unit_exponent) == ("XCN", 0) for t in repo_tiers().values())
    old = Tier.from_dict(fun_tier())  # a tier stored before currencies: coins
    assert (old.currency, old.minor_unit_exponent) == ("XCN", 0)
    usd = Tier.from_dict(fun_tier(currency="USD"))
    assert (usd.currency, usd.minor_unit_exponent) == ("USD", 2)  # ISO's exponent by default
    mills = Tier.from_dict(fun_tier(currency="USD", minor_unit_exponent=3))
    assert mills.minor_unit_exponent == 3 and Tier.from_dict(mills.to_dict()) == mills
    assert mills.to_dict()["currency"] == "USD"
    for bad in ({"currency": "usd"}, {"currency": "ABC"}, {"currency": 840},
                {"minor_unit_exponent": 5}, {"minor_unit_exponent": -1},
                {"minor_unit_exponent": True}):  # fmt: skip
        with pytest.raises(TierError):
            Tier.from_dict(fun_tier(**bad))


class Tables:
    """A game whose tiers include a USD and a KWD copy of the fun tier."""

    def __init__(self) -> None:
        self.game = Game()
        from baccarat_api.jobs.seed import tier_docs

        extra = [
            fun_tier(id="star-city-usd", currency="USD"),
            fun_tier(id="star-city-kwd", currency="KWD"),
        ]
        self.game.repo.put_tiers(tier_docs(TIERS) + extra)

    def table(self, tier: str = "star-city-fun", **fields: Any) -> str:
        request = CreateTableRequest.model_validate(
            {
                "profile": "star-city",
                "tier": tier,
                "banking": "house",
                "squeeze_seconds": 0,
                **fields,
            }
        )
        return tables.create_table(self.game.repo, self.game.vault, OP, request).table_id

    def shoe(self, tier: str = "star-city-fun") -> str:
        g = self.game
        return tables.commit_shoe(g.repo, g.vault, OP, self.table(tier), "seed").shoe_id


def test_a_table_is_in_its_tiers_currency_and_refuses_another() -> None:
    t = Tables()
    repo = t.game.repo
    fun = reading.get_table(repo, OP, t.table())
    assert (fun.currency, fun.minor_unit_exponent) == ("XCN", 0)
    usd = reading.get_table(repo, OP, t.table("star-city-usd", currency="USD"))
    assert (usd.currency, usd.minor_unit_exponent) == ("USD", 2)
    kwd = reading.get_table(repo, OP, t.table("star-city-kwd", minor_unit_exponent=3))
    assert (kwd.currency, kwd.minor_unit_exponent) == ("KWD", 3)
    before = len(repo.items)
    for tier, fields, code in (
        ("star-city-fun", {"currency": "USD"}, "currency_mismatch"),
        ("star-city-usd", {"currency": "EUR"}, "currency_mismatch"),
        ("star-city-usd", {"minor_unit_exponent": 3}, "currency_mismatch"),
        ("star-city-usd", {"currency": "ABC"}, "unknown_currency"),
    ):
        assert code_of(lambda: t.table(tier, **fields)) == code, (tier, fields)  # noqa: B023
    assert len(repo.items) == before  # refused: nothing stored
    for bad in ({"currency": "usd"}, {"currency": "US"}, {"minor_unit_exponent": 5}):
        with pytest.raises(ValidationError):  # the schema: 400 invalid_request
            CreateTableRequest.model_validate(
                {"profile": "star-city", "tier": "star-city-usd", "banking": "house", **bad}
            )


def test_every_money_answer_says_the_tables_currency() -> None:
    t = Tables()
    g = t.game
    shoe_id = t.shoe("star-city-usd")
    want = ("USD", 2)
    dealt = [deal(g, shoe_id, star_city_bets())]
    settled = settle_round(g.repo, OP, dealt[0].round_id)
    dealt.append(deal(g, shoe_id, star_city_bets()))  # once the first is settled
    voided = void_round(g.repo, OP, dealt[1].round_id, reason="misdeal")
    assert all((d.currency, d.minor_unit_exponent) == want for d in dealt)
    for answer in (settled, voided):
        assert (answer.currency, answer.minor_unit_exponent) == want
    for d in dealt:
        read = reading.get_round(g.repo, OP, d.round_id)
        assert (read.currency, read.minor_unit_exponent) == want
        assert read.settlement is not None and read.settlement.currency == "USD"
    listed = reconciliation.list_rounds(g.repo, OP).rounds
    assert [(r.currency, r.minor_unit_exponent) for r in listed] == [want, want]
    # the table now, as a frontend draws it: its balances and slips are amounts too
    table_id = shoe_id.rsplit("_s", 1)[0]
    presence.take_seat(g.repo, OP, table_id, 1, "alice", 5000, None)
    now_state, _ = table_state.table_state(g.repo, OP, table_id)
    assert now_state.seats[1]["balance"] == 5000
    assert (now_state.currency, now_state.minor_unit_exponent) == want


def test_the_daily_report_totals_each_currency_apart() -> None:
    t = Tables()
    g = t.game
    by_table: dict[str, str] = {}
    for tier in ("star-city-fun", "star-city-usd", "star-city-usd", "star-city-kwd"):
        shoe_id = t.shoe(tier)
        for _ in range(3):
            settle_round(g.repo, OP, deal(g, shoe_id, star_city_bets()).round_id)
        by_table[shoe_id.rsplit("_s", 1)[0]] = tier
    report = reconciliation.daily_report(g.repo, OP, g.clock()[:10])
    units = [(x.currency, x.minor_unit_exponent) for x in report.totals]
    assert units == [("KWD", 3), ("USD", 2), ("XCN", 0)]
    for total in report.totals:
        rows = [r for r in report.tables if r.currency == total.currency]
        assert len(rows) == (2 if total.currency == "USD" else 1)
        for f in ("rounds", "settled", "staked", "paid", "collected", "commission", "house_take"):
            assert getattr(total, f) == sum(getattr(r, f) for r in rows), (total.currency, f)
        assert sum(total.nets.values()) + total.house_take == 0
    assert {r.table_id: r.currency for r in report.tables} == {
        table_id: {"star-city-fun": "XCN", "star-city-usd": "USD", "star-city-kwd": "KWD"}[tier]
        for table_id, tier in by_table.items()
    }


def _strip(config: dict[str, Any]) -> dict[str, Any]:
    tier = {k: v for k, v in config["tier"].items() if k not in ("currency", "minor_unit_exponent")}
    return {**config, "tier": tier}


def test_a_table_and_rounds_stored_before_currencies_read_as_coins(game: Game) -> None:
    """Items written before this change have no currency anywhere: they answer XCN, 0."""
    request = CreateTableRequest.model_validate(
        {"profile": "star-city", "tier": "star-city-fun", "banking": "house", "squeeze_seconds": 0}
    )
    table_id = tables.create_table(game.repo, game.vault, OP, request).table_id
    shoe_id = tables.commit_shoe(game.repo, game.vault, OP, table_id, "seed").shoe_id
    rid = deal(game, shoe_id, star_city_bets()).round_id
    for key, item in list(game.repo.items.items()):
        if isinstance(item, TableRecord | RoundRecord):
            game.repo.items[key] = dataclasses.replace(item, config=_strip(item.config))
    table = next(i for i in game.repo.items.values() if isinstance(i, TableRecord))
    assert "currency" not in table.config["tier"]
    assert TableConfig.from_dict(table.config).currency == "XCN"
    assert (table_view(table)["currency"], table_view(table)["minor_unit_exponent"]) == ("XCN", 0)
    settled = settle_round(game.repo, OP, rid)
    assert (settled.currency, settled.minor_unit_exponent) == ("XCN", 0)
    assert reading.get_round(game.repo, OP, rid).currency == "XCN"
    assert currency.of_config(_strip(table.config)) == {"currency": "XCN", "minor_unit_exponent": 0}
