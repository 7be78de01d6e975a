import { describe, expect, it } from 'vitest';
import { comboOf, shortcutFor, SHORTCUTS } from '../../renderer/src/lib/shortcuts';
import { explain } from '../../renderer/src/lib/explain';
import { describeAt, placesInWords } from '../../renderer/src/lib/labels';
import { renameOps, freeName, freeTargetSetNumber, referencesTo, beginRename, advanceRename, ownedReferences, describeReferences } from '../../renderer/src/lib/references';
import { parseUnifiedDiff } from '../../renderer/src/lib/diff';
import { checkLoad, shares, timersFor, topology } from '../../renderer/src/lib/derive';
import { errorSentence, sentence } from '../../renderer/src/lib/errors';
import { parsePath, pathKey, type Path } from '../../renderer/src/lib/tree';
import { ApiError, MENU_COMMANDS } from '../../shared/api/contract';
import { VIEWS } from '../../shared/api/views';
import { resolveTimers } from '../../shared/model/resolve';
import type { MemberStatus } from '../../shared/api/types';

const ev = (init: KeyboardEventInit & { code?: string }, target?: EventTarget) => {
  const e = new KeyboardEvent('keydown', init);
  if (target) Object.defineProperty(e, 'target', { value: target });
  return e;
};

describe('shortcuts', () => {
  it('spells combinations the way the table does', () => {
    expect(comboOf(ev({ key: 'S', code: 'KeyS', ctrlKey: true, shiftKey: true }))).toBe('Ctrl+Shift+S');
    expect(comboOf(ev({ key: '!', code: 'Digit1', ctrlKey: true, shiftKey: true }))).toBe('Ctrl+Shift+1');
    expect(comboOf(ev({ key: 's', code: 'KeyS', metaKey: true }))).toBe('Ctrl+S');
    expect(comboOf(ev({ key: 'F5', code: 'F5' }))).toBe('F5');
  });
  it('lets saving work while typing but not "?"', () => {
    const input = document.createElement('input');
    expect(shortcutFor(ev({ key: 's', code: 'KeyS', ctrlKey: true }, input))?.action).toBe('save');
    expect(shortcutFor(ev({ key: '?', code: 'Slash', shiftKey: true }, input))).toBeUndefined();
    expect(shortcutFor(ev({ key: '?', code: 'Slash', shiftKey: true }, document.body))?.action).toBe('help');
    // F1 types nothing: help from inside a field too.
    expect(shortcutFor(ev({ key: 'F1', code: 'F1' }, input))?.action).toBe('help');
    // Alt+Delete stays out of fields (it would remove the item while editing it).
    expect(shortcutFor(ev({ key: 'Delete', code: 'Delete', altKey: true }, input))).toBeUndefined();
  });
  it('takes each view from the registry: Ctrl+key and Alt+key run the command the menu sends', () => {
    for (const v of VIEWS) {
      for (const mod of ['ctrlKey', 'altKey'] as const) {
        const s = shortcutFor(ev({ key: v.key, code: `Digit${v.key}`, [mod]: true }, document.createElement('input')));
        expect(s, `${mod} ${v.key}`).toMatchObject({ action: v.command, label: `Go to ${v.label}` });
      }
      expect(MENU_COMMANDS).toContain(v.command);
    }
  });
  it('has no key bound twice', () => {
    const keys = SHORTCUTS.flatMap((s) => s.keys);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('explain', () => {
  const timers = resolveTimers({ global: { retryInterval: 5000 } });
  const m = (over: Partial<MemberStatus>): MemberStatus => ({
    key: 'k', server: 'web1', address: '127.0.0.21', port: 8081, check: 'http', layer: 7, state: 'unavailable', score: 1,
    reason: 'connect ECONNREFUSED', since: 0, consecutiveFailures: 2, consecutivePasses: 0, ...over,
  });
  it('says why a member is down, with the timers that bring it back', () => {
    const text = explain(m({}), { timers, recoveryWorstMs: 15_000 }).join(' ');
    expect(text).toContain('web1:8081 is unavailable: its HTTP check (Layer 7) failed 2 times in a row');
    expect(text).toContain('Last result: connect ECONNREFUSED.');
    expect(text).toContain('every 5 s while it is down');
    expect(text).toContain('at most 15 s');
  });
  it('explains degraded with the hysteresis thresholds', () => {
    const text = explain(m({ state: 'degraded', rttMs: 1300, reason: 'slow' }), { degradedAboveMs: 1000, availableBelowMs: 500 }).join(' ');
    expect(text).toContain('answered in 1300 ms, above the 1 s that makes a server degraded');
    expect(text).toContain('within 500 ms');
    // Between the bars (went degraded earlier, not yet fast enough): never "above the 1 s".
    const between = explain(m({ state: 'degraded', rttMs: 700 }), { degradedAboveMs: 1000, availableBelowMs: 500 })[0];
    expect(between).toBe('web1:8081 is degraded: it answered in 700 ms, not yet within the 500 ms it needs to be available again (it went degraded answering slower than 1 s). It still takes traffic when no available server is left.');
  });
  it('explains disabled and not yet checked members', () => {
    expect(explain(m({ state: 'disabled' }))[0]).toMatch(/disabled in the workspace/);
    expect(explain(m({ state: 'unknown' }))[0]).toMatch(/not been checked yet/);
  });
});

describe('references and names', () => {
  const raw = {
    servers: [{ name: 'web1' }, { name: 'web2' }],
    groups: [{ name: 'web', members: [{ server: 'web1' }, { server: 'web2' }, { server: 'web1', port: 2 }] }],
    services: [{ name: 'vip', group: 'web' }],
    appliances: [{ name: 'a', include: ['vip', 'ts1'] }],
    targetSets: [{ number: 1 }, { number: 2 }],
  };
  it('renames follow references', () => {
    expect(renameOps(raw, beginRename(raw, 'server', 0), 'w1')).toEqual([
      [['servers', 0, 'name'], 'w1'], [['groups', 0, 'members', 0, 'server'], 'w1'], [['groups', 0, 'members', 2, 'server'], 'w1'],
    ]);
    expect(referencesTo(raw, 'group', 'web')).toEqual([['services', 0, 'group']]);
    expect(referencesTo(raw, 'service', 'vip')).toEqual([['appliances', 0, 'include', 0]]);
  });
  it('a pair follows the renames of its boxes, their keepalived, and its services', () => {
    const ha = { ...raw, pairs: [{ name: 'p', members: [{ appliance: 'a', keepalived: 'k' }, { appliance: 'b' }], instances: [{ master: 'a', services: ['vip'] }, { master: 'A1' }] }] };
    expect(referencesTo(ha, 'appliance', 'a')).toEqual([['pairs', 0, 'members', 0, 'appliance'], ['pairs', 0, 'instances', 0, 'master']]);
    expect(referencesTo(ha, 'appliance', 'k')).toEqual([['pairs', 0, 'members', 0, 'keepalived']]);
    expect(referencesTo(ha, 'service', 'vip')).toContainEqual(['pairs', 0, 'instances', 0, 'services', 0]);
    expect(describeReferences(ha, referencesTo(ha, 'appliance', 'a'))).toEqual(['pair p']);
  });
  it('a rename moves only the references the item had, never those of a namesake', () => {
    const dup = { ...raw, servers: [{ name: 'web1' }, { name: 'web2' }, { name: 'web1' }] };
    // Two web1s: nobody can tell whose a web1 is, so neither owns (nor moves) them.
    expect(ownedReferences(dup, 'server', 2)).toEqual([]);
    expect(ownedReferences(dup, 'server', 0)).toEqual([]);
    expect(renameOps(dup, beginRename(dup, 'server', 2), 'dir1')).toEqual([[['servers', 2, 'name'], 'dir1']]);
    expect(renameOps(dup, beginRename(dup, 'server', 0), 'dir1')).toEqual([[['servers', 0, 'name'], 'dir1']]);
    expect(describeReferences(raw, referencesTo(raw, 'server', 'web1'))).toEqual(['group web']);
  });
  it("references never follow onto another item's name (pasting web2 over web1, then back)", () => {
    type R = typeof raw;
    const apply = (r: R, ops: [Path, unknown][]): R => {
      const next = structuredClone(r) as R;
      for (const [p, v] of ops) {
        let cur = next as unknown as Record<string | number, unknown>;
        for (const k of p.slice(0, -1)) cur = cur[k as string] as Record<string | number, unknown>;
        cur[p[p.length - 1] as string] = v;
      }
      return next;
    };
    const members = (r: R) => r.groups[0]!.members.map((m) => m.server);
    // Paste web2 over web1 and leave the field: web1's members wait (web1 names nobody now);
    // web2's member is not taken.
    let r = raw;
    let s = beginRename(r, 'server', 0);
    let ops = renameOps(r, s, 'web2');
    expect(ops).toEqual([[['servers', 0, 'name'], 'web2']]);
    r = apply(r, ops);
    expect(members(r)).toEqual(['web1', 'web2', 'web1']);
    // Rename it back in a new session: nothing of web2's follows.
    s = beginRename(r, 'server', 0);
    r = apply(r, renameOps(r, s, 'web1'));
    expect(members(r)).toEqual(['web1', 'web2', 'web1']);
    // Typing through the other's name: the references wait at "web", then follow to "web2x".
    s = beginRename(r, 'server', 0);
    for (const to of ['web', 'web2', 'web2x']) {
      ops = renameOps(r, s, to);
      const before = r;
      r = apply(r, ops);
      s = advanceRename(before, s, to);
    }
    expect(r.servers.map((x) => x.name)).toEqual(['web2x', 'web2']);
    expect(members(r)).toEqual(['web2x', 'web2', 'web2x']);
  });
  it('names places in words for the undo tooltip', () => {
    expect(describeAt(raw, ['servers', 0])).toBe('server web1');
    expect(describeAt(raw, ['groups', 0, 'members', 2, 'port'])).toBe('group web member web1 (no. 3) port');
    expect(placesInWords(raw, 'duplicate server name "web1" (also defined at servers[1]); see groups[0].members[1].port')).toBe('duplicate server name "web1" (also defined at server web2); see group web member web2 port');
    expect(describeAt(raw, ['targetSets', 1, 'ports'])).toBe('target set 2 ports');
    expect(describeAt({ servers: [{}] }, ['servers', 0, 'address'])).toBe('server 1 address');
  });
  it('finds free names and numbers', () => {
    expect(freeName(raw, 'servers', 'web1')).toBe('web1-2');
    expect(freeName(raw, 'servers', 'db')).toBe('db');
    expect(freeTargetSetNumber(raw)).toBe(3);
  });
});

describe('derived figures', () => {
  const raw = {
    healthTimers: { interval: '20s', failAfter: 3 },
    servers: [{ name: 'a', address: '127.0.0.1', healthTimers: { interval: 5 } }, { name: 'b', address: '127.0.0.2', enabled: false }],
    groups: [
      { name: 'g', members: [{ server: 'a', port: 80, weight: 100 }, { server: 'b', port: 80, weight: 300 }], healthCheck: { type: 'auto' }, healthTimers: { retryInterval: '2s' } },
      { name: 'h', members: [{ server: 'a', port: 53 }], healthCheck: { type: 'auto' } },
    ],
    services: [{ name: 's', address: '127.0.0.10', port: 80, group: 'g' }, { name: 'd', address: '127.0.0.10', port: 53, protocol: 'udp', group: 'h' }],
    appliances: [{ name: 'x', include: ['s'] }, { name: 'y' }],
  };
  it('resolves timers with their source, as typed', () => {
    const t = timersFor(raw, { group: raw.groups[0], server: raw.servers[0] });
    expect(t.resolved).toMatchObject({ interval: 5000, retryInterval: 2000, failAfter: 3, timeout: 5000 });
    expect(t.resolved.source).toMatchObject({ interval: 'server', retryInterval: 'group', failAfter: 'global', timeout: 'default' });
    expect(t.detection.failure.worstMs).toBe(5000 + 2 * 5000 + 5000);
  });
  it('computes weight shares over enabled members only', () => {
    expect(shares([100, 300], [true, true])).toEqual([25, 75]);
    const svc = topology(raw).find((e) => e.title === 's')!;
    expect(svc.members.map((m) => m.share)).toEqual([100, 0]);
    expect(svc.members[1]!.enabled).toBe(false);
  });
  it('promises equal shares for plain round-robin, weight shares for the weighted algorithms', () => {
    expect(shares([100, 200, 0], [true, true, true], 'round-robin')).toEqual([50, 50, 0]);
    expect(shares([100, 200, 0], [true, false, true], 'round-robin')).toEqual([100, 0, 0]);
    expect(shares([100, 200], [true, true], 'weighted-round-robin').map(Math.round)).toEqual([33, 67]);
    const two = { ...raw, servers: [{ name: 'a', address: '192.0.2.1' }, { name: 'b', address: '192.0.2.2' }], groups: [{ name: 'w', members: [{ server: 'a', port: 80, weight: 100 }, { server: 'b', port: 80, weight: 200 }] }] };
    const rr = topology({ ...two, services: [{ name: 'rr', address: '192.0.2.9', port: 80, group: 'w', algorithm: 'round-robin' }] })[0]!;
    expect(rr.members.map((m) => m.share)).toEqual([50, 50]);
    const wrr = topology({ ...two, services: [{ name: 'wrr', address: '192.0.2.9', port: 80, group: 'w', algorithm: 'weighted-round-robin' }] })[0]!;
    expect(wrr.members.map((m) => Math.round(m.share))).toEqual([33, 67]);
  });
  it('computes the check load on a server from every group and appliance', () => {
    const load = checkLoad(raw, 'a');
    // g: every 5s (server override) = 12/min; h: every 5s = 12/min.
    expect(load.upPerMin).toBeCloseTo(24);
    expect(load.members.map((m) => m.check)).toEqual(['http', 'dns']);
    expect(load.appliances).toEqual(['x', 'y']);
  });
});

describe('small helpers', () => {
  it('parses unified diffs', () => {
    const d = parseUnifiedDiff('Index: x\n===================================================================\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n same\n-old\n+new\n');
    expect(d.added).toBe(1);
    expect(d.removed).toBe(1);
    expect(d.lines.map((l) => l.kind)).toEqual(['meta', 'meta', 'meta', 'meta', 'hunk', 'ctx', 'del', 'add']);
    expect(d.lines[7]).toMatchObject({ newNo: 2 });
  });
  it('turns errors into sentences without stacks', () => {
    expect(sentence('no such file')).toBe('No such file.');
    expect(errorSentence(new ApiError('unsupported', 'lab.start is not available here'), 'start the lab')).toBe(
      'Could not start the lab: lab.start is not available here (this lbdesk does not offer it yet).',
    );
    const e = new Error('boom');
    e.message = 'boom\n    at foo (x.ts:1:1)';
    expect(errorSentence(e)).toBe('Boom.');
  });
  it('reads every spelling of a path', () => {
    expect(parsePath('groups[0].members[1].weight')).toEqual(['groups', 0, 'members', 1, 'weight']);
    expect(pathKey(parsePath('targetSets.0.leastLoad'))).toBe('targetSets.0.leastLoad');
  });
});
