"""Integration tier: the DynamoDB adapter over moto (tables created from template.yaml), the
handlers with real HTTP API v2 events, and the independent implementations. Fixtures in
:mod:`support.stack`."""

from support.stack import api, aws_env, logs, stack  # noqa: F401  (the fixtures)
