// Import, then render onto the same file: the same bytes; one weight changed: one line changed;
// the edited file still passes the real haproxy -c / keepalived -t.
import { describe, expect, it } from 'vitest';
import { renderOnto } from '../../../../main/services/drivers/sections';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importConfig, newWorkspaceText, workspaceProblems } from '../../../../main/services/import';
import { parseWorkspace } from '../../../../shared/model/validate';
import { GOLDEN_DIR } from '../../../helpers/drivers';
import { CASES, changedLines, corpus, haproxyValid, importCase, keepalivedValid, TOOLS } from '../../../helpers/import';
import { skipBecause } from '../../../helpers/skip';

const ctx = { workspacePath: '/dev/null' };

describe.each(CASES)('$file ($driver)', (c) => {
  const { path, text } = corpus(c);
  const validate = c.driver === 'haproxy' ? haproxyValid : keepalivedValid;
  const why = c.driver === 'haproxy' ? 'needs haproxy and openssl' : 'needs keepalived, root, unshare and ip (VRRP interface in a namespace)';

  it('imports into a workspace that validates, with a report row per section', () => {
    const { result, workspace } = importCase(c);
    expect(workspace.appliances[0]!.manage).toBe('sections');
    expect(result.items.length).toBeGreaterThan(2);
    for (const i of result.items) expect(i.line).toBeGreaterThan(0);
    expect(result.items.some((i) => i.outcome === 'kept')).toBe(true);
    expect(workspace.services.length + workspace.groups.length).toBeGreaterThan(0);
  });

  it('renders onto the same file byte for byte', () => {
    const { workspace } = importCase(c);
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: path });
    expect(r.errors).toEqual([]);
    expect(r.conflicts).toEqual([]);
    expect(r.text).toBe(text);
  });

  it('changes only the server line whose weight changed', () => {
    const { workspace } = importCase(c);
    const group = workspace.groups.find((g) => g.members.length >= 2) ?? workspace.groups[0]!;
    const member = group.members[group.members.length - 1]!;
    member.weight = member.weight === 7 ? 8 : 7;
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: path });
    expect(r.errors).toEqual([]);
    const lines = changedLines(text, r.text);
    expect(lines).toHaveLength(1);
    expect(r.text.split('\n')[lines[0]! - 1]).toMatch(new RegExp(`weight ${member.weight}\\b`));
    // And the edited file imports back to the same workspace (stable under our own render).
    const again = importCase(c, r.text);
    expect(renderOnto(again.workspace, again.workspace.appliances[0]!, r.text, ctx, { file: path }).text).toBe(r.text);
  });

  it.skipIf(skipBecause(!TOOLS[c.driver] && why, `${c.driver} validator`))(`the original and the edited file pass the real validator${TOOLS[c.driver] ? '' : ` (skipped: ${why})`}`, () => {
    const { workspace } = importCase(c);
    workspace.groups[0]!.members[0]!.weight = 5;
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: path });
    for (const t of [text, r.text]) {
      const v = validate(t);
      expect(v.output).not.toMatch(/ALERT/);
      expect(v.code, v.output).toBe(0);
    }
  });
});

describe("lbdesk's own renders import back and render onto themselves byte for byte", () => {
  it.each([
    ['rich.edge-haproxy.haproxy.cfg', 'haproxy'],
    ['rich.lvs.keepalived.conf', 'keepalived'],
  ] as const)('%s', (name, driver) => {
    const path = join(GOLDEN_DIR, name);
    const text = readFileSync(path, 'utf8');
    const result = importConfig({ bytes: Buffer.from(text), file: name, driver, includes: false });
    const yaml = newWorkspaceText(result, { name: 'box', driver, workspaceName: 'rich', source: name });
    expect(workspaceProblems(yaml, 'rich.yaml')).toEqual([]);
    const workspace = parseWorkspace(yaml, 'rich.yaml').workspace!;
    expect(result.items.filter((i) => i.outcome === 'imported').length).toBeGreaterThan(5);
    const r = renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file: name });
    expect(r.errors).toEqual([]);
    expect(r.text).toBe(text);
  });
});
