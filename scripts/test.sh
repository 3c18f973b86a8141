#!/usr/bin/env bash
# `npm test`: static checks (at once, while the infrastructure starts), unit tests (with the
# deployment manifest checks), the Discord contract suite (no infrastructure), then the integration,
# security and fault and load suites side by side against real Postgres, Redis, Kafka and Temporal,
# and the dashboard in Chromium. Brings up whatever infrastructure is not already running and stops
# only what it started.
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
INFRA_PID=""
finish() {
  local status=$?
  end_step
  # A run that failed early lets the infrastructure finish starting before stopping it.
  if [ -n "$INFRA_PID" ]; then wait "$INFRA_PID" 2>/dev/null || true; fi
  node -r @swc-node/register scripts/test-timings.ts || true
  if [ "$INFRA_UP" = 1 ]; then bash scripts/infra.sh down; fi
  exit "$status"
}
trap finish EXIT
# A Jest step's own results, for the table of the slowest files.
jest_json() { echo "--json --outputFile=$TIMINGS/$1.json"; }

# Independent checks run at once, each with its output in $TIMINGS/<name>.log, shown when it fails:
# on two cores a type-aware lint beside two compilers finishes sooner than one after the other.
CHECKS=()
check() {
  local name="$1"
  shift
  (
    local started=$SECONDS
    if "$@" >"$TIMINGS/$name.log" 2>&1; then
      printf '   %-44s ok in %s s\n' "$name" "$((SECONDS - started))"
    else
      printf '   %-44s FAILED in %s s:\n' "$name" "$((SECONDS - started))"
      cat "$TIMINGS/$name.log"
      exit 1
    fi
  ) &
  CHECKS+=($!)
}
checks_pass() {
  local failed=0 pid
  for pid in "${CHECKS[@]}"; do wait "$pid" || failed=1; done
  CHECKS=()
  return "$failed"
}

# The infrastructure starts (Kafka and Temporal take a JVM's start each) while the checks and the
# tests that need none of it run; the integration step waits for it.
bash scripts/infra.sh fetch >"$TIMINGS/infrastructure.log" 2>&1 &&
  bash scripts/infra.sh up >>"$TIMINGS/infrastructure.log" 2>&1 &
INFRA_PID=$!
INFRA_UP=1

step "static checks at once (typecheck: services, dashboard; lint; format; commit subjects)"
check "typecheck (the services)" npx tsc --noEmit -p tsconfig.json
check "typecheck (the dashboard)" npx tsc --noEmit -p apps/dashboard
check "lint (type-aware, zero warnings)" npx eslint --max-warnings 0 apps libs scripts standalone test bench
check "format" npx prettier --check . --log-level warn
check "commit subjects (at most 72 characters, area: what)" node -r @swc-node/register scripts/commit-subjects.ts
checks_pass

step "unit tests"
npx jest --selectProjects unit $(jest_json unit) --ci --forceExit --maxWorkers=2

step "contract (the fake platform and the product's requests against Discord's published schemas)"
npx jest --selectProjects contract $(jest_json contract) --ci --forceExit --maxWorkers=2

step "infrastructure (started at the beginning; waiting for it to be up)"
INFRA_STATUS=0
wait "$INFRA_PID" || INFRA_STATUS=$?
INFRA_PID=""
cat "$TIMINGS/infrastructure.log"
if [ "$INFRA_STATUS" != 0 ]; then exit "$INFRA_STATUS"; fi

# The suites against the running infrastructure, two files at a time: each Jest worker has its own
# database, Redis database, Kafka and Temporal namespace (docs/decisions/test-workers.md). After
# them, alone: the files that stop the shared Kafka broker (they would take it from the other
# worker too) and the load run, whose latencies mean something only on an otherwise idle machine.
ALONE=(test/integration/event-backbone.test.ts test/faults/kafka.fault.ts test/faults/load.fault.ts)
# The fault table collects over both steps and is printed by the last.
rm -f .data/faults/outcomes.jsonl
export KEEP_FAULT_OUTCOMES=1
# The load run at a third of its size; `npm run test:load` runs it whole (200 users for a minute).
export LOAD_USERS="${LOAD_USERS:-60}" LOAD_DURATION_S="${LOAD_DURATION_S:-30}"

step "integration, security (each attack of the review), faults: two files at a time"
npx jest --selectProjects integration security faults $(jest_json suites) --ci --forceExit --maxWorkers=2 \
  --testPathIgnorePatterns "${ALONE[@]}"

step "alone: a Kafka outage twice, then the load run (${LOAD_USERS} users for ${LOAD_DURATION_S} s)"
npx jest --selectProjects integration faults $(jest_json alone) --ci --forceExit --runInBand \
  --testPathPatterns "${ALONE[@]}"

step "browser (the dashboard in Chromium: the standalone and the distributed stack side by side)"
bash scripts/browser-tests.sh
