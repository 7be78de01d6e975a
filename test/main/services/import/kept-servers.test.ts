// HAProxy configs from HAProxy's own examples and tests that lbdesk cannot model whole: a server
// line repeating another's address and port, and a forward proxy's `server next-hop 0.0.0.0`.
// What cannot be modelled is kept with why; the rest is imported; render --onto gives the bytes back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderOnto } from '../../../../main/services/drivers/sections';
import { changedLines, CORPUS, importCase } from '../../../helpers/import';

const ctx = { workspacePath: '/dev/null' };
const read = (f: string) => readFileSync(join(CORPUS, f), 'utf8');

describe('import keeps what it cannot model and imports the rest', () => {
  it('a second server line on the same address and port stays as written, not a member', () => {
    const file = 'haproxy-hash-preserve-affinity.cfg';
    const text = read(file);
    const { result, workspace } = importCase({ file, driver: 'haproxy' }, text);
    expect(workspace.services.map((s) => s.name)).toEqual(['vip1', 'vip2', 'vip3', 'vip4']);
    expect(workspace.groups.every((g) => g.members.length === 1 && g.members[0]!.server === 'srv1')).toBe(true);
    const kept = result.items.filter((i) => i.detail.startsWith('server srv2: the same address and port as server srv1'));
    expect(kept.map((i) => i.line)).toEqual([19, 29, 40, 51]);
    expect(kept.every((i) => i.outcome === 'kept')).toBe(true);

    const a = workspace.appliances[0]!;
    expect(renderOnto(workspace, a, text, ctx, { file }).text).toBe(text);
    workspace.groups.find((g) => g.name === 'vip1')!.members[0]!.weight = 50;
    const r = renderOnto(workspace, a, text, ctx, { file });
    expect(r.errors).toEqual([]);
    expect(changedLines(text, r.text)).toEqual([18]);
    expect(r.text.split('\n')[17]).toBe('\tserver\t\tsrv1 127.0.0.1:80 weight 50');
  });

  it('a forward proxy (server next-hop 0.0.0.0, no port) is kept with why; the import does not fail', () => {
    const file = 'haproxy-option-http_proxy.cfg';
    const text = read(file);
    const { result, workspace } = importCase({ file, driver: 'haproxy' }, text);
    const item = result.items.find((i) => i.section === 'backend test-proxy-srv')!;
    expect(item).toMatchObject({ line: 36, outcome: 'kept' });
    expect(item.detail).toMatch(/^server next-hop at line 51: address 0\.0\.0\.0 sends each connection where the request says/);
    expect(result.items.every((i) => i.outcome === 'kept')).toBe(true);
    expect(renderOnto(workspace, workspace.appliances[0]!, text, ctx, { file }).text).toBe(text);
  });
});
