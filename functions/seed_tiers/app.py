"""Lambda entry point of the TiersSeed custom resource (template.yaml): seeds tiers.json (a link to
infra/tiers.json, the one data file, copied into the function's code by ``sam build``) into the
config table on every deploy that changes it; the logic is in shared/."""

from pathlib import Path
from typing import Any

from baccarat_api.jobs.seed import custom_resource
from baccarat_api.observability import logger

TIERS = Path(__file__).with_name("tiers.json")


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> None:
    custom_resource(event, context, TIERS)
