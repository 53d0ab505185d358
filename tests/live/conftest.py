"""Live tier: the local server (uvicorn + moto's server on loopback) under real concurrency,
schemathesis and a real browser. Fixtures in :mod:`support.stack`."""

from support.stack import api, aws_env, logs, stack  # noqa: F401  (the fixtures)
