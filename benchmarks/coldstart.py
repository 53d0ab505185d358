"""Cold start of every Lambda function: a fresh interpreter to its first response (import +
init + one real request against moto's server on loopback), as a ratio to the floor the stack
cannot avoid, measured in the same run: a fresh interpreter that imports boto3 and fastapi and
creates a DynamoDB client.

Both run the way Lambda runs them when the built artifact is given (``sam build``): ``python -S
-s`` with only the function's directory and its layers on the path, code read-only (no bytecode
written), the function's environment from template.yaml, Lambda's variables set (so Tracer is
live, as ``Tracing: Active`` makes it). Without a build, from the repository and this venv.
Runs are interleaved (floor, each function, again …) and each figure is a median."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._lambda import (
    LAMBDA_ENV,
    Function,
    LambdaContext,
    LocalAws,
    authorizer_event,
    functions,
    http_event,
    median,
    resolve_env,
    route_of,
    scheduled_event,
)

RUNNER = r"""
import json, sys, time
t0 = time.perf_counter()
import importlib
module, attr = sys.argv[1].rsplit(".", 1)
handler = getattr(importlib.import_module(module), attr)
t1 = time.perf_counter()
event = json.load(open(sys.argv[2]))
class Context:
    function_name = sys.argv[3]
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + sys.argv[3]
    aws_request_id = "00000000-0000-0000-0000-000000000001"
    log_group_name = "/baccarat/bench"
    log_stream_name = "stream"
    def get_remaining_time_in_millis(self):
        return 10000
out = handler(event, Context())
t2 = time.perf_counter()
status = out.get("statusCode", "ok") if isinstance(out, dict) else "ok"
if isinstance(out, dict) and "isAuthorized" in out:
    status = "authorized" if out["isAuthorized"] else "refused"
