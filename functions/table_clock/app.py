"""Lambda entry point of the table clock function (template.yaml): each queued tick of a running
table delivered at its time; the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.jobs.table_clock import lambda_handler

handler = coldstart.ready(lambda_handler())
