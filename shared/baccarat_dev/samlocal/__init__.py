"""``sam local`` for this project: the functions of template.yaml in Docker, on local engines
(DynamoDB Local and moto's server for KMS). docs/sam-local.md is the recipe; this package is the
machinery behind ``baccarat sam-local …`` and ``make sam-local``, in parts: :mod:`.catalogue`
(every invocation and its event file), :mod:`.environment`, :mod:`.checks`, :mod:`.ids`,
:mod:`.commands`, :mod:`.engines`, :mod:`.scaffold`.

Every path is relative to the project root: the nearest folder, from the working directory up,
holding template.yaml and events/. Development-time only."""

from __future__ import annotations

from baccarat_dev.samlocal.catalogue import (
    CFN_BUCKET,
    CFN_PREFIX,
    CONTAINER_ENDPOINTS,
    DYNAMODB_URL,
    ENV_FILE,
    EVENTS,
    IDS,
    IDS_FILE,
    MOTO_URL,
    NETWORK,
    OPERATOR,
    PLACEHOLDER,
    RENDERED,
    STAGE,
    TEMPLATE_FILE,
    Invocation,
    SamLocalError,
    invocations,
    kebab_without,
    project_root,
    snake,
)
from baccarat_dev.samlocal.checks import (
    check,
    check_event,
    fill,
    is_table_ref,
    load_event,
    placeholders,
)
from baccarat_dev.samlocal.commands import (
    LAMBDA_IMAGE,
    REFUSED_IN_RECIPE,
    commands,
    event_path,
    invoke_line,
    local_flags,
    start_api_line,
)
from baccarat_dev.samlocal.engines import cfn_answer, setup, wait_until_answering
from baccarat_dev.samlocal.environment import (
    LocalValue,
    check_environment,
    env_file_text,
    local_environment,
    local_key_alias,
    local_table_name,
    local_value,
    template_variables,
)
from baccarat_dev.samlocal.ids import read_answer, remembered_ids, render, take
from baccarat_dev.samlocal.scaffold import EVENT_EPOCH_MS, http_event, scaffold

__all__ = [
    "CFN_BUCKET",
    "CFN_PREFIX",
    "CONTAINER_ENDPOINTS",
    "DYNAMODB_URL",
    "ENV_FILE",
    "EVENTS",
    "EVENT_EPOCH_MS",
    "IDS",
    "IDS_FILE",
    "LAMBDA_IMAGE",
    "MOTO_URL",
    "NETWORK",
    "OPERATOR",
    "PLACEHOLDER",
    "REFUSED_IN_RECIPE",
    "RENDERED",
    "STAGE",
    "TEMPLATE_FILE",
    "Invocation",
    "LocalValue",
    "SamLocalError",
    "cfn_answer",
    "check",
    "check_environment",
    "check_event",
    "commands",
    "env_file_text",
    "event_path",
    "fill",
    "http_event",
    "invocations",
    "invoke_line",
    "is_table_ref",
    "kebab_without",
    "load_event",
    "local_environment",
    "local_flags",
    "local_key_alias",
    "local_table_name",
    "local_value",
    "placeholders",
    "project_root",
    "read_answer",
    "remembered_ids",
    "render",
    "scaffold",
    "setup",
    "snake",
    "start_api_line",
    "take",
    "template_variables",
    "wait_until_answering",
]
