// The one rule for a file lbdesk reads because someone else named it (the page, a workspace, a
// received config): never in or through a hidden folder or file (~/.ssh, ~/.config hold keys and
// tokens), a regular file only — opened non-blocking, so a FIFO or a device is refused at once,
// never waited on — at most `max` bytes, and, where asked, inside one folder (a config's includes
// stay beside it). Refusals name the path, never a byte of the file.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname, normalize, sep } from 'node:path';

export type ReadRefusalCode = 'not-found' | 'hidden' | 'not-a-file' | 'too-large' | 'outside' | 'unreadable';

/** `message`: the path and `detail` (what is wrong with it, never what it holds). */
export class ReadRefused extends Error {
  constructor(readonly path: string, readonly detail: string, readonly code: ReadRefusalCode) {
    super(code === 'not-found' || code === 'unreadable' ? `cannot read ${path}: ${detail}` : `${path}: ${detail}`);
    this.name = 'ReadRefused';
  }
}

export interface ReadRule {
  /** Bytes at most. */
  max: number;
  /** The file's real path must be this folder's (real) path or below it. */
  within?: string;
  /** Only for SSH keys the user's own ssh would read (~/.ssh): used to log in, never shown. */
  hiddenAllowed?: boolean;
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The first part of an absolute path that starts with a dot (`.ssh`), if any. */
export function hiddenPart(path: string): string | undefined {
  return normalize(path).split(sep).find((part) => part.startsWith('.') && part !== '.');
}

/** `path` and what it really is (after links) are outside every hidden folder and not dotfiles. */
export function refuseHidden(path: string, real: string = path): void {
  if (hiddenPart(path) !== undefined || hiddenPart(real) !== undefined) {
    throw new ReadRefused(path, 'in a hidden folder or a hidden file (or a link into one): refused', 'hidden');
  }
}

export function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function why(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'is a folder' : (code ?? 'error');
}

/** The real path of a file the rule allows; the file is not opened. */
export function checkReadable(path: string, rule: Pick<ReadRule, 'within' | 'hiddenAllowed'> = {}): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (e) {
    if (!rule.hiddenAllowed) refuseHidden(path);
    throw new ReadRefused(path, why(e), (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'not-found' : 'unreadable');
  }
  if (!rule.hiddenAllowed) refuseHidden(path, real);
  if (rule.within !== undefined && !isInside(real, rule.within)) {
    throw new ReadRefused(path, `outside ${rule.within}: refused (only files in that folder or below it are read)`, 'outside');
  }
  return real;
}

/** Reads a file the rule allows: its bytes and its real path. */
export function readChecked(path: string, rule: ReadRule): { bytes: Buffer; real: string } {
  const real = checkReadable(path, rule);
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (e) {
    throw new ReadRefused(path, why(e), 'unreadable');
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new ReadRefused(path, 'not a regular file: refused', 'not-a-file');
    const tooLarge = () => new ReadRefused(path, `larger than ${rule.max >= 1024 * 1024 ? `${(rule.max / 1024 / 1024).toFixed(0)} MiB` : `${rule.max} bytes`}: refused`, 'too-large');
    if (info.size > rule.max) throw tooLarge();
    // To the end, not to the size stat gave: a file that grew since is read whole, the limit still holds.
    const chunks: Buffer[] = [];
    let got = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(Math.max(info.size + 1, 64 * 1024), rule.max + 1));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      got += n;
      if (got > rule.max) throw tooLarge();
      chunks.push(buf.subarray(0, n));
    }
    return { bytes: Buffer.concat(chunks, got), real };
  } catch (e) {
    if (e instanceof ReadRefused) throw e;
    throw new ReadRefused(path, why(e), 'unreadable');
  } finally {
    closeSync(fd);
  }
}

/** The real folder of a file (for `within`): its links resolved. */
export function realFolderOf(file: string): string {
  const folder = dirname(file);
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
