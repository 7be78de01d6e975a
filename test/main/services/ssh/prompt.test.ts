// A one-time-code round through the contract: the login's second keyboard-interactive round
// reaches the UI as an `ssh.prompt` event and its `ssh.answer` goes back to the server (ssh2's
// server on loopback asks "Password:" — answered from the secret store — then the code).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from 'ssh2';
import type { SshPrompt } from '../../../../shared/api/contract';
import { callDirect } from '../../../../main/services/api/dispatch';
import { createAppServices, type AppServices } from '../../../../main/services/api/wiring';
import { browserShell } from '../../../../main/services/api/shell';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { secretName } from '../../../../main/services/secrets/types';
import { keygen } from '../../../helpers/sshd';
import { ROOT } from '../../../helpers/cli';

describe('keyboard-interactive prompts over the contract', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-otp-api-'));
  const code = String(100000 + Math.floor(Math.random() * 899999));
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  const hostKey = keygen(join(dir, 'host'));
  let server: Server;
  let port = 0;
  let svc: AppServices;
  const shown: SshPrompt[] = [];
  let reply: (p: SshPrompt) => string[] | null = () => [code];

  beforeAll(async () => {
    server = new Server({ hostKeys: [readFileSync(hostKey.path)] }, (client) => {
      client.on('authentication', (ctx) => {
        if (ctx.method !== 'keyboard-interactive') return ctx.reject(['keyboard-interactive']);
        ctx.prompt([{ prompt: 'Password: ', echo: false }], (a1) => {
          if (a1[0] !== password) return ctx.reject();
          ctx.prompt([{ prompt: 'Verification code: ', echo: true }], 'Two-step', 'Open your authenticator app.', (a2) => (a2[0] === code ? ctx.accept() : ctx.reject()));
        });
      });
      // Every command: "no such file" (exit 3), so a diff sees the appliance file missing.
      client.on('ready', () => client.on('session', (accept) => accept().on('exec', (acc) => { const s = acc(); s.exit(3); s.end(); })));
      client.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.9.61', () => r()));
    port = (server.address() as { port: number }).port;
    writeFileSync(join(dir, 'known_hosts'), `[127.0.9.61]:${port} ${hostKey.pub.split(' ').slice(0, 2).join(' ')}\n`);
    writeFileSync(join(dir, 'ssh_config'), '');
    const secrets = new MemorySecretStore();
    await secrets.set(secretName.appliancePassword('otp'), password);
    svc = createAppServices({
      shell: browserShell(), dataDir: join(dir, 'data'), resourcesDir: ROOT, secrets,
      knownHostsFile: join(dir, 'known_hosts'), sshConfigFile: join(dir, 'ssh_config'),
    });
    // The UI's part: show the round, send what the user typed.
    svc.events.subscribe((e) => {
      if (e.event !== 'ssh.prompt') return;
      const p = e.payload as SshPrompt;
      shown.push(p);
      void callDirect(svc.handlers, 'ssh.answer', { id: p.id, answers: reply(p) });
    });
    writeFileSync(join(dir, 'site.yaml'), `lbdesk: 1
name: otp-test
servers: [{ name: web1, address: 127.0.9.62 }]
groups: [{ name: web, members: [{ server: web1, port: 8081 }], healthCheck: { type: tcp } }]
services: [{ name: web-vip, address: 127.0.9.63, port: 8080, group: web }]
appliances:
  - name: otp
    host: 127.0.9.61
    port: ${port}
    user: admin
    auth: password
    driver: haproxy
    configPath: /etc/haproxy/haproxy.cfg
`);
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the code round as it comes and logs in with the answer', async () => {
    const d = await callDirect(svc.handlers, 'appliance.diff', { path: join(dir, 'site.yaml'), appliance: 'otp' });
    expect(d.changed).toBe(true);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ appliance: 'otp', host: `admin@127.0.9.61:${port}`, name: 'Two-step', instructions: 'Open your authenticator app.', prompts: [{ prompt: 'Verification code: ', echo: true }] });
    // The password round never reached the page.
    expect(JSON.stringify(shown)).not.toContain('Password');
  });

  it('a cancelled round fails the login, saying what was not answered', async () => {
    reply = () => null;
    await expect(callDirect(svc.handlers, 'appliance.diff', { path: join(dir, 'site.yaml'), appliance: 'otp' })).rejects.toThrow(/"Verification code:" was not answered/);
  });

  it('an answer to a question that is not open is refused', async () => {
    await expect(callDirect(svc.handlers, 'ssh.answer', { id: 'nope', answers: ['1'] })).rejects.toThrow(/no longer open/);
  });
});
