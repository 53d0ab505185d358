"""The per-container wiring (the composition root): settings, AWS clients, repository, vault,
caches.

:func:`get_runtime` reads and validates the settings once — at cold start, when a handler module
is built (:func:`baccarat_api.http.handler.lambda_handler`, the authorizer, the sweep) — and the
clients and adapters are built on first use and then reused for the life of the warm container.
Tests and the local runner call :func:`reset` after changing the environment."""

from __future__ import annotations

import threading
from functools import cached_property
from typing import TYPE_CHECKING, Any

from baccarat_api.ratelimit import RateLimiter
from baccarat_api.service.auth import KeyCache
from baccarat_api.settings import Settings

if TYPE_CHECKING:
    from baccarat_api.adapters.dynamodb.repository import DynamoRepository
    from baccarat_api.adapters.kms import KmsVault
    from baccarat_api.adapters.shoe_cache import ShoeCache
    from baccarat_api.ports.beacon import BeaconSource
    from baccarat_api.ports.chunks import ChunkQueue
    from baccarat_api.ports.scheduler import Scheduler
    from baccarat_api.ports.webhooks import Sender, Wakeup


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.key_cache = KeyCache(settings.auth_cache_seconds)
        self.limiter = RateLimiter(settings.rate_limit_per_second, settings.rate_limit_burst)

    @cached_property
    def dynamodb(self) -> Any:
        from baccarat_api.adapters import aws

        return aws.client("dynamodb")

    @cached_property
    def kms(self) -> Any:
        from baccarat_api.adapters import aws

        return aws.client("kms")

    @cached_property
    def repo(self) -> DynamoRepository:
        from baccarat_api.adapters.dynamodb.repository import DynamoRepository

        s = self.settings
        # the repository schedules a change's next tick after its commit
        repo = DynamoRepository(
            self.dynamodb, s.state_table, s.config_table, scheduler=self.scheduler
        )
        if s.settle_chunk_queue_url:  # a book round's settlement chunks go to their queue
            from baccarat_api.adapters import aws
            from baccarat_api.adapters.sqs_chunks import SqsChunkQueue

            repo.chunk_queue = SqsChunkQueue(aws.client("sqs"), s.settle_chunk_queue_url)
        return repo

    @cached_property
    def scheduler(self) -> Scheduler:
        """The running tables' timers: SQS message timers when ``TABLE_CLOCK_QUEUE_URL`` is set
        (AWS), else none (the sweep moves them) — until :meth:`use_scheduler` installs another
        (``make run``: a thread, :func:`baccarat_api.jobs.table_clock.start_background`)."""
        from baccarat_api.ports.scheduler import NoScheduler

        url = self.settings.table_clock_queue_url
        if not url:
            return NoScheduler()
        from baccarat_api.adapters import aws
        from baccarat_api.adapters.sqs_scheduler import SqsScheduler

        return SqsScheduler(aws.client("sqs"), url)

    def use_scheduler(self, scheduler: Scheduler) -> None:
        """Deliver ticks through ``scheduler`` from now on (the repository's too)."""
        self.scheduler = scheduler
        if "repo" in self.__dict__:
            self.repo.scheduler = scheduler

    def use_chunk_queue(self, chunk_queue: ChunkQueue) -> None:
        """Send a book round's settlement chunks to ``chunk_queue`` from now on (``make run``:
        a thread, :func:`baccarat_api.jobs.settle_chunks.start_background`)."""
        self.repo.chunk_queue = chunk_queue

    @cached_property
    def vault(self) -> KmsVault:
        from baccarat_api.adapters.kms import KmsVault

        s = self.settings
        return KmsVault(self.kms, s.kms_key_id, s.signing_key_id)

    @cached_property
    def sender(self) -> Sender:
        from baccarat_api.adapters.webhooks import HttpSender

        s = self.settings
        return HttpSender(s.webhook_timeout_seconds, allow_private=s.webhook_private_addresses)

    @cached_property
    def wakeup(self) -> Wakeup:
        from baccarat_api.adapters import aws
        from baccarat_api.adapters.webhooks import NoWakeup, SqsWakeup

        url = self.settings.delivery_queue_url
        return NoWakeup() if not url else SqsWakeup(aws.client("sqs"), url)

    @cached_property
    def beacon(self) -> BeaconSource:
        """The deployment's beacon (bacc-pf-v2 tables): drand quicknet on its relays
        (``BACCARAT_BEACON_RELAYS``, empty: drand's public ones), or the test beacon at
        ``BACCARAT_BEACON_URL`` (``make run`` sets it)."""
        import os

        from baccarat_api.adapters.drand_http import DrandHttp

        env = os.environ.get
        return DrandHttp.configured(env("BACCARAT_BEACON_URL"), env("BACCARAT_BEACON_RELAYS"))

    @cached_property
    def shoes(self) -> ShoeCache:
        from baccarat_api.adapters.shoe_cache import ShoeCache

        return ShoeCache(self.vault)


_lock = threading.Lock()
_runtime: Runtime | None = None


def get_runtime() -> Runtime:
    """The container's runtime; the first call reads the settings (``SettingsError`` naming a
    missing or malformed variable)."""
    global _runtime
    if _runtime is None:
        with _lock:
            if _runtime is None:
                _runtime = Runtime(Settings.from_env())
    return _runtime


def reset() -> None:
    """Forget settings, clients and caches (tests, the local runner)."""
    global _runtime
    with _lock:
        _runtime = None
