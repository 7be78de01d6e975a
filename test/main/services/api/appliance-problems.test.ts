// What would make a push refused before it connects is a problem of the workspace, shown with
// the others (the window said "Valid" while Push could only fail). No appliance is dialled.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callDirect } from '../../../../main/services/api/dispatch';
import { createAppServices } from '../../../../main/services/api/wiring';
import { browserShell } from '../../../../main/services/api/shell';
import { MemorySecretStore } from '../../../../main/services/secrets/memory';
import { ROOT } from '../../../helpers/cli';

const dir = mkdtempSync(join(tmpdir(), 'lbdesk-app-problems-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const svc = createAppServices({ shell: browserShell(), dataDir: join(dir, 'data'), resourcesDir: ROOT, secrets: new MemorySecretStore() });

describe('appliance.problems', () => {
  it('names each appliance a push would refuse, at its driver (or what it serves), and why; the others pass', async () => {
    const path = join(dir, 'site.yaml');
    const text = [
      'lbdesk: 1',
      'name: site',
      'targetSets:',
      '  - { number: 1, address: 192.0.2.50, ports: [3868], algorithm: least-load, servers: [{ address: 192.0.2.51 }] }',
      'appliances:',
      '  - name: edge',
      '    host: 192.0.2.201',
      '    driver: haproxy',
      '  - name: lvs',
      '    host: 192.0.2.202',
      '    driver: keepalived',
      '',
    ].join('\n');
    writeFileSync(path, text);
    const problems = await callDirect(svc.handlers, 'appliance.problems', { path });
    expect(problems).toEqual([
      { severity: 'error', file: path, line: 8, col: 13, path: 'appliances[0].driver', message: 'a push to edge would be refused: target set 1: HAProxy has no IPFE least-load (it needs load reports from the servers); use algorithm hash' },
      { severity: 'error', file: path, line: 11, col: 13, path: 'appliances[1].driver', message: 'a push to lvs would be refused: target set 1: IPVS has no IPFE least-load (it needs load reports from the servers); use algorithm hash' },
    ]);
    // Unsaved text is judged as it is: served by lbdesk itself, edge is fine.
    const fixed = await callDirect(svc.handlers, 'appliance.problems', { path, text: text.replace('driver: haproxy', 'driver: lbdesk') });
    expect(fixed.map((p) => p.path)).toEqual(['appliances[1].driver']);
    // Serving a list: the problem is on that list (where the fix is).
    const listed = await callDirect(svc.handlers, 'appliance.problems', { path, text: text.replace('    driver: haproxy', '    driver: haproxy\n    include: [ts1]') });
    expect(listed[0]).toMatchObject({ path: 'appliances[0].include', line: 9 });
    // The demo pushes fine.
    expect(await callDirect(svc.handlers, 'appliance.problems', { path: join(ROOT, 'assets/demo/lab-site-a.yaml') })).toEqual([]);
  });
});
