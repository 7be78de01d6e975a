// A real HAProxy "site" run by an appliance's own (non-root) user, and the sequence every
// appliance-like target goes through: diff, push, commit-confirmed left to roll back,
// confirm, pull, a change report, a push that fails validation — with the live file's mode and owner kept.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { workspaceSchema } from '../../../shared/model/schema';
import { connectSsh } from '../../../main/services/ssh';
import { confirmPush, diffConfig, pullConfig, pushConfig, syncDataDir } from '../../../main/services/sync';
import { collectReport } from '../../../main/services/report';
import type { ReportAppliance } from '../../../shared/api/report';
import { sha256 } from '../../../main/services/hash';
import type { PushOptions } from '../../../main/services/sync/push';
import type { SyncTarget } from '../../../main/services/sync/target';
import { openAppliance } from '../../../main/services/sync/appliance';
import { freePort } from '../sshd';
import { waitFor } from './fixture';

export const HAPROXY = '/usr/sbin/haproxy';

function fetchText(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = get({ host, port, path: '/', agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    });
    req.on('error', (e) => resolve(`error: ${e.message}`));
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

export interface SiteOptions {
  /** Three loopback addresses: the VIP, backend A, backend B. */
  addresses: [string, string, string];
  dir: string;
  /** Owner of the config folder and of haproxy (the push user reloads it with kill). */
  uid: number;
  gid: number;
  /** Appliance fields: host, port, user, auth, keyFile, become… */
  appliance: Record<string, unknown>;
  /** Default: the driver's `haproxy -c -f {file}` (found through the sbin PATH). */
  validateCommand?: string;
  /** Mode of the live file written by hand (kept by every push). */
  mode?: number;
  /** Owner of the live file (default uid:gid). */
  fileOwner?: [number, number];
}

export class Site {
  readonly live: string;
  private haproxy?: ChildProcess;
  private readonly backends: Server[] = [];
  private backendPort = 0;
  vipPort = 0;
  log = '';

  constructor(private readonly o: SiteOptions) {
    this.live = join(o.dir, 'haproxy.cfg');
  }

  prepared(server: 'a' | 'b') {
    const workspace = workspaceSchema.parse(this.input(server));
    return openAppliance(workspace, workspace.appliances[0]!, join(this.o.dir, 'site.yaml'));
  }

  /** The workspace as a file would hold it. */
  private input(server: 'a' | 'b') {
    const [vip, a, b] = this.o.addresses;
    return {
      lbdesk: 1, name: 'box',
      servers: [{ name: 'a', address: a }, { name: 'b', address: b }],
      groups: [{ name: 'web', members: [{ server, port: this.backendPort }] }],
      services: [{ name: 'web-vip', address: vip, port: this.vipPort, group: 'web' }],
      appliances: [{
        name: 'box', driver: 'haproxy', configPath: this.live,
        ...(this.o.validateCommand ? { validateCommand: this.o.validateCommand } : {}),
        reloadCommand: `kill -USR2 $(cat ${join(this.o.dir, 'haproxy.pid')})`,
        ...this.o.appliance,
      }],
    };
  }

  /** The change report's row for the box, made from a workspace file outside the box. */
  async report(opts: PushOptions): Promise<ReportAppliance> {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-box-report-'));
    try {
      const path = join(dir, 'site.yaml');
      writeFileSync(path, JSON.stringify(this.input('a')));
      const r = await collectReport({ path, ask: true, read: opts, historyDir: syncDataDir(opts.dataDir) });
      expect(r.appliancesNote, JSON.stringify(r.validation.problems)).toBeUndefined();
      return r.appliances[0]!;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  target(): SyncTarget { return this.prepared('a').target; }

  /** The same running site, pushed to as another appliance entry (another login user). */
  as(appliance: Record<string, unknown>): Site {
    const view = Object.create(this) as Site;
    Object.defineProperty(view, 'o', { value: { ...this.o, appliance } });
    return view;
  }

  /** The rendered config, minus chroot/user/group: this HAProxy runs as the box's own user. */
  text(server: 'a' | 'b'): string {
    return this.prepared(server).render.text.replace(/^ {4}(chroot|user|group) .*\n/gm, '');
  }

  async start(): Promise<void> {
    const [vip, a, b] = this.o.addresses;
    this.backendPort = await freePort(a);
    this.vipPort = await freePort(vip);
    for (const [name, address] of [['A', a], ['B', b]] as const) {
      const s = createServer((_req, res) => res.end(`backend ${name}`));
      await new Promise<void>((r) => s.listen(this.backendPort, address, () => r()));
      this.backends.push(s);
    }
    // Version "a" is written by hand with a narrow mode; every later change is a push.
    writeFileSync(this.live, this.text('a'), { mode: this.o.mode ?? 0o640 });
    const [fu, fg] = this.o.fileOwner ?? [this.o.uid, this.o.gid];
    chownSync(this.live, fu, fg);
    this.haproxy = spawn(HAPROXY, ['-W', '-f', this.live, '-p', join(this.o.dir, 'haproxy.pid')], { uid: this.o.uid, gid: this.o.gid, stdio: ['ignore', 'pipe', 'pipe'] });
    this.haproxy.stdout!.on('data', (d) => (this.log += d));
    this.haproxy.stderr!.on('data', (d) => (this.log += d));
    if (!(await waitFor(() => existsSync(join(this.o.dir, 'haproxy.pid')), 10_000))) throw new Error(`haproxy did not start: ${this.log}`);
  }

  async stop(): Promise<void> {
    const h = this.haproxy;
    if (h && h.exitCode === null) {
      const exited = new Promise((r) => h.once('exit', r));
      h.kill('SIGTERM');
      await exited;
    }
    for (const s of this.backends) await new Promise<void>((r) => s.close(() => r()));
  }

  /** New connections reach the new workers within moments of a reload: poll, bounded. */
  async answers(want: string): Promise<string> {
    let got = '';
    for (let i = 0; i < 50 && got !== want; i++) {
      got = await fetchText(this.o.addresses[0], this.vipPort);
      if (got !== want) await new Promise((r) => setTimeout(r, 100));
    }
    return got;
  }

  stat(): string {
    const st = statSync(this.live);
    return `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
  }

  /** lbdesk's temp files beside the config (the backup and markers are allowed). */
  temps(): string[] {
    return readdirSync(this.o.dir).filter((f) => f.includes('.lbdesk-tmp-') || f.endsWith('.new'));
  }
}

/**
 * diff → push → commit-confirmed left to roll back → confirm → pull → a push that fails
 * validation, over one SSH connection (as a fleet run would; a PAM login costs a second each).
 */
export async function pushSequence(site: Site, base: PushOptions, o: { rollback?: boolean } = {}): Promise<void> {
  const connection = await connectSsh(site.target().endpoint, base);
  try {
    await sequence(site, { ...base, connection }, o.rollback !== false);
  } finally {
    connection.close();
  }
}

/** `rollback: false` leaves out waiting for a timer to fire (targets whose login, not shell, is under test). */
async function sequence(site: Site, opts: PushOptions, rollback: boolean): Promise<void> {
  const mode = site.stat();
  const a = site.prepared('a');
  const b = site.prepared('b');
  expect(a.errors).toEqual([]);
  expect(await site.answers('backend A'), site.log).toBe('backend A');

  const [textA, textB] = [site.text('a'), site.text('b')];
  const d = await diffConfig(b.target, textB, opts);
  expect(d.changed).toBe(true);
  expect(d.patch).toMatch(/^\+.*server b /m);

  const r = await pushConfig(b.target, textB, opts);
  expect(r.outcome, `${r.reason}\n${r.notes.join('\n')}\n${site.log}`).toBe('applied');
  expect(r.steps.find((s) => s.step === 'verify' && s.status !== 'start')?.status, JSON.stringify(r.steps)).toBe('ok');
  expect(await site.answers('backend B'), site.log).toBe('backend B');
  expect(site.stat(), 'mode and owner after a push').toBe(mode);

  // Left to roll back: the appliance's own timer restores B and reloads. The window leaves
  // HAProxy time to finish this reload first (a USR2 during its re-exec may be lost).
  if (rollback) {
    const c = await pushConfig(a.target, textA, { ...opts, confirmWithinMs: 3000 });
    expect(c.outcome, c.reason).toBe('applied');
    expect(await site.answers('backend A'), site.log).toBe('backend A');
    expect(await waitFor(() => readFileSync(site.live, 'utf8') === textB, 15_000), 'the timer restored the previous file').toBe(true);
    expect(await site.answers('backend B'), site.log).toBe('backend B');
    expect(site.stat(), 'mode and owner after the rollback').toBe(mode);
  }

  const k = await pushConfig(a.target, textA, { ...opts, confirmWithinMs: 20_000 });
  expect(k.outcome, k.reason).toBe('applied');
  if (rollback) expect(k.notes.join('\n')).toMatch(/was not confirmed: the appliance restored the previous config/);
  const confirmed = await confirmPush(a.target, opts);
  expect(confirmed.outcome, confirmed.reason).toBe('confirmed');
  expect(await site.answers('backend A'), site.log).toBe('backend A');

  const pulled = await pullConfig(a.target, opts);
  expect(pulled.data.toString('utf8')).toBe(textA);

  // A change report asks the box as diff does: it names the confirmed push, and nothing on the box changes.
  const bytes = readFileSync(site.live);
  const row = await site.report(opts);
  expect(row.live, JSON.stringify(row.live)).toMatchObject({ state: 'checked', remoteSha256: sha256(bytes) });
  expect(row.lastPush).toMatchObject({ outcome: 'applied', confirm: 'confirmed', sha256: sha256(bytes) });
  expect(readFileSync(site.live).equals(bytes)).toBe(true);
  expect(site.stat(), 'mode and owner after the report').toBe(mode);
  expect(site.temps()).toEqual([]);

  const before = readFileSync(site.live, 'utf8');
  const bad = await pushConfig(a.target, `${textA}\nbackend broken\n    server x ${site.prepared('a').target.verify![0]!.address}:notaport\n`, opts);
  expect(bad.outcome).toBe('refused');
  expect(bad.reason).toMatch(/validation failed/);
  expect(readFileSync(site.live, 'utf8')).toBe(before);
  expect(await site.answers('backend A')).toBe('backend A');
  expect(site.temps()).toEqual([]);
  expect(site.stat(), 'mode and owner at the end').toBe(mode);
}
