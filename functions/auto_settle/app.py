"""Lambda entry point of the auto-settle function (template.yaml): the scheduled sweep; the
logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.jobs.sweep import lambda_handler

handler = coldstart.ready(lambda_handler())
