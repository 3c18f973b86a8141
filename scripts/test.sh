#!/usr/bin/env bash
# `npm test`: static checks, unit tests, then integration tests against real Postgres, Redis,
# Kafka and Temporal. Brings up whatever infrastructure is not already running and stops only
# what it started.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "typecheck"
npx tsc --noEmit -p tsconfig.json
step "lint (type-aware, zero warnings)"
npx eslint --max-warnings 0 apps libs scripts test bench
step "format"
npx prettier --check . --log-level warn

step "unit tests"
npx jest --selectProjects unit --ci

step "infrastructure"
bash scripts/infra.sh fetch
trap 'bash scripts/infra.sh down' EXIT
bash scripts/infra.sh up

step "integration tests"
npx jest --selectProjects integration --runInBand --ci --forceExit
