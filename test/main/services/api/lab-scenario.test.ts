// lab.scenario reads its file by the page-read rule: a .yaml/.yml file beside the running lab's
// workspace only, never a hidden one, never one outside that folder (a link out included).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dispatch } from '../../../../main/services/api/dispatch';
import { appServices, tempDir } from '../../../helpers/app-ipc';

const SCENARIO = '- at: 1s fault web/w1 refuse\n- expect: web/w1 unavailable within 8s\n';
let tmp: ReturnType<typeof tempDir>;
let services: ReturnType<typeof appServices>;
let site: string;
beforeAll(() => {
  tmp = tempDir('lab-scenario');
  services = appServices(join(tmp.dir, 'data'));
  site = join(tmp.dir, 'site');
  mkdirSync(site);
  mkdirSync(join(tmp.dir, 'other'));
  // Checked on a loopback port nobody listens on: the lab runs, nothing is bound.
  writeFileSync(join(site, 'site.yaml'), [
    'lbdesk: 1', 'name: scenario-api',
    'servers: [ { name: w1, address: 127.0.47.31 } ]',
    'groups: [ { name: web, members: [ { server: w1, port: 9 } ], healthCheck: { type: tcp } } ]', '',
  ].join('\n'));
  writeFileSync(join(site, 'proof.yaml'), SCENARIO);
  writeFileSync(join(site, '.hidden.yaml'), SCENARIO);
  writeFileSync(join(site, 'proof.txt'), SCENARIO);
  writeFileSync(join(tmp.dir, 'other', 'away.yaml'), SCENARIO);
  symlinkSync(join(tmp.dir, 'other', 'away.yaml'), join(site, 'link.yaml'));
});
afterAll(async () => {
  await dispatch(services.handlers, 'lab.stop', {});
  tmp.cleanup();
});

const run = (path: string) => dispatch(services.handlers, 'lab.scenario', { path });

describe('lab.scenario', () => {
  it('is refused while the lab is not running', async () => {
    expect(await run(join(site, 'proof.yaml'))).toEqual({ ok: false, error: { code: 'refused', message: 'the lab is not running: start it on the workspace first' } });
  });

  it('refuses a file outside the workspace folder, a link out of it, a hidden file and a file that is not .yaml/.yml', async () => {
    expect(await dispatch(services.handlers, 'lab.start', { path: join(site, 'site.yaml') })).toMatchObject({ ok: true, result: { running: true } });
    const away = join(tmp.dir, 'other', 'away.yaml');
    expect(await run(away)).toEqual({ ok: false, error: { code: 'refused', message: expect.stringMatching(new RegExp(`^${away}: outside .*site: refused`)) } });
    expect(await run(join(site, '..', 'other', 'away.yaml'))).toMatchObject({ ok: false, error: { code: 'refused', message: expect.stringContaining('outside') } });
    expect(await run(join(site, 'link.yaml'))).toMatchObject({ ok: false, error: { code: 'refused', message: expect.stringContaining('outside') } });
    expect(await run(join(site, '.hidden.yaml'))).toEqual({ ok: false, error: { code: 'refused', message: `${join(site, '.hidden.yaml')}: in a hidden folder or a hidden file (or a link into one): refused` } });
    expect(await run(join(site, 'proof.txt'))).toMatchObject({ ok: false, error: { code: 'refused', message: expect.stringContaining('only scenario files (.yaml, .yml)') } });
    expect(await run('proof.yaml')).toMatchObject({ ok: false, error: { code: 'refused', message: 'not an absolute path: proof.yaml' } });
    // Beside the workspace but not a scenario: the problem in the file's own words.
    expect(await run(join(site, 'site.yaml'))).toMatchObject({ ok: false, error: { code: 'refused', message: expect.stringMatching(/^site\.yaml:1:1: .*a scenario is a list of steps/) } });
  });

  it('lists only the scenario files beside the workspace', async () => {
    const out = await dispatch(services.handlers, 'lab.scenarios', {});
    expect(out).toEqual({ ok: true, result: [{ path: join(site, 'proof.yaml'), name: 'proof.yaml', steps: 2 }] });
  });
});
