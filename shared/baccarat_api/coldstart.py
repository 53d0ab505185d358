"""A Lambda function's cold start without garbage collection.

Loading a function allocates ≈ 90,000 long-lived objects, and the cyclic collector spends ≈ 50 ms
of the cold start among them to free almost nothing. So an entry point
(``functions/<name>/app.py``) imports this module first (collection paused) and hands its handler
to :func:`ready`, which freezes what the init made (``gc.freeze``: never scanned again) and
resumes collection. Only inside Lambda (``AWS_LAMBDA_FUNCTION_NAME`` set)."""

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
