// Adds up Vitest's and Playwright's JSON reports into one closing line.
import { readFileSync } from 'node:fs';

const firstLine = (text) =>
  String(text ?? '')
    // eslint-disable-next-line no-control-regex -- colour codes (ESC [ … m) are not part of the message
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .find((l) => l.trim())
    ?.trim()
    .slice(0, 300) ?? '';
const read = (f) => {
  try {
    return JSON.parse(readFileSync(f, 'utf8'));
  } catch {
    return undefined;
  }
};
const v = read('test-results/vitest.json');
// Written only where tools/node24 is installed (test.sh says so when it is not).
const v24 = read('test-results/vitest-node24.json');
const p = read('test-results/playwright.json');
const passed = (v?.numPassedTests ?? 0) + (v24?.numPassedTests ?? 0) + (p?.stats?.expected ?? 0);
let failed = (v?.numFailedTests ?? 0) + (v24?.numFailedTests ?? 0) + (p?.stats?.unexpected ?? 0) + (p?.stats?.flaky ?? 0);
const skipped = (v?.numPendingTests ?? 0) + (v?.numTodoTests ?? 0) + (v24?.numPendingTests ?? 0) + (p?.stats?.skipped ?? 0);
// Wall time is what a run costs; the files' own times add up to more when two run at once.
for (const [name, report] of [['vitest', v], ['vitest (Node 24)', v24]]) {
  if (!report?.testResults?.length) continue;
  const files = report.testResults;
  const sum = files.reduce((s, f) => s + (f.endTime - f.startTime), 0);
  const wall = Math.max(...files.map((f) => f.endTime)) - report.startTime;
  console.log(`${name}: ${files.length} files, ${Math.round(wall / 1000)} s wall, ${Math.round(sum / 1000)} s of file time`);
}
for (const [name, report] of [['vitest', v], ['playwright', p]]) {
  if (report) continue;
  failed += 1;
  console.log(`${name} wrote no report`);
}
// The names of what failed, last: CI shows only the tail of the output.
const failures = [];
for (const [name, report] of [['vitest', v], ['vitest (Node 24)', v24]]) {
  for (const file of report?.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    for (const t of tests.filter((x) => x.status === 'failed')) {
      failures.push(`${name}: ${file.name.replace(process.cwd() + '/', '')} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    }
    if (file.status === 'failed' && !tests.some((x) => x.status === 'failed')) {
      failures.push(`${name}: ${file.name.replace(process.cwd() + '/', '')}: ${firstLine(file.message)}`);
    }
  }
}
const walk = (suite, path) => {
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests ?? []) {
      if (t.status === 'unexpected' || t.status === 'flaky') {
        const err = t.results?.find((r) => r.error)?.error?.message;
        failures.push(`playwright: ${spec.file}:${spec.line} > ${[...path, spec.title].join(' > ')}: ${t.status} ${firstLine(err)}`);
      }
    }
  }
  for (const child of suite.suites ?? []) walk(child, suite.title && !suite.file ? [...path, suite.title] : path);
};
for (const suite of p?.suites ?? []) walk(suite, []);
for (const f of failures) console.log(`FAILED ${f}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
