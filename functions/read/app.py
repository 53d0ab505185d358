"""Lambda entry point of the read function (template.yaml); the logic is in shared/."""

from baccarat_api.http.handler import lambda_handler
from baccarat_api.http.routers.read import router

handler = lambda_handler(router)
