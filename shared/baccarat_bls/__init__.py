"""The BLS12-381 check of a beacon's signature (``bls-unchained-g1-rfc9380``), written once for
the service (its beacon adapters) and the offline verifier (``baccarat verify``).

A package of its own because the core (:mod:`baccarat.beacon`: the chain, the round, the message)
imports only the standard library, and ``baccarat_api`` and ``baccarat_verify`` may not import
each other; both import this. The pairing library is ``py-arkworks-bls12381`` (the Ethereum
Foundation's bindings of arkworks; docs/architecture.md, "Beacon: drand quicknet", says why)."""

from baccarat_bls.verify import verify_beacon, verify_signature

__all__ = ["verify_beacon", "verify_signature"]
