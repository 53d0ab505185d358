"""Implementations of the ports: DynamoDB, KMS, the shoe cache, the in-memory repository."""
