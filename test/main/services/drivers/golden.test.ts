// The mapping, pinned: the rich workspace rendered for each appliance, and every problem said.
// UPDATE_GOLDEN=1 rewrites the files (review the diff before committing it).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderForAppliance } from '../../../../main/services/drivers';
import { GOLDEN_DIR, RICH_PATH, loadRich } from '../../../helpers/drivers';

const UPDATE = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, name);
  if (UPDATE) writeFileSync(file, actual);
  expect(existsSync(file), `${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

const CASES: [appliance: string, file: string][] = [
  ['edge-haproxy', 'rich.edge-haproxy.haproxy.cfg'],
  ['lvs', 'rich.lvs.keepalived.conf'],
  ['daemon', 'rich.daemon.lbdesk.yaml'],
];

describe('golden renders of test/fixtures/workspaces/rich.yaml', () => {
  const workspace = loadRich();

  it.each(CASES)('%s renders as %s', (name, file) => {
    const r = renderForAppliance(workspace, workspace.appliances.find((a) => a.name === name)!, { workspacePath: RICH_PATH });
    expect(r.errors).toEqual([]);
    golden(file, r.text);
  });

  it('says every warning and refusal, by name', () => {
    const lines: string[] = [];
    for (const a of workspace.appliances) {
      const r = renderForAppliance(workspace, a, { workspacePath: RICH_PATH });
      lines.push(`## ${a.name} (driver ${a.driver}) -> ${r.configPath || '(none)'}`);
      for (const e of r.errors) lines.push(`error: ${e.subject}: ${e.message}`);
      for (const w of r.warnings) lines.push(`warning: ${w.subject}: ${w.message}`);
      lines.push('');
    }
    golden('rich.problems.txt', lines.join('\n'));
  });
});
