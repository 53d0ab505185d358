#!/usr/bin/env bash
# Docker for `sam local` (docs/sam-local.md, make sam-local-test): the client and a running
# daemon. Installs Debian's docker.io when there is no dockerd (as root: CI runs as root on a
# fresh machine), starts dockerd when its socket does not answer, waits for it. Idempotent; a
# developer whose Docker runs (Docker Desktop, a systemd service) gets it checked and nothing more.
set -euo pipefail

if docker info >/dev/null 2>&1; then
  exit 0
fi
as_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }
if ! command -v dockerd >/dev/null; then
  echo "ensure-docker: installing docker.io (apt-get)" >&2
  as_root apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker.io >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
  log=${DOCKERD_LOG:-/tmp/dockerd.log}
  echo "ensure-docker: starting dockerd (log: $log)" >&2
  # its own session: it outlives the make that started it, and is no part of its process group
  as_root setsid dockerd >"$log" 2>&1 </dev/null &
  for _ in $(seq 120); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
fi
docker info >/dev/null 2>&1 || { echo "ensure-docker: dockerd does not answer (see $log)" >&2; exit 1; }
