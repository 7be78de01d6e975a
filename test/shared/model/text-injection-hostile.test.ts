// Exploit regressions for issue 27's text defects (items 2, 6, 7, 10, 11, 12, 14): a hostile
// workspace through the real `lbdesk` CLI, as the review tried it, and each renderer or probe
// fed the same value past validation (what a bug elsewhere, or a caller of the services, would
// hand it). The rule is shared/model/text-rules.ts.
import { createServer, type Server, type Socket } from 'node:net';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { healthCheckSchema, workspaceSchema, type HealthCheck, type Workspace } from '../../../shared/model/schema';
import { renderForAppliance } from '../../../main/services/drivers';
import { httpProbe } from '../../../main/services/health/probes/http';
import { dnsProbe } from '../../../main/services/health/probes/dns';
import { radiusProbe } from '../../../main/services/health/probes/radius';
import { MemorySecretStore } from '../../../main/services/secrets/memory';
import { runCli } from '../../helpers/cli';
import { startFakeAppliance } from '../../helpers/command-boxes/fake-appliance';

const ROOT = resolve(__dirname, '../../..');
const SITE = join(ROOT, 'test/fixtures/template/site.yaml');
const PAIR = join(ROOT, 'test/fixtures/workspaces/pair.yaml');
const TEMPLATES = join(ROOT, 'assets/templates');
const HOSTILE = 'rack 4\nno server real web2\nwrite erase';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

function tempFile(name: string, data: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'lbdesk-text-')), name);
  writeFileSync(file, typeof data === 'string' ? data : stringify(data));
  return file;
}

/** Sets `value` at `path` (dots; numbers are list indexes) in plain data. */
function setAt(data: Record<string, unknown>, path: string, value: unknown): void {
  const segs = path.split('.');
  let cur = data as Record<string, unknown>;
  for (const s of segs.slice(0, -1)) cur = cur[s] as Record<string, unknown>;
  cur[segs[segs.length - 1]!] = value;
}

/** A valid workspace parsed, then `hostile` written into it past validation. */
function bypassed(data: Record<string, unknown>, hostile: Record<string, unknown>): Workspace {
  const site = workspaceSchema.parse(data) as unknown as Record<string, unknown>;
  for (const [path, value] of Object.entries(hostile)) setAt(site, path, value);
  return site as unknown as Workspace;
}

const siteData = () => parse(readFileSync(SITE, 'utf8')) as Record<string, unknown>;

