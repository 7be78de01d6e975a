// Import through the contract, on the importer the CLI uses: a config file into a new workspace,
// and an appliance's running config (pulled over a real sshd) as edits for the open workspace.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callDirect } from '../../../../main/services/api/dispatch';
import { createAppServices, type AppServices } from '../../../../main/services/api/wiring';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { browserShell } from '../../../../main/services/api/shell';
import { applyMerge, workspaceProblems, type MergeEdit } from '../../../../main/services/import';
import { parseWorkspace } from '../../../../shared/model/validate';
import { haproxyApplianceLines, haveSshd, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { ROOT } from '../../../helpers/cli';
import { skipBecause } from '../../../helpers/skip';
import { windowServices } from '../../../helpers/app-services';

const CORPUS = join(ROOT, 'test', 'fixtures', 'import');

describe('import over the contract', () => {
  let svc: AppServices;
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-import-api-'));
  beforeAll(() => {
    svc = createAppServices({ shell: browserShell(), dataDir: join(dir, 'data'), resourcesDir: ROOT, secrets: new MemorySecretStore() });
  });
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('suggests the driver from the first statement', async () => {
    expect(await callDirect(svc.handlers, 'import.detect', { config: join(CORPUS, 'debian-tls.cfg') })).toEqual({ driver: 'haproxy' });
    expect(await callDirect(svc.handlers, 'import.detect', { config: join(CORPUS, 'keepalived-pair.conf') })).toEqual({ driver: 'keepalived' });
    writeFileSync(join(dir, 'notes.txt'), 'hello world\n');
    expect(await callDirect(svc.handlers, 'import.detect', { config: join(dir, 'notes.txt') })).toEqual({ driver: null });
  });

  it('writes a new valid workspace and returns rows that point at their source lines', async () => {
    const out = join(dir, 'site.yaml');
    const config = join(CORPUS, 'debian-tls.cfg');
    const r = await callDirect(svc.handlers, 'import.file', { config, driver: 'haproxy', out, appliance: 'lb1' });
    expect(r.error).toBeUndefined();
    expect(r.workspace?.path).toBe(out);
    const text = readFileSync(out, 'utf8');
    expect(workspaceProblems(text, out)).toEqual([]);
    expect(parseWorkspace(text, out).workspace!.appliances[0]).toMatchObject({ name: 'lb1', driver: 'haproxy', manage: 'sections' });
    const source = r.sources.find((s) => s.file === config)!;
    expect(source.text.split('\n')).toHaveLength(readFileSync(config, 'utf8').split('\n').length);
    const stats = r.rows.find((x) => x.what === 'listen stats')!;
    expect(stats.kind).toBe('kept');
    expect(source.text.split('\n')[stats.line - 1]).toBe('listen stats');
    expect(r.rows.some((x) => x.kind === 'imported' || x.kind === 'approximated')).toBe(true);
    expect(r.summary).toMatch(/\d+ imported, \d+ approximated, \d+ kept on the appliance/);
  });

  it('lists the drivers with an importer, and imports a vendor running config with one of them', async () => {
    const { drivers } = await callDirect(svc.handlers, 'import.drivers', {});
    expect(drivers.map((d) => d.name)).toEqual(['haproxy', 'keepalived', 'adx', 'a10', 'netscaler', 'f5', 'pingdirectory']);
    // import.box pulls a config file: only the drivers lbdesk's file importer reads.
    expect(drivers.filter((d) => d.fromBox).map((d) => d.name)).toEqual(['haproxy', 'keepalived']);
    expect(drivers[1]).toMatchObject({ configPath: '/etc/keepalived/keepalived.conf', validateCommand: 'keepalived -t -e -f {file}' });
    const out = join(dir, 'adx.yaml');
    const r = await callDirect(svc.handlers, 'import.file', { config: join(CORPUS, 'adx/brocade-vtm-translator.cfg'), driver: 'adx', out, appliance: 'adx1' });
    expect(r.summary).toBe('2 servers, 1 group, 1 service; 3 imported, 1 approximated, 13 kept on the appliance');
    expect(parseWorkspace(readFileSync(out, 'utf8'), out).workspace!.appliances[0]).toMatchObject({ name: 'adx1', driver: 'adx' });
    await expect(callDirect(svc.handlers, 'import.file', { config: join(CORPUS, 'debian-tls.cfg'), driver: 'cli', out: join(dir, 'cli.yaml') })).rejects.toThrow(/driver cli has no importer/);
  });

  it('shows an included file as its own source', async () => {
    const r = await callDirect(svc.handlers, 'import.file', { config: join(CORPUS, 'keepalived-pair.conf'), driver: 'keepalived', out: join(dir, 'pair.yaml') });
    const included = r.rows.filter((x) => x.file.endsWith('extra.conf'));
    expect(included.length).toBeGreaterThan(0);
    const src = r.sources.find((s) => s.file === included[0]!.file)!;
    expect(src.text).toBe(readFileSync(join(CORPUS, 'keepalived.d', 'extra.conf'), 'utf8'));
  });

  it('refuses bad input with one file:line row, shows nothing of the file and writes nothing', async () => {
    const bad = join(dir, 'bad.cfg');
    writeFileSync(bad, '# a token file\nghp_notasecret 1234\n');
    const out = join(dir, 'bad.yaml');
    const r = await callDirect(svc.handlers, 'import.file', { config: bad, driver: 'haproxy', out });
    expect(r.error).toMatch(new RegExp(`^${bad}:2: `));
    expect(r.rows).toEqual([expect.objectContaining({ kind: 'error', file: bad, line: 2 })]);
    expect(r.sources).toEqual([]);
    // Not even the word the parser stopped at: the page may have named any file.
    expect(JSON.stringify(r)).not.toContain('ghp_notasecret');
    expect(existsSync(out)).toBe(false);
    // A keepalived.conf read as haproxy: refused the same way.
    const wrong = await callDirect(svc.handlers, 'import.file', { config: join(CORPUS, 'keepalived-pair.conf'), driver: 'haproxy', out });
    expect(wrong.error).toMatch(/not a haproxy\.cfg/);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an existing workspace, a hidden folder and a relative path', async () => {
    await expect(callDirect(svc.handlers, 'import.file', { config: join(CORPUS, 'listen-only.cfg'), driver: 'haproxy', out: join(dir, 'site.yaml') })).rejects.toMatchObject({ code: 'conflict' });
    mkdirSync(join(dir, '.ssh'));
    copyFileSync(join(CORPUS, 'listen-only.cfg'), join(dir, '.ssh', 'x.cfg'));
    await expect(callDirect(svc.handlers, 'import.file', { config: join(dir, '.ssh', 'x.cfg'), driver: 'haproxy', out: join(dir, 'h.yaml') })).rejects.toThrow(/hidden/);
    symlinkSync(join(dir, '.ssh', 'x.cfg'), join(dir, 'link.cfg'));
    await expect(callDirect(svc.handlers, 'import.detect', { config: join(dir, 'link.cfg') })).rejects.toThrow(/hidden/);
    expect(existsSync(join(dir, 'h.yaml'))).toBe(false);
    await expect(callDirect(svc.handlers, 'import.detect', { config: 'x.cfg' })).rejects.toThrow(/not an absolute path/);
  });

  it('lists config files when asked for any file', async () => {
    const yaml = await callDirect(svc.handlers, 'workspace.browse', { dir: CORPUS });
    expect(yaml.entries.filter((e) => e.kind === 'file')).toEqual([]);
    const any = await callDirect(svc.handlers, 'workspace.browse', { dir: CORPUS, files: 'any' });
    expect(any.entries.map((e) => e.name)).toEqual(expect.arrayContaining(['debian-tls.cfg', 'keepalived-pair.conf', 'keepalived.d']));
  });
});

describe.skipIf(skipBecause(noSshd, 'import over the contract'))(`import from an appliance over the contract (real sshd)${haveSshd ? '' : ` (skipped: ${noSshd})`}`, () => {
  let sshd: Sshd;
  let svc: AppServices;
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-import-api-ssh-'));
  const path = join(dir, 'site.yaml');
  const cfg = join(dir, 'box', 'haproxy.cfg');
  let text = '';

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.9.61' });
    mkdirSync(join(dir, 'box'));
    // A password in a kept section: the source shown in the app masks it.
    writeFileSync(cfg, `${readFileSync(join(CORPUS, 'debian-tls.cfg'), 'utf8')}\tstats auth admin:not-a-real-pass\n`);
    svc = windowServices(dir);
    text = [
      'lbdesk: 1',
      'name: site   # the site as it was before the import',
      'servers: [{ name: old1, address: 192.0.2.201 }]',
      '# this group is the workspace\'s: an imported group of the same name must not replace it',
      'groups: [{ name: web, members: [{ server: old1, port: 80 }], healthCheck: { type: tcp } }]',
      'appliances:',
      ...haproxyApplianceLines(sshd, 'box', cfg),
      '',
    ].join('\n');
    writeFileSync(path, text);
  });
  afterAll(async () => {
    await svc?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pulls the running config and returns edits that keep the workspace\'s names; writes nothing', async () => {
    const r = await callDirect(svc.handlers, 'import.appliance', { path, text, appliance: 'box' });
    expect(r.error).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe(text);
    const skipped = r.rows.find((x) => x.what === 'group web')!;
    expect(skipped).toMatchObject({ kind: 'kept', file: `box:${cfg}` });
    expect(skipped.why).toMatch(/already has a group web/);
    expect(r.sources[0]).toEqual({ file: `box:${cfg}`, text: readFileSync(cfg, 'utf8').replace('admin:not-a-real-pass', 'admin:<redacted>') });
    expect(r.sources[0]!.text).not.toContain('not-a-real-pass');
    expect(r.edits).toContainEqual({ op: 'set', path: ['appliances', 0, 'manage'], value: 'sections' });
    expect(r.edits.some((e) => e.op === 'add' && e.list[0] === 'groups' && (e.item as { name: string }).name === 'web')).toBe(false);
    const merged = applyMerge(text, r.edits as MergeEdit[]);
    expect(workspaceProblems(merged, path)).toEqual([]);
    expect(merged).toContain('name: site   # the site as it was before the import');
    const workspace = parseWorkspace(merged, path).workspace!;
    expect(workspace.groups.find((g) => g.name === 'web')!.members).toEqual([expect.objectContaining({ server: 'old1' })]);
    expect(workspace.groups.length).toBeGreaterThan(1);
  });

  it('reports a pulled config that is not the driver\'s format as one error row, with its source', async () => {
    writeFileSync(cfg, 'global_defs {\n}\n');
    const r = await callDirect(svc.handlers, 'import.appliance', { path, text, appliance: 'box' });
    expect(r.error).toMatch(new RegExp(`^box:${cfg}:1: `));
    expect(r.edits).toEqual([]);
    expect(r.rows).toEqual([expect.objectContaining({ kind: 'error', line: 1 })]);
    expect(r.sources[0]!.text).toBe('global_defs {\n}\n');
  });
});
