"""Lambda entry point of the TiersSeed custom resource (template.yaml): seeds tiers.json, which
sits next to this file in the function's code, into the config table on every deploy that
changes it."""

from pathlib import Path

from baccarat_api.observability import logger
from baccarat_api.seed import custom_resource

TIERS = Path(__file__).with_name("tiers.json")


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict, context: object) -> None:  # type: ignore[type-arg]
    custom_resource(event, context, TIERS)
