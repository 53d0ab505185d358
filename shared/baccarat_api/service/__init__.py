"""Use cases of the API, one module per Lambda function's work, on the repository port and the
vault. They take plain values and return JSON-ready dicts; HTTP lives in the routers."""
