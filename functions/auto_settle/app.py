"""Lambda entry point of the auto-settle function (template.yaml): the scheduled sweep; the
logic is in shared/."""

from baccarat_api.jobs.sweep import lambda_handler

handler = lambda_handler()
