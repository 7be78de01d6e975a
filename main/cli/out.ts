// `--out FILE` for commands that print a config (render, pull): never the workspace itself,
// written to a new temp file and renamed over the target, so a failed write leaves it as it was.
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeFileAtomic } from '../services/workspace/atomic';
import { CliError, writeFailure } from './errors';

/** Refuses (exit 2, before any work) an `--out` that is the workspace, directly or through a link. */
export async function notTheWorkspace(workspaceFile: string, out: string): Promise<void> {
  const real = (p: string) => realpath(p).catch(() => p);
  if ((await real(resolve(out))) === (await real(resolve(workspaceFile)))) {
    throw new CliError(`refused: --out ${out} is the workspace file itself; nothing written`, 2);
  }
}

export async function writeOut(out: string, data: string | Uint8Array, exitCode = 2): Promise<void> {
  try {
    await writeFileAtomic(resolve(out), data);
  } catch (err) {
    throw new CliError(`cannot write ${out}: ${writeFailure(err)}`, exitCode);
  }
}
