"""``sam local`` without Docker: what ``sam local invoke`` and ``sam local start-api`` do, with
the container replaced by a clean interpreter running the function as ``sam build`` built it.

* The function: its build dir and its layers' ``python/`` dirs on ``PYTHONPATH`` (as Lambda puts
  /var/task and /opt/python on the path), ``-S -s`` (no site-packages, nothing of the
  repository), its handler imported once per "container".
* Its environment: SAM's own resolution (``LocalLambdaRunner._make_env_vars``): the template's
  variables, overridden by the shell's, overridden by the ``--env-vars`` file; SAM's
  ``AWS_*`` variables (``AWS_SAM_LOCAL=true``, the shell's credentials and region).
* Docker's network: the engines' container URLs (``http://dynamodb-local:8000`` …) become the
  test's own engines (``SAMSHIM_REWRITE``: a JSON map), in the env file and in the events.
* ``start-api``: SAM's own API Gateway emulation (``LocalApigwService``: routes from the
  template, v2 events, the Lambda authorizer in front, responses mapped back), its Lambda runner
  replaced by warm containers (``--warm-containers EAGER``: one per function).

``python -m support.sam_local invoke|start-api ARGS`` is the stand-in ``sam`` the recipe test
(tests/infra/test_sam_local_recipe.py) puts in front of the real one for those two commands. Its
arguments are checked: an option it does not know fails, so the recipe cannot name one that
was never tried."""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import IO, Any

from baccarat_dev import samlocal

BUILT_TEMPLATE = Path(".aws-sam") / "build" / "template.yaml"
MACHINE_ARCH = "x86_64" if platform.machine().lower() in ("x86_64", "amd64") else "arm64"

#: The Lambda Python runtime, in a clean interpreter: import the handler once, then answer one
#: event per line of the control pipe (fd argv[1]) on the answer pipe (fd argv[2]).
RUNNER = r"""
import importlib, json, os, sys, traceback
control, answers = os.fdopen(int(sys.argv[1])), os.fdopen(int(sys.argv[2]), "w")
module_name, handler_name = os.environ["_HANDLER"].rsplit(".", 1)
try:
    handler, init_error = getattr(importlib.import_module(module_name), handler_name), None
except Exception as exc:  # Lambda reports an init error on every invocation
    handler, init_error = None, exc
    traceback.print_exc()

class Context:
    def __init__(self, request_id):
        self.aws_request_id = request_id
    function_name = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
    function_version = "$LATEST"
    memory_limit_in_mb = int(os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"])
    invoked_function_arn = ("arn:aws:lambda:" + os.environ["AWS_REGION"] + ":123456789012:function:"
                            + os.environ["AWS_LAMBDA_FUNCTION_NAME"])
    log_group_name = os.environ["AWS_LAMBDA_LOG_GROUP_NAME"]
    log_stream_name = os.environ["AWS_LAMBDA_LOG_STREAM_NAME"]
    def get_remaining_time_in_millis(self):
        return int(os.environ["AWS_LAMBDA_FUNCTION_TIMEOUT"]) * 1000

for line in control:
    request = json.loads(line)
    try:
        if init_error is not None:
            raise init_error
        out = {"response": handler(json.loads(request["event"]), Context(request["id"]))}
    except Exception as exc:
        traceback.print_exc()
        out = {"error": {"errorMessage": str(exc), "errorType": type(exc).__name__,
                         "requestId": request["id"],
                         "stackTrace": traceback.format_tb(exc.__traceback__)}}
    sys.stdout.flush()
    answers.write(json.dumps(out) + "\n")
    answers.flush()
"""


def rewrite(text: str) -> str:
    """``text`` with the engines' container URLs replaced by the test's (``SAMSHIM_REWRITE``)."""
    for old, new in json.loads(os.environ.get("SAMSHIM_REWRITE", "{}")).items():
        text = text.replace(old, new)
    return text


class Container:
    """One warm "container" of a built function: a clean interpreter that imported its handler."""

    def __init__(self, function: Any, env: dict[str, str], logs: IO[str] | int | None) -> None:
        code = Path(function.codeuri).resolve()
        paths = [code, *(Path(layer.codeuri).resolve() / "python" for layer in function.layers)]
        control_r, self._control = os.pipe()
        self._answers, answers_w = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-S", "-s", "-c", RUNNER, str(control_r), str(answers_w)],
            cwd=code,
            env={
                **env,
                "PATH": "/usr/bin:/bin",
                "HOME": "/tmp",
                "LANG": "en_US.UTF-8",
                "TZ": ":UTC",
                "PYTHONPATH": os.pathsep.join(str(p) for p in paths),
                "LAMBDA_TASK_ROOT": str(code),
                "_HANDLER": function.handler,
                "PYTHONDONTWRITEBYTECODE": "1",  # sam local mounts the code read-only
            },
            pass_fds=(control_r, answers_w),
            stdin=subprocess.DEVNULL,
            stdout=logs,
            stderr=logs,
        )
        os.close(control_r)
        os.close(answers_w)
        self.requests = os.fdopen(self._control, "w")
        self.replies = os.fdopen(self._answers)
        self.lock = threading.Lock()

    def invoke(self, event: str) -> str:
        """The function's answer to ``event`` as Lambda serialises it (an error as
        ``{"errorMessage", "errorType", …}``)."""
        with self.lock:
            request = {"id": str(uuid.uuid4()), "event": event}
            self.requests.write(json.dumps(request) + "\n")
            self.requests.flush()
            line = self.replies.readline()
        if not line:
            raise RuntimeError(f"the function's interpreter ended (status {self.process.wait()})")
        out = json.loads(line)
        return json.dumps(out["response"] if "response" in out else out["error"])

    def close(self) -> None:
        self.requests.close()  # end of its control pipe: the loop ends
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.replies.close()


