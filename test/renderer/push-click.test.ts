// One Push click in the window, store to sshd: the push's reply carries the diff after it, so
// the click logs in once (counted in the real sshd's log), where it used to log in three times.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { storeContext } from '../helpers/renderer/mount';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useAppliances } from '../../renderer/src/stores/appliances';
import { noSshd, startSshd, type Sshd } from '../helpers/sshd';
import { skipBecause } from '../helpers/skip';

const logins = (sshd: Sshd) => (sshd.log().match(/Accepted (?:publickey|password|keyboard-interactive)\b/g) ?? []).length;

describe.skipIf(skipBecause(noSshd, 'a Push click against a real sshd'))('a Push click (real sshd)', { timeout: 60_000 }, () => {
  let sshd: Sshd;
  let real: RealApi;
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-push-click-'));
  const live = join(dir, 'box', 'lbdesk.yaml');

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.3.83' });
    mkdirSync(join(dir, 'box'));
    writeFileSync(join(dir, 'known_hosts'), `${sshd.knownHostsLine}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    real = realApi({ ssh: { knownHostsFile: join(dir, 'known_hosts'), sshConfigFile: join(dir, 'ssh_config') } });
  });
  afterAll(async () => {
    await real?.close();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in once and shows the diff after the push without asking the box again', async () => {
    storeContext(real.api);
    const path = join(dir, 'site.yaml');
    const text = `lbdesk: 1
name: push-click
servers: [{ name: web1, address: 127.0.3.93 }]
groups: [{ name: web, members: [{ server: web1, port: 8081 }], healthCheck: { type: tcp } }]
services: [{ name: web-vip, address: 127.0.3.92, port: 8080, group: web, enabled: false }]
appliances:
  - { name: box, host: ${sshd.host}, port: ${sshd.port}, user: root, auth: key, keyFile: ${sshd.userKey.path}, driver: lbdesk, configPath: ${live}, validateCommand: "true", reloadCommand: "true" }
`;
    writeFileSync(path, text);
    await useWorkspace().load({ path, text, mtimeMs: Date.now() });
    const apps = useAppliances();
    expect(apps.selected).toBe('box');
    const before = logins(sshd);
    const r = await apps.push();
    expect(r).toMatchObject({ outcome: 'applied' });
    expect(readFileSync(live, 'utf8')).toContain('name: push-click');
    // The diff on screen is the one after the push: nothing left to change, not out of date.
    expect(apps.diff).toMatchObject({ appliance: 'box', changed: false, diff: '' });
    expect(apps.diffStale).toBe(false);
    expect(apps.diffBusy).toBe(false);
    await vi.waitFor(() => expect(logins(sshd)).toBeGreaterThan(before), { timeout: 5000, interval: 20 });
    expect(logins(sshd) - before).toBe(1);
  });
});
