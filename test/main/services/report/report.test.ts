// The change report through the contract against a real OpenSSH sshd: each appliance is asked
// what a push changes (nothing on a box changes), the last push is named, an appliance that
// cannot be reached is a row saying why, secrets in a kept section stay masked, and the lab's
// state is the running lab's.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callDirect } from '../../../../main/services/api/dispatch';
import type { AppServices } from '../../../../main/services/api/wiring';
import { noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { windowServices } from '../../../helpers/app-services';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe.skipIf(skipBecause(noSshd, 'the change report over sshd'))('change report (real sshd)', () => {
  let sshd: Sshd;
  let svc: AppServices;
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-report-'));
  const path = join(dir, 'site.yaml');
  const boxFile = join(dir, 'box', 'lbdesk.yaml');
  const edgeFile = join(dir, 'edge', 'haproxy.cfg');
  // Made here, never written in a fixture: the kept stats section's password.
  const password = randomBytes(9).toString('hex');
  const edgeText = `global\n    maxconn 100\n\ndefaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n\nlisten stats\n    bind 127.0.3.84:8404\n    stats enable\n    stats auth admin:${password}\n`;
  let text = '';

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.3.81' });
    svc = windowServices(dir);
    const login = `    host: ${sshd.host}\n    port: ${sshd.port}\n    user: root\n    auth: key\n    keyFile: ${sshd.userKey.path}\n`;
    text = `lbdesk: 1
name: report-test
servers: [{ name: web1, address: 127.0.3.91 }]
groups: [{ name: web, members: [{ server: web1, port: 8081 }], healthCheck: { type: tcp }, healthTimers: { interval: 1s, retryInterval: 1s } }]
# Disabled: nothing listens on the VIP, so a push's connect check has nothing to try.
services: [{ name: web-vip, address: 127.0.3.90, port: 8080, group: web, enabled: false }]
appliances:
  - name: box
${login}    driver: lbdesk
    configPath: ${boxFile}
    validateCommand: "grep -q '^lbdesk: 1' {file}"
    reloadCommand: "echo reload >> ${join(dir, 'reloads')}"
  - name: edge
${login}    driver: haproxy
    manage: sections
    configPath: ${edgeFile}
    validateCommand: "true"
    reloadCommand: "echo reload >> ${join(dir, 'reloads')}"
  - name: gone
    host: 127.0.3.82
    port: 1
    user: root
    auth: key
    keyFile: ${sshd.userKey.path}
    driver: lbdesk
    configPath: /etc/lbdesk/lbdesk.yaml
    reloadCommand: "true"
`;
    writeFileSync(path, text);
    mkdirSync(join(dir, 'box'));
    mkdirSync(join(dir, 'edge'));
    writeFileSync(edgeFile, edgeText);
  });
  afterAll(async () => {
    await svc?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks each appliance what a push changes, names the last push, and changes nothing on a box', async () => {
    expect(await callDirect(svc.handlers, 'appliance.push', { path, appliance: 'box' })).toMatchObject({ outcome: 'applied' });
    const boxBefore = readFileSync(boxFile, 'utf8');
    const reloads = readFileSync(join(dir, 'reloads'), 'utf8');
    const edited = text.replace('name: report-test', 'name: report-test-2');

    const r = await callDirect(svc.handlers, 'report.export', { path, text: edited });
    expect(r.htmlPath).toMatch(new RegExp(`^${dir}/reports/site-change-\\d{8}-\\d{6}Z\\.html$`));
    expect(readFileSync(r.htmlPath, 'utf8')).toBe(r.html);
    expect(readFileSync(r.markdownPath, 'utf8')).toBe(r.markdown);
    const md = r.markdown;
    expect(md).toContain('# Change report: report-test-2');
    expect(md).toContain(`| **sha256** | \`${sha256(edited)}\``);
    expect(md).toContain('with unsaved edits');
    expect(md).toContain('| **Validation** | valid: 0 errors,');

    // box: the edit is the diff; the last push was the file before it.
    const boxRender = await callDirect(svc.handlers, 'appliance.render', { path, text: edited, appliance: 'box' });
    expect(md).toContain(`| **File a push leaves** | \`${sha256(boxRender.text)}\` |`);
    expect(md).toContain(`| **Running now** | \`${sha256(boxBefore)}\` |`);
    expect(md).toContain('-name: report-test\n+name: report-test-2');
    expect(md).toMatch(/```diff\n--- a\//);
    expect(md).toMatch(/\| \*\*Last push from here\*\* \| \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, applied, sha256 `[0-9a-f]{16}` — not the file the workspace renders now \|/);

    // edge (manage: sections): lbdesk's sections added after the kept ones; the kept password masked.
    expect(md).toMatch(/### edge[\s\S]*changes the file: \d+ lines added, 0 removed/);
    expect(md).toContain('stats auth admin:<redacted>');
    expect(md + r.html).not.toContain(password);

    // gone: a row that says why, and the rest of the report is still made.
    expect(r.appliances).toEqual([
      // The name line, and the header line that names the workspace.
      { name: 'box', says: 'changes the file: 2 lines added, 2 removed', ok: true },
      { name: 'edge', says: expect.stringMatching(/^changes the file: \d+ lines added, 0 removed$/), ok: true },
      { name: 'gone', says: 'could not be asked', ok: false },
    ]);
    expect(md).toMatch(/\| \*\*Why not asked\*\* \| .*(ECONNREFUSED|refused).* \|/);
    expect(md).toContain('| **Lab** | not running |');

    // Nothing on the boxes changed.
    expect(readFileSync(boxFile, 'utf8')).toBe(boxBefore);
    expect(readFileSync(edgeFile, 'utf8')).toBe(edgeText);
    expect(readFileSync(join(dir, 'reloads'), 'utf8')).toBe(reloads);
  });

  it('offline: no appliance is contacted; the running lab\'s members are the lab section', async () => {
    await callDirect(svc.handlers, 'lab.start', { path });
    try {
      // web1 has nothing listening: its first check takes it out of service.
      const until = Date.now() + 15_000;
      while (Date.now() < until && (await callDirect(svc.handlers, 'lab.status', {})).members.some((m) => m.state === 'unknown')) await new Promise((res) => setTimeout(res, 100));
      const r = await callDirect(svc.handlers, 'report.export', { path, offline: true });
      expect(r.appliances.map((a) => a.says)).toEqual(['not asked (offline report)', 'not asked (offline report)', 'not asked (offline report)']);
      expect(r.markdown).toMatch(/\| \*\*Lab\*\* \| running this workspace for \d+ s: 1 unavailable; 1 state change \|/);
      expect(r.markdown).toMatch(/\| web \| web1 \| unavailable \| \d{4}-.*Z \| .+ \|/);
      expect(r.markdown).not.toContain('with unsaved edits');
    } finally {
      await callDirect(svc.handlers, 'lab.stop', {});
    }
  });

  it('an invalid workspace is still reported: its problems, and no appliance rendered', async () => {
    const bad = text.replace('address: 127.0.3.91', 'address: 127.0.3.999');
    const r = await callDirect(svc.handlers, 'report.export', { path, text: bad, offline: true });
    expect(r.summary).toMatch(/^report-test: invalid \(1 error\)$/);
    expect(r.markdown).toMatch(/- `.*site\.yaml:3:\d+` error: servers\\\[0\\\]\.address: /);
    expect(r.markdown).toContain('appliances are not rendered: the workspace has errors');
  });

  it('refuses a path that is not a workspace file', async () => {
    await expect(callDirect(svc.handlers, 'report.export', { path: join(dir, 'known_hosts') })).rejects.toMatchObject({ code: 'refused' });
    expect(existsSync(join(dir, 'reports'))).toBe(true);
  });
});
