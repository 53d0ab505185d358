"""The HTTP room: FastAPI app, routers, dependencies, the one place domain errors become HTTP
answers, auth, rate limit, CORS, the Lambda handler factory and the authorizer."""
