// Commit-confirmed on the appliance itself: a detached timer (TIMER in scripts.ts, started with
// the backup by BACKUP_AND_ARM) restores the last-known-good file and reloads unless `confirm`
// removes the pending marker first. It runs on the appliance, so a push that cuts off management
// access still heals. Marker claims are atomic (rename / unlink): exactly one of the two wins.
import type { Remote } from './remote';
import { DISARM } from './scripts';
import { tail } from './quote';

export type DisarmResult = { outcome: 'confirmed' } | { outcome: 'none' } | { outcome: 'too-late'; firedAt?: number; rc?: number; hash?: string };

export async function disarmTimer(remote: Remote): Promise<DisarmResult> {
  const p = remote.paths;
  const r = await remote.run(DISARM, [p.pending, p.fired]);
  const first = r.stdout.split('\n')[0]?.trim();
  if (first === 'CONFIRMED') return { outcome: 'confirmed' };
  if (first === 'NONE') return { outcome: 'none' };
  if (first === 'TOO-LATE') {
    const at = /^firedAt=(\d+)$/m.exec(r.stdout);
    const rc = /^rc=(\d+)$/m.exec(r.stdout);
    const hash = /^hash=([0-9a-f]+)$/m.exec(r.stdout);
    return { outcome: 'too-late', firedAt: at ? Number(at[1]) * 1000 : undefined, rc: rc ? Number(rc[1]) : undefined, hash: hash?.[1] };
  }
  throw new Error(`confirm failed on the appliance: ${tail(r.stderr || r.stdout) || `exit ${r.code}`}`);
}

/** Forgets a fired timer's record once it has been reported. */
export async function acknowledgeFired(remote: Remote): Promise<void> {
  const p = remote.paths;
  await remote.run('rm -f -- "$1" "$1.out" "$1.keep"', [p.fired]).catch(() => undefined);
}
