// Exploit regressions for the one way out to the user's browser: shell.openExternal is reached only
// with a normalised https (or mailto) URL without credentials, whatever the page sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { channelOf } from '../../../shared/api/channels';
import { bindIpc } from '../../../main/app/ipc';
import { APP_ORIGIN } from '../../../main/app/protocol';
import { checkedOpenExternal, safeExternalUrl } from '../../../main/app/external';
import { navigationDecision } from '../../../main/app/policy';
import { appServices, frames, InMemoryIpcMain, tempDir } from '../../helpers/app-ipc';

let tmp: ReturnType<typeof tempDir>;
let ipc: InMemoryIpcMain;
const opened: string[] = [];

beforeAll(() => {
  tmp = tempDir('external');
  ipc = new InMemoryIpcMain();
  bindIpc(ipc, appServices(join(tmp.dir, 'data'), { links: opened }).handlers, APP_ORIGIN);
});
afterAll(() => tmp.cleanup());

const open = (url: string) => ipc.invoke(channelOf('shell.openExternal'), frames.app, { url }) as Promise<{ ok: boolean; result?: boolean }>;

const REFUSED = [
  'javascript:alert(document.domain)',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'javascript://%0aalert(1)',
  'file:///etc/passwd',
  'file://attacker.example/share/payload.exe',
  'FILE:///C:/Windows/System32/calc.exe',
  'app://lbdesk/index.html',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'smb://attacker.example/share',
  'ms-msdt:/id PCWDiagnostic',
  'search-ms:query=x',
  'http://example.com/',
  'http://user:pass@example.com/',
  'https://user:pass@example.com/',
  'https://user@example.com/',
  '\\\\attacker.example\\share\\x.exe',
  '//example.com/x',
  'https://exa\nmple.com/',
  'not a url',
  '',
  `https://example.com/${'a'.repeat(2100)}`,
];

describe('openExternal', () => {
  for (const url of REFUSED) {
    it(`refuses ${JSON.stringify(url.slice(0, 60))}`, async () => {
      const before = opened.length;
      const out = await open(url);
      if (out.ok) expect(out.result).toBe(false);
      expect(opened.length).toBe(before);
      expect(navigationDecision(url)).not.toBe('external');
    });
  }

  it('opens https and mailto links, normalised', async () => {
    opened.length = 0;
    expect((await open('https://Example.com/docs page?q=1')).result).toBe(true);
    expect((await open('mailto:support@example.com')).result).toBe(true);
    expect(opened).toEqual(['https://example.com/docs%20page?q=1', 'mailto:support@example.com']);
    expect(navigationDecision('https://example.com/')).toBe('external');
  });

  it('never calls the opener for a refused URL, even directly', async () => {
    let calls = 0;
    for (const url of REFUSED) expect(await checkedOpenExternal(url, async () => void calls++)).toBe(false);
    expect(calls).toBe(0);
    expect(safeExternalUrl('https://example.com')).toBe('https://example.com/');
  });
});
