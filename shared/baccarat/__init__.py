"""Pure baccarat domain core: standard library only (no AWS, no web framework, no pydantic)."""
