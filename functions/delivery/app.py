"""Lambda entry point of the webhook delivery function (template.yaml): one delivery pass per
queued feed shard; the logic is in shared/."""

from baccarat_api.jobs.delivery import lambda_handler

handler = lambda_handler()
