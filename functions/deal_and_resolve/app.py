"""Lambda entry point of the deal-and-resolve function (template.yaml); the logic is in shared/."""

from baccarat_api.http.handler import lambda_handler
from baccarat_api.http.routers.deal_and_resolve import router

handler = lambda_handler(router)
