#!/usr/bin/env bash
# `npm test`: static checks, unit tests (with the deployment manifest checks), the Discord contract
# suite (no infrastructure), integration tests, then the fault and load suite
# (`npm run test:faults`), against real Postgres, Redis, Kafka and Temporal. Brings up whatever
# infrastructure is not already running and stops only what it started.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's time goes to .test-timings/steps.tsv and each Jest step's results beside it;
# the table of both is printed at the end, whether the run passed or not.
TIMINGS=.test-timings
rm -rf "$TIMINGS" && mkdir -p "$TIMINGS"
STEP_NAME=""
STEP_START=0
end_step() {
  if [ -n "$STEP_NAME" ]; then printf '%s\t%s\n' "$STEP_NAME" "$((SECONDS - STEP_START))" >>"$TIMINGS/steps.tsv"; fi
  STEP_NAME=""
}
step() {
  end_step
  STEP_NAME="$*"
  STEP_START=$SECONDS
  printf '\n== %s\n' "$*"
}
INFRA_UP=0
finish() {
  local status=$?
  end_step
  node -r @swc-node/register scripts/test-timings.ts || true
  if [ "$INFRA_UP" = 1 ]; then bash scripts/infra.sh down; fi
  exit "$status"
}
trap finish EXIT
# A Jest step's own results, for the table of the slowest files.
jest_json() { echo "--json --outputFile=$TIMINGS/$1.json"; }

step "typecheck (the services, then the dashboard)"
npx tsc --noEmit -p tsconfig.json
npx tsc --noEmit -p apps/dashboard
step "lint (type-aware, zero warnings)"
npx eslint --max-warnings 0 apps libs scripts standalone test bench
step "format"
npx prettier --check . --log-level warn
step "commit subjects (the commits since the check came: at most 72 characters, area: what changed)"
node -r @swc-node/register scripts/commit-subjects.ts

step "unit tests"
npx jest --selectProjects unit $(jest_json unit) --ci --forceExit

step "contract (the fake platform and the product's requests against Discord's published schemas)"
npx jest --selectProjects contract $(jest_json contract) --ci --forceExit

step "infrastructure"
bash scripts/infra.sh fetch
INFRA_UP=1
bash scripts/infra.sh up

step "integration tests"
npx jest --selectProjects integration $(jest_json integration) --runInBand --ci --forceExit

step "security (each attack of the review, against the real apps)"
npx jest --selectProjects security $(jest_json security) --runInBand --ci --forceExit

step "faults and load"
npx jest --selectProjects faults $(jest_json faults) --runInBand --ci --forceExit

step "browser (the dashboard in Chromium: standalone mode, then the distributed stack)"
bash scripts/browser-tests.sh
