"""Service overhead: what is OURS in a warm request, with the store's own time
taken out. The same session of real HTTP API v2 events through each route's Lambda handler as
the "Warm latency" section (benchmarks/api.py), but the container's repository, vault and shoe
cache are the in-memory adapters (``baccarat_api.adapters.memory``): every DynamoDB and KMS call
is answered instantly, so a route's time is the handler, Mangum, FastAPI, pydantic, the service
and the core. Printed next to the moto-in-memory figures of the same run (its difference is
botocore + moto's own work, not DynamoDB's network time)."""

from __future__ import annotations

from typing import Any

from ._lambda import moto_in_memory, percentile


def _instant_store() -> None:
    """Swap the warm container's adapters for the in-memory ones (tiers and the bench
    operator's key as the session needs them)."""
    from baccarat_api import runtime
    from baccarat_api.adapters.memory import MemoryRepository
    from baccarat_api.adapters.memory_vault import MemoryVault
    from baccarat_api.adapters.shoe_cache import ShoeCache
    from baccarat_api.jobs.seed import tier_docs
    from baccarat_api.ratelimit import RateLimiter

    from ._lambda import TIERS

    rt = runtime.get_runtime()
    repo = MemoryRepository()
    repo.put_tiers(tier_docs(TIERS))
    vault = MemoryVault()
    rt.__dict__.update(repo=repo, vault=vault, shoes=ShoeCache(vault))
    rt.limiter = RateLimiter(10**9, 10**9)  # the bench is one operator at full speed


def run(moto_p50: dict[str, float] | None = None) -> list[str]:
    return measure(moto_p50)[0]


def measure(moto_p50: dict[str, float] | None = None) -> tuple[list[str], dict[str, float]]:
    """The section's lines and each route's p50 of our own (seconds)."""
    from . import api

    with moto_in_memory() as aws:
        _instant_store()
        lat, session = api.latency(aws)
    errors = [line for line in lat if line.startswith("errors:")]
    lines = [
        "## Service overhead, warm: the same session with DynamoDB and KMS answered instantly "
        "(in-memory adapters); what remains is ours",
        f"{'route':<66}{'p50':>9}{'p99':>10}{'moto p50':>11}{'ours':>7}",
    ]
    for label, xs in session.samples.items():
        p50, p99 = percentile(xs, 50), percentile(xs, 99)
        other: Any = (moto_p50 or {}).get(label)
        share = f"{p50 / other:6.0%}" if other else "     –"
        moto = f"{other * 1e3:8.2f} ms" if other else f"{'–':>11}"
        lines.append(f"{label:<66}{p50 * 1e3:6.2f} ms{p99 * 1e3:7.2f} ms{moto} {share}")
    lines.append(
        "# ours = in-memory p50 / moto-in-memory p50 (this run); target: deal and settle "
        "≤ 3 ms p50 of our own"
    )
    lines += errors
    return lines, {label: percentile(xs, 50) for label, xs in session.samples.items()}


if __name__ == "__main__":
    print("\n".join(run()))
