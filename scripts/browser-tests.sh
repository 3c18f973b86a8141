#!/usr/bin/env bash
# `npm run test:browser [standalone|distributed ...]`: the dashboard in Debian's Chromium
# (Playwright, test/browser), against standalone mode and against the distributed stack (which
# needs Postgres, Redis, Kafka and Temporal up: `bash scripts/infra.sh up`, as `npm test` does).
# Screenshots of every page land in test/browser/screenshots/<stack>/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM_PATH="$(bash scripts/chromium.sh)"
export CHROMIUM_PATH
# The build the gateway serves, made now if the sources changed since the last one.
node -r @swc-node/register apps/dashboard/scripts/build.ts --if-stale

stacks=("$@")
if [ ${#stacks[@]} -eq 0 ]; then stacks=(standalone distributed); fi
# The stacks share nothing (standalone has its embedded Postgres and in-process events; the
# distributed one is test worker 1's: test/support/test-workers.ts), so their suites run side by
# side, each on its own log, shown once it ends.
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
pids=()
for kind in "${stacks[@]}"; do
  BROWSER_STACK="$kind" npx playwright test -c test/browser/playwright.config.ts >"$LOGS/$kind.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!stacks[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  echo "-- browser suite against the ${stacks[$i]} stack ($([ "$status" = 0 ] && echo passed || echo FAILED))"
  cat "$LOGS/${stacks[$i]}.log"
  if [ "$status" != 0 ]; then failed=1; fi
done
exit "$failed"
