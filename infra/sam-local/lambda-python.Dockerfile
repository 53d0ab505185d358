# Stand-in for AWS's public.ecr.aws/lambda/python:3.11 (scripts/sam-local-images.sh builds it when
# that registry is unreachable): Debian bookworm's python3.11 (FROM: the mmdebstrap rootfs) and
# AWS's runtime interface client (awslambdaric, from PyPI, pip-installed into runtime/ of the build
# context). `sam local` adds its runtime interface emulator (/var/rapid/aws-lambda-rie) and the
# layers (/opt) on top, mounts the function's code at /var/task and runs the emulator, which runs
# /var/runtime/bootstrap: the same contract as AWS's image.
ARG BASE
FROM ${BASE}
COPY runtime/ /var/runtime/
COPY bootstrap lambda-entrypoint.sh /
RUN mv /bootstrap /var/runtime/bootstrap && chmod 755 /var/runtime/bootstrap /lambda-entrypoint.sh \
    && mkdir -p /var/task /opt && ln -sf /usr/bin/python3.11 /usr/local/bin/python3 \
    && PYTHONPATH=/var/runtime python3.11 -c "import awslambdaric"
ENV LANG=C.UTF-8 TZ=:UTC LAMBDA_TASK_ROOT=/var/task LAMBDA_RUNTIME_DIR=/var/runtime \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /var/task
ENTRYPOINT ["/lambda-entrypoint.sh"]
