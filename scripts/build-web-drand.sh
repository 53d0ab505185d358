#!/usr/bin/env bash
# make regen: web/drand.js, the browser verifier's BLS check, bundled from web/drand/src/drand.js
# and @noble/curves (web/drand/package-lock.json) by esbuild (web/drand/build.mjs). node_modules is
# installed with `npm ci` when missing or installed from another lock (its SHA-256 kept in
# node_modules/.baccarat-lock-sha256); no install scripts run (esbuild's binary is a platform
# package). tests/unit/test_web_drand.py fails while web/drand.js is stale.
set -euo pipefail

DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../web/drand" && pwd)
STAMP=$DIR/node_modules/.baccarat-lock-sha256
want=$(sha256sum "$DIR/package-lock.json" | cut -d' ' -f1)
if [[ ! -f "$STAMP" || "$(cat "$STAMP")" != "$want" ]]; then
  (cd "$DIR" && npm ci --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$want" >"$DIR/node_modules/.baccarat-lock-sha256"
fi
node "$DIR/build.mjs"
