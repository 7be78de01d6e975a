// Exploit regression: the window's lab binds loopback only, for every address it would bind. A
// page (through the real WebSocket host) starts a workspace whose target set is on loopback but
// whose secondary address is on the laptop's LAN: the secondary is left out with a note, so no
// relay from the LAN into the target servers is opened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabStatus } from '../../../../shared/api/contract';
import { freePort } from '../../../helpers/servers';
import { tempDir } from '../../../helpers/app-ipc';
import { openPage, type PageSession } from '../../../helpers/host-client';

let tmp: ReturnType<typeof tempDir>;
let page: PageSession;

beforeAll(async () => {
  tmp = tempDir('lab-bind');
  page = await openPage(tmp.dir);
});
afterAll(async () => {
  await page?.close();
  tmp.cleanup();
});

const workspace = (port: number) => `lbdesk: 1
name: relay
targetSets:
  - number: 7
    address: 127.0.93.50
    secondaryAddress: 192.0.2.50
    ports: [${port}]
    protocols: tcp
    activeIpfe: A1
    secondaryActiveIpfe: A1
    servers:
      - { address: 127.0.93.51, secondaryAddress: 127.0.93.61 }
`;

describe('the lab from the page', () => {
  it('binds a target set on loopback but not its secondary address on another network', async () => {
    const path = join(tmp.dir, 'relay.yaml');
    const port = await freePort('127.0.93.50');
    writeFileSync(path, workspace(port));
    const started = await page.call('lab.start', { path });
    expect(started).toMatchObject({ ok: true });
    const status = (started as { result: LabStatus }).result;
    expect(status.listening.map((l) => `${l.address}:${l.port}`)).toEqual([`127.0.93.50:${port}`]);
    expect(status.notes).toEqual([expect.stringMatching(/^target set 7: secondary address 192\.0\.2\.50 is not on a loopback address: not bound in the lab/)]);
    const again = (await page.call('lab.status')) as { result: LabStatus };
    expect(again.result.listening.some((l) => l.address.startsWith('192.0.2.'))).toBe(false);
  });
});
