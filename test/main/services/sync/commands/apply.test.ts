// Push, pull and diff to vendor appliances end to end: the example templates rendered from
// the fixture workspace and applied to an in-process SSH server that behaves like the CLI.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceSchema, type Appliance, type Workspace } from '../../../../../shared/model/schema';
import { renderForAppliance } from '../../../../../main/services/drivers';
import { commandsOf, splitSections } from '../../../../../main/services/drivers/template/sections';
import { cliTarget, diffCli, normalizeCli, pullCli, pushCli, type CliTarget } from '../../../../../main/services/sync/commands';
import { sshFor } from '../../../../helpers/command-boxes/connect';
import { startFakeAppliance, type FakeAppliance, type FakeOptions } from '../../../../helpers/command-boxes/fake-appliance';

const SITE = resolve(__dirname, '../../../../fixtures/template/site.yaml');
const workspace: Workspace = workspaceSchema.parse(parse(readFileSync(SITE, 'utf8')));
const base = (name: string) => workspace.appliances.find((a) => a.name === name)!;

const running: FakeAppliance[] = [];
afterEach(async () => {
  for (const f of running.splice(0)) await f.stop();
});

async function setup(name: string, fake: FakeOptions, patch: Partial<Appliance> = {}) {
  const f = await startFakeAppliance(fake);
  running.push(f);
  const appliance: Appliance = { ...base(name), ...patch, host: f.host, port: f.port };
  const r = renderForAppliance(workspace, appliance, { workspacePath: SITE });
  expect(r.errors).toEqual([]);
  const ssh = sshFor(f, appliance.name);
  const target: CliTarget = { ...cliTarget(appliance, SITE), endpoint: { ...ssh.endpoint, appliance: appliance.name } };
  target.settings = { ...target.settings, timeout: 3000 };
  const dataDir = mkdtempSync(join(tmpdir(), 'lbdesk-vendor-data-'));
  return { fake: f, text: r.text, target, opts: { ...ssh.options, dataDir } };
}

/** The rendered text's line that holds `content` (1-based), as `lbdesk render` prints it. */
function lineOf(text: string, content: string): number {
  const i = text.split('\n').indexOf(content);
  expect(i, content).toBeGreaterThanOrEqual(0);
  return i + 1;
}

const PRE_EXISTING = ['server real legacy 192.0.2.200', ' port 8080', 'server virtual legacy-vip 203.0.113.200', ' port 8080'];

