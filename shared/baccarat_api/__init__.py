"""The service layer of the baccarat engine, in rooms (docs/architecture.md): ``service/`` (use
cases, domain errors, the contract's models), ``ports/`` (records, repository, vault),
``adapters/`` (DynamoDB, KMS, caches, in-memory), ``http/`` (FastAPI, the Lambda handlers),
``jobs/`` (sweep, seeding), and the shared kernel beside them (ids, limits, settings,
observability, runtime). Import what you need from the submodules; this package imports
nothing."""
