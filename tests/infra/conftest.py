"""Infra tier: template.yaml under cfn-lint's and SAM's eyes, ``sam build`` and the built
artifacts in clean interpreters. Fixtures in :mod:`support.stack`
and :mod:`support.dynamodb_local`."""

from support.dynamodb_local import (  # noqa: F401  (the fixtures)
    dynamodb_local,
    dynamodb_local_api,
    dynamodb_local_client,
    dynamodb_local_client_factory,
    dynamodb_local_stack,
    dynamodb_local_tables,
)
from support.stack import api, aws_env, logs, stack  # noqa: F401  (the fixtures)
