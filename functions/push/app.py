"""Lambda entry point of the push job (template.yaml): the state table's stream → the tables'
push channels (AppSync Events); the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.jobs.push import lambda_handler

handler = coldstart.ready(lambda_handler())
