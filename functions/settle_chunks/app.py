"""Lambda entry point of the settle chunk function (template.yaml): each queued chunk of a book
round's settlement run (receipts, pages, its event); the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.jobs.settle_chunks import lambda_handler

handler = coldstart.ready(lambda_handler())
