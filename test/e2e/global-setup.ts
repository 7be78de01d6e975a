// Starts lbdesk in browser mode once for the run, on a private data folder.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoUi } from '../helpers/demo-ui';

export default async function globalSetup(): Promise<() => void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lbdesk-e2e-'));
  const { url, child } = await startDemoUi(dataDir, 20_000);
  // First contact copies the demo workspace into the data folder, as the app's first start does.
  const token = new URL(url).searchParams.get('token') ?? '';
  await fetch(new URL('/api/call/app.info', url), { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
  process.env.LBDESK_URL = url;
  process.env.LBDESK_DATA_DIR = dataDir;
  writeFileSync(join(dataDir, 'e2e-url.txt'), url);
  return () => {
    child.kill('SIGTERM');
  };
}
