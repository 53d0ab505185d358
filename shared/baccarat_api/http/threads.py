"""Where the blocking part of a request runs: on the event loop under Lambda, in a worker thread
everywhere else.

The endpoints are plain ``def`` functions: they call the service, whose repository calls
DynamoDB (and KMS) through boto3, which blocks. FastAPI runs such an endpoint in a worker thread
so that the event loop keeps serving other requests meanwhile — what ``make run`` (uvicorn, many
requests at once, the live race tests) needs. A Lambda container serves one event at a time
(Mangum runs each on a loop of its own): there is nothing to keep serving, and the thread only
costs, at every cold start, anyio's thread machinery (≈ 12–15 ms to import) and the hand-over.

So every endpoint is served through :func:`on_loop` (by :class:`~baccarat_api.http.json_body.
JsonRoute`): an ``async`` wrapper that calls the endpoint right on the loop while
:func:`inline` is in force — the Lambda handler's invocation (:mod:`baccarat_api.http.handler`)
— and otherwise in a worker thread exactly as FastAPI would (``run_in_threadpool``, the
request's context copied into the thread). :func:`call_blocking` is the same choice for a
blocking call made from an ``async`` dependency."""

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
