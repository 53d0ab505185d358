"""Lambda entry point of the HttpApi Lambda authorizer (template.yaml); the logic is in shared/."""

from baccarat_api.http.authorizer import lambda_handler

handler = lambda_handler()
