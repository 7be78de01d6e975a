// What a page, a workspace or a received config may make lbdesk read (issue 27): every file a
// handler reads, and every file read through it (keepalived includes, templates), follows one
// rule — no hidden folder or file, a regular file only (a FIFO is refused at once), a size cap,
// and a config's includes stay in its folder. Written as the attacks were: the page through the
// real browser-mode host, a received config through the CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli';
import { appServices, hostilePage, tempDir } from '../../../helpers/app-ipc';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAnotarealkeybutsecretmaterial\n-----END OPENSSH PRIVATE KEY-----\n';
const SHADOW = readFileSync('/etc/shadow', 'utf8').split('\n')[0]!.split(':').slice(0, 2).join(':');

let tmp: ReturnType<typeof tempDir>;
let page: Awaited<ReturnType<typeof hostilePage>>;
let services: ReturnType<typeof appServices>;
let home: string;
let sites: string;

beforeAll(async () => {
  tmp = tempDir('hostile-reads');
  home = join(tmp.dir, 'home');
  sites = join(home, 'sites');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(home, '.config', 'lbdesk'), { recursive: true });
  mkdirSync(sites, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), KEY, { mode: 0o600 });
  writeFileSync(join(home, 'notes.conf'), 'vrrp_instance outside {\n  state MASTER\n}\n');
  mkdirSync(join(sites, 'notes'));
  writeFileSync(join(sites, 'notes', 'bank.txt'), 'iban DE00 1234 secretmaterial\npin 4321\n');
  services = appServices(join(tmp.dir, 'data'));
  page = await hostilePage(services, join(tmp.dir, 'renderer'));
});
afterAll(async () => {
  await page?.close();
  await services?.stop();
  tmp?.cleanup();
});

/** A YAML workspace that is also a keepalived.conf (the plant), with `include TARGET`. */
const polyglot = (target: string) => `global_defs { x: |\n }\n include ${target}\nlbdesk: 1\n`;

describe('the page plants a config and imports it (keepalived include)', () => {
  for (const [what, target, why] of [
    ['a key in ~/.ssh', () => join(home, '.ssh', 'id_ed25519'), /hidden folder/],
    ['every file of ~/.ssh (a glob)', () => join(home, '.ssh', '*'), /hidden folder/],
    ['/etc/shadow', () => '/etc/shadow', /outside/],
    ['a file outside the config\'s folder', () => join(home, 'notes.conf'), /outside/],
    ['a link to the key beside the config', () => 'link.conf', /hidden folder/],
    ['a text file beside the config (notes, a token)', () => 'notes/bank.txt', /is not a keepalived config/],
  ] as const) {
    it(`refuses an include of ${what}, at file:line, and shows none of it`, async () => {
      const config = join(sites, `plant-${what.replace(/\W+/g, '-')}.yaml`);
      execFileSync('ln', ['-sf', join(home, '.ssh', 'id_ed25519'), join(sites, 'link.conf')]);
      const written = await page.call('workspace.write', { path: config, text: polyglot(target()) });
      expect(written.ok).toBe(true);
      const r = await page.call('import.file', { config, driver: 'keepalived', out: join(sites, `out-${Date.now()}.yaml`) });
      const shown = JSON.stringify(r);
      expect(shown).not.toContain('BEGIN OPENSSH');
      expect(shown).not.toContain('secretmaterial');
      expect(shown).not.toContain(SHADOW);
      expect(shown).not.toContain('state MASTER');
      expect(shown).not.toContain('iban');
      expect(r.ok).toBe(true);
      const report = r.result as { error?: string; sources: unknown[] };
      expect(report.error).toMatch(new RegExp(`^${config}:3: include `));
      expect(report.error).toMatch(why);
      expect(report.sources).toEqual([]);
    });
  }

  it('still follows an include beside the config, and shows the text it read', async () => {
    mkdirSync(join(sites, 'conf.d'), { recursive: true });
    writeFileSync(join(sites, 'conf.d', 'extra.conf'), 'vrrp_instance VI_2 {\n  state BACKUP\n}\n');
    const config = join(sites, 'good.conf');
    writeFileSync(config, 'global_defs {\n  router_id a\n}\ninclude conf.d/*.conf\n');
    const r = await page.call('import.file', { config, driver: 'keepalived', out: join(sites, 'good.yaml') });
    const report = r.result as { error?: string; sources: { file: string; text: string }[] };
    expect(report.error).toBeUndefined();
    expect(report.sources.map((s) => s.file)).toEqual([config, join(sites, 'conf.d', 'extra.conf')]);
    expect(report.sources[1]!.text).toBe(readFileSync(join(sites, 'conf.d', 'extra.conf'), 'utf8'));
  });
});

