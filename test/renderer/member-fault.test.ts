// A fault from the window: on a member of the running lab (the real lab behind the real API),
// shown on the member, taken off with one click.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realApi, type RealApi } from './helpers/api';
import { mountWith, storeContext, until } from './helpers/mount';
import { freePort } from './helpers/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import MemberDetail from '../../renderer/src/lab/MemberDetail.vue';
import type { Pinia } from 'pinia';


describe('member fault', () => {
  let real: RealApi;
  let pinia: Pinia;
  let server: Server;
  beforeEach(async () => {
    real = realApi();
    pinia = storeContext(real.api);
  });
  afterEach(async () => {
    await useLab().stop();
    await real.close();
    await new Promise((r) => server.close(r));
  });

  it('applies a fault on a member of the running lab, shows it on the member, and clears it with one click', async () => {
    const port = await freePort('127.0.43.11');
    const vport = await freePort('127.0.43.10');
    server = createServer((req, res) => res.end('w1\n'));
    await new Promise<void>((r) => server.listen(port, '127.0.43.11', () => r()));
    const file = join(real.dataDir, 'faults.yaml');
    await writeFile(file, [
      'lbdesk: 1', 'name: fault-ui',
      'healthTimers: { interval: 500ms, retryInterval: 300ms, failAfter: 2, restoreAfter: 2, timeout: 2s }',
      'servers: [ { name: w1, address: 127.0.43.11 } ]',
      `groups: [ { name: web, members: [ { server: w1, port: ${port} } ], healthCheck: { type: http, http: { path: / } } } ]`,
      `services: [ { name: v, address: 127.0.43.10, port: ${vport}, group: web } ]`,
      '',
    ].join('\n'));
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const key = `g:web/w1:${port}`;
    const w = mountWith(MemberDetail, real.api, pinia, { memberKey: key });
    await until(() => lab.members.get(key)?.state === 'available', 8000, 'w1 available');
    await until(() => w.find('[data-testid="member-faults"]').exists(), 3000, 'the fault controls');
    expect(w.find('[data-testid="member-fault"]').exists()).toBe(false);
    // An HTTP member gets the TCP faults, not the UDP ones.
    const kinds = w.findAll('[data-testid="member-faults"] option').map((o) => o.attributes('value'));
    expect(kinds).toEqual(['delay', 'refuse', 'blackhole', 'reset-after', 'http-status', 'flap']);

    await w.find('[data-testid="member-faults"] select').setValue('http-status');
    expect((w.find('[data-testid="member-faults"] input').element as HTMLInputElement).value).toBe('503');
    await w.find('[data-testid="member-faults"] form').trigger('submit');
    await until(() => w.find('[data-testid="member-fault"]').exists(), 3000, 'the fault shown');
    expect(w.find('[data-testid="member-fault"]').text()).toBe('fault: http-status 503');
    await until(() => lab.members.get(key)?.state === 'unavailable', 8000, 'w1 taken out by the 503');

    await w.find('button[data-action="clear-fault"]').trigger('click');
    await until(() => !w.find('[data-testid="member-fault"]').exists(), 3000, 'the fault gone');
    await until(() => lab.members.get(key)?.state === 'available', 8000, 'w1 back');
    w.unmount();
  }, 30_000);
});
