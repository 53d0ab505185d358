"""A Lambda function's cold start without garbage collection.

Loading a function allocates ≈ 90,000 long-lived objects (modules, classes, functions, the
pydantic and FastAPI state); CPython's cyclic collector runs meanwhile, a full collection among
them (≈ 50 ms of a cold start, a tenth of the stack's floor, measured), and finds almost nothing
to free: ≈ 800 unreachable objects. So a function's entry point (``functions/<name>/app.py``)
imports this module first — collection is paused from here — and hands its handler to
:func:`ready`, which freezes what the init made (``gc.freeze``: moved to the permanent
generation, never scanned again, so the warm container's collections stay short too) and
resumes collection. The few cycles the init left unreachable are frozen with the rest: kept,
not freed (tens of kilobytes).

Only inside Lambda (``AWS_LAMBDA_FUNCTION_NAME`` set): a test or ``make run`` importing an entry
point collects as usual."""

from __future__ import annotations

import gc
import os
from typing import TypeVar

T = TypeVar("T")

_paused = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME")) and gc.isenabled()
if _paused:
    gc.disable()


def ready(handler: T) -> T:
    """``handler``, once the init is done: what it made frozen, collection resumed."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
    return handler
