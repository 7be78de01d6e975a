// What the page is told when a call cannot be done, in words a user can act on. A file that is
// not UTF-8 is refused in one sentence, never handed over with U+FFFD in place of its bytes (a
// save of that text would then replace them for good); a missing argument, a save into a missing
// folder, a text with two YAML documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dispatch } from '../../../../main/services/api/dispatch';
import { appServices, tempDir } from '../../../helpers/app-ipc';

let tmp: ReturnType<typeof tempDir>;
let services: ReturnType<typeof appServices>;
beforeAll(() => {
  tmp = tempDir('refusals');
  services = appServices(join(tmp.dir, 'data'));
});
afterAll(() => tmp.cleanup());

describe('workspace.read and workspace.validate by path', () => {
  it('refuses a Latin-1 file in one sentence and leaves it as it was', async () => {
    const file = join(tmp.dir, 'latin.yaml');
    const bytes = Buffer.from('lbdesk: 1\nname: caf\xe9  # caf\xe9 site\n', 'latin1');
    writeFileSync(file, bytes);
    const read = await dispatch(services.handlers, 'workspace.read', { path: file });
    expect(read).toEqual({ ok: false, error: { code: 'refused', message: `${file} is not UTF-8 text (byte 0xE9 at line 2, column 10): convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8) and open it again` } });
    const validate = await dispatch(services.handlers, 'workspace.validate', { path: file });
    expect(validate).toMatchObject({ ok: false, error: { code: 'refused' } });
    expect(readFileSync(file)).toEqual(bytes);
  });

  it('still reads UTF-8 with a byte-order mark, keeping the mark', async () => {
    const file = join(tmp.dir, 'bom.yaml');
    writeFileSync(file, '\ufefflbdesk: 1\nname: café\n');
    const read = await dispatch(services.handlers, 'workspace.read', { path: file });
    expect(read).toMatchObject({ ok: true, result: { text: '\ufefflbdesk: 1\nname: café\n' } });
  });
});

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
