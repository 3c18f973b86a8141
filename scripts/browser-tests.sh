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
for kind in "${stacks[@]}"; do
  echo "-- browser suite against the $kind stack"
  BROWSER_STACK="$kind" npx playwright test -c test/browser/playwright.config.ts
done
