// Crash-safe replacement of a file: the new content is written and fsynced under a temporary
// name in the same folder, the previous version is kept as `<file>.bak`, and a rename swaps
// them, so a reader (or a crash) only ever sees the complete old or the complete new file.
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, link, lstat, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteResult {
  /** The file written: the target of a symbolic link, not the link. */
  path: string;
  backupPath?: string;
}

const TMP_RE = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;

function tmpName(dir: string, base: string): string {
  return join(dir, `.${base}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** A writer never takes this long: a temp file older than this is left over, whatever its pid. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/** When the process with this pid started (epoch ms), where the system says (Linux /proc). */
function startedAt(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // USER_HZ is 100 on every Linux architecture Node runs on.
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the writer that made a temp file at `madeAt` may still be at work: its pid is in use
 * by a process that had started by then. A pid in use by a process started later was reused
 * (pids wrap, at 32,768 on many systems), and the writer is gone.
 */
function writerAlive(pid: number, madeAt: number): boolean {
  if (pid === process.pid) return true;
  if (Date.now() - madeAt > STALE_AFTER_MS) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startedAt(pid);
  return started === undefined || started <= madeAt + 1000;
}

/** Removes temporary files a killed writer of `base` left behind (never those of a live one). */
async function removeStale(dir: string, base: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TMP_RE.exec(name);
    if (!m || (m[1] !== base && m[1] !== `${base}.bak`)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info || writerAlive(Number(m[2]), info.mtimeMs)) continue;
    await unlink(path).catch(() => undefined);
  }
}

async function fsyncFile(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function fsyncDir(dir: string): Promise<void> {
  // Makes the rename itself durable; not possible on every platform (Windows), and harmless to skip there.
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* best effort */
  }
}

/** Follows a symbolic link so the link stays a link and its target gets the new content. */
async function targetOf(path: string): Promise<string> {
  try {
    if ((await lstat(path)).isSymbolicLink()) return await realpath(path);
  } catch {
    /* a new file, or a dangling link: write where we were told */
  }
  return path;
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, opts: { backup?: boolean; mode?: number } = {}): Promise<AtomicWriteResult> {
  const target = await targetOf(path);
  const dir = dirname(target);
  const base = basename(target);
  await removeStale(dir, base);
  const previous = await stat(target).catch(() => undefined);
  if (previous && !previous.isFile()) throw new Error(`${target} is not a regular file`);

  const tmp = tmpName(dir, base);
  const fh = await open(tmp, 'wx', opts.mode ?? (previous ? previous.mode & 0o777 : 0o644));
  try {
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    // A given mode is exact (the umask does not apply); otherwise the file keeps its own.
    if (opts.mode !== undefined) await chmod(tmp, opts.mode);
    else if (previous) await chmod(tmp, previous.mode & 0o7777);

    let backupPath: string | undefined;
    if (opts.backup && previous) {
      backupPath = `${target}.bak`;
      const bakTmp = tmpName(dir, `${base}.bak`);
      try {
        // A second name for the old inode: instant, and the rename below leaves it untouched.
        await link(target, bakTmp);
      } catch {
        await copyFile(target, bakTmp);
        await fsyncFile(bakTmp);
      }
      await rename(bakTmp, backupPath);
      // When the backup already is the live file's inode (a writer killed between its two
      // renames), rename() does nothing and succeeds (POSIX), leaving the temp name behind.
      await unlink(bakTmp).catch(() => undefined);
    }
    await rename(tmp, target);
    await fsyncDir(dir);
    return { path: target, backupPath };
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