describe('pushCli to an ADX-style CLI', () => {
  it('applies every command, answers the save question, and the next diff is empty', async () => {
    const { fake, text, target, opts } = await setup('adx1', { host: '127.0.9.4', running: PRE_EXISTING });
    const progress: string[] = [];
    const report = await pushCli(target, text, { ...opts, onProgress: (e) => progress.push(`${e.step}:${e.status}`) });
    expect(report.reason).toMatch(/^applied/);
    expect(report.outcome).toBe('applied');
    const s = splitSections(text);
    const sent = [...commandsOf(s.lines.prologue), ...commandsOf(s.lines.config), ...commandsOf(s.lines.epilogue)].map((l) => l.text);
    expect(fake.received).toEqual(sent);
    expect(report.cli.sent).toBe(sent.length);
    expect(report.cli.transcript).toContain('Are you sure? (y/n)y');
    expect(progress).toEqual(['connect:start', 'connect:ok', 'reload:start', 'reload:ok']);
    expect(report.historyId).toBeDefined();
    expect(readdirSync(join(opts.dataDir, 'history', 'adx1')).some((f) => f.endsWith('.cfg'))).toBe(true);

    // The running config now holds the configuration section (and what was there before).
    expect(fake.running().slice(0, 4)).toEqual(PRE_EXISTING);
    const first = await diffCli(target, text, opts);
    expect(first.changed).toBe(true);                                // the legacy objects are not in the workspace
    expect(first.patch).toContain('-server real legacy 192.0.2.200');
    const added = first.patch.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    expect(added).toEqual([]);                                        // everything rendered is on the box

    // Volatile lines differ on every `show running-config`; masked, an unchanged box diffs empty.
    const { fake: clean, text: t2, target: tgt2, opts: o2 } = await setup('adx1', { host: '127.0.9.5' });
    expect((await pushCli(tgt2, t2, o2)).outcome).toBe('applied');
    const a = await pullCli(tgt2, o2);
    const b = await pullCli(tgt2, o2);
    expect(a.via).toBe('shell');
    expect(a.data.equals(b.data)).toBe(false);
    expect(a.data.toString()).toMatch(/System uptime is \d+ days/);
    expect(normalizeCli(a.data.toString(), tgt2.volatile)).toBe(normalizeCli(b.data.toString(), tgt2.volatile));
    const d = await diffCli(tgt2, t2, o2);
    expect(d).toMatchObject({ changed: false, patch: '' });
    expect(clean.received.filter((l) => l === 'show running-config')).toHaveLength(3);
  });

  it('stops at the first error line, reports its line number, sends the rollback and nothing else', async () => {
    const bad = 'server real dir2 192.0.2.32';
    const { fake, text, target, opts } = await setup('adx1', { host: '127.0.9.6', failOn: bad, running: PRE_EXISTING });
    const report = await pushCli(target, text, opts);
    expect(report.outcome).toBe('rolled-back');
    expect(report.cli.failure).toMatchObject({ lineNumber: lineOf(text, bad), line: bad, section: 'config' });
    expect(report.cli.failure!.error).toMatch(/^% Error: invalid input at line \d+$/);
    expect(report.reason).toContain(`line ${lineOf(text, bad)} (config) "${bad}"`);

    const s = splitSections(text);
    const all = [...commandsOf(s.lines.prologue), ...commandsOf(s.lines.config)].map((l) => l.text);
    const upTo = all.slice(0, all.indexOf(bad) + 1);
    const rollback = commandsOf(s.lines.rollback).map((l) => l.text);
    expect(fake.received).toEqual([...upTo, ...rollback]);
    expect(fake.received).not.toContain('write memory');
    expect(report.cli.rollback).toEqual({ sent: rollback.length, total: rollback.length, errors: [] });
    // What the template created is gone again; what was there before stays.
    expect(fake.running().slice(0, PRE_EXISTING.length)).toEqual(PRE_EXISTING);
    expect(fake.running().some((l) => /^server (real|virtual|group) (web|dir|app|dns)/.test(l))).toBe(false);
    expect(report.steps.map((e) => `${e.step}:${e.status}`)).toEqual(['connect:start', 'connect:ok', 'reload:start', 'reload:fail', 'restore:start', 'restore:ok']);
  });

  it('refuses without rollback when the prologue fails (nothing of the config was sent)', async () => {
    const { fake, text, target, opts } = await setup('adx1', { host: '127.0.9.7', failOn: 'configure terminal' });
    const report = await pushCli(target, text, opts);
    expect(report.outcome).toBe('refused');
    expect(report.cli.failure).toMatchObject({ section: 'prologue', lineNumber: lineOf(text, 'configure terminal') });
    expect(fake.received).toEqual(['configure terminal']);
  });

  it('interrupts a command that never returns, then rolls back', async () => {
    const hang = ' port 80 sticky age 300';
    const { fake, text, target, opts } = await setup('adx1', { host: '127.0.9.8', hangOn: hang.trim() });
    target.settings = { ...target.settings, timeout: 500 };
    const report = await pushCli(target, text, opts);
    expect(report.outcome).toBe('rolled-back');
    expect(report.cli.failure).toMatchObject({ lineNumber: lineOf(text, hang) });
    expect(report.cli.failure!.error).toMatch(/no prompt within 500 ms/);
    expect(fake.received.slice(-3)).toEqual(['no server real web2', 'no server real web1', 'end']);
  });

  it('never shows a password sent or printed in the transcript, failure or diff', async () => {
    const { target, opts } = await setup('adx1', { host: '127.0.9.9', failOn: 'enable password hunter2' });
    const text = '! lbdesk:prologue\nconfigure terminal\n! lbdesk:config\nserver real x 192.0.2.1\nenable password hunter2\n! lbdesk:rollback\nno server real x\n';
    const report = await pushCli(target, text, opts);
    expect(report.outcome).toBe('rolled-back');
    expect(JSON.stringify(report)).not.toContain('hunter2');
    expect(report.cli.failure!.line).toBe('enable password <redacted>');
  });

  it('refuses when the appliance cannot be reached, with the appliance untouched', async () => {
    const { fake, text, target, opts } = await setup('adx1', { host: '127.0.9.10' });
    await fake.stop();
    const report = await pushCli(target, text, opts);
    expect(report.outcome).toBe('refused');
    expect(report.steps.at(-1)).toMatchObject({ step: 'connect', status: 'fail' });
  });
});

