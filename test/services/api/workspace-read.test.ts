// The page opens a workspace through workspace.read (and validates one by path): a file that is
// not UTF-8 is refused in one sentence, never handed over with U+FFFD in place of its bytes
// (a save of that text would then replace them for good).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dispatch } from '../../../main/services/api/dispatch';
import { appServices, tempDir } from '../../security/helpers';

let tmp: ReturnType<typeof tempDir>;
let services: ReturnType<typeof appServices>;
beforeAll(() => {
  tmp = tempDir('read');
  services = appServices(join(tmp.dir, 'data'));
});
afterAll(() => tmp.cleanup());

describe('workspace.read and workspace.validate by path', () => {
  it('refuses a Latin-1 file in one sentence and leaves it as it was', async () => {
    const file = join(tmp.dir, 'latin.yaml');
    const bytes = Buffer.from('lbdesk: 1\nname: caf\xe9  # caf\xe9 site\n', 'latin1');
    writeFileSync(file, bytes);
    const read = await dispatch(services.handlers, 'workspace.read', { path: file });
    expect(read).toEqual({ ok: false, error: { code: 'refused', message: `${file} is not UTF-8 text: convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8) and open it again` } });
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
