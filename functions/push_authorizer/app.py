"""Lambda entry point of the push channel's authorizer (template.yaml: AppSync Events'
connect and subscribe); the logic is in shared/."""

from baccarat_api import coldstart  # first: no garbage collection while the rest loads
from baccarat_api.http.push_authorizer import lambda_handler

handler = coldstart.ready(lambda_handler())
