#!/usr/bin/env bash
# `npm test`: every test. Installs missing system packages (Debian, root) or says how, builds,
# typechecks, lints (layering rules included), then runs Vitest and Playwright and prints one
# closing line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1
mkdir -p test-results
if [ -z "${LBDESK_PREPARED:-}" ]; then
  echo "== build"; node scripts/build.mjs --quiet || exit 1
  echo "== typecheck"; npm run -s typecheck || exit 1
  echo "== lint"; npx eslint . || exit 1
fi
echo "== unit, service and integration tests (vitest)"
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json
unit=$?
echo "== browser e2e (playwright, Debian chromium)"
npx playwright test
e2e=$?
node scripts/test-summary.mjs
[ $unit -eq 0 ] && [ $e2e -eq 0 ]
