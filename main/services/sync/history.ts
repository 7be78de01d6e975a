// Every version pushed to (or pulled from) an appliance, in the user's data folder:
// history/<appliance>/<id>.cfg with a <id>.json record beside it (one record per file, so
// concurrent writers never lose an entry). Viewable and restorable (push it again).
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import type { HistoryEntry, HistoryKind, PushOutcome } from '../../../shared/api/sync';
import { sha256 } from '../hash';

function applianceDir(dir: string, appliance: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(appliance)) throw new Error(`bad appliance name for history: ${appliance}`);
  return join(dir, 'history', appliance);
}

function stamp(at: number): string {
  return new Date(at).toISOString().replace(/[-:]/g, '').replace('.', '');
}

export interface RecordInput {
  appliance: string;
  kind: HistoryKind;
  data: Buffer;
  target: string;
  configPath: string;
  outcome?: PushOutcome;
  workspace?: string;
  confirm?: 'pending';
}

export async function recordHistory(dir: string, input: RecordInput): Promise<HistoryEntry> {
  const at = Date.now();
  const hash = sha256(input.data);
  const folder = applianceDir(dir, input.appliance);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const id = `${stamp(at)}-${hash.slice(0, 12)}-${input.kind}`;
  const entry: HistoryEntry = {
    id, appliance: input.appliance, at, kind: input.kind, hash, bytes: input.data.length,
    target: input.target, configPath: input.configPath,
    ...(input.outcome ? { outcome: input.outcome } : {}),
    ...(input.workspace ? { workspace: input.workspace } : {}),
    ...(input.confirm ? { confirm: input.confirm } : {}),
  };
  await writeFile(join(folder, `${id}.cfg`), input.data, { mode: 0o600 });
  await writeFile(join(folder, `${id}.json`), `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
  await prune(folder);
  return entry;
}

/**
 * Records how a commit-confirmed push ended, on its entry (the newest still pending with this
 * hash): `push:applied` there would otherwise stand for a config the appliance took back.
 */
export async function settleConfirm(dir: string, appliance: string, hash: string | undefined, fate: 'confirmed' | 'rolled-back', at = Date.now()): Promise<void> {
  if (!hash) return;
  const entry = (await listHistory(dir, appliance)).reverse().find((e) => e.hash === hash && e.confirm === 'pending');
  if (!entry) return;
  const next: HistoryEntry = { ...entry, confirm: fate, settledAt: at, ...(fate === 'rolled-back' ? { outcome: 'rolled-back' as const } : {}) };
  const file = join(applianceDir(dir, appliance), `${entry.id}.json`);
  await writeFile(`${file}.tmp`, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/** Entries kept per appliance: each is a whole config, and a busy appliance is pushed daily. */
export const HISTORY_KEEP = 200;

/** Drops the oldest entries beyond HISTORY_KEEP (ids start with their time, so names sort by age). */
async function prune(folder: string): Promise<void> {
  const ids = (await readdir(folder).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)).sort();
  for (const id of ids.slice(0, Math.max(0, ids.length - HISTORY_KEEP))) {
    await rm(join(folder, `${id}.json`), { force: true });
    await rm(join(folder, `${id}.cfg`), { force: true });
  }
}

/** Oldest first. */
export async function listHistory(dir: string, appliance: string): Promise<HistoryEntry[]> {
  const folder = applianceDir(dir, appliance);
  const names = await readdir(folder).catch(() => [] as string[]);
  const out: HistoryEntry[] = [];
  for (const n of names.filter((x) => x.endsWith('.json')).sort()) {
    try { out.push(JSON.parse(await readFile(join(folder, n), 'utf8')) as HistoryEntry); } catch { /* a half-written record: skip */ }
  }
  return out.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
}

/** An entry by exact id or unique id prefix (or hash prefix); its stored bytes are verified. */
export async function readHistory(dir: string, appliance: string, idOrPrefix: string): Promise<{ entry: HistoryEntry; data: Buffer }> {
  const all = await listHistory(dir, appliance);
  const exact = all.find((e) => e.id === idOrPrefix);
  const matches = exact ? [exact] : all.filter((e) => e.id.startsWith(idOrPrefix) || e.hash.startsWith(idOrPrefix));
  if (matches.length === 0) throw new Error(`no history entry ${idOrPrefix} for appliance ${appliance}`);
  const ids = new Set(matches.map((e) => e.hash));
  if (ids.size > 1) throw new Error(`history id ${idOrPrefix} is ambiguous for appliance ${appliance} (${matches.length} entries)`);
  const entry = matches[matches.length - 1]!;
  const data = await readFile(join(applianceDir(dir, appliance), `${entry.id}.cfg`));
  if (sha256(data) !== entry.hash) throw new Error(`history entry ${entry.id} is damaged (hash mismatch)`);
  return { entry, data };
}

/** Whether a version with this hash is stored (by file name: cheap enough for every push). */
export async function hasHistoryHash(dir: string, appliance: string, hash: string): Promise<boolean> {
  const names = await readdir(applianceDir(dir, appliance)).catch(() => [] as string[]);
  return names.some((n) => n.endsWith('.cfg') && n.includes(`-${hash.slice(0, 12)}-`));
}

/**
 * A runtime operation on the box (drain, maint, ready; main/services/operate): kept beside the
 * versions as `operations/<id>.json`, never a config version (no bytes, not pruned with them).
 */
export interface OperationEntry {
  id: string;
  appliance: string;
  at: number;
  kind: 'operation';
  operation: 'drain' | 'maint' | 'ready' | 'kept';
  /** Workspace members, as `GROUP/SERVER:PORT`. */
  members: string[];
  /** Who: `user@host` of the machine lbdesk ran on. */
  by: string;
  target: string;
  outcome: 'done' | 'refused';
  reason?: string;
  /** `ready`: how long each member had been drained or in maintenance (ms). */
  outFor?: Record<string, number>;
}

/** `user@host` of this machine: who a push holds the lock for, who ran an operation. */
export function operatorName(): string {
  let user = 'unknown';
  try { user = userInfo().username; } catch { /* no passwd entry */ }
  return `${user}@${hostname()}`;
}

export async function recordOperation(dir: string, input: Omit<OperationEntry, 'id' | 'at' | 'kind'>): Promise<OperationEntry> {
  const at = Date.now();
  const folder = join(applianceDir(dir, input.appliance), 'operations');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const entry: OperationEntry = { id: `${stamp(at)}-${input.operation}-${Math.random().toString(36).slice(2, 8)}`, at, kind: 'operation', ...input };
  await writeFile(join(folder, `${entry.id}.json`), `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
  return entry;
}

/** Oldest first. */
export async function listOperations(dir: string, appliance: string): Promise<OperationEntry[]> {
  const folder = join(applianceDir(dir, appliance), 'operations');
  const names = (await readdir(folder).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
  const out: OperationEntry[] = [];
  for (const n of names) {
    try { out.push(JSON.parse(await readFile(join(folder, n), 'utf8')) as OperationEntry); } catch { /* a half-written record: skip */ }
  }
  return out.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
}
