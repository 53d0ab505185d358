"""What a stored item written before one of its fields existed meant: the value a repository
reads back for the missing attribute.

These are facts about items already written, so they are frozen here, apart from the API's
defaults (:mod:`baccarat_api.limits`), which shape new requests only: changing an API default
must not change how an old item reads — nor, for a hashed field (a round's
``void_window_seconds``), its hash. A field whose record default is a value rather than an
empty one (``None``, ``""``, ``0``, ``False``, an empty collection) has its entry here."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Field name → the value an item without that attribute is read with (the same for every
#: record kind carrying the field).
STORED_DEFAULTS: Mapping[str, int] = MappingProxyType(
    {
        "settle_deadline_seconds": 60,
        "void_window_seconds": 120,
        "betting_seconds": 15,
        "squeeze_seconds": 10,
        "idle_shoe_close_seconds": 3600,
    }
)