describe('pushCli to a Px-style CLI', () => {
  it('applies, then rolls back on a chosen error line', async () => {
    const ok = await setup('px1', { host: '127.0.9.11', style: 'px' });
    const r1 = await pushCli(ok.target, ok.text, ok.opts);
    expect(r1.outcome).toBe('applied');
    expect(ok.fake.received.at(-1)).toBe('save configuration');
    expect((await diffCli(ok.target, ok.text, ok.opts)).changed).toBe(false);

    const bad = 'configure slb server-group app health-check tcp';
    const f = await setup('px1', { host: '127.0.9.12', style: 'px', failOn: bad });
    const r2 = await pushCli(f.target, f.text, f.opts);
    expect(r2.outcome).toBe('rolled-back');
    expect(r2.cli.failure).toMatchObject({ lineNumber: lineOf(f.text, bad), line: bad });
    expect(r2.cli.failure!.error).toMatch(/^% Error: invalid input at line \d+$/);
    expect(f.fake.received.indexOf(bad)).toBe(f.fake.received.length - 1 - commandsOf(splitSections(f.text).lines.rollback).length);
    expect(f.fake.running().filter((l) => l.startsWith('create'))).toEqual([]);
    expect(f.fake.received).not.toContain('save configuration');
  });
});

describe('upload mode and SCP pulls on a box with SCP but no SFTP and no shell', () => {
  it('uploads the configuration section by SCP (in place, read back), then runs the epilogue', async () => {
    const { fake, text, target, opts } = await setup('adx1', { host: '127.0.9.13' }, { cli: { ...base('adx1').cli!, mode: 'upload', uploadPath: 'lbdesk.cfg' } });
    const report = await pushCli(target, text, opts);
    expect(report.outcome).toBe('applied');
    expect(report.cli.upload).toMatchObject({ via: 'scp', atomic: false, verified: 'read-back', path: 'lbdesk.cfg' });
    expect(fake.files.get('lbdesk.cfg')!.toString()).toBe(splitSections(text).configText);
    expect(report.notes.join(' ')).toMatch(/written in place/);
    expect(fake.received).toEqual(['configure terminal', 'end', 'write memory']);
    expect(report.steps.map((e) => `${e.step}:${e.status}`)).toContain('checksum:ok');
  });

  it('pulls runConfig by SCP and diffs it with volatile lines masked', async () => {
    const { fake, text, target, opts } = await setup('adx1', { host: '127.0.9.14' }, { configPath: 'runConfig', transfer: 'auto' });
    expect((await pushCli(target, text, opts)).outcome).toBe('applied');
    const pulled = await pullCli(target, opts);
    expect(pulled.via).toBe('scp');                                     // SFTP refused: SCP
    expect(pulled.entry?.kind).toBe('pull');
    expect(pulled.data.toString()).toContain('server virtual web-vip 203.0.113.10');
    expect((await diffCli(target, text, opts)).changed).toBe(false);
    fake.received.length = 0;
    const changed = renderForAppliance({ ...workspace, services: workspace.services.map((s) => (s.name === 'web-vip' ? { ...s, port: 8080 } : s)) }, { ...base('adx1'), host: fake.host, port: fake.port }, { workspacePath: SITE }).text;
    const d = await diffCli(target, changed, opts);
    expect(d.changed).toBe(true);
    expect(d.patch).toContain('+ port 8080');
    expect(d.patch).toContain('- port 80');
    expect(fake.received).toEqual([]);                                  // diff sends nothing to the CLI
  });
});
