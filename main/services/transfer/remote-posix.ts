// What a transfer may do when the appliance also runs POSIX shell commands over exec:
// hash a file, move a temp file into place, remove one. Paths are passed as $1…, never spliced.
import { execText, labelOf, shScript, type TransferHost } from './host';
import { TransferError } from './types';

/** `h FILE` prints the file's sha256 with whatever the appliance has (sync's scripts use it too). */
export const HASH_FN = `h() {
  [ -r "$1" ] || return 1
  if command -v sha256sum >/dev/null 2>&1; then set -- $(sha256sum < "$1")
  elif command -v openssl >/dev/null 2>&1; then set -- $(openssl dgst -sha256 -r < "$1")
  elif command -v shasum >/dev/null 2>&1; then set -- $(shasum -a 256 < "$1")
  else return 2; fi
  echo "$1"
}`;

/**
 * `keep TEMP LIVE MODE` gives TEMP the live file's mode, owner and group (numeric, from
 * `stat -c`, which GNU and BusyBox share; else `--reference`, which BusyBox lacks), or MODE
 * when there is no live file. Exit 0 kept; 3 the mode is kept but the owner could not be
 * (a non-root user), and `@lbdesk OWNER uid:gid` says whose it was; 4 nothing could read
 * the live file's mode: the caller refuses rather than widen it.
 */
export const KEEP_FN = `keep() {
  [ -e "$2" ] || { chmod "$3" -- "$1"; return; }
  if s=$(stat -c '%a %u %g' -- "$2" 2>/dev/null) && [ -n "$s" ]; then
    set -- "$1" "$2" $s
    chmod "$3" -- "$1" || return 4
    [ "$(stat -c '%u %g' -- "$1" 2>/dev/null)" = "$4 $5" ] && return 0
    chown "$4:$5" -- "$1" 2>/dev/null && return 0
    echo "@lbdesk OWNER $4:$5"; return 3
  fi
  chmod --reference="$2" -- "$1" 2>/dev/null || return 4
  chown --reference="$2" -- "$1" 2>/dev/null || { echo "@lbdesk OWNER unknown"; return 3; }
}`;

/** What `keep` answered, in words for a note (undefined: kept as it was). */
export function keepNote(code: number | null, stdout: string, path: string): string | undefined {
  if (code === 3) {
    const who = /^@lbdesk OWNER (.*)$/m.exec(stdout)?.[1] ?? 'unknown';
    return `could not keep the owner of ${path} (${who}): the pushing user may not chown; it now belongs to that user`;
  }
  return undefined;
}

const tail = (text: string) => text.trim().split('\n').slice(-3).join(' | ').slice(-300);

const cache = new WeakMap<object, Promise<boolean>>();

/**
 * True when exec runs a POSIX shell: arithmetic expansion only happens in one. A vendor CLI
 * refuses the exec, or echoes the text unexpanded or an error (often with exit 0). Only the
 * output counts: sshd may close a channel before its exit status arrives. A probe that could
 * not run (timeout, lost connection) is an error, never a "no" — a wrong "no" would make
 * writes go in place instead of through a temp file.
 */
export function probeShell(h: TransferHost, timeoutMs: number): Promise<boolean> {
  let p = cache.get(h);
  if (!p) {
    p = execText(h, 'echo lbdesk-$((40+2))', timeoutMs).then(
      (r) => r.stdout.trim() === 'lbdesk-42',
      (err: unknown) => {
        const lost = 'isClosed' in h ? h.isClosed : false;
        if (err instanceof TransferError && err.kind === 'refused' && !lost) return false;
        cache.delete(h);
        throw err;
      },
    );
    cache.set(h, p);
  }
  return p;
}

export async function shellHash(h: TransferHost, path: string, timeoutMs: number): Promise<string | undefined> {
  const r = await execText(h, shScript(`${HASH_FN}\nh "$1"`, [path]), timeoutMs);
  const out = r.stdout.trim();
  return /^[0-9a-f]{64}$/.test(out) ? out : undefined;
}

/** Gives `temp` the live file's mode and owner (or `mode`), then renames it over `path`. */
export async function shellReplace(h: TransferHost, temp: string, path: string, mode: number, timeoutMs: number): Promise<void> {
  const script = `${KEEP_FN}
keep "$1" "$2" "$3"
[ $? -eq 4 ] && { echo "cannot copy the mode of $2 (no stat -c, no chmod --reference): not replacing it" >&2; exit 4; }
sync -- "$1" 2>/dev/null || sync
mv -f -- "$1" "$2" && echo lbdesk-moved`;
  const r = await execText(h, shScript(script, [temp, path, mode.toString(8)]), timeoutMs);
  if (!r.stdout.includes('lbdesk-moved')) throw new TransferError('refused', `${labelOf(h)}: cannot move ${temp} to ${path}: ${tail(r.stderr || r.stdout) || `exit ${r.code}`}`);
}

export async function shellRemove(h: TransferHost, path: string, timeoutMs: number): Promise<void> {
  const r = await execText(h, shScript('rm -f -- "$1" && echo lbdesk-removed', [path]), timeoutMs);
  if (!r.stdout.includes('lbdesk-removed')) throw new TransferError('refused', `${labelOf(h)}: cannot remove ${path}: ${tail(r.stderr) || `exit ${r.code}`}`);
}
