"""What a cold start builds of the HTTP layer: a route's FastAPI state only when
the route first handles a request (or the OpenAPI document asks for it), never twice; and the
blocking endpoints run on the event loop only under Lambda (:func:`baccarat_api.http.threads.
inline`, one event at a time), in a worker thread everywhere else (``make run`` serves many
requests at once)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from typing import Any

import httpx
from fastapi import APIRouter

from baccarat_api.http.app import create_app
from baccarat_api.http.deps import errors
from baccarat_api.http.json_body import JsonRoute
from baccarat_api.http.threads import inline
from baccarat_api.service.models import ErrorBody


def probe_router() -> APIRouter:
    router = APIRouter(route_class=JsonRoute)

    @router.get("/v1/probe/thread", responses=errors("not_found"))
    def thread() -> dict[str, Any]:
        return {"thread": threading.get_ident()}

    @router.post("/v1/probe/echo/{name}", status_code=201)
    def echo(name: str, body: dict[str, int]) -> dict[str, Any]:
        return {"name": name, "body": body}

    return router


def call(app: Any, method: str, path: str, **kwargs: Any) -> httpx.Response:
    async def go() -> tuple[httpx.Response, int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://local") as client:
            return await client.request(method, path, **kwargs), threading.get_ident()

    loop = asyncio.new_event_loop()  # not asyncio.run: it would unset mangum's event loop
    try:
        response, loop_thread = loop.run_until_complete(go())
    finally:
        loop.close()
    response.extensions["loop_thread"] = loop_thread
    return response


def built(router: APIRouter) -> list[bool]:
    return [route.__dict__.get("_declared") is None for route in router.routes]


def test_a_route_is_built_when_it_first_handles_a_request_and_only_that_one() -> None:
    router = probe_router()
    app = create_app(router)
    assert built(router) == [False, False]
    assert app.router.routes[-2:] == router.routes  # served as they are: not included
    answer = call(app, "POST", "/v1/probe/echo/ann", json={"a": 1})
    assert (answer.status_code, answer.json()) == (201, {"name": "ann", "body": {"a": 1}})
    assert built(router) == [False, True]
    # built as FastAPI builds it: validation, the error envelope, the status code
    refused = call(app, "POST", "/v1/probe/echo/ann", json={"a": "x"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_request"
    assert call(app, "GET", "/v1/probe/echo/ann").status_code == 405
    assert call(app, "GET", "/v1/probe/nothing").json()["error"]["code"] == "not_found"


def test_the_openapi_document_builds_every_route_and_names_the_error_body() -> None:
    router = probe_router()
    app = create_app(router, docs=True)
    doc = app.openapi()
    assert built(router) == [True, True]
    operation = doc["paths"]["/v1/probe/thread"]["get"]
    assert operation["responses"]["404"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorOut"
    }
    schemas = doc["components"]["schemas"]
    assert {"ErrorOut", "ErrorBody"} <= set(schemas)
    assert schemas["ErrorOut"]["properties"]["error"] == {"$ref": "#/components/schemas/ErrorBody"}
    assert schemas["ErrorBody"]["required"] == list(ErrorBody.model_fields)


FRESH = r"""
import json
from baccarat_api.http.app import create_app
from baccarat_api.http.routers import all_routers
routers = all_routers()
app = create_app(*routers)
routes = [r for router in routers for r in router.routes]
before = sum(r.__dict__.get("_declared") is None for r in routes)
app.openapi()
after = sum(r.__dict__.get("_declared") is None for r in routes)
print(json.dumps([len(routes), before, after]))
"""


def test_every_product_route_is_built_only_when_asked_for_in_a_fresh_interpreter() -> None:
    out = subprocess.run(
        [sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=120, check=True
    )
    routes, before, after = json.loads(out.stdout.strip().splitlines()[-1])
    assert routes > 30
    assert (before, after) == (0, routes)


def test_a_blocking_endpoint_runs_on_the_loop_only_under_lambda() -> None:
    app = create_app(probe_router())
    threaded = call(app, "GET", "/v1/probe/thread")
    assert threaded.status_code == 200
    assert threaded.json()["thread"] != threaded.extensions["loop_thread"]  # a worker thread
    with inline():
        inlined = call(app, "GET", "/v1/probe/thread")
    assert inlined.json()["thread"] == inlined.extensions["loop_thread"]  # the loop itself
    after = call(app, "GET", "/v1/probe/thread")  # inline() ends with its block
    assert after.json()["thread"] != after.extensions["loop_thread"]
