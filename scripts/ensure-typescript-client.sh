#!/usr/bin/env bash
# Makes sure clients/typescript/node_modules holds exactly what clients/typescript/package-lock.json
# locks (openapi-fetch, openapi-typescript, typescript, tsx, @types/node), for the TypeScript
# client's tests (tests/integration/test_typescript_client.py, tests/live/test_typescript_client.py).
#
#   scripts/ensure-typescript-client.sh               # install when missing or stale
#   ALLOW_NO_TYPESCRIPT_CLIENT=1 scripts/...          # warn instead of failing (those tests then skip)
#
# Idempotent and offline-safe: when node_modules was installed from the same lock file (its
# SHA-256 is kept in node_modules/.baccarat-lock-sha256), nothing runs and nothing is fetched.
# Otherwise `npm ci` (the lock file's exact versions and integrity hashes, from the npm registry
# through npm's cache; --prefer-offline: the cache first). No install scripts run (--ignore-scripts:
# none of these packages needs one; esbuild's binary comes as a platform package).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLIENT=$ROOT/clients/typescript
STAMP=$CLIENT/node_modules/.baccarat-lock-sha256

say() { echo "ensure-typescript-client: $*" >&2; }

give_up() {
  say "$*"
  if [[ "${ALLOW_NO_TYPESCRIPT_CLIENT:-0}" == "1" ]]; then
    say "continuing without it; the TypeScript client's tests will be skipped"
    exit 0
  fi
  exit 1
}

command -v node >/dev/null 2>&1 || give_up "node is missing (install Node.js >= 20 and npm)"
command -v npm >/dev/null 2>&1 || give_up "npm is missing (install Node.js >= 20 and npm)"
major=$(node -p 'process.versions.node.split(".")[0]')
[[ "$major" -ge 20 ]] || give_up "Node.js >= 20 is needed, found $(node --version)"

want=$(sha256sum "$CLIENT/package-lock.json" | cut -d' ' -f1)
current() { [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" && -x "$CLIENT/node_modules/.bin/tsc" ]]; }

if current; then
  say "up to date ($CLIENT/node_modules)"
  exit 0
fi

# one install at a time (parallel test workers, two make targets): the others wait, then reuse it
exec 9>"$CLIENT/.npm-ci.lock"
flock 9
if ! current; then
  say "npm ci in clients/typescript"
  (cd "$CLIENT" && npm ci --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error) ||
    give_up "npm ci failed in $CLIENT"
  echo "$want" >"$STAMP"
fi
say "installed ($CLIENT/node_modules)"