describe('item 2: a newline in a free-text field never becomes a command on a vendor box', () => {
  async function pushHostile(style: 'adx' | 'px', host: string, path: string) {
    const fake = await startFakeAppliance({ host, style });
    cleanup.push(() => fake.stop());
    const doc = siteData();
    const name = style === 'adx' ? 'adx1' : 'px1';
    const own = (doc.appliances as Record<string, unknown>[]).find((a) => a.name === name)!;
    doc.appliances = [{
      ...own, host: fake.host, port: fake.port, user: 'admin', auth: 'key', keyFile: fake.keyFile,
      template: join(TEMPLATES, `${style}-example.liquid`), cli: { ...(own.cli as object), mode: 'shell', timeout: '3s' },
    }];
    setAt(doc, path, path.endsWith('path') ? `/status${HOSTILE}` : HOSTILE);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-text-vendor-'));
    const file = join(dir, 'site.yaml');
    writeFileSync(file, stringify(doc));
    writeFileSync(join(dir, 'known_hosts'), '');
    writeFileSync(join(dir, 'ssh_config'), '');
    const r = await runCli(['push', file, '--appliance', name, '--known-hosts', join(dir, 'known_hosts'), '--accept-new', '--ssh-config', join(dir, 'ssh_config')], { env: { LBDESK_DATA_DIR: join(dir, 'data') } });
    return { r, fake, file };
  }

  it.each([
    ['adx', '127.0.27.1', 'servers.0.description', 'servers[0].description'],
    ['adx', '127.0.27.2', 'groups.0.healthCheck.http.path', 'groups[0].healthCheck.http.path'],
    ['adx', '127.0.27.3', 'groups.0.healthCheck.http.expect', 'groups[0].healthCheck.http.expect'],
    ['px', '127.0.27.4', 'groups.0.healthCheck.http.path', 'groups[0].healthCheck.http.path'],
    ['px', '127.0.27.5', 'groups.0.healthCheck.http.expect', 'groups[0].healthCheck.http.expect'],
  ] as const)('%s template, %s: lbdesk push refuses the workspace at file:line:col; the box receives nothing', async (style, host, path, shown) => {
    const { r, fake, file } = await pushHostile(style, host, path);
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: ${shown.replace(/[[\].]/g, '\\$&')}: must be one line of text: a line break \\(LF\\) is not allowed here`));
    expect(r.code).toBe(1);
    expect(fake.received).toEqual([]);
    expect(fake.received.join('\n')).not.toMatch(/write erase|no server real web2/);
  });

  it.each(['adx', 'px'] as const)('past validation, the %s template refuses the multi-line value where the template prints it', (style) => {
    const data = siteData();
    const hostile = style === 'adx'
      ? { 'servers.0.description': HOSTILE, 'services.0.description': HOSTILE }
      : { 'groups.0.healthCheck.http.path': `/status${HOSTILE}` };
    const site = bypassed(data, hostile);
    const appliance = { ...site.appliances.find((a) => a.name === `${style}1`)!, template: join(TEMPLATES, `${style}-example.liquid`) };
    const r = renderForAppliance(site, appliance, { workspacePath: SITE });
    expect(r.text).toBe('');
    expect(r.errors.map((e) => e.message)).toEqual([expect.stringMatching(new RegExp(`^template .*${style}-example\\.liquid:\\d+:\\d+: the value ".*\\\\n.*" holds a control character \\(U\\+000A\\): a value is never sent as more than one line$`))]);
    // `quote` is not the only guard: a raw value and `| raw` are checked too.
    const expect2 = bypassed(siteData(), { 'groups.0.healthCheck.http.expect': HOSTILE });
    const r2 = renderForAppliance(expect2, appliance, { workspacePath: SITE });
    expect(r2.text).toBe('');
    expect(r2.errors[0]!.message).toMatch(/holds a control character/);
  });

  it('past validation, neither `| raw` nor a value printed bare gets a line break through', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-text-raw-'));
    const site = bypassed({ lbdesk: 1, name: 't', appliances: [{ name: 'box', host: '192.0.2.2', driver: 'cli', template: 'box.liquid' }] }, { description: HOSTILE });
    for (const line of ['description {{ workspace.description | raw }}', 'description {{ workspace.description }}', 'description {{ workspace.description | append: "" | quote }}']) {
      writeFileSync(join(dir, 'box.liquid'), `configure terminal\n${line}\n! lbdesk:rollback\nend\n`);
      const r = renderForAppliance(site, site.appliances[0]!, { workspacePath: join(dir, 'w.yaml') });
      expect(r.text, line).toBe('');
      expect(r.errors.map((e) => e.message), line).toEqual([expect.stringMatching(/^template box\.liquid:2:\d+: the value "rack 4\\nno server real web2\\nwrite erase" holds a control character \(U\+000A\)/)]);
    }
  });
});

/** A loopback TCP server that records what each connection sent and answers once. */
async function httpServer(host: string, answer: string): Promise<{ port: number; got: string[]; server: Server }> {
  const got: string[] = [];
  const server = createServer((s: Socket) => {
    const i = got.push('') - 1;
    s.on('data', (d) => {
      got[i] += d.toString('latin1');
      if (got[i]!.includes('\r\n\r\n')) s.end(answer);
    });
    s.on('error', () => {});
  });
  await new Promise<void>((ok) => server.listen(0, host, ok));
  cleanup.push(() => new Promise<void>((ok) => server.close(() => ok())));
  return { port: (server.address() as { port: number }).port, got, server };
}

const check = (hc: Record<string, unknown>, extra: Partial<HealthCheck> = {}): HealthCheck => ({ ...healthCheckSchema.parse(hc), ...extra });
const ctxFor = (address: string, port: number, hc: HealthCheck) => ({ address, port, timeoutMs: 2000, check: hc, secrets: new MemorySecretStore() });

describe('item 6: the lab\'s HTTP probe never sends CR/LF from http.path or http.host', () => {
  const SMUGGLE = '/status?x=1 HTTP/1.0\r\nX-Path-Injected: 1\r\n\r\nGET /smuggled';

  it('lbdesk check refuses the workspace (exit 3, the field named) and the server sees no request', async () => {
    const srv = await httpServer('127.0.27.10', 'HTTP/1.0 200 OK\r\n\r\nOK');
    const file = tempFile('site.yaml', {
      lbdesk: 1, name: 'smuggle',
      servers: [{ name: 'web1', address: '127.0.27.10' }],
      groups: [{ name: 'web', members: [{ server: 'web1', port: srv.port }], healthCheck: { type: 'http', http: { path: SMUGGLE } } }],
    });
    const r = await runCli(['check', file]);
    expect(r.stderr).toMatch(/site\.yaml:\d+:\d+: groups\[0\]\.healthCheck\.http\.path: must be one line of text: a carriage return \(CR\) is not allowed here/);
    expect(r.code).toBe(3);
    expect(srv.got).toEqual([]);
  });

  it('past validation: one request, the path percent-encoded like the HAProxy render; a Host with CR/LF is never sent', async () => {
    const srv = await httpServer('127.0.27.11', 'HTTP/1.0 200 OK\r\n\r\nOK');
    const out = await httpProbe(ctxFor('127.0.27.11', srv.port, check({ type: 'http' }, { http: { path: SMUGGLE } })));
    expect(out.ok).toBe(true);
    expect(srv.got).toHaveLength(1);
    const lines = srv.got[0]!.split('\r\n');
    expect(lines[0]).toBe('GET /status?x=1%20HTTP/1.0%0D%0AX-Path-Injected:%201%0D%0A%0D%0AGET%20/smuggled HTTP/1.0');
    expect(lines.filter((l) => /^X-Path-Injected|^GET \/smuggled/.test(l))).toEqual([]);
    expect(srv.got[0]!.indexOf('\r\n\r\n')).toBe(srv.got[0]!.length - 4);

    const host = await httpProbe(ctxFor('127.0.27.11', srv.port, check({ type: 'http' }, { http: { path: '/', host: 'www.example.test\r\nX-Host-Injected: 1' } })));
    expect(host.ok).toBe(false);
    expect(host.reason).toMatch(/^http\.host "www\.example\.test··X-Host-Injected: 1" cannot be sent/);
    expect(srv.got).toHaveLength(1);
  });
});

describe('item 7: a newline in pairs[].trackScript.command never adds keepalived syntax', () => {
  const INJECT = '/usr/bin/killall -0 haproxy"\n}\nvirtual_server 203.0.113.99 80 {\n  real_server 192.0.2.99 80 {\n  }\n}\nvrrp_script x {\n  script "true';

  it('lbdesk render refuses the workspace, naming the field; nothing is printed', async () => {
    const doc = parse(readFileSync(PAIR, 'utf8')) as Record<string, unknown>;
    setAt(doc, 'pairs.1.trackScript.command', INJECT);
    const file = tempFile('pair.yaml', doc);
    const r = await runCli(['render', file, '--appliance', 'edge1-vrrp']);
    expect(r.stderr).toMatch(/pair\.yaml:\d+:\d+: pairs\[1\]\.trackScript\.command: must be one line of text: a line break \(LF\)/);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('past validation the keepalived render refuses it by name', () => {
    const site = bypassed(parse(readFileSync(PAIR, 'utf8')), { 'pairs.1.trackScript.command': INJECT });
    const r = renderForAppliance(site, site.appliances.find((a) => a.name === 'edge1-vrrp')!, { workspacePath: PAIR });
    expect(r.errors).toContainEqual({ subject: 'pair edge', message: expect.stringMatching(/^trackScript\.command "\/usr\/bin\/killall -0 haproxy\\"\\n}\\nvirtual_server .*…" cannot be written in keepalived\.conf/) });
    expect(r.text).not.toContain('virtual_server 203.0.113.99');
  });
});

/** A small HTTPS site rendered by `driver`, with `http`/`tls` settings. */
function httpsSite(driver: 'haproxy' | 'keepalived', http: Record<string, unknown>, tls: Record<string, unknown> = {}) {
  return {
    lbdesk: 1, name: 'words',
    servers: [{ name: 'web1', address: '192.0.2.21' }],
    groups: [{ name: 'web', members: [{ server: 'web1', port: 443 }], healthCheck: { type: 'https', http: { path: '/status', ...http }, tls: { verify: true, ...tls } } }],
    services: [{ name: 'vip', address: '192.0.2.10', port: 443, group: 'web' }],
    appliances: [{ name: 'lb', host: '192.0.2.2', driver }],
  };
}

describe('item 10: HAProxy: CR, LF or NUL in http.host, http.expect and tls.serverName', () => {
  it('lbdesk validate refuses each at its file:line:col', async () => {
    const file = tempFile('haproxy.yaml', httpsSite('haproxy', { host: 'www.example.test\nx', expect: 'OK\r' }, { serverName: 'secure.example.test\0' }));
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.includes('haproxy.yaml:'));
    expect(lines).toEqual([
      expect.stringMatching(/:\d+:\d+: groups\[0\]\.healthCheck\.http\.host: must be one line of text: a line break \(LF\)/),
      expect.stringMatching(/:\d+:\d+: groups\[0\]\.healthCheck\.http\.expect: must be one line of text: a carriage return \(CR\)/),
      expect.stringMatching(/:\d+:\d+: groups\[0\]\.healthCheck\.tls\.serverName: must be one line of text: a NUL/),
    ]);
  });

  it('past validation the HAProxy render refuses each by name (the value shown escaped)', () => {
    const site = bypassed(httpsSite('haproxy', {}), {
      'groups.0.healthCheck.http.host': 'www.example.test\nx', 'groups.0.healthCheck.http.expect': 'OK\r', 'groups.0.healthCheck.tls.serverName': 'secure\0',
    });
    const r = renderForAppliance(site, site.appliances[0]!, { workspacePath: '/tmp/haproxy.yaml' });
    expect(r.errors.map((e) => e.message)).toEqual([
      'http.host "www.example.test\\nx" cannot be written: it holds a line break (LF)',
      'http.expect "OK\\r" cannot be written: it holds a carriage return (CR)',
      'tls.serverName "secure\\u0000" cannot be written: it holds a NUL',
    ]);
  });
});

describe('item 11: keepalived words: NUL, "}" and a 5,000-character value', () => {
  it('lbdesk render refuses the workspace for each', async () => {
    for (const [http, why] of [
      [{ host: 'www.example.test\0' }, /http\.host: must be one line of text: a NUL/],
      [{ host: '}' }, /http\.host: must not contain a space, a quote or a brace/],
      [{ path: `/${'a'.repeat(5000)}` }, /http\.path: must be at most 900 bytes \(UTF-8\), not 5001/],
    ] as const) {
      const file = tempFile('ka.yaml', httpsSite('keepalived', http));
      const r = await runCli(['render', file, '--appliance', 'lb']);
      expect(r.stderr, JSON.stringify(http).slice(0, 40)).toMatch(why);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    }
  });

  it('past validation the keepalived render refuses each by name, the value shown cut', () => {
    for (const hostile of [
      { 'groups.0.healthCheck.http.host': 'a }' },
      { 'groups.0.healthCheck.http.host': 'a\0' },
      { 'groups.0.healthCheck.http.path': `/${'a'.repeat(5000)}` },
      { 'groups.0.healthCheck.http.path': `/${' '.repeat(400)}` },
    ]) {
      const site = bypassed(httpsSite('keepalived', {}), hostile);
      const r = renderForAppliance(site, site.appliances[0]!, { workspacePath: '/tmp/ka.yaml' });
      expect(r.errors.map((e) => e.message), Object.values(hostile)[0]!.slice(0, 20)).toEqual([expect.stringMatching(/cannot be written in keepalived\.conf \(it has a double quote, a brace, a control character or more than 900 bytes\)$/)]);
      expect(r.errors[0]!.message.length).toBeLessThan(300);
    }
  });
});

/** A loopback UDP socket counting datagrams. */
async function udpServer(host: string): Promise<{ port: number; got: Buffer[] }> {
  const got: Buffer[] = [];
  const s: UdpSocket = createSocket('udp4');
  s.on('message', (m) => got.push(m));
  await new Promise<void>((ok) => s.bind(0, host, ok));
  cleanup.push(() => new Promise<void>((ok) => s.close(() => ok())));
  return { port: s.address().port, got };
}

describe('item 12: DNS labels and RADIUS User-Name are bounded', () => {
  it('lbdesk validate refuses a 300-byte label and a 1,000-byte User-Name', async () => {
    const file = tempFile('udp.yaml', {
      lbdesk: 1, name: 'udp',
      servers: [{ name: 'ns1', address: '192.0.2.53' }],
      groups: [
        { name: 'dns', members: [{ server: 'ns1', port: 53 }], healthCheck: { type: 'dns', dns: { query: `${'a'.repeat(300)}.test` } } },
        { name: 'aaa', members: [{ server: 'ns1', port: 1812 }], healthCheck: { type: 'radius', radius: { secret: 'radius-secret', mode: 'access-request', username: 'u'.repeat(1000) } } },
      ],
    });
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/udp\.yaml:\d+:\d+: groups\[0\]\.healthCheck\.dns\.query: must be at most 254 bytes \(UTF-8\), not 305/);
    expect(r.stderr).toMatch(/udp\.yaml:\d+:\d+: groups\[1\]\.healthCheck\.radius\.username: must be at most 253 bytes \(UTF-8\), not 1000/);
  });

  it('past validation the probes send nothing: no label past 63 bytes, no attribute past 253', async () => {
    const dns = await udpServer('127.0.27.20');
    for (const query of [`${'a'.repeat(300)}.test`, `${Array(5).fill('a'.repeat(60)).join('.')}`]) {
      const out = await dnsProbe(ctxFor('127.0.27.20', dns.port, check({ type: 'dns' }, { dns: { query, recordType: 'A' } })));
      expect(out.ok).toBe(false);
      expect(out.reason).toMatch(/^dns\.query "a+…" cannot be asked: must be/);
    }
    const radius = await udpServer('127.0.27.21');
    const out = await radiusProbe(ctxFor('127.0.27.21', radius.port, check({ type: 'radius' }, { radius: { secret: 'radius-secret', mode: 'access-request', username: 'u'.repeat(1000) } })));
    expect(out.ok).toBe(false);
    expect(out.reason).toBe('radius.username cannot be sent as User-Name: must be at most 253 bytes (UTF-8), not 1000');
    expect(dns.got).toEqual([]);
    expect(radius.got).toEqual([]);
  });
});

describe('item 14: newline or NUL in values never splits a row or a warning; long names are cut', () => {
  it('lbdesk check: a query with a line break is refused, no forged row is printed', async () => {
    const file = tempFile('check.yaml', {
      lbdesk: 1, name: 'rows',
      servers: [{ name: 'ns1', address: '127.0.27.30' }],
      groups: [{ name: 'dns', members: [{ server: 'ns1', port: 9 }], healthCheck: { type: 'dns', dns: { query: 'example.test\ndns  web9  127.0.27.99  53  dns  available  100' } } }],
      healthTimers: { timeout: '500ms' },
    });
    const r = await runCli(['check', file]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/check\.yaml:\d+:\d+: groups\[0\]\.healthCheck\.dns\.query: must be one line of text/);
    expect(`${r.stdout}${r.stderr}`.split('\n').filter((l) => /^dns\s+web9/.test(l))).toEqual([]);
  });

  it('lbdesk validate: a 100 KB name is shown by its start, each problem on one line', async () => {
    const long = `web${'x'.repeat(100_000)}`;
    const file = tempFile('long.yaml', {
      lbdesk: 1, name: 'long',
      servers: [{ name: 'web1', address: '192.0.2.21' }],
      groups: [{ name: 'web', members: [{ server: long, port: 80 }, { server: 'web1\0\nlbdesk: forged', port: 80 }] }],
    });
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr.length).toBeLessThan(2000);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('lbdesk: forged'))).toEqual([]);
    expect(lines.some((l) => /members\[0\]\.server: unknown server "webx+…/.test(l))).toBe(true);
  });

  it('render warnings: values shown on one line and cut, subjects cut to 80', () => {
    const site = bypassed(httpsSite('haproxy', {}), { 'groups.0.healthCheck.http.expect': `OK${'x'.repeat(100_000)}` });
    const r = renderForAppliance(site, site.appliances[0]!, { workspacePath: '/tmp/w.yaml' });
    const warn = r.warnings.find((w) => /HAProxy looks for/.test(w.message))!;
    expect(warn.message).toMatch(/^HTTP check: HAProxy looks for "OKx+…" in the whole body read/);
    expect(Math.max(...r.warnings.map((w) => w.message.length))).toBeLessThanOrEqual(501);

    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-text-tpl-'));
    writeFileSync(join(dir, 'box.liquid'), '{{ "group " | append: services[0].description | warn: "line one\nline two" -}}\nx\n! lbdesk:rollback\ny\n');
    const tpl = bypassed({ lbdesk: 1, name: 't', services: [{ name: 'v', address: '192.0.2.10', port: 80, group: 'g' }], groups: [{ name: 'g' }], appliances: [{ name: 'box', host: '192.0.2.2', driver: 'cli', template: 'box.liquid' }] },
      { 'services.0.description': `${'n'.repeat(100_000)}\nforged` });
    const t = renderForAppliance(tpl, tpl.appliances[0]!, { workspacePath: join(dir, 'w.yaml') });
    expect(t.warnings).toEqual([{ subject: `group ${'n'.repeat(74)}…`, message: 'line one\\nline two' }]);
  });
});
