"""Development-only tools: never shipped in a Lambda layer."""
