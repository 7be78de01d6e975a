// Gathers a change report: the workspace (hash, validation), per appliance the diff a push makes
// now (asked over SSH, never pushed), the file's hash and the last recorded push, and the lab's
// state when it runs this workspace. An appliance that cannot be reached is a row saying why: a
// report is still made offline, which is where field engineers write tickets.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { LabSession, LabStatus } from '../../../shared/api/contract';
import type { ChangeReport, ReportAppliance, ReportLab, ReportLive } from '../../../shared/api/report';
import type { HistoryEntry } from '../../../shared/api/sync';
import type { MemberState } from '../../../shared/api/types';
import type { Appliance, Workspace } from '../../../shared/model/schema';
import { VERSION } from '../../../shared/version';
import { createTwoFilesPatch } from 'diff';
import { listHistory, readHistory } from '../sync/history';
import { loadKept } from '../sync/kept';
import { redactPatch } from '../sync/commands/redact';
import { openAppliance } from '../sync/appliance';
import type { ReadOptions } from '../sync/pull';
import { sha256 } from '../hash';
import { targetLabel } from '../sync/target';
import { loadWorkspace } from '../workspace/load';
import { thinPools } from '../whatif';
import { reportCertificates } from './certificates';

/** Problems listed in full; the counts stay exact beyond. */
const MAX_PROBLEMS = 200;

export interface CollectOptions {
  path: string;
  /** The window's text, when it differs from the file. */
  text?: string;
  /** Only these appliances (default: all). */
  appliances?: string[];
  /** Ask each appliance over SSH what a push would change (false: offline, from this machine only). */
  ask: boolean;
  /** SSH options and the data folder (history) of the caller. */
  read: ReadOptions;
  historyDir: string;
  /** The lab's status, its session's state changes and each member's latest result, when a lab exists. */
  lab?: { status: LabStatus; changes: number; latest?: LabSession['latest'] };
}

/** Appliances asked for by name that the workspace does not have: found before any is contacted. */
export class UnknownAppliances extends Error {
  constructor(readonly names: string[], known: string[]) {
    super(`no appliance ${names.map((n) => `"${n}"`).join(', ')} in the workspace (known: ${known.join(', ') || 'none'})`);
  }
}

export async function collectReport(opts: CollectOptions): Promise<ChangeReport> {
  const onDisk = await readFile(opts.path, 'utf8').catch(() => undefined);
  const text = opts.text ?? onDisk ?? '';
  const loaded = await loadWorkspace(opts.path, { text });
  const problems = loaded.problems.map(({ severity, file, line, col, path, message }) => ({ severity, file, line, col, path, message }));
  const report: ChangeReport = {
    at: Date.now(),
    version: VERSION,
    workspace: {
      path: opts.path,
      name: loaded.ok ? loaded.workspace.name : nameIn(text),
      sha256: sha256(text),
      bytes: Buffer.byteLength(text),
      unsaved: onDisk !== text,
    },
    validation: {
      // A file that cannot be read is one error with no line to show.
      errors: problems.filter((p) => p.severity === 'error').length + (!loaded.ok && loaded.unreadable ? 1 : 0),
      warnings: problems.filter((p) => p.severity === 'warning').length,
      problems: problems.slice(0, MAX_PROBLEMS),
    },
    appliances: [],
    lab: labSummary(opts.lab, opts.path),
  };
  // Certificates the lab saw when it runs this file; else a TLS check of the members, made now.
  const labHere = report.lab.state === 'running' && opts.lab?.latest ? { status: opts.lab.status, latest: opts.lab.latest } : undefined;
  const certificates = () => reportCertificates({ ...(labHere ? { lab: labHere } : {}), ...(loaded.ok ? { workspace: loaded.workspace } : {}), ask: opts.ask })
    .catch((e: unknown) => ({ source: 'not-checked' as const, note: `the members could not be checked: ${e instanceof Error ? e.message : String(e)}`, list: [] }));
  if (!loaded.ok) {
    report.certificates = await certificates();
    report.appliancesNote = `appliances are not rendered: ${loaded.unreadable ? loaded.message : 'the workspace has errors'}`;
    return report;
  }
  report.capacity = thinPools(loaded.workspace);
  const known = loaded.workspace.appliances.map((a) => a.name);
  const unknown = (opts.appliances ?? []).filter((n) => !known.includes(n));
  if (unknown.length) throw new UnknownAppliances(unknown, known);
  const chosen = loaded.workspace.appliances.filter((a) => !opts.appliances || opts.appliances.includes(a.name));
  [report.appliances, report.certificates] = await Promise.all([Promise.all(chosen.map((a) => applianceRow(loaded.workspace, a, opts))), certificates()]);
  return report;
}

