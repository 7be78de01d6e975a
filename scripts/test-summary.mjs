// Adds up Vitest's and Playwright's JSON reports into one closing line.
import { readFileSync } from 'node:fs';

const read = (f) => {
  try {
    return JSON.parse(readFileSync(f, 'utf8'));
  } catch {
    return undefined;
  }
};
const v = read('test-results/vitest.json');
const p = read('test-results/playwright.json');
const passed = (v?.numPassedTests ?? 0) + (p?.stats?.expected ?? 0);
let failed = (v?.numFailedTests ?? 0) + (p?.stats?.unexpected ?? 0) + (p?.stats?.flaky ?? 0);
const skipped = (v?.numPendingTests ?? 0) + (v?.numTodoTests ?? 0) + (p?.stats?.skipped ?? 0);
for (const [name, report] of [['vitest', v], ['playwright', p]]) {
  if (report) continue;
  failed += 1;
  console.log(`${name} wrote no report`);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
