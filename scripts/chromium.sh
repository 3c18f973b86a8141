#!/usr/bin/env bash
# Debian's Chromium for the browser suite and the dashboard benchmark, installed when missing, as
# scripts/infra.sh fetches Kafka: Playwright downloads no browser of its own (its download cannot
# reach its host from here). Prints the browser's path. CHROMIUM_PATH names another binary.
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/lib/chromium/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "Chromium is missing at $CHROMIUM and there is no apt-get: install Chromium and set CHROMIUM_PATH" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  echo "installing Debian's chromium (once)" >&2
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >&2
fi
"$CHROMIUM" --version >&2
echo "$CHROMIUM"
