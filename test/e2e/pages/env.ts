// Where the e2e run keeps its files (set by global-setup.ts).
import { join } from 'node:path';

export function dataDir(): string {
  const d = process.env.LBDESK_DATA_DIR;
  if (!d) throw new Error('LBDESK_DATA_DIR is not set: run through playwright.config.ts (global setup)');
  return d;
}

/** The demo workspace the app copies into its data folder on first start. */
export const demoPath = (): string => join(dataDir(), 'demo', 'lab-site-a.yaml');
