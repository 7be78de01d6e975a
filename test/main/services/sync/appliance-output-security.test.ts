// What an appliance's running config may show the page (issue 27): every path that shows it —
// pull, diff, the change report — masks passwords and credential headers with one redaction.
// The page drives the real browser-mode host; the appliance is a real sshd on loopback.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyApplianceLines, noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { windowServices } from '../../../helpers/app-services';
import { hostilePage, tempDir } from '../../../helpers/app-ipc';

const SECRETS = ['stats-pass-1a2b', 'user-pass-3c4d', 'api-key-5e6f7a8b', 'eyJbearer.token9', 'YWRtaW46YmFzaWM='];
const RUNNING = [
  'global',
  '    daemon',
  'userlist admins',
  `    user ops insecure-password ${SECRETS[1]}`,
  'listen stats',
  '    bind 127.0.0.1:8404',
  `    stats auth admin:${SECRETS[0]}`,
  'backend api',
  `    http-request set-header X-Api-Key ${SECRETS[2]}`,
  `    http-request set-header Authorization "Bearer ${SECRETS[3]}"`,
  `    http-check send meth GET uri /health hdr Authorization "Basic ${SECRETS[4]}"`,
  '    server a1 192.0.2.31:8080 check',
  '',
].join('\n');

describe.skipIf(skipBecause(noSshd, 'appliance output shown to the page'))('an appliance config shown to the page (real sshd)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let sshd: Sshd;
  let services: ReturnType<typeof windowServices>;
  let page: Awaited<ReturnType<typeof hostilePage>>;
  let path: string;

  const expectMasked = (what: string, text: string) => {
    for (const s of SECRETS) expect(text, `${what} shows ${s}`).not.toContain(s);
    expect(text, what).toMatch(/<redacted>|&lt;redacted&gt;/);
  };

  beforeAll(async () => {
    tmp = tempDir('appliance-output');
    sshd = await startSshd({ host: '127.0.27.5' });
    mkdirSync(join(tmp.dir, 'box'));
    const cfg = join(tmp.dir, 'box', 'haproxy.cfg');
    writeFileSync(cfg, RUNNING);
    path = join(tmp.dir, 'site.yaml');
    writeFileSync(path, [
      'lbdesk: 1', 'name: site',
      'servers: [{ name: a1, address: 192.0.2.31 }]',
      'groups: [{ name: api, members: [{ server: a1, port: 8080 }], healthCheck: { type: tcp } }]',
      'services: [{ name: www, address: 192.0.2.30, port: 80, group: api }]',
      'appliances:', ...haproxyApplianceLines(sshd, 'box', cfg), '',
    ].join('\n'));
    services = windowServices(tmp.dir);
    page = await hostilePage(services, join(tmp.dir, 'renderer'));
  });
  afterAll(async () => {
    await page?.close();
    await services?.stop();
    await sshd?.stop();
    tmp?.cleanup();
  });

  it('appliance.pull masks the running config as appliance.version and configs do', async () => {
    const r = await page.call('appliance.pull', { path, appliance: 'box' });
    expect(r.ok).toBe(true);
    const text = (r.result as { text: string }).text;
    expectMasked('pull', text);
    // Only the values: every line is still there.
    expect(text.split('\n')).toHaveLength(RUNNING.split('\n').length);
    expect(text).toContain('stats auth admin:<redacted>');
    const configs = await page.call('appliance.configs', { path, appliance: 'box', before: { kind: 'running' }, after: { kind: 'workspace' } });
    expect(configs.ok).toBe(true);
    expect((configs.result as { before: string }).before).toBe(text);
  });

  it('appliance.diff masks credential headers (X-Api-Key, Authorization Bearer and Basic)', async () => {
    const r = await page.call('appliance.diff', { path, appliance: 'box' });
    expect(r.ok).toBe(true);
    const patch = (r.result as { diff: string }).diff;
    expectMasked('diff', patch);
    expect(patch).toContain('-    http-request set-header X-Api-Key <redacted>');
    expect(patch).toContain('-    http-request set-header Authorization "Bearer <redacted>"');
  });

  it('the change report (reply and files) masks them too', async () => {
    const r = await page.call('report.export', { path, offline: false });
    expect(r.ok).toBe(true);
    expectMasked('report reply', JSON.stringify(r.result));
    const files = r.result as { markdownPath: string; htmlPath: string };
    for (const f of [files.markdownPath, files.htmlPath]) expectMasked(f, readFileSync(f, 'utf8'));
    rmSync(join(tmp.dir, 'reports'), { recursive: true, force: true });
  });
});
