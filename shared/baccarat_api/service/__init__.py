"""Use cases of the API, one module per piece of work (tables, dealing, settling, voiding,
reading, audit, auto-settle, idempotency, auth), on the ports (repository, vault, shoe source).
They take the contract's request models (:mod:`.models`), raise :class:`.errors.DomainError`
(no HTTP status anywhere here) and return the contract's response models; HTTP lives in
:mod:`baccarat_api.http`."""
