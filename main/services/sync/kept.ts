// What lbdesk set on a box at run time and must keep through a reload: a member drained or in
// maintenance stays so until someone sets it ready. Kept in the user's data folder per appliance
// (runtime/<appliance>.json); every change is also an operation in the appliance's history.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { operatorName } from './history';
import { join } from 'node:path';
import type { AdminState } from '../../../shared/api/operate';
import type { HeldMember } from '../drivers/types';

export interface KeptMember {
  member: string;
  admin: Exclude<AdminState, 'ready'>;
  since: number;
  by: string;
}


function keptFile(dir: string, appliance: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(appliance)) throw new Error(`bad appliance name: ${appliance}`);
  return join(dir, 'runtime', `${appliance}.json`);
}

export async function loadKept(dir: string, appliance: string): Promise<KeptMember[]> {
  try {
    const data = JSON.parse(await readFile(keptFile(dir, appliance), 'utf8')) as { members?: KeptMember[] };
    return Array.isArray(data.members) ? data.members : [];
  } catch {
    return [];
  }
}

/** Records `admin` for the members; returns how long each one set ready had been out (ms). */
export async function keepChange(dir: string, appliance: string, members: string[], admin: AdminState, at = Date.now()): Promise<Record<string, number>> {
  const kept = await loadKept(dir, appliance);
  const outFor: Record<string, number> = {};
  const next = kept.filter((k) => {
    if (!members.includes(k.member)) return true;
    if (admin === 'ready') outFor[k.member] = at - k.since;
    return admin !== 'ready' && k.admin === admin;
  });
  if (admin !== 'ready') {
    for (const m of members) if (!next.some((k) => k.member === m)) next.push({ member: m, admin, since: at, by: operatorName() });
  }
  const file = keptFile(dir, appliance);
  await mkdir(join(dir, 'runtime'), { recursive: true, mode: 0o700 });
  await writeFile(`${file}.tmp`, `${JSON.stringify({ members: next }, null, 2)}\n`, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return outFor;
}

/** How long a member has been out, in the words a report uses (`45 s`, `12 min`, `3 h 5 min`). */
export function outForWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** The kept members as a command plan takes them (`GROUP/SERVER:PORT` read back). */
export function heldMembers(kept: KeptMember[]): HeldMember[] {
  return kept.flatMap((k) => {
    const m = /^([^/]+)\/(.+?)(?::(\d+))?$/.exec(k.member);
    return m ? [{ group: m[1]!, server: m[2]!, ...(m[3] ? { port: Number(m[3]) } : {}), admin: k.admin }] : [];
  });
}

/** What a push to a command-driven box says of each kept member: the plan leaves it as it is. */
export function heldNotes(kept: KeptMember[]): string[] {
  return kept.map((k) => `kept ${k.admin} on ${k.member} (since ${new Date(k.since).toISOString()}, by ${k.by}): left as it is on the box until lbdesk ready`);
}