class LocalSam:
    """The built template as SAM reads it, and each function's environment as SAM gives it."""

    def __init__(self, env_vars: str, arch: str) -> None:
        from samcli.commands.local.lib.local_lambda import LocalLambdaRunner
        from samcli.lib.providers.sam_function_provider import SamFunctionProvider
        from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider

        if not BUILT_TEMPLATE.is_file():
            raise SystemExit(f"sam (stand-in): no {BUILT_TEMPLATE}: run the build first")
        if arch != MACHINE_ARCH:
            raise SystemExit(
                f"sam (stand-in): Architecture={arch} on a {MACHINE_ARCH} machine: the functions "
                "would run in an emulated image (or not at all)"
            )
        self.stacks, _ = SamLocalStackProvider.get_stacks(
            str(BUILT_TEMPLATE), parameter_overrides={"Architecture": arch}
        )
        self.functions = SamFunctionProvider(self.stacks)
        values = json.loads(rewrite(Path(env_vars).read_text(encoding="utf-8")))
        cwd = os.getcwd()
        # SAM's own resolution of a function's environment (its runtime is not needed for that)
        self.runner = LocalLambdaRunner(None, self.functions, cwd, cwd, env_vars_values=values)  # type: ignore[arg-type]

    def function(self, name: str) -> Any:
        function = self.functions.get(name)
        if function is None:
            raise SystemExit(f"sam (stand-in): no function {name} in {BUILT_TEMPLATE}")
        if function.architectures != [MACHINE_ARCH]:
            raise SystemExit(f"sam (stand-in): {name} is built for {function.architectures}")
        return function

    def container(self, name: str, logs: IO[str] | int | None) -> Container:
        function = self.function(name)
        env = self.runner._make_env_vars(function).resolve()
        return Container(function, env, logs)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env-vars", "-n", required=True)
    parser.add_argument("--docker-network", required=True)
    parser.add_argument("--parameter-overrides", required=True)


def _arch(args: argparse.Namespace) -> str:
    name, _, value = args.parameter_overrides.partition("=")
    if name != "Architecture" or " " in value:
        raise SystemExit("sam (stand-in): --parameter-overrides Architecture=<arch> expected")
    if args.docker_network != samlocal.NETWORK:
        raise SystemExit(f"sam (stand-in): --docker-network {samlocal.NETWORK} expected")
    return value


def invoke(argv: list[str]) -> int:
    """``sam local invoke FUNCTION -e EVENT …``: the answer on stdout, the logs on stderr."""
    parser = argparse.ArgumentParser(prog="sam local invoke (stand-in)")
    parser.add_argument("function")
    parser.add_argument("--event", "-e", required=True)
    _common(parser)
    args = parser.parse_args(argv)
    sam = LocalSam(args.env_vars, _arch(args))
    event = rewrite(Path(args.event).read_text(encoding="utf-8"))
    container = sam.container(args.function, sys.stderr)
    try:
        print(container.invoke(event), flush=True)
    finally:
        container.close()
    return 0


class WarmRunner:
    """The Lambda runner ``LocalApigwService`` calls: a warm container per function."""

    def __init__(self, sam: LocalSam, eager: bool) -> None:
        self.sam = sam
        self.containers: dict[str, Container] = {}
        self.lock = threading.Lock()
        if eager:
            for function in sam.functions.get_all():
                self._container(function.name)

    def _container(self, name: str) -> Container:
        with self.lock:
            if name not in self.containers:
                self.containers[name] = self.sam.container(name, sys.stderr)
            return self.containers[name]

    def is_debugging(self) -> bool:
        return False

    def invoke(self, function_identifier: str, event: str, stdout: Any = None, **_: Any) -> None:
        stdout.write_str(self._container(function_identifier).invoke(event))

    def close(self) -> None:
        for container in self.containers.values():
            container.close()


def start_api(argv: list[str]) -> int:
    """``sam local start-api …`` on a free loopback port (written to ``--samshim-port-file``);
    SAM's "Mounting …" lines on stdout; serves until SIGTERM."""
    import signal

    from samcli.commands.local.lib.local_api_service import LocalApiService
    from samcli.lib.providers.api_provider import ApiProvider
    from samcli.lib.utils.stream_writer import StreamWriter
    from samcli.local.apigw.local_apigw_service import LocalApigwService
    from werkzeug.serving import make_server

    parser = argparse.ArgumentParser(prog="sam local start-api (stand-in)")
    _common(parser)
    parser.add_argument("--warm-containers", choices=("EAGER", "LAZY"), required=True)
    parser.add_argument("--samshim-port-file", required=True)
    args = parser.parse_args(argv)
    sam = LocalSam(args.env_vars, _arch(args))
    runner = WarmRunner(sam, eager=args.warm_containers == "EAGER")
    api = ApiProvider(sam.stacks, cwd=os.getcwd()).api
    errors = StreamWriter(sys.stderr)
    service = LocalApigwService(api, runner, port=0, host="127.0.0.1", stderr=errors)  # type: ignore[arg-type]
    service.create()
    server = make_server("127.0.0.1", 0, service._app, threaded=True)
    port = server.server_port
    for line in LocalApiService._print_routes(api.routes, "127.0.0.1", port):
        print(line, flush=True)
    Path(args.samshim_port_file).write_text(str(port))
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    try:
        server.serve_forever()
    finally:
        runner.close()
    return 0


def main(argv: list[str]) -> int:
    command, rest = argv[0], argv[1:]
    if command == "invoke":
        return invoke(rest)
    if command == "start-api":
        return start_api(rest)
    raise SystemExit(f"sam (stand-in): no `sam local {command}`")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
