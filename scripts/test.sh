#!/usr/bin/env bash
# `npm test`: static checks, unit tests (with the deployment manifest checks), the Discord contract
# suite (no infrastructure), integration tests, then the fault and load suite
# (`npm run test:faults`), against real Postgres, Redis, Kafka and Temporal. Brings up whatever
# infrastructure is not already running and stops only what it started.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "typecheck (the services, then the dashboard)"
npx tsc --noEmit -p tsconfig.json
npx tsc --noEmit -p apps/dashboard
step "lint (type-aware, zero warnings)"
npx eslint --max-warnings 0 apps libs scripts standalone test bench
step "format"
npx prettier --check . --log-level warn

step "unit tests"
npx jest --selectProjects unit --ci --forceExit

step "contract (the fake platform and the product's requests against Discord's published schemas)"
npx jest --selectProjects contract --ci --forceExit

step "infrastructure"
bash scripts/infra.sh fetch
trap 'bash scripts/infra.sh down' EXIT
bash scripts/infra.sh up

step "integration tests"
npx jest --selectProjects integration --runInBand --ci --forceExit

step "security (each attack of the review, against the real apps)"
npx jest --selectProjects security --runInBand --ci --forceExit

step "faults and load"
npx jest --selectProjects faults --runInBand --ci --forceExit

step "browser (the dashboard in Chromium: standalone mode, then the distributed stack)"
bash scripts/browser-tests.sh
