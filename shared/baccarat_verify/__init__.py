"""The player's ``baccarat verify``: the core's verifier (:mod:`baccarat.verify`, standard library
only) with what the core does not have — an ES256 signature check on a maintained library
(``cryptography``). Nothing here knows the service."""
