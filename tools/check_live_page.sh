#!/usr/bin/env bash
# The online service's live page (GET / on the feedback port) checked in a real browser: starts a service on the tiny
# test model, serves and judges a few completions, opens the page in headless Chromium and checks that every chart is
# drawn for every arm, that the figures are the status', that nothing loads from elsewhere, that a wrong token gets
# 401 and that the page refreshes itself; writes OUT/live-page.png (a screenshot of the whole page).
#   tools/check_live_page.sh [OUT] [--serve]     --serve: keep the service up afterwards and print the page's URL
# Needs Chromium (Debian: apt-get install -y chromium; or CHROMIUM=/path/to/chrome). About 30 s. For manual use: the
# jest test (libs/online/src/live-run.test.ts) checks the same page's SVG without a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
BROWSER=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$BROWSER" ]; then
  echo "check_live_page: no Chromium found; install it (Debian: apt-get install -y chromium) or set CHROMIUM=/path/to/chrome" >&2
  exit 2
fi
OUT=${1:-$(mktemp -d /tmp/live-page-XXXXXX)}
[ "${OUT}" = "--serve" ] && OUT=$(mktemp -d /tmp/live-page-XXXXXX)
SERVE=()
for a in "$@"; do [ "$a" = "--serve" ] && SERVE=(--serve); done
# --experimental-websocket: Node 20's WebSocket (the DevTools protocol); Node 22 has it anyway.
exec node --experimental-websocket --no-warnings --import tsx libs/online/src/testing/live-page-browser.ts --browser "$BROWSER" --out "$OUT" "${SERVE[@]}"
