"""The service layer of the baccarat engine: HTTP API models, repository port and DynamoDB
adapter, KMS secret handling, the one error envelope, the FastAPI app factory and one router per
Lambda function. Import what you need from the submodules; this package imports nothing."""
