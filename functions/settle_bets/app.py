"""Lambda entry point of the settle-bets function (template.yaml); the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.http.handler import lambda_handler
from baccarat_api.http.routers import function_router

handler = coldstart.ready(lambda_handler(function_router("settle_bets")))
