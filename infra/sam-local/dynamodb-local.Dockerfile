# Stand-in for amazon/dynamodb-local:1.25.1 (scripts/sam-local-images.sh builds it when Docker Hub
# is unreachable): Debian bookworm's Java 17 (apt-get, in the build) and the same DynamoDB Local
# 1.25.1 the tests run (scripts/ensure-dynamodb-local.sh: the npm package's emulator/ folder, the
# build context's emulator/). Laid out and started as Amazon's image: the jar in
# /home/dynamodblocal, `java` the entrypoint, so `docker run IMAGE -jar DynamoDBLocal.jar …` is the
# same command for both.
ARG BASE
FROM ${BASE}
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      openjdk-17-jre-headless >/dev/null && rm -rf /var/lib/apt/lists/*
COPY emulator/ /home/dynamodblocal/
WORKDIR /home/dynamodblocal
EXPOSE 8000
ENTRYPOINT ["java"]
CMD ["-jar", "DynamoDBLocal.jar", "-inMemory"]
