// The Overview's HA pair strip on the real lab: both boxes side by side, Stop on the master and
// its mate takes the address (the transition shown with its reason), Start and it is given back.
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mountWith, settled, until, withRealLab } from '../helpers/renderer/mount';
import { freePort } from '../helpers/renderer/workspace';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import PairStrip from '../../renderer/src/lab/PairStrip.vue';


describe('pair strip', () => {
  const t = withRealLab();

  it('stops the master: the mate takes over, shown with the reason; start gives it back', async () => {
    const port = await freePort('127.0.19.50');
    const file = join(t.real.dataDir, 'pair.yaml');
    await writeFile(file, [
      'lbdesk: 1', 'name: pair-ui',
      'targetSets:',
      `  - { number: 1, address: 127.0.19.50, ports: [${port}], protocols: tcp, algorithm: hash, activeIpfe: A1, servers: [{ address: 127.0.19.51 }], healthCheck: { type: none } }`,
      'appliances:',
      '  - { name: a1, host: 127.0.0.1, driver: keepalived }',
      '  - { name: a2, host: 127.0.0.1, driver: keepalived }',
      'pairs:',
      '  - { name: ipfe-a, interface: lo, members: [{ appliance: a1, ipfe: A1 }, { appliance: a2, ipfe: A2 }], instances: [{ id: 51, master: A1 }] }',
      '',
    ].join('\n'));
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const w = mountWith(PairStrip, t.real.api, t.pinia);
    await settled();
    const role = (box: string) => w.find(`[data-box="${box}"] [data-testid="role"]`).text();
    expect(role('a1')).toBe('master');
    expect(role('a2')).toBe('backup');
    expect(w.find('[data-box="a1"]').text()).toContain('VRRP 51: 127.0.19.50');
    expect(w.text()).toContain('takeover within 3.6 s');

    await w.find('[data-box="a1"] button[data-action="stop"]').trigger('click');
    await until(() => role('a1') === 'stopped', 3000, 'a1 stopped');
    await until(() => role('a2') === 'master', 8000, 'a2 master');
    await until(() => w.findAll('[data-testid="pair-event"]')[0]!.text().includes('takeover'), 3000, 'the takeover shown');
    expect(w.findAll('[data-testid="pair-event"]')[0]!.text()).toMatch(/takeover VRRP 51 \(127\.0\.19\.50\) from a1 → a2: a1 silent for \d+ ms/);

    await w.find('[data-box="a1"] button[data-action="start"]').trigger('click');
    await until(() => role('a1') === 'master', 8000, 'a1 master again');
    await until(() => w.findAll('[data-testid="pair-event"]')[0]!.text().includes('giveback'), 3000, 'the giveback shown');
    expect(w.findAll('[data-testid="pair-event"]')[0]!.text()).toMatch(/giveback VRRP 51 .* from a2 → a1: a1 is back with the higher priority/);
    w.unmount();
  }, 30_000);
});
