#!/bin/sh
# As AWS's image's entrypoint: the handler as the argument. Outside Lambda (no
# AWS_LAMBDA_RUNTIME_API) it needs an emulator; `sam local` does not use this file: it runs its own
# emulator (/var/rapid/aws-lambda-rie), which runs /var/runtime/bootstrap.
if [ $# -ne 1 ]; then
  echo "entrypoint requires the handler name to be the first argument" 1>&2
  exit 142
fi
export _HANDLER="$1"
if [ -z "${AWS_LAMBDA_RUNTIME_API}" ]; then
  for rie in /var/rapid/aws-lambda-rie /usr/local/bin/aws-lambda-rie; do
    [ -x "$rie" ] && exec "$rie" /var/runtime/bootstrap
  done
  echo "no runtime interface emulator in this image (sam local mounts one)" 1>&2
  exit 1
fi
exec /var/runtime/bootstrap
