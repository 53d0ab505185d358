"""Lambda entry point of the feed indexer (template.yaml): the state table's stream → the
operator feed; the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.jobs.feed_indexer import lambda_handler

handler = coldstart.ready(lambda_handler())
