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
  const script = `if [ -e "$2" ]; then chmod --reference="$2" -- "$1" 2>/dev/null || chmod "$3" -- "$1"; chown --reference="$2" -- "$1" 2>/dev/null || true
else chmod "$3" -- "$1"; fi
sync -- "$1" 2>/dev/null || sync
mv -f -- "$1" "$2" && echo lbdesk-moved`;
  const r = await execText(h, shScript(script, [temp, path, mode.toString(8)]), timeoutMs);
  if (!r.stdout.includes('lbdesk-moved')) throw new TransferError('refused', `${labelOf(h)}: cannot move ${temp} to ${path}: ${tail(r.stderr || r.stdout) || `exit ${r.code}`}`);
}

export async function shellRemove(h: TransferHost, path: string, timeoutMs: number): Promise<void> {
  const r = await execText(h, shScript('rm -f -- "$1" && echo lbdesk-removed', [path]), timeoutMs);
  if (!r.stdout.includes('lbdesk-removed')) throw new TransferError('refused', `${labelOf(h)}: cannot remove ${path}: ${tail(r.stderr) || `exit ${r.code}`}`);
}
