// The document worker and the UI's mirror must agree after every edit, or the editors would show
// something the file does not hold.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceDocument } from '../../renderer/src/document/document';
import { mirror, type Raw } from '../../renderer/src/stores/workspace';
import type { EditOp } from '../../renderer/src/document/protocol';
import { quickCheck } from '../../renderer/src/lib/quickCheck';
import { ROOT } from '../helpers/renderer/api';

const demo = readFileSync(join(ROOT, 'assets/demo/lab-site-a.yaml'), 'utf8');

describe('document worker', () => {
  it('and the mirror agree after every kind of edit', () => {
    const e = new WorkspaceDocument();
    let raw = e.load(demo, 'demo.yaml').raw as Raw;
    const ops: EditOp[] = [
      { op: 'set', path: ['servers', 1, 'healthTimers', 'interval'], value: '7s' },
      { op: 'set', path: ['groups', 0, 'healthCheck', 'http', 'host'], value: 'status.example' },
      { op: 'delete', path: ['targetSets', 0, 'deleteAge'] },
      { op: 'delete', path: ['servers', 0, 'description'] },
      { op: 'add', list: ['servers'], item: { name: 'web3', address: '127.0.0.23' } },
      { op: 'add', list: ['groups', 0, 'members'], item: { server: 'web3', port: 8081 } },
      { op: 'addMany', list: ['servers'], items: [{ name: 'web4', address: '127.0.0.24' }, { name: 'web5', address: '127.0.0.25', description: 'b' }] },
      { op: 'addMany', list: ['groups', 0, 'members'], items: [{ server: 'web4', port: 8081 }, { server: 'web5', weight: 7 }] },
      { op: 'remove', list: ['targetSets', 0, 'servers'], index: 0 },
      { op: 'set', path: ['targetSets', 0, 'ports'], value: [3868, 3869] },
      { op: 'set', path: ['healthTimers', 'failAfter'], value: 3 },
      { op: 'remove', list: ['servers'], index: 3 },
    ];
    for (const [i, op] of ops.entries()) {
      raw = mirror(raw, op);
      e.edit([{ ops: [op], label: `op ${i}`, at: i * 10_000 }]);
      expect(e.undo().raw, `after op ${i}`).toBeDefined();
      const again = e.redo().raw;
      expect(again, `after op ${i}`).toEqual(raw);
    }
    expect(e.currentText()).toContain('# IPFE target sets: one public address spread over application servers');
  });

  it('appends thousands in one edit without the Document, writing what the Document route writes', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ name: `p${i}`, address: `127.3.${i >> 8}.${i & 255}`, description: `row ${i}` }));
    const members = items.map((s) => ({ server: s.name, port: 8081, weight: 5 }));
    const ops: EditOp[] = [{ op: 'addMany', list: ['servers'], items }, { op: 'addMany', list: ['groups', 0, 'members'], items: members }];
    const fast = new WorkspaceDocument();
    fast.load(demo, 'demo.yaml');
    const st = fast.edit([{ ops, label: 'paste', at: 0 }]);
    expect(st.valid).toBe(true);
    expect(st.canUndo).toBe(true);
    // Spliced and checked by the fast reader: no Document was built for the new text.
    expect((fast as unknown as { docRef?: unknown }).docRef).toBeUndefined();
    // The Document route: the same ops, one at a time through the document helpers.
    const slow = new WorkspaceDocument();
    slow.load(demo, 'demo.yaml');
    slow.edit([{ ops: [{ op: 'set', path: ['name'], value: 'lab-site-a' }, ...ops], label: 'paste', at: 0 }]);
    expect(fast.currentText()).toBe(slow.currentText());
    // The next edit rebuilds the Document from the new text; undo takes the paste back in one step.
    fast.edit([{ ops: [{ op: 'set', path: ['servers', 5, 'description'], value: 'after' }], label: 'x', at: 1 }]);
    expect(fast.currentText()).toContain('description: after');
    fast.undo();
    expect(fast.undo().raw).toEqual(new WorkspaceDocument().load(demo, 'demo.yaml').raw);
  }, 60_000);

  it('refuses an edit it cannot express and keeps the document as it was', () => {
    const e = new WorkspaceDocument();
    e.load(demo, 'demo.yaml');
    const before = e.currentText();
    const st = e.edit([{ ops: [{ op: 'remove', list: ['servers'], index: 99 }], label: 'x', at: 0 }]);
    expect(st.error).toBeTruthy();
    expect(st.raw).toBeDefined();
    expect(e.currentText()).toBe(before);
    expect(st.canUndo).toBe(false);
  });

  it('merges typing in one field into one undo step, not across fields', () => {
    const e = new WorkspaceDocument();
    e.load(demo, 'demo.yaml');
    const set = (v: string, key: string, at: number) => e.edit([{ ops: [{ op: 'set', path: key.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k)), value: v }], label: key, mergeKey: key, at }]);
    set('a', 'name', 0);
    set('ab', 'name', 100);
    set('abc', 'name', 200);
    set('x', 'description', 300);
    e.undo();
    const st = e.undo();
    expect((st.raw as Raw).name).toBe('lab-site-a');
    expect(st.dirty).toBe(false);
  });
});

describe('quick check of one item', () => {
  it('uses the shared schema and wording, with the item path', () => {
    const raw = { servers: [{ name: 'web1', address: 'nope' }], targetSets: [{ number: 1, address: '127.0.0.50', servers: [{ address: '::1' }] }] };
    const s = quickCheck(raw, ['servers', 0], 'f.yaml')!;
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ path: 'servers[0].address', segments: ['servers', 0, 'address'], severity: 'error' });
    expect(s[0]!.message).toMatch(/IPv4 or IPv6/);
    const t = quickCheck(raw, ['targetSets', 0], 'f.yaml')!;
    expect(t.map((p) => p.path)).toContain('targetSets[0].servers[0].address');
    expect(quickCheck(raw, ['name'], 'f.yaml')).toBeUndefined();
  });
});
