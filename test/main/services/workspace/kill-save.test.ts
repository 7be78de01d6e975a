// A writer killed at random moments never leaves a torn file: the workspace and its backup are
// always one complete version or the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { generateWorkspace } from '../../../fixtures/workspaces/generate';
import { saveWorkspaceText } from '../../../../main/services/workspace/store';
import { rng } from '../../../helpers/model';

const KILLS = 8;
let dir: string;
let script: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lbdesk-kill-'));
  // Bundled once, so each child starts in plain node in a few tens of milliseconds.
  script = join(dir, 'save-loop.cjs');
  buildSync({ entryPoints: [resolve(__dirname, '../../../helpers/workspace/save-loop.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: script, logLevel: 'error' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Kills the saver `delayMs` after it printed `mark` ('ready': maybe during its first save). */
function runUntilKilled(args: string[], mark: 'ready' | 'saved 1', delayMs: number): Promise<{ saves: number }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (!timer && out.includes(`${mark}\n`)) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') fail(new Error(`the saver stopped by itself (${code}): ${err}`));
      else done({ saves: (out.match(/saved/g) ?? []).length });
    });
  });
}

describe('kill during save', () => {
  it(`${KILLS} kills at random moments: always a complete old or new version`, async () => {
    const a = generateWorkspace({ servers: 4000, groups: 400, targetSets: 8 });
    const b = a.replace('name: big-site', 'name: big-site-b').replace(/weight: 1(\d\d)/g, 'weight: 2$1');
    expect(a).not.toBe(b);
    const fa = join(dir, 'a.txt');
    const fb = join(dir, 'b.txt');
    writeFileSync(fa, a);
    writeFileSync(fb, b);
    const target = join(dir, 'site.yaml');
    writeFileSync(target, a);

    const next = rng(7);
    let saves = 0;
    let tornLeft = 0;
    for (let i = 0; i < KILLS; i++) {
      // After 'saved 1' the saver goes straight into a plain atomic write: aim a few ms into it.
      const early = i % 3 === 0;
      const r = await runUntilKilled([target, fa, fb], early ? 'ready' : 'saved 1', Math.floor(next() * (early ? 300 : 30)));
      saves += r.saves;
      const now = readFileSync(target, 'utf8');
      expect(now === a || now === b, `after kill ${i + 1} the file is neither version (${now.length} bytes)`).toBe(true);
      if (existsSync(`${target}.bak`)) {
        const bak = readFileSync(`${target}.bak`, 'utf8');
        expect(bak === a || bak === b, `after kill ${i + 1} the backup is neither version`).toBe(true);
      }
      if (readdirSync(dir).some((n) => n.endsWith('.tmp'))) tornLeft++;
    }
    // The loop really saved in between the kills.
    expect(saves).toBeGreaterThan(0);
    // The next save removes what killed writers left behind.
    await saveWorkspaceText(target, a);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe(a);
    console.log(`kill-during-save: ${KILLS} kills, ${saves} completed saves, ${tornLeft} kills left a half-written temp file behind`);
  }, 120_000);
});
