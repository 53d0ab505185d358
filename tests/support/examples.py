"""Hypothesis profiles, selected by ``HYPOTHESIS_PROFILE``:

* ``dev`` (the default; ``make unit``): few examples, fast feedback;
* ``ci`` (``make test``): thorough, ten times as many.

A test states how heavy it is relative to the profile's base count, never an absolute count:
``@settings(max_examples=examples(30))`` is 3,000 examples under ``ci`` and 300 under ``dev``.
No profile has a deadline (tests never assert wall-clock times; this machine is shared)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: Examples of a property test of weight 1, per profile.
BASE = {"dev": 10, "ci": 100}
PROFILE_ENV = "HYPOTHESIS_PROFILE"


def register() -> str:
    """Register both profiles and load the one the environment names (default ``dev``)."""
    for name, count in BASE.items():
        settings.register_profile(
            name,
            max_examples=count,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
    name = os.environ.get(PROFILE_ENV, "dev")
    if name not in BASE:
        raise ValueError(f"{PROFILE_ENV}={name!r}: expected one of {sorted(BASE)}")
    settings.load_profile(name)
    return name


def examples(weight: float) -> int:
    """The example count of a test ``weight`` times as thorough as the base, under the loaded
    profile (at least 1)."""
    return max(1, round(weight * settings.default.max_examples))
