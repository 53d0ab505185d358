"""Lambda entry point of the webhook delivery function (template.yaml): one delivery pass per
queued feed shard; the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.jobs.delivery import lambda_handler

handler = coldstart.ready(lambda_handler())
