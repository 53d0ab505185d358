"""Where the blocking part of a request runs: on the event loop under Lambda, in a worker thread
everywhere else.

Endpoints are plain ``def`` functions calling boto3, which blocks. Under ``make run`` a worker
thread keeps the loop serving other requests; a Lambda container serves one event at a time, so
there the thread only costs (anyio's thread machinery at every cold start). :func:`on_loop`
wraps every endpoint (through ``JsonRoute``) and decides per call: on the loop while
:func:`inline` is in force (the Lambda handler), else ``run_in_threadpool``.
:func:`call_blocking` is the same choice for an ``async`` dependency."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

T = TypeVar("T")

_INLINE: ContextVar[bool] = ContextVar("baccarat_inline_endpoints", default=False)


@contextmanager
def inline() -> Iterator[None]:
    """Within: blocking endpoints and calls run on the event loop (one request at a time)."""
    token = _INLINE.set(True)
    try:
        yield
    finally:
        _INLINE.reset(token)


async def call_blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``: on the loop under :func:`inline`, else in a worker thread."""
    if _INLINE.get():
        return fn(*args, **kwargs)
    return await run_in_threadpool(fn, *args, **kwargs)


def on_loop(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` as FastAPI should call it: an ``async`` endpoint as it is; a ``def`` one
    wrapped so that it runs through :func:`call_blocking` (FastAPI reads the parameters,
    their annotations and the return annotation through ``__wrapped__``)."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint

    @functools.wraps(endpoint)
    async def serve(**values: Any) -> Any:
        return await call_blocking(endpoint, **values)

    return serve
