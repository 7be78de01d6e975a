// API refusals in words a user can act on: a missing argument, a save into a missing folder,
// a save of text with two YAML documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dispatch } from '../../../main/services/api/dispatch';
import { appServices, tempDir } from '../../security/helpers';

let tmp: ReturnType<typeof tempDir>;
let services: ReturnType<typeof appServices>;
beforeAll(() => {
  tmp = tempDir('messages');
  services = appServices(join(tmp.dir, 'data'));
});
afterAll(() => tmp.cleanup());

describe('API refusals', () => {
  it('a missing argument is "required", not "received undefined"', async () => {
    expect(await dispatch(services.handlers, 'workspace.read', {})).toEqual({ ok: false, error: { code: 'bad-args', message: 'workspace.read: path: required (string)' } });
  });

  it('a save into a folder that does not exist names the file and the folder, not a temp file', async () => {
    const path = join(tmp.dir, 'nosuch', 'a.yaml');
    const out = await dispatch(services.handlers, 'workspace.write', { path, text: 'lbdesk: 1\nname: a\n' });
    expect(out).toMatchObject({ ok: false, error: { message: `not saving ${path}: the folder ${join(tmp.dir, 'nosuch')} does not exist` } });
  });

  it('text with a second YAML document is refused in words', async () => {
    const path = join(tmp.dir, 'two.yaml');
    const out = await dispatch(services.handlers, 'workspace.write', { path, text: 'lbdesk: 1\nname: a\n---\nlbdesk: 1\nname: b\n' });
    expect(out).toMatchObject({ ok: false, error: { message: `not saving ${path}: not valid YAML at line 3, column 1: the file holds more than one YAML document (a second "---" here)` } });
    expect(existsSync(path)).toBe(false);
  });
});
