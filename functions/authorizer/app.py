"""Lambda entry point of the HttpApi Lambda authorizer (template.yaml); the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.http.authorizer import lambda_handler

handler = coldstart.ready(lambda_handler())