/** The `name:` line of a file that does not validate (for the title only). */
function nameIn(text: string): string {
  return /^name:[ \t]*["']?([^"'\n#]*?)["']?[ \t]*(?:#.*)?$/m.exec(text)?.[1]?.trim() ?? '';
}

async function applianceRow(workspace: Workspace, a: Appliance, opts: CollectOptions): Promise<ReportAppliance> {
  const link = openAppliance(workspace, a, opts.path);
  const row: ReportAppliance = {
    name: a.name,
    driver: a.driver,
    target: targetLabel(link.target),
    configPath: link.where,
    manage: a.manage,
    errors: link.errors,
    warnings: link.render.warnings.map((w) => `${w.subject}: ${w.message}`),
    live: { state: 'not-asked', why: 'offline report: the appliance was not contacted' },
  };
  // Rendered on its own, the file is what a push leaves; merged onto the box's file it is known once read.
  if (!link.errors.length && a.manage === 'file') row.renderedSha256 = sha256(link.render.text);
  const history = await listHistory(opts.historyDir, a.name);
  const last = lastPush(history);
  if (last) {
    const patch = await lastPushPatch(opts.historyDir, history, last, link.where);
    row.lastPush = {
      at: last.at, kind: last.kind === 'restore' ? 'restore' : 'push', outcome: last.outcome ?? 'applied', sha256: last.hash,
      ...(last.confirm ? { confirm: last.confirm } : {}), ...(last.settledAt ? { settledAt: last.settledAt } : {}), ...(patch ? { patch } : {}),
    };
  }
  const kept = await loadKept(opts.historyDir, a.name);
  if (kept.length) row.runtime = kept.map((k) => ({ member: k.member, admin: k.admin, since: k.since, by: k.by }));
  if (link.errors.length) row.live = { state: 'not-asked', why: 'a push would be refused before connecting (see errors)' };
  else if (opts.ask) {
    const asked = await ask(link, opts.read);
    row.live = asked.live;
    if (asked.sha256) row.renderedSha256 = asked.sha256;
  }
  if (row.lastPush && row.renderedSha256) row.lastPushMatches = row.lastPush.sha256 === row.renderedSha256;
  return row;
}

function lastPush(history: HistoryEntry[]): HistoryEntry | undefined {
  return history.filter((h) => h.kind === 'push' || h.kind === 'restore').at(-1);
}

/**
 * What the last push changed, for a ticket written after it: the version lbdesk recorded just
 * before it (the box's file read before the push, or the push before) against the pushed file.
 */
async function lastPushPatch(dir: string, history: HistoryEntry[], last: HistoryEntry, where: string): Promise<string | undefined> {
  const before = history.slice(0, history.indexOf(last)).filter((h) => h.hash !== last.hash).at(-1);
  if (!before) return undefined;
  try {
    const [a, b] = await Promise.all([readHistory(dir, last.appliance, before.id), readHistory(dir, last.appliance, last.id)]);
    const patch = createTwoFilesPatch(`a${where}`, `b${where}`, a.data.toString('utf8'), b.data.toString('utf8'), 'before', 'pushed', { context: 3 });
    return redactPatch(patch).replace(/^=+\n/, '');
  } catch {
    return undefined; // a damaged or pruned version: the hash still names the push
  }
}

/** The diff a push makes now, and the hash of the file it would leave (none when it cannot render onto the box's file). */
async function ask(link: ReturnType<typeof openAppliance>, read: ReadOptions): Promise<{ live: ReportLive; sha256?: string }> {
  try {
    const d = await link.diff(read);
    const live: ReportLive = {
      state: 'checked',
      changed: d.changed,
      // The patch library's ==== rule line says nothing a reader needs.
      patch: d.patch.replace(/^=+\n/, ''),
      ...(d.remoteHash ? { remoteSha256: d.remoteHash } : {}),
      conflicts: d.conflicts ?? [],
      ...(d.refused ? { refused: d.refused } : {}),
      ...(d.pending ? { confirmBy: d.pending.deadline } : {}),
      ...(d.rolledBack ? { rolledBackAt: d.rolledBack.at ?? 0 } : {}),
    };
    return { live, ...(d.refused ? {} : { sha256: d.hash }) };
  } catch (e) {
    return { live: { state: 'unreachable', reason: e instanceof Error ? e.message : String(e) } };
  }
}

function labSummary(lab: CollectOptions['lab'], path: string): ReportLab {
  const empty: ReportLab = { state: 'stopped', counts: {}, members: [], changes: 0, pools: [] };
  if (!lab?.status.running) return empty;
  const { status } = lab;
  if (!status.path || resolve(status.path) !== resolve(path)) return { ...empty, state: 'other-file', ...(status.path ? { path: status.path } : {}) };
  const counts: Partial<Record<MemberState, number>> = {};
  for (const m of status.members) counts[m.state] = (counts[m.state] ?? 0) + 1;
  return {
    state: 'running',
    path: status.path,
    ...(status.stats ? { uptimeMs: status.stats.uptimeMs } : {}),
    counts,
    members: status.members
      .filter((m) => m.state !== 'available')
      .map((m) => ({ group: m.group ?? `ts${m.targetSet ?? ''}`, server: m.server, state: m.state, reason: m.reason, since: m.since })),
    changes: lab.changes,
    pools: (status.stats?.pools ?? []).map((p) => ({ name: p.name, kind: p.kind, active: p.active, total: p.total, bytesIn: p.bytesIn, bytesOut: p.bytesOut, errors: p.errors, refused: p.refused })),
  };
}
