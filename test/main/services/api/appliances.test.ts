// Appliances through the contract against a real OpenSSH sshd on loopback: the host-key
// question goes to the UI and its answer comes back, then diff, push, history and pull.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostKeyPrompt, PushProgress } from '../../../../shared/api/contract';
import { callDirect } from '../../../../main/services/api/dispatch';
import type { AppServices } from '../../../../main/services/api/wiring';
import { noSshd, startSshd, type Sshd } from '../../../helpers/sshd';
import { skipBecause } from '../../../helpers/skip';
import { windowServices } from '../../../helpers/app-services';

describe.skipIf(skipBecause(noSshd, 'appliances over the contract'))('appliances over the contract (real sshd)', () => {
  let sshd: Sshd;
  let svc: AppServices;
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-apps-'));
  const live = join(dir, 'appliance', 'lbdesk.yaml');
  const prompts: (HostKeyPrompt & { id: string })[] = [];
  const steps: string[] = [];
  const progress: PushProgress[] = [];
  const path = join(dir, 'site.yaml');
  let text = '';

  beforeAll(async () => {
    sshd = await startSshd({ host: '127.0.3.61' });
    svc = windowServices(dir);
    svc.events.subscribe((e) => {
      if (e.event === 'hostKey.prompt') prompts.push(e.payload as never);
      if (e.event === 'push.progress') {
        progress.push(e.payload as PushProgress);
        steps.push(progress.at(-1)!.step);
      }
    });
    text = `lbdesk: 1
name: apps-test
servers: [{ name: web1, address: 127.0.3.71 }]
groups: [{ name: web, members: [{ server: web1, port: 8081 }], healthCheck: { type: tcp } }]
# Disabled: nothing listens on the VIP here, so the post-reload connect check has nothing to try.
services: [{ name: web-vip, address: 127.0.3.70, port: 8080, group: web, enabled: false }]
appliances:
  - name: box
    host: ${sshd.host}
    port: ${sshd.port}
    user: root
    auth: key
    keyFile: ${sshd.userKey.path}
    driver: lbdesk
    configPath: ${live}
    validateCommand: "grep -q '^lbdesk: 1' {file}"
    reloadCommand: "echo reload >> ${join(dir, 'reloads')}"
`;
    writeFileSync(path, text);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'appliance'), { recursive: true });
  });
  afterAll(async () => {
    await svc?.stop();
    await sshd?.stop();
  });

  it('asks the UI about the unknown host key, then diffs and pushes', async () => {
    const diff = await callDirect(svc.handlers, 'appliance.diff', { path, appliance: 'box' });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ reason: 'unknown', fingerprint: sshd.hostKey.fingerprint });
    expect(diff.changed).toBe(true);
    expect(diff.diff).toContain('+name: apps-test');

    const pushed = await callDirect(svc.handlers, 'appliance.push', { path, appliance: 'box' });
    expect(pushed).toMatchObject({ outcome: 'applied' });
    expect(readFileSync(live, 'utf8')).toContain('name: apps-test');
    expect(readFileSync(join(dir, 'reloads'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(steps).toEqual(expect.arrayContaining(['upload', 'validate', 'rename', 'reload']));
    // The services' progress event as it is, status apart from its words (no text to parse back).
    expect(progress.find((p) => p.step === 'reload')).toMatchObject({ appliance: 'box', status: expect.stringMatching(/^(start|ok)$/), at: expect.any(Number) });
    expect(progress.some((p) => p.status === 'ok')).toBe(true);
    // Accepted once, remembered in known_hosts: no second question.
    expect(prompts).toHaveLength(1);
    expect(existsSync(join(dir, 'known_hosts'))).toBe(true);
  });

  it('reports unchanged, lists history and pulls the same bytes', async () => {
    const again = await callDirect(svc.handlers, 'appliance.push', { path, appliance: 'box' });
    expect(again.outcome).toBe('unchanged');
    const history = await callDirect(svc.handlers, 'appliance.history', { appliance: 'box' });
    expect(history.length).toBeGreaterThan(0);
    const pulled = await callDirect(svc.handlers, 'appliance.pull', { path, appliance: 'box' });
    expect(pulled.text).toBe(readFileSync(live, 'utf8'));
  });

  it('opens a stored version and restores it through the push pipeline (commit-confirmed)', async () => {
    const first = readFileSync(live, 'utf8');
    const edited = { path, text: text.replace('name: apps-test', 'name: apps-test-2') };
    expect(await callDirect(svc.handlers, 'appliance.push', { ...edited, appliance: 'box' })).toMatchObject({ outcome: 'applied' });
    expect(readFileSync(live, 'utf8')).toContain('name: apps-test-2');
    const history = await callDirect(svc.handlers, 'appliance.history', { appliance: 'box' });
    const old = history.find((h) => h.outcome === 'applied' && !h.kind)!;
    const version = await callDirect(svc.handlers, 'appliance.version', { appliance: 'box', id: old.file });
    expect(version.text).toBe(first);
    expect(version.entry.hash).toBe(old.hash);
    const cmp = await callDirect(svc.handlers, 'appliance.configs', { ...edited, appliance: 'box', before: { kind: 'running' }, after: { kind: 'version', id: old.file } });
    expect(cmp.before).toContain('name: apps-test-2');
    expect(cmp.after).toBe(first);
    expect(cmp.afterLabel).toMatch(/^pushed \d{4}-\d\d-\d\dT/);
    const now = await callDirect(svc.handlers, 'appliance.configs', { ...edited, appliance: 'box', before: { kind: 'version', id: old.file }, after: { kind: 'workspace' } });
    expect(now.after).toContain('name: apps-test-2');

    const restored = await callDirect(svc.handlers, 'appliance.restore', { ...edited, appliance: 'box', id: old.file, confirmWithinMs: 60_000 });
    expect(restored).toMatchObject({ outcome: 'applied', confirmBy: expect.any(Number) });
    expect(restored.diff).toContain('-name: apps-test-2');
    expect(readFileSync(live, 'utf8')).toBe(first);
    expect(await callDirect(svc.handlers, 'appliance.confirm', { ...edited, appliance: 'box' })).toMatchObject({ confirmed: true });
    const after = await callDirect(svc.handlers, 'appliance.history', { appliance: 'box' });
    expect(after.at(-1)).toMatchObject({ kind: 'restore', hash: old.hash });
    await expect(callDirect(svc.handlers, 'appliance.version', { appliance: 'box', id: 'nope' })).rejects.toMatchObject({ code: 'not-found' });
  });

  it('refuses an unknown appliance by name', async () => {
    await expect(callDirect(svc.handlers, 'appliance.diff', { path, appliance: 'nope' })).rejects.toMatchObject({ code: 'not-found', message: expect.stringContaining('known: box') });
  });
});
