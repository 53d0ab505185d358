"""Infra tier: template.yaml under cfn-lint's and SAM's eyes, ``sam build`` and the built
artifacts in clean interpreters. Fixtures in :mod:`support.stack`."""

from support.stack import api, aws_env, logs, stack  # noqa: F401  (the fixtures)
