"""The DynamoDB adapter: key schema, item codec, error mapping, the repository."""
