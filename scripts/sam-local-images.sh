#!/usr/bin/env bash
# The three images of docs/sam-local.md, and which ones they are. Prints (stdout) the lines
#   export LAMBDA_IMAGE=… DYNAMODB_IMAGE=… MOTO_IMAGE=…
# for `eval "$(scripts/sam-local-images.sh)"`, and says on stderr where each came from.
#
# * Registry reachable (the image pulls): AWS's own images — public.ecr.aws/lambda/python:3.11
#   (for this machine's architecture; `sam local` would pull it itself), amazon/dynamodb-local and
#   motoserver/moto from Docker Hub.
# * Otherwise a stand-in, built here once per machine and cached (`docker image inspect` first;
#   SAM_LOCAL_REBUILD=1 builds again) from Debian's packages and PyPI only:
#   - baccarat-local/debian:bookworm — a Debian bookworm rootfs with python3.11, made by
#     mmdebstrap (apt-get installs it when missing) and `docker import`ed;
#   - baccarat-local/lambda-python:3.11 — that + AWS's runtime interface client (awslambdaric,
#     pinned below) laid out as AWS's Lambda image (infra/sam-local/lambda-python.Dockerfile);
#   - baccarat-local/dynamodb-local:1.25.1 — that + Java 17 + the DynamoDB Local the tests run
#     (scripts/ensure-dynamodb-local.sh), as Amazon's image (infra/sam-local/dynamodb-local.Dockerfile);
#   - baccarat-local/moto:5.2.5 — that + moto's server from PyPI (infra/sam-local/moto.Dockerfile).
# SAM_LOCAL_IMAGES=stand-in skips the pulls; SAM_LOCAL_IMAGES=aws fails when they fail.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DOCKERFILES=$ROOT/infra/sam-local
AWSLAMBDARIC=4.2.2
MOTO=5.2.5
DYNAMODB_LOCAL=1.25.1
PIP=${PIP:-$ROOT/.venv/bin/pip}
MODE=${SAM_LOCAL_IMAGES:-auto}
case $(uname -m) in aarch64|arm64) ARCH=arm64 ;; *) ARCH=x86_64 ;; esac

say() { echo "sam-local-images: $*" >&2; }
have() { docker image inspect "$1" >/dev/null 2>&1; }

# AWS's image first, when its registry answers.
pulled() {
  [[ $MODE == stand-in ]] && return 1
  if have "$1" || docker pull -q "$1" >/dev/null 2>&1; then return 0; fi
  [[ $MODE == aws ]] && { say "cannot pull $1 (SAM_LOCAL_IMAGES=aws)"; exit 1; }
  return 1
}

BASE=baccarat-local/debian:bookworm
base() {
  if have $BASE && [[ -z ${SAM_LOCAL_REBUILD:-} ]]; then return; fi
  command -v mmdebstrap >/dev/null || {
    say "installing mmdebstrap (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
  }
  say "building $BASE (mmdebstrap: Debian bookworm + python3.11)"
  mmdebstrap --quiet --variant=minbase --include=python3.11,ca-certificates bookworm - \
    | docker import -c 'ENV LANG=C.UTF-8' -c 'CMD ["/bin/bash"]' - $BASE >/dev/null
}

quietly() {  # COMMAND…: its output only when it fails
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  [[ $rc == 0 ]] || { cat "$log" >&2; say "failed: $*"; }
  rm -f "$log"
  return $rc
}

# build IMAGE DOCKERFILE CONTEXT
build() {
  say "building $1 ($(basename "$2"))"
  cp "$2" "$3/Dockerfile"
  quietly docker build --build-arg BASE=$BASE -t "$1" "$3"
}

standin() {  # IMAGE: built unless cached
  local image=$1 context
  if have "$image" && [[ -z ${SAM_LOCAL_REBUILD:-} ]]; then say "$image: stand-in, cached"; return; fi
  base
  context=$(mktemp -d)
  case $image in
    */lambda-python:*)
      quietly "$PIP" install --target "$context/runtime" "awslambdaric==$AWSLAMBDARIC"
      cp "$DOCKERFILES/bootstrap" "$DOCKERFILES/lambda-entrypoint.sh" "$context/"
      build "$image" "$DOCKERFILES/lambda-python.Dockerfile" "$context" ;;
    */dynamodb-local:*)
      cp -r "$("$ROOT/scripts/ensure-dynamodb-local.sh")" "$context/emulator"
      build "$image" "$DOCKERFILES/dynamodb-local.Dockerfile" "$context" ;;
    */moto:*)
      quietly "$PIP" install --target "$context/site" "moto[server]==$MOTO"
      build "$image" "$DOCKERFILES/moto.Dockerfile" "$context" ;;
  esac
  rm -rf "$context"
}

pick() {  # VARIABLE AWS-IMAGE STAND-IN
  if pulled "$2"; then
    say "$1=$2 (AWS's image, pulled)"
    echo "export $1=$2"
  else
    standin "$3"
    say "$1=$3 (stand-in: $2 could not be pulled)"
    echo "export $1=$3"
  fi
}

pick LAMBDA_IMAGE "public.ecr.aws/lambda/python:3.11-$ARCH" baccarat-local/lambda-python:3.11
pick DYNAMODB_IMAGE "amazon/dynamodb-local:$DYNAMODB_LOCAL" "baccarat-local/dynamodb-local:$DYNAMODB_LOCAL"
pick MOTO_IMAGE "motoserver/moto:$MOTO" "baccarat-local/moto:$MOTO"
