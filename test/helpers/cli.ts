// Runs the real `lbdesk` CLI as one child process: the built bundle (out/cli/lbdesk.cjs, what
// bin/lbdesk.cjs runs) when it is newer than every source, else the TypeScript sources through
// tsx's loader (a second or more slower to start). Not the tsx wrapper: it relays SIGINT/SIGTERM
// only if the child confirms within 30 ms, and on a loaded machine it then SIGKILLs it and exits
// 130/143 — a clean stop would look like a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isFresh } from './built';

export const ROOT = resolve(__dirname, '../..');
const BIN = resolve(ROOT, 'main/cli/bin.ts');
/** tsx's loader by absolute URL, so a test may run the CLI from any working directory. */
export const TSX_LOADER = pathToFileURL(resolve(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const BUNDLE = ['out/cli/lbdesk.cjs', 'out/cli/engine-worker.cjs', 'out/cli/probe-worker.cjs', 'out/cli/validate-worker.cjs'];
let cliArgs: string[] | undefined;

/** Node arguments that start the CLI (the arguments to it follow). */
export function lbdeskArgs(): string[] {
  cliArgs ??= isFresh(BUNDLE) ? [resolve(ROOT, BUNDLE[0]!)] : ['--import', TSX_LOADER, BIN];
  return cliArgs;
}

export interface CliResult { code: number | null; stdout: string; stderr: string }

export function runCli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...lbdeskArgs(), ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Starts a long-running CLI command (e.g. `serve --events`); the caller kills it. */
export function startCli(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [...lbdeskArgs(), ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
}
