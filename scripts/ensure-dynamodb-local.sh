#!/usr/bin/env bash
# Makes sure DynamoDB Local (Amazon's own engine) and a Java >= 17 to run it are on this machine,
# and prints the emulator folder: the one holding DynamoDBLocal.jar, whose DynamoDBLocal_lib/
# subfolder holds the jars and the sqlite4java native libraries (-Djava.library.path).
#
#   dir=$(scripts/ensure-dynamodb-local.sh)     # only the path goes to stdout
#   java -Djava.library.path="$dir/DynamoDBLocal_lib" -jar "$dir/DynamoDBLocal.jar" \
#        -inMemory -sharedDb -disableTelemetry -port 0
#
# Where it comes from: the npm package amplify-dynamodb-simulator (pinned below, with the
# registry's integrity hash) ships DynamoDB Local 1.25.1 in its emulator/ folder. Only that folder
# is needed, so the package's tarball is fetched with `npm pack` (npm's own download, cache and
# integrity check) and its emulator/ is unpacked into .venv/dynamodb-local/ (ignored, removed by
# `make clean`). No install scripts run and nothing is downloaded from anywhere but the npm
# registry. (The package's own `build` script downloads from outside the registry, but it is a
# maintainer's script that npm never runs on install. A plain `npm install` of the package would
# also work, scripts-free, but brings 283 packages / 347 MB of dependencies (the Amplify CLI core,
# aws-cdk-lib, typescript) that running the jar never needs.)
#
# Idempotent: a finished unpack is reused at once (nothing is run but `java -version`).
# DYNAMODB_LOCAL_DIR=<folder with DynamoDBLocal.jar> uses that folder instead of the cache.
# Java: when no java >= 17 is on PATH (or $JAVA), Debian's openjdk-17-jre-headless is installed
# with apt-get (as root); ALLOW_NO_DYNAMODB_LOCAL=1 warns instead of failing when that is
# impossible (the tests that need DynamoDB Local then skip).
set -euo pipefail

PACKAGE=amplify-dynamodb-simulator
VERSION=2.9.30
INTEGRITY='sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ=='
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${DYNAMODB_LOCAL_CACHE:-$ROOT/.venv/dynamodb-local}
TARGET=$CACHE/$PACKAGE-$VERSION

say() { echo "ensure-dynamodb-local: $*" >&2; }

give_up() {
  say "$*"
  if [[ "${ALLOW_NO_DYNAMODB_LOCAL:-0}" == "1" ]]; then
    say "continuing without it; the tests that need DynamoDB Local will be skipped"
    exit 0
  fi
  exit 1
}

java_major() {  # the major version of "$1" -version ('1.8.0_x' -> 8, '17.0.15' -> 17), or nothing
  "$1" -version 2>&1 | sed -n 's/.* version "\([0-9][0-9.]*\).*/\1/p' | head -n1 |
    awk -F. '{ print ($1 == 1 ? $2 : $1) }'
}

java_ok() {
  local java=${JAVA:-java} major
  command -v "$java" >/dev/null 2>&1 || return 1
  major=$(java_major "$java")
  [[ -n "$major" && "$major" -ge 17 ]]
}

ensure_java() {
  java_ok && return 0
  local found=none
  command -v "${JAVA:-java}" >/dev/null 2>&1 && found=$("${JAVA:-java}" -version 2>&1 | head -n1)
  say "no Java >= 17 on PATH (found: $found)"
  command -v apt-get >/dev/null 2>&1 ||
    give_up "install a Java 17+ runtime (not a Debian system: no apt-get)"
  local sudo=()
  if [[ "$(id -u)" != "0" ]]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null ||
      give_up "installing Java needs root: run 'sudo apt-get install openjdk-17-jre-headless'"
    sudo=(sudo -n)
  fi
  say "installing Debian's openjdk-17-jre-headless with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  ${sudo[@]+"${sudo[@]}"} apt-get update -qq || give_up "apt-get update failed"
  ${sudo[@]+"${sudo[@]}"} apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless \
    >/dev/null || give_up "apt-get install openjdk-17-jre-headless failed"
  java_ok || give_up "Java 17 was installed but 'java' on PATH is still older or missing"
}

unpack() {  # fetch the pinned tarball through npm and unpack its emulator/ into $TARGET
  command -v npm >/dev/null 2>&1 || give_up "npm is missing (install Node.js and npm)"
  mkdir -p "$CACHE"
  WORK=$(mktemp -d "$CACHE/.unpack.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  local work=$WORK
  say "fetching $PACKAGE@$VERSION from the npm registry (57 MB, once)"
  (cd "$work" && npm pack --silent --pack-destination "$work" "$PACKAGE@$VERSION" >/dev/null) ||
    give_up "npm pack $PACKAGE@$VERSION failed"
  local tarball=$work/$PACKAGE-$VERSION.tgz got
  got=$(node -e 'const c = require("crypto"), fs = require("fs");
    console.log("sha512-" + c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' "$tarball")
  [[ "$got" == "$INTEGRITY" ]] || give_up "integrity mismatch for $tarball: $got"
  tar -xzf "$tarball" -C "$work" package/emulator package/LICENSE package/package.json
  [[ -f "$work/package/emulator/DynamoDBLocal.jar" ]] || give_up "no emulator/DynamoDBLocal.jar in $tarball"
  rm -rf "$TARGET"
  mv "$work/package" "$TARGET"  # atomic: a half-unpacked folder is never seen as done
}

ensure_java

if [[ -n "${DYNAMODB_LOCAL_DIR:-}" ]]; then
  [[ -f "$DYNAMODB_LOCAL_DIR/DynamoDBLocal.jar" ]] ||
    give_up "DYNAMODB_LOCAL_DIR=$DYNAMODB_LOCAL_DIR holds no DynamoDBLocal.jar"
  echo "$DYNAMODB_LOCAL_DIR"
  exit 0
fi

if [[ ! -f "$TARGET/emulator/DynamoDBLocal.jar" ]]; then
  mkdir -p "$CACHE"
  # one unpack at a time (parallel test workers, two make targets): the others wait, then reuse it
  exec 9>"$CACHE/.lock"
  flock 9
  [[ -f "$TARGET/emulator/DynamoDBLocal.jar" ]] || unpack
fi
echo "$TARGET/emulator"
