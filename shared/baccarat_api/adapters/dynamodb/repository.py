"""The DynamoDB adapter of :class:`~baccarat_api.ports.repository.Repository`: keys in
:mod:`.keys`, items in :mod:`.codec`, errors in :mod:`.errors`, and one part per kind of data
(:mod:`.writes`, :mod:`.reads`, :mod:`.listings`, :mod:`.feed`, :mod:`.proofs`, :mod:`.config`,
:mod:`.chat`, :mod:`.lobby`,
on :mod:`.base`). The game-state writes are the port's own
(:class:`~baccarat_api.ports.writes.StateWrites`). One instance per warm container; every method
is exactly one DynamoDB call."""

from __future__ import annotations

from typing import Any

from baccarat_api.adapters.dynamodb.book import DynamoBookStore
from baccarat_api.adapters.dynamodb.chat import ChatStore
from baccarat_api.adapters.dynamodb.chunks import DynamoChunkStore
from baccarat_api.adapters.dynamodb.config import ConfigStore
from baccarat_api.adapters.dynamodb.feed import FeedReads
from baccarat_api.adapters.dynamodb.listings import Listings
from baccarat_api.adapters.dynamodb.lobby import LobbyReads
from baccarat_api.adapters.dynamodb.proofs import ProofStore
from baccarat_api.adapters.dynamodb.reads import StateReads
from baccarat_api.adapters.dynamodb.tokens import DynamoTokenStore
from baccarat_api.ports.repository import Repository

__all__ = ["DynamoRepository"]


class DynamoRepository(
    LobbyReads,  # (over WriteRequests: its counter's increment is an update)
    StateReads,
    Listings,
    FeedReads,
    ProofStore,
    ConfigStore,
    ChatStore,
    Repository,
):
    """The repository over a state table and a config table (``DynamoRepository(client,
    state_table, config_table)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.book = DynamoBookStore(self.client, self.state, self.config, self.clock)
        self.chunks = DynamoChunkStore(self.client, self.state, self.config, self.clock)
        self.token_store = DynamoTokenStore(self.client, self.state, self.config)