describe('report.export names a file that is not a workspace', () => {
  it('refuses YAML without the lbdesk key (a Kubernetes Secret), quoting nothing and creating nothing', async () => {
    const secret = join(sites, 'k8s', 'db-secret.yaml');
    mkdirSync(join(sites, 'k8s'));
    writeFileSync(secret, 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: prod-db-password-hunter2\ndata:\n  password: aHVudGVyMg==\n');
    for (const args of [{ path: secret, offline: true }, { path: secret, offline: true, text: 'lbdesk: 1\nname: mine\n' }]) {
      const r = await page.call('report.export', args);
      expect(r.ok).toBe(false);
      expect(r.error?.message).toMatch(/not an lbdesk workspace/);
      expect(JSON.stringify(r)).not.toMatch(/hunter2|aHVudGVyMg/);
    }
    expect(existsSync(join(sites, 'k8s', 'reports'))).toBe(false);
  });

  it('refuses a workspace in a hidden folder', async () => {
    const hidden = join(home, '.config', 'lbdesk', 'site.yaml');
    writeFileSync(hidden, 'lbdesk: 1\nname: token-name-xyz\n');
    const r = await page.call('report.export', { path: hidden, offline: true });
    expect(r.ok).toBe(false);
    expect(r.error?.message).toMatch(/hidden folder/);
    expect(JSON.stringify(r)).not.toContain('token-name-xyz');
    expect(existsSync(join(home, '.config', 'lbdesk', 'reports'))).toBe(false);
  });
});

describe('workspace.browse names a hidden folder', () => {
  it('lists none of its files, named directly or through a link', async () => {
    execFileSync('ln', ['-sfn', join(home, '.ssh'), join(home, 'keys')]);
    for (const dir of [join(home, '.ssh'), join(home, 'keys'), join(home, '.ssh', '..', '.ssh')]) {
      const r = await page.call('workspace.browse', { dir, files: 'any' });
      expect(r.ok, dir).toBe(false);
      expect(r.error?.message).toMatch(/hidden folder/);
      expect(JSON.stringify(r)).not.toContain('id_ed25519');
    }
    const plain = await page.call('workspace.browse', { dir: home, files: 'any' });
    expect(JSON.stringify(plain.result)).not.toContain('.ssh');
  });
});

describe('workspace.write into a hidden folder', () => {
  it('is refused, named directly or through a linked folder, and writes nothing', async () => {
    execFileSync('ln', ['-sfn', join(home, '.config'), join(home, 'settings')]);
    for (const path of [join(home, '.config', 'autostart.yaml'), join(home, 'settings', 'autostart.yaml')]) {
      const r = await page.call('workspace.write', { path, text: 'lbdesk: 1\nname: planted\n' });
      expect(r.ok, path).toBe(false);
      expect(r.error?.message).toMatch(/hidden folder/);
    }
    expect(existsSync(join(home, '.config', 'autostart.yaml'))).toBe(false);
  });
});

describe('a received keepalived.conf through the CLI (import --json)', () => {
  const received = (name: string, include: string) => {
    const dir = join(tmp.dir, `received-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'keepalived.conf'), `global_defs {\n  router_id lb1\n}\n\ninclude ${include}\n`);
    return join(dir, 'keepalived.conf');
  };

  for (const [name, include, why] of [
    ['shadow', '/etc/shadow', /outside/],
    ['key', () => join(home, '.ssh', 'id_ed25519'), /hidden folder/],
    ['glob', () => join(home, '.ssh', 'id_*'), /hidden folder/],
  ] as const) {
    it(`refuses include ${name} with one file:line line and echoes none of it`, async () => {
      const file = received(name, typeof include === 'string' ? include : include());
      const r = await runCli(['import', file, '--driver', 'keepalived', '--json'], { timeoutMs: 30_000 });
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain(SHADOW);
      expect(r.stdout + r.stderr).not.toContain('OPENSSH');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^lbdesk: ${file}:5: include `));
      expect(lines[0]).toMatch(why);
    });
  }

  it('refuses an include that is a FIFO at once, never waiting for a writer', async () => {
    const file = received('fifo', 'pipe.conf');
    execFileSync('mkfifo', [join(tmp.dir, 'received-fifo', 'pipe.conf')]);
    const r = await runCli(['import', file, '--driver', 'keepalived', '--json'], { timeoutMs: 20_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^lbdesk: ${file}:5: include pipe.conf: .*pipe.conf: not a regular file: refused\\n$`));
  });
});

describe('a template that is a FIFO (render through the CLI)', () => {
  it('is refused at once with the appliance named, never waited on', async () => {
    const dir = join(tmp.dir, 'fifo-template');
    mkdirSync(dir);
    execFileSync('mkfifo', [join(dir, 'box.liquid')]);
    const workspace = join(dir, 'site.yaml');
    writeFileSync(workspace, [
      'lbdesk: 1', 'name: t',
      'servers: [{ name: s1, address: 192.0.2.1 }]',
      'groups: [{ name: g, members: [{ server: s1, port: 8080 }] }]',
      'services: [{ name: v, address: 192.0.2.10, port: 80, group: g }]',
      'appliances: [{ name: box, host: 192.0.2.2, driver: cli, template: box.liquid }]', '',
    ].join('\n'));
    const r = await runCli(['render', workspace, '--appliance', 'box'], { timeoutMs: 20_000 });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toMatch(/cannot read template box\.liquid: not a regular file: refused/);
  });
});

describe('a workspace in a hidden folder the user chose outside the page', () => {
  it('opens (native dialog), while the page still cannot name its neighbour', async () => {
    const mine = join(home, '.config', 'lbdesk', 'chosen.yaml');
    const neighbour = join(home, '.config', 'lbdesk', 'neighbour.yaml');
    writeFileSync(mine, 'lbdesk: 1\nname: chosen\n');
    writeFileSync(neighbour, 'lbdesk: 1\nname: neighbour\n');
    const desk = appServices(join(tmp.dir, 'data-dialog'), { shell: { openFileDialog: async () => mine } });
    const window = await hostilePage(desk, join(tmp.dir, 'renderer-dialog'));
    try {
      expect(await window.call('workspace.read', { path: mine })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/hidden folder/) } });
      expect(await window.call('dialog.openFile', {})).toMatchObject({ ok: true, result: mine });
      expect(await window.call('workspace.read', { path: mine })).toMatchObject({ ok: true, result: { text: 'lbdesk: 1\nname: chosen\n' } });
      expect((await window.call('workspace.read', { path: neighbour })).ok).toBe(false);
    } finally {
      await window.close();
      await desk.stop();
    }
  });
});
