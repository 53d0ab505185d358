"""The push channel's publisher (docs/design/browsers.md §2): AppSync Events' HTTP publish in
AWS (``adapters/appsync_push.py``), ``make run``'s in-process hub locally
(``baccarat_dev/push_local.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class PushUnavailable(Exception):
    """The channel refused or did not answer a publish: the stream batch is retried."""


class Publisher(Protocol):
    """Publishes messages to a channel, in order, to every subscriber it has now."""

    def publish(self, channel: str, messages: Sequence[str]) -> None:
        """Publish ``messages`` (each a JSON text of at most
        :data:`~baccarat_api.limits.PUSH_MAX_MESSAGE_BYTES`) to ``channel`` in this order;
        raises :class:`PushUnavailable` when they may not all have been published."""
        ...
