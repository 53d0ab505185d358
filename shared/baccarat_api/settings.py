"""Configuration from the environment (set by template.yaml in AWS, by the local runner), read and
validated ONCE per container at cold start (:func:`baccarat_api.runtime.get_runtime`, called when
a handler module is imported) — a missing or malformed variable fails the cold start with a
message naming it, not the first request.

A plain pydantic model over ``os.environ``: pydantic-settings would do the same reading, but
importing it costs ~50–120 ms of cold start beyond pydantic and FastAPI (measured on the
development machine), for nothing this model needs."""

from __future__ import annotations

import os
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from baccarat_api.limits import MAX_WEBHOOK_TIMEOUT_SECONDS, RATE_LIMIT_BURST, RATE_LIMIT_PER_SECOND


class SettingsError(RuntimeError):
    """The environment is missing a variable, or one has a malformed value."""


class Settings(BaseModel):
    """``STATE_TABLE``, ``CONFIG_TABLE``: the two DynamoDB tables of template.yaml.
    ``KMS_KEY_ID``: the key chain and shoe secrets are encrypted under (only the functions that
    handle secrets have it). ``SIGNING_KEY_ID``: the asymmetric KMS key that signs final proofs
    (only the functions that sign proofs or publish its public key have it).
    ``AUTH_CACHE_SECONDS``: how long a warm container trusts a key it has looked up (0 = look it
    up on every request). ``API_BASE_PATH``: a path prefix to strip
    (a named API Gateway stage; the template uses ``$default``, so ``/``).
    ``RATE_LIMIT_PER_SECOND``, ``RATE_LIMIT_BURST``: the per-operator token bucket
    (:mod:`baccarat_api.ratelimit`; defaults in :mod:`baccarat_api.limits`; rate 0 = off)."""

    model_config = ConfigDict(frozen=True, extra="ignore", validate_by_name=True)

    state_table: str = Field(alias="STATE_TABLE", min_length=1)
    config_table: str = Field(alias="CONFIG_TABLE", min_length=1)
    kms_key_id: str | None = Field(default=None, alias="KMS_KEY_ID")
    signing_key_id: str | None = Field(default=None, alias="SIGNING_KEY_ID")
    auth_cache_seconds: float = Field(default=60.0, alias="AUTH_CACHE_SECONDS", ge=0)
    api_base_path: str = Field(default="/", alias="API_BASE_PATH")
    rate_limit_per_second: float = Field(
        default=RATE_LIMIT_PER_SECOND, alias="RATE_LIMIT_PER_SECOND", ge=0
    )
    rate_limit_burst: int = Field(default=RATE_LIMIT_BURST, alias="RATE_LIMIT_BURST", ge=1)
    #: Webhooks: the SQS queue that wakes a feed shard's delivery later (AWS), the
    #: receiver's time to answer, and a factor on every retry delay and the 24 h (tests).
    delivery_queue_url: str | None = Field(default=None, alias="DELIVERY_QUEUE_URL")
    webhook_timeout_seconds: float = Field(
        # at most 30: a delivery pass keeps one POST's timeout (and 5 s) of DeliveryFunction's
        # 60 s; at 55 or more it could never POST at all
        default=10.0,
        alias="WEBHOOK_TIMEOUT_SECONDS",
        gt=0,
        le=MAX_WEBHOOK_TIMEOUT_SECONDS,
    )
    webhook_backoff_scale: float = Field(default=1.0, alias="WEBHOOK_BACKOFF_SCALE", gt=0, le=1)
    #: Deliver to loopback / private / link-local addresses too (``make run``: a receiver on
    #: this machine); never in AWS, where that would reach our side of the network.
    webhook_private_addresses: bool = Field(default=False, alias="WEBHOOK_PRIVATE_ADDRESSES")
    #: The running tables' timers: the SQS queue their ticks are sent to, delayed (AWS; unset:
    #: ``make run`` delivers them on a thread, elsewhere only the sweep moves a running table).
    table_clock_queue_url: str | None = Field(default=None, alias="TABLE_CLOCK_QUEUE_URL")
    #: A book round's settlement chunks: the SQS queue they are sent to (AWS; unset: run at
    #: once in the request, or on a thread under ``make run``).
    settle_chunk_queue_url: str | None = Field(default=None, alias="SETTLE_CHUNK_QUEUE_URL")
    #: The push channel (docs/api.md "Push"): the WebSocket URL subscribers connect to
    #: (``GET …/state``'s ``push_url``; ``null`` when unset), and the Event API's HTTP publish
    #: endpoint (``PushFunction`` only).
    push_url: str | None = Field(default=None, alias="BACCARAT_PUSH_URL")
    push_publish_url: str | None = Field(default=None, alias="PUSH_PUBLISH_URL")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings of ``environ`` (default: ``os.environ``); :class:`SettingsError` naming
        every missing or malformed variable."""
        environ = os.environ if environ is None else environ
        names = {f.alias for f in cls.model_fields.values() if f.alias}
        values = {k: v for k, v in environ.items() if k in names}
        for optional in (
            "KMS_KEY_ID",
            "SIGNING_KEY_ID",
            "DELIVERY_QUEUE_URL",
            "TABLE_CLOCK_QUEUE_URL",
            "SETTLE_CHUNK_QUEUE_URL",
            "BACCARAT_PUSH_URL",
            "PUSH_PUBLISH_URL",
        ):
            if not values.get(optional):
                values.pop(optional, None)
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = []
            for error in exc.errors():
                name = ".".join(str(part) for part in error.get("loc", ()))
                if error.get("type") == "missing":
                    problems.append(f"{name} is not set")
                else:
                    problems.append(f"{name}={values.get(name)!r}: {error.get('msg')}")
            raise SettingsError("invalid environment: " + "; ".join(problems)) from None
