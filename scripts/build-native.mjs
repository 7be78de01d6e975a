// Builds the native data path (native/engine/*.c) as an N-API addon with the system C compiler,
// offline: Node-API headers from the npm package node-api-headers, libuv's from Debian's
// libuv1-dev. Output in the prebuildify layout: prebuilds/<platform>-<arch>/node.napi.node.
// `--asan` builds an AddressSanitizer + UBSan variant to build/asan/ instead (tests only).
//
// libuv is not linked in: the addon calls the uv_* functions the host process exports (node
// and Electron both export libuv for addons). That is safe because libuv keeps one ABI across
// all 1.x releases; we compile against 1.44 headers and use nothing newer, while Node 20 ships
// 1.46 and Electron 41's Node 24 ships 1.51. The addon runs its own uv_loop_t on its own
// thread, as every Node worker does with the same library, and uses no process-wide libuv
// state (no signals, no thread pool, no DNS). docs/engine.md says more.
//
// macOS and Windows builds are described in electron-builder.yml; they need their own
// compiler (clang / MSVC) and are not produced here. A missing compiler or header is not an
// error for `npm run build`: the engine then runs its JavaScript data path and says so.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const asan = process.argv.includes('--asan');
const quiet = process.argv.includes('--quiet');
const strict = process.argv.includes('--strict');
const src = join(root, 'native/engine');
const sources = readdirSync(src).filter((f) => f.endsWith('.c')).map((f) => join(src, f));
const outDir = asan ? join(root, 'build/asan') : join(root, 'prebuilds', `${process.platform}-${process.arch}`);
const out = join(outDir, 'node.napi.node');

function say(line) {
  if (!quiet) console.log(line);
}

function skip(reason) {
  const line = `native data path not built: ${reason} (the JavaScript data path will run)`;
  if (strict) {
    console.error(line);
    process.exit(1);
  }
  console.log(line);
  process.exit(0);
}

if (process.platform !== 'linux' && process.platform !== 'darwin') skip(`this script builds for Linux and macOS; ${process.platform} is described in electron-builder.yml`);
let napiInclude;
try {
  napiInclude = dirname(execFileSync(process.execPath, ['-p', "require.resolve('node-api-headers/include/node_api.h')"], { cwd: root, encoding: 'utf8' }).trim());
} catch {
  skip('the npm package node-api-headers is not installed');
}
const uvHeader = ['/usr/include/uv.h', '/usr/local/include/uv.h', '/opt/homebrew/include/uv.h'].find((f) => existsSync(f));
if (!uvHeader) skip("libuv's headers are missing (Debian: apt-get install libuv1-dev; macOS: brew install libuv)");
const cc = process.env.CC ?? 'cc';

// Up to date: nothing to do (npm run build runs this every time).
const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs), ...readdirSync(src).map((f) => statSync(join(src, f)).mtimeMs), statSync(fileURLToPath(import.meta.url)).mtimeMs);
if (existsSync(out) && statSync(out).mtimeMs > newest && !process.argv.includes('--force')) {
  say(`native data path up to date: ${out}`);
  process.exit(0);
}

const flags = [
  // macOS: the host's napi_* and uv_* symbols are resolved when the addon is loaded.
  ...(process.platform === 'darwin' ? ['-bundle', '-undefined', 'dynamic_lookup'] : ['-shared']), '-fPIC', '-std=gnu11', '-Wall', '-Wextra', '-Werror=implicit-function-declaration',
  '-fvisibility=hidden', '-DNAPI_VERSION=8', `-I${napiInclude}`, `-I${dirname(uvHeader)}`,
  ...(asan ? ['-O1', '-g', '-fno-omit-frame-pointer', '-fsanitize=address,undefined', '-fno-sanitize-recover=undefined'] : ['-O2', '-g0']),
];
mkdirSync(outDir, { recursive: true });
try {
  execFileSync(cc, [...flags, ...sources, '-o', out, '-lm', ...(process.platform === 'linux' ? ['-lpthread'] : [])], { stdio: ['ignore', 'inherit', 'inherit'] });
} catch (err) {
  skip(`${cc} failed (${err.status ?? err.code})`);
}
say(`native data path built: ${out}${asan ? ' (AddressSanitizer + UBSan)' : ''}`);
