// Every check type through every driver, pinned: what each renders (or plans from an empty box),
// refuses or approximates for a group checked that way. UPDATE_GOLDEN=1 rewrites the file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getDriver, renderForAppliance } from '../../../../main/services/drivers';
import { haproxyCheck } from '../../../../main/services/drivers/haproxy-checks';
import { importCheck } from '../../../../main/services/import/haproxy-check-import';
import { CfgLine } from '../../../../main/services/import/haproxy-parse';
import { CHECK_TYPES, type DriverName, type WorkspaceInput } from '../../../../shared/model/schema';
import { GOLDEN_DIR, workspace } from '../../../helpers/drivers';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const FILE = join(GOLDEN_DIR, 'check-types.txt');
const DRIVERS: DriverName[] = ['haproxy', 'keepalived', 'lbdesk', 'adx', 'a10', 'netscaler', 'f5', 'pingdirectory'];

/** The options a check of this type takes, so each block's lines show. */
function options(type: string): Record<string, unknown> {
  if (type === 'http' || type === 'https') return { http: { path: '/health', expect: 'OK', host: 'www.example.com' }, ...(type === 'https' ? { tls: { serverName: 'www.example.com', verify: true } } : {}) };
  if (type === 'ssl') return { tls: { serverName: 'tls.example.com' } };
  if (type === 'ldap') return { ldap: { baseDn: 'dc=example,dc=com', scope: 'sub', bindDn: 'cn=probe', bindSecret: 'ldap-probe' } };
  if (type === 'dns') return { dns: { query: 'www.example.com', recordType: 'A' } };
  if (type === 'radius') return { radius: { secret: 'radius-shared' } };
  return {};
}

const UDP = new Set(['udp', 'dns', 'radius']);

function site(type: string, driver: DriverName) {
  const input: Partial<WorkspaceInput> = {
    servers: [{ name: 's1', address: '192.0.2.10' }, { name: 's2', address: '192.0.2.11' }],
    groups: [{ name: 'g', members: [{ server: 's1', port: 8000 }, { server: 's2', port: 8000 }], healthCheck: { type, ...options(type) } as never }],
    services: [{ name: 'vip', address: '198.51.100.10', port: 80, protocol: UDP.has(type) ? 'udp' : 'tcp', group: 'g' }],
    appliances: [{ name: 'box', host: '192.0.2.200', driver } as never],
  };
  return workspace(input);
}

function shown(type: string, driver: DriverName): string {
  const out: string[] = [`## ${type} on ${driver}`];
  let w;
  try { w = site(type, driver); } catch (e) { return `${out[0]}\nworkspace: ${(e as Error).message.split('\n')[0]}\n`; }
  const a = w.appliances[0]!;
  const d = getDriver(driver);
  if (d.commands) {
    try {
      const p = d.commands.plan(w, a, '');
      for (const s of p.steps) out.push(`step ${s.what}`, ...s.commands.map((c) => `  ${c}`));
      for (const e of p.errors) out.push(`error: ${e.subject}: ${e.message}`);
      for (const x of p.warnings) out.push(`warning: ${x.subject}: ${x.message}`);
    } catch (e) { out.push(`plan threw: ${(e as Error).message}`); }
  } else {
    const r = renderForAppliance(w, a, { workspacePath: '/tmp/none/workspace.yaml' });
    // The header carries no date or version worth pinning here: the body is what the check changes.
    out.push(...r.text.split('\n').filter((l) => !/^# (lbdesk|Rendered|generated)/i.test(l)));
    for (const e of r.errors) out.push(`error: ${e.subject}: ${e.message}`);
    for (const x of r.warnings) out.push(`warning: ${x.subject}: ${x.message}`);
  }
  return `${out.join('\n')}\n`;
}

describe('every check type through every driver', () => {
  it('renders, approximates or refuses as pinned in check-types.txt', () => {
    const text = CHECK_TYPES.flatMap((t) => DRIVERS.map((d) => shown(t, d))).join('\n');
    if (UPDATE) writeFileSync(FILE, text);
    expect(existsSync(FILE), 'check-types.txt missing: run with UPDATE_GOLDEN=1').toBe(true);
    expect(text).toBe(readFileSync(FILE, 'utf8'));
  });
});

describe('the HAProxy tcp-check dialogues', () => {
  it('import back as the check type they were rendered from', () => {
    const types = CHECK_TYPES.filter((t) => t !== 'auto');
    const dialogues = types.filter((type) => {
      const hc = site(type, 'haproxy').groups[0]!.healthCheck;
      const lines = haproxyCheck('group g', hc, [{ name: 's1', check: { type }, timers: { interval: 30_000, retryInterval: 10_000, failAfter: 2, restoreAfter: 2, timeout: 5_000 } }] as never, 80).backendLines;
      if (!lines.includes('option tcp-check')) return false;
      expect(importCheck(lines.map((l, i) => new CfgLine(i, l)), { ssl: false, verify: false }, true).check, type).toEqual({ type });
      return true;
    });
    expect(dialogues).toEqual(['ftp', 'pop3', 'imap4', 'nntp', 'rtsp']);
  });
});