import os
roots = tuple(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
modules = sorted({
    name if name.startswith("baccarat") else name.split(".")[0]
    for name, m in list(sys.modules.items())
    if str(getattr(m, "__file__", "") or "").startswith(roots)
})
report = {"import": t1 - t0, "request": t2 - t1, "status": status, "modules": modules}
sys.stdout.write("BENCH " + json.dumps(report))
sys.stdout.write("\n")
sys.stdout.flush()
"""

FLOOR = r"""
import json, sys, time
t0 = time.perf_counter()
import boto3, fastapi
boto3.client("dynamodb")
t1 = time.perf_counter()
sys.stdout.write("BENCH " + json.dumps({"import": t1 - t0, "request": 0.0, "status": "-"}) + "\n")
sys.stdout.flush()
"""

#: Other floors, measured in the same interleaved runs: what a boto3-only
#: function costs, and the lightest HTTP handler the stack allows (powertools' own resolver)
#: against FastAPI + Mangum answering the same v2 event — the web framework's own price.
BOTO3_ONLY = r"""
import json, sys, time
t0 = time.perf_counter()
import boto3
boto3.client("dynamodb")
t1 = time.perf_counter()
sys.stdout.write("BENCH " + json.dumps({"import": t1 - t0, "request": 0.0, "status": "-"}) + "\n")
sys.stdout.flush()
"""

_ONE_ROUTE = r"""
import json, sys, time
t0 = time.perf_counter()
import boto3
client = boto3.client("dynamodb")
%s
t1 = time.perf_counter()
out = handler(json.load(open(sys.argv[1])), None)
t2 = time.perf_counter()
report = {"import": t1 - t0, "request": t2 - t1, "status": out["statusCode"]}
sys.stdout.write("BENCH " + json.dumps(report) + "\n")
sys.stdout.flush()
"""
POWERTOOLS_RESOLVER = (
    _ONE_ROUTE
    % """
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
app = APIGatewayHttpResolver()
@app.get("/v1/tiers")
def tiers():
    return {"tiers": []}
def handler(event, context):
    return app.resolve(event, context)
"""
)
FASTAPI_MANGUM = (
    _ONE_ROUTE
    % """
from fastapi import FastAPI
from mangum import Mangum
api = FastAPI()
@api.get("/v1/tiers")
def tiers():
    return {"tiers": []}
handler = Mangum(api, lifespan="off")
"""
)
#: name → (script, takes the one-route event)
FLOORS: dict[str, tuple[str, bool]] = {
    "floor": (FLOOR, False),
    "boto3 only": (BOTO3_ONLY, False),
    "powertools resolver, 1 route": (POWERTOOLS_RESOLVER, True),
    "fastapi + mangum, 1 route": (FASTAPI_MANGUM, True),
}

STAGES = r"""
import json, sys, time
T = time.perf_counter
marks = [("start", T())]
from baccarat_api import coldstart  # as the function's entry point does first (no GC meanwhile)
import boto3, fastapi
marks.append(("boto3 + fastapi (the floor's imports)", T()))
import mangum
from aws_lambda_powertools import Logger, Metrics, Tracer
marks.append(("powertools + mangum", T()))
import baccarat_api.observability
marks.append(("Logger/Metrics/Tracer objects (X-Ray SDK, botocore patch)", T()))
import baccarat_api.service.models
marks.append(("the API's pydantic models", T()))
import baccarat_api.http.app, baccarat_api.http.deps
marks.append(("app factory, error envelope, dependencies", T()))
import app
marks.append(("the function's router + services + core (FastAPI routes)", T()))
from baccarat_api import runtime
runtime.get_runtime().dynamodb
marks.append(("DynamoDB client (the floor creates one too)", T()))
import botocore.endpoint
sent = [0.0]
send = botocore.endpoint.Endpoint._send
def timed_send(self, request):
    t = T()
    try:
        return send(self, request)
    finally:
        sent[0] += T() - t
botocore.endpoint.Endpoint._send = timed_send
class Context:
    function_name = "bench"; function_version = "$LATEST"; memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:bench"
    aws_request_id = "00000000-0000-0000-0000-000000000002"; log_group_name = "/b"
    log_stream_name = "s"
    def get_remaining_time_in_millis(self):
        return 10000
app.handler(json.load(open(sys.argv[1])), Context())
marks.append(("first request (KMS client, FastAPI route state, moto calls)", T()))
steps = [(name, t - marks[i][1]) for i, (name, t) in enumerate(marks[1:])]
steps.append(("  of which moto answering (botocore's HTTP sends)", sent[0]))
sys.stdout.write("BENCH " + json.dumps({"steps": steps}) + "\n")
sys.stdout.flush()
"""


#: The request each function's first response answers, in order of preference.
PREFERRED = (
    "POST /v1/shoes/{shoe_id}/rounds",
    "POST /v1/rounds/{round_id}/settlement",
    "POST /v1/tables",
    "GET /v1/tables/{table_id}",
)
#: Routes that need fresh state per run (a new table, a new round …) or change what others read.
AVOID = ("POST /v1/tables/{table_id}/shoes", "POST /v1/shoes/{shoe_id}/close")


@dataclass
class Layout:
    """Where a function's code and its dependencies come from."""

    built: Path | None  # a `sam build` directory, or None: the repository + this venv
    layers: tuple[str, ...] = ("DependenciesLayer", "SharedLayer")

    def python(self) -> list[str]:
        return [sys.executable, "-S", "-s"] if self.built else [sys.executable, "-s"]

    def path(self, fn: Function | None) -> list[Path]:
        if self.built is None:
            return [fn.code_dir] if fn else []
        first = [self.built / fn.logical_id] if fn else []
        return [*first, *(self.built / layer / "python" for layer in self.layers)]


class Scene:
    """State the first requests act on, made in this process over moto's server."""

    def __init__(self, aws: LocalAws, runs: int) -> None:
        from tests.support.stack import function_module, star_city_bets

        self.aws = aws
        self.bets = star_city_bets()

        def call(method: str, path: str, body: Any = None) -> Any:
            event = http_event(method, path, body, key=aws.key)
            handler = function_module(route_of(method, path).code_uri).handler
            out = handler(event, LambdaContext())
            assert out["statusCode"] < 300, out
            return json.loads(out["body"])

        table = call("POST", "/v1/tables", self.table_body())
        self.table_id = table["table_id"]
        shoe = call("POST", f"/v1/tables/{self.table_id}/shoes", {"client_seed": "cold"})
        self.shoe_id = shoe["shoe_id"]
        self.rounds = [
            call("POST", f"/v1/shoes/{self.shoe_id}/rounds", {"bets": self.bets})["round_id"]
            for _ in range(runs + 1)
        ]

    @staticmethod
    def table_body() -> dict[str, Any]:
        return {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}

    def request(self, fn: Function, run: int) -> tuple[str, dict[str, Any]]:
        """(what, event) of ``fn``'s first response in run ``run``."""
        if fn.is_authorizer:
            return "authorize a key", authorizer_event(self.aws.key)
        if not fn.routes:
            return "scheduled event", scheduled_event()
        keys = [r.route_key for r in fn.routes]
        key = next((k for k in PREFERRED if k in keys), None)
        key = key or next((k for k in keys if k.startswith("GET ") and k not in AVOID), None)
        key = key or next((k for k in keys if k not in AVOID), keys[0])
        method, template = key.split(" ", 1)
        ids = {
            "table_id": self.table_id,
            "shoe_id": self.shoe_id,
            "round_id": self.rounds[run % len(self.rounds)],
        }
        path = template
        for name, value in ids.items():
            path = path.replace("{" + name + "}", value)
        body: Any = None
        if key == "POST /v1/tables":
            body = self.table_body()
        elif key == "POST /v1/shoes/{shoe_id}/rounds":
            body = {"bets": self.bets}
        event = http_event(method, path, body, key=self.aws.key, operator_id=self.aws.operator_id)
        return key, event


def child_env(fn: Function | None, layout: Layout, aws: LocalAws, home: Path) -> dict[str, str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": os.pathsep.join(str(p) for p in layout.path(fn)),
        "PYTHONDONTWRITEBYTECODE": "1",  # /var/task and /opt are read-only in Lambda
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_ENDPOINT_URL": aws.endpoint_url or "",
        **LAMBDA_ENV,
        "AWS_LAMBDA_FUNCTION_NAME": fn.logical_id if fn else "Floor",
    }
    if fn is not None:
        env.update(resolve_env(fn, aws.names, aws.kms_key_arn))
        env["LAMBDA_TASK_ROOT"] = str(layout.path(fn)[0])
    return env


def run_child(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, dict[str, Any], str]:
    """(wall seconds from spawn to the first response's line, the child's report, stderr)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        args, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = ""
    for line in proc.stdout:  # the function's own log and metric lines come first
        if line.startswith("BENCH "):
            break
    wall = time.perf_counter() - t0
    _, err = proc.communicate(timeout=120)
    if not line.startswith("BENCH "):
        raise RuntimeError(f"{args[-3:]} gave no response:\n{err[-2000:]}")
    return wall, json.loads(line[6:]), err


def importtime(args: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    """Top-level package → self import time (seconds), from ``-X importtime``."""
    proc = subprocess.run(
        [args[0], "-X", "importtime", *args[1:]],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    by_package: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line.split("|")
        try:
            self_us = int(parts[0].split(":")[1])
        except ValueError:
            continue  # the header line
        package = parts[2].strip().split(".")[0]
        by_package[package] = by_package.get(package, 0.0) + self_us / 1e6
    return by_package


#: The suffix of a function measured from the ``before`` build (:func:`measure`).
BEFORE = " (before)"


def measure(
    fns: list[Function],
    layout: Layout,
    scene: Scene,
    aws: LocalAws,
    home: Path,
    runs: int,
    before: Layout | None = None,
) -> tuple[
    dict[str, list[float]], dict[str, list[dict[str, Any]]], dict[str, list[str]], dict[str, str]
]:
    """Interleaved runs: the floors (:data:`FLOORS`), then every function, ``runs`` times; with
    ``before`` (another build), each function from it right after the same function from
    ``layout`` (its figures under the name + :data:`BEFORE`; its own rounds)."""
    floor_env = child_env(None, layout, aws, home)
    one_route = home / "one-route.json"
    one_route.write_text(json.dumps(http_event("GET", "/v1/tiers", None)))
    walls: dict[str, list[float]] = {}
    reports: dict[str, list[dict[str, Any]]] = {}
    args_of: dict[str, list[str]] = {}
    for name, (script, with_event) in FLOORS.items():
        args_of[name] = [*layout.python(), "-c", script, *([str(one_route)] if with_event else [])]
    what: dict[str, str] = {}
    for r in range(runs):
        for name in FLOORS:
            wall, report, _ = run_child(args_of[name], floor_env, home)
            walls.setdefault(name, []).append(wall)
            reports.setdefault(name, []).append(report)
        for fn in fns:
            builds = [(layout, "", r)] + ([(before, BEFORE, runs + r)] if before else [])
            for lay, suffix, request in builds:
                name = fn.logical_id + suffix
                what[name], event = scene.request(fn, request)
                event_file = home / f"{fn.logical_id}-{lay.built and lay.built.name}-{r}.json"
                event_file.write_text(json.dumps(event))
                args = [*lay.python(), "-c", RUNNER, fn.handler, str(event_file), fn.logical_id]
                args_of[name] = args
                wall, report, _ = run_child(args, child_env(fn, lay, aws, home), home)
                walls.setdefault(name, []).append(wall)
                reports.setdefault(name, []).append(report)
    return walls, reports, args_of, what


def ratios(walls: dict[str, list[float]], name: str, floor: str = "floor") -> list[float]:
    """Per run: this run's time / the floor measured just before it."""
    return [w / f for w, f in zip(walls[name], walls[floor], strict=True)]


def ratio(walls: dict[str, list[float]], name: str, floor: str = "floor") -> float:
    """Median over runs of (this run's time / the floor measured just before it)."""
    return median(ratios(walls, name, floor))


def spread(xs: list[float]) -> str:
    return f"{min(xs):.2f}–{max(xs):.2f}"


def run(
    aws: LocalAws,
    built: Path | None,
    as_built: Path | None = None,
    runs: int = 5,
    before: Path | None = None,
) -> tuple[list[str], dict[str, set[str]]]:
    """The cold-start table for ``built`` (and, with ``as_built``, the floor and one function
    from that build too; with ``before``, another build — e.g. main's — measured in the same
    interleaved runs, function by function); returns the lines and, per function, what its
    first request imported from the code directories."""
    layout = Layout(built)
    # what answers requests and schedules; not the deploy-time custom resource (SeedTiersFunction)
    fns = [fn for fn in functions() if fn.routes or fn.is_authorizer or fn.is_scheduled]
    scene = Scene(aws, 2 * runs + 1 if before else runs + 1)
    where = f"built artifact ({built.name})" if built else "repository + venv (no sam build)"
    lines = [
        "## Cold start: fresh interpreter → first response (import + init + one request, moto "
        "server on loopback)",
        f"# {where}; Lambda's environment (Tracer live, code read-only); {runs} interleaved "
        "runs; × floor = median of per-run ratios (spread: min–max of the runs); × boto3 = the "
        "same against a boto3-only floor",
    ]
    imported: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory(prefix="bacc-cold-") as tmp:
        home = Path(tmp)
        walls, reports, args_of, what = measure(
            fns, layout, scene, aws, home, runs, Layout(before) if before else None
        )
        lines.append(
            f"{'function':<30}{'first response':>15}{'× floor':>9}{'spread':>11}{'× boto3':>9}"
            f"{'import':>9}{'request':>9}  status  request"
        )

        def row(name: str, statuses: str = "-", request: str = "") -> str:
            rep = reports[name]
            return (
                f"{name:<30}{median(walls[name]) * 1e3:12.0f} ms{ratio(walls, name):8.2f}x"
                f"{spread(ratios(walls, name)):>11}{ratio(walls, name, 'boto3 only'):8.2f}x"
                f"{median([x['import'] for x in rep]) * 1e3:6.0f} ms"
                f"{median([x['request'] for x in rep]) * 1e3:6.0f} ms  {statuses:<6}  {request}"
            )

        for name in FLOORS:
            lines.append(row(name, "/".join(sorted({str(x["status"]) for x in reports[name]}))))
        for fn in fns:
            rep = reports[fn.logical_id]
            imported[fn.logical_id] = {m for x in rep for m in x.get("modules", [])}
            statuses = "/".join(sorted({str(x["status"]) for x in rep}))
            lines.append(row(fn.logical_id, statuses, what[fn.logical_id]))
        if before is not None:
            lines += compared(fns, walls, before)
        fw, pt = "fastapi + mangum, 1 route", "powertools resolver, 1 route"
        extra = median([f - p for f, p in zip(walls[fw], walls[pt], strict=True)])
        lines.append(
            f"# the web framework's own price: FastAPI + Mangum answering one route takes "
            f"{extra * 1e3:.0f} ms more than powertools' resolver "
            f"({ratio(walls, fw, pt):.2f}x, spread {spread(ratios(walls, fw, pt))})"
        )
        if as_built is not None:
            one = [fn for fn in fns if fn.logical_id == "DealAndResolveFunction"] or fns[:1]
            raw_walls, _, _, _ = measure(one, Layout(as_built), scene, aws, home, runs)
            name = one[0].logical_id
            lines.append(
                f"as `sam build` ships it (no .pyc: Lambda compiles every module at each cold "
                f"start): floor {median(raw_walls['floor']) * 1e3:.0f} ms, {name} "
                f"{median(raw_walls[name]) * 1e3:.0f} ms — "
                f"{median(raw_walls[name]) / median(walls[name]):.1f}x the slimmed build's"
            )
        lines += breakdown(fns, layout, scene, aws, home, runs)
        lines += offenders(fns, args_of, layout, aws, home)
    return lines, imported


def compared(fns: list[Function], walls: dict[str, list[float]], before: Path) -> list[str]:
    """Per function: × floor (median, spread) from the ``before`` build and from this one, in
    the same interleaved runs."""
    lines = [
        f"# before = {before}, after = this build; both × the floor of the same runs",
        f"{'function':<30}{'before':>9}{'spread':>11}{'after':>9}{'spread':>11}"
        f"{'after/before':>14}",
    ]
    for fn in fns:
        name = fn.logical_id
        b, a = ratios(walls, name + BEFORE), ratios(walls, name)
        own = median([x / y for x, y in zip(walls[name], walls[name + BEFORE], strict=True)])
        lines.append(
            f"{name:<30}{median(b):8.2f}x{spread(b):>11}{median(a):8.2f}x{spread(a):>11}"
            f"{own:13.2f}x"
        )
    return lines


def breakdown(
    fns: list[Function], layout: Layout, scene: Scene, aws: LocalAws, home: Path, runs: int
) -> list[str]:
    """Where one API function's cold start goes, stage by stage (median of ``runs``)."""
    fn = next((f for f in fns if f.logical_id == "DealAndResolveFunction"), None)
    if fn is None:
        return []
    steps: dict[str, list[float]] = {}
    for r in range(runs):
        _, event = scene.request(fn, runs + r)
        event_file = home / f"stages-{r}.json"
        event_file.write_text(json.dumps(event))
        args = [*layout.python(), "-c", STAGES, str(event_file)]
        _, report, _ = run_child(args, child_env(fn, layout, aws, home), home)
        for name, seconds in report["steps"]:
            steps.setdefault(name, []).append(seconds)
    lines = ["", f"# where {fn.logical_id}'s cold start goes (median of {runs})"]
    lines += [f"  {name:<62}{median(xs) * 1e3:6.0f} ms" for name, xs in steps.items()]
    return lines


def offenders(
    fns: list[Function],
    args_of: dict[str, list[str]],
    layout: Layout,
    aws: LocalAws,
    home: Path,
    top: int = 6,
) -> list[str]:
    """Per function: import time by top-level package beyond the floor's (min of two runs)."""

    def twice(fn: Function | None) -> dict[str, float]:
        args, env = args_of[fn.logical_id if fn else "floor"], child_env(fn, layout, aws, home)
        a, b = importtime(args, env, home), importtime(args, env, home)
        return {p: min(a.get(p, 0.0), b.get(p, 0.0)) for p in a.keys() | b.keys()}

    floor = twice(None)
    lines = [
        "",
        f"# import time (-X importtime; self time by top-level package, min of 2): floor "
        f"{sum(floor.values()) * 1e3:.0f} ms",
    ]
    for fn in fns:
        mine = twice(fn)
        extra = {p: t - floor.get(p, 0.0) for p, t in mine.items()}
        worst = sorted(extra.items(), key=lambda kv: -kv[1])[:top]
        shown = ", ".join(f"{p} {t * 1e3:.0f}" for p, t in worst if t > 0.0005)
        lines.append(
            f"{fn.logical_id:<26}{sum(mine.values()) * 1e3:5.0f} ms; beyond the floor's "
            f"packages: {shown} (ms)"
        )
    return lines


def unused(imported: dict[str, set[str]], build: Path) -> list[str]:
    """What the layers hold that no function imported on its first request."""
    used = set().union(*imported.values()) if imported else set()
    lines = []
    deps = build / "DependenciesLayer" / "python"
    if deps.is_dir():
        packages = {
            p.name.removesuffix(".py")
            for p in deps.iterdir()
            if not p.name.endswith((".dist-info", ".data"))
            and p.name not in ("__pycache__", "bin")
            and (p.is_dir() or p.suffix == ".py")
        }
        lines.append(
            "DependenciesLayer packages no function imported on its first request: "
            + (", ".join(sorted(packages - used)) or "none")
        )
    shared = build / "SharedLayer" / "python"
    if shared.is_dir():
        modules = {
            ".".join(p.relative_to(shared).with_suffix("").parts).removesuffix(".__init__")
            for p in shared.rglob("*.py")
        }
        lines.append(
            "SharedLayer modules no function imported on its first request: "
            + (", ".join(sorted(modules - used)) or "none")
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.coldstart [--before BUILD_DIR] [--runs N] [BUILD_DIR
    [AS_BUILT_DIR]]``: this section alone (``--before``: another slimmed build, e.g. main's,
    measured in the same interleaved runs)."""
    import argparse

    from ._lambda import moto_server

    parser = argparse.ArgumentParser(prog="python -m benchmarks.coldstart")
    parser.add_argument("built", nargs="?", type=Path)
    parser.add_argument("as_built", nargs="?", type=Path)
    parser.add_argument("--before", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    built = ns.built.resolve() if ns.built else None
    raw = ns.as_built.resolve() if ns.as_built else None
    before = ns.before.resolve() if ns.before else None
    with moto_server() as aws:
        lines, imported = run(aws, built, raw, runs=ns.runs, before=before)
        print("\n".join(lines))
        if built:
            print("\n".join(unused(imported, built)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
