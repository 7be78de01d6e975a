// The appliances area: render, diff, push (with progress; SSH questions go through the ssh
// area), confirm, pull and history, on the same appliance interface as the CLI.
import { ApiError, type ApiProblem, type KeptContext, type ConfigRef, type DiffResult, type PushHistoryEntry as UiHistoryEntry, type PushResult } from '../../../shared/api/contract';
import type { DiffReport, HistoryEntry, PushProgress, PushReport } from '../../../shared/api/sync';
import type { Appliance } from '../../../shared/model/schema';
import { compareWithAppliance, CompareUnavailableError } from '../compare';
import { loadSource } from '../workspace/source';
import type { SecretStore } from '../secrets/types';
import type { SshOptions } from '../ssh';
import { listHistory, readHistory, syncDataDir, withSession, type PushOptions, type ReadOptions } from '../sync';
import { shownConfig } from '../sync/commands/redact';
import { openAppliance } from '../sync/appliance';
import { getDriver } from '../drivers';
import { pushAppliance, pushPairOf } from '../push';
import { cannotRender, unknownAppliance, unknownPair, wouldRefuse } from '../sync/refusals';

const driverOf = (a: Appliance) => {
  try {
    return getDriver(a.driver);
  } catch {
    return undefined;
  }
};
import { MemberError, resolveMembers, setAdmin, type OperateContext } from '../operate';
import { OperateSessions } from './operate';
import { pushPair } from '../sync/pair';
import type { AreaHandlers, EventSink } from './dispatch';
import type { SshQuestions } from './ssh';

const WHOLE_FILE = 1e9;

export interface ApplianceDeps {
  secrets: SecretStore;
  emit: EventSink;
  dataDir: string;
  /** known_hosts to read and add to; default OpenSSH's. */
  knownHostsFile?: string;
  sshConfigFile?: string;
  /** Host-key and login questions, answered through the ssh area. */
  questions: SshQuestions;
  /** The Operate view's kept connections (one per appliance). */
  operate?: OperateSessions;
}

/** SSH options for the UI's calls, and one appliance of a workspace source opened (also used by import). */
export function applianceAccess(deps: ApplianceDeps) {
  const ssh = (): SshOptions => ({
    secrets: deps.secrets,
    knownHostsFile: deps.knownHostsFile,
    sshConfigFile: deps.sshConfigFile,
    ...deps.questions.options(),
  });

  async function prepared(src: { path: string; text?: string }, name: string) {
    const { workspace } = await loadSource(src);
    const appliance = workspace.appliances.find((a: Appliance) => a.name === name);
    if (!appliance) throw new ApiError('not-found', unknownAppliance(name, workspace.appliances.map((a) => a.name)));
    return Object.assign(openAppliance(workspace, appliance, src.path), { workspace });
  }
  return { ssh, prepared };
}

export function applianceHandlers(deps: ApplianceDeps): AreaHandlers<'appliances'> {
  const historyDir = syncDataDir(deps.dataDir);
  /** Diffs still running, per appliance, for appliance.cancel. */
  const connecting = new Map<string, Set<AbortController>>();
  const { ssh, prepared } = applianceAccess(deps);
  const operate = deps.operate ?? new OperateSessions();
  const operateContext = async (src: { path: string; text?: string }, appliance: string): Promise<OperateContext> => {
    const p = await prepared(src, appliance);
    return { workspace: p.workspace, appliance: p.appliance, target: p.target };
  };
  const refuseErrors = (errors: string[]) => {
    if (errors.length) throw new ApiError('refused', cannotRender(errors));
  };

  const toResult = (r: PushReport, diff: string, after?: DiffResult): PushResult => ({
    appliance: r.appliance,
    outcome: r.outcome,
    // Sentences, each ended with a full stop, so a note never runs on from the reason before it.
    reason: [r.reason, ...r.notes].map((t) => t.trim().replace(/[.\s]*$/, '.')).join(' '),
    diff,
    confirmBy: r.pending?.deadline,
    ...(after ? { after } : {}),
  });
  const diffResult = (appliance: string, d: DiffReport): DiffResult => {
    const confirm = 'pending' in d && d.pending ? { confirmBy: d.pending.deadline } : {};
    const back = 'rolledBack' in d && d.rolledBack ? { rolledBackAt: d.rolledBack.at ?? 0 } : {};
    return { appliance, changed: d.changed, diff: d.patch, remotePath: d.configPath, ...confirm, ...back };
  };
  /**
   * A push or a restore as one user action over one login: the diff before it, the push, and the
   * diff after it (what the window shows next), so a one-time code is asked once. The diff after
   * is left out when there is nothing new to see (dry run, refused) or it cannot be read.
   */
  const pushAction = async (p: Awaited<ReturnType<typeof prepared>>, opts: PushOptions & { confirmWithinMs?: number }, restore?: string) => {
    const item = await pushAppliance(p, { workspace: p.workspace, dataDir: historyDir, dryRun: opts.dryRun, confirmWithinMs: opts.confirmWithinMs, restore });
    if ('refused' in item) throw new ApiError('refused', item.refused);
    return withSession(p.target.endpoint, { ...ssh(), dataDir: deps.dataDir }, async (session) => {
      // A restore is compared as the stored bytes it pushes; a push as the driver renders it.
      const d = await p.diff(session, item.restored ? item.config : undefined);
      const report = await item.run({ ...session, ...opts });
      const changed = !opts.dryRun && report.outcome !== 'refused';
      const after = changed && !session.connection.isClosed
        ? await p.diff({ ...session, context: WHOLE_FILE }).then((x) => diffResult(p.appliance.name, x), () => undefined)
        : undefined;
      return toResult(report, d.patch, after);
    });
  };

  const onProgress = (e: PushProgress) => deps.emit('push.progress', e);
  const historyRow = (h: HistoryEntry): UiHistoryEntry => ({
    appliance: h.appliance, at: h.at, hash: h.hash, outcome: h.outcome ?? 'applied', file: h.id,
    ...(h.kind === 'restore' ? { kind: 'restore' as const } : h.kind === 'push' ? {} : { kind: 'original' as const }),
    ...(h.confirm ? { confirm: h.confirm } : {}),
  });
  const stored = (appliance: string, id: string) => readHistory(historyDir, appliance, id).catch((e: Error) => {
    throw new ApiError('not-found', e.message);
  });

  return {
    'appliance.problems': async (src) => {
      const { workspace, path, where } = await loadSource(src);
      const out: ApiProblem[] = [];
      workspace.appliances.forEach((a, i) => {
        const { errors } = openAppliance(workspace, a, path);
        if (!errors.length) return;
        // At the field to change: what it serves (include) when given, else its driver.
        const field = a.include !== undefined ? 'include' : 'driver';
        const at = where(['appliances', i, field]);
        const own = `appliance ${a.name}: `;
        const why = [...new Set(errors.map((e) => (e.startsWith(own) ? e.slice(own.length) : e)))].join('; ');
        out.push({ severity: 'error', file: path, line: at.line, col: at.col, path: `appliances[${i}].${field}`, message: wouldRefuse(a.name, why) });
      });
      return out;
    },
    'appliance.render': async ({ appliance, ...src }) => {
      const p = await prepared(src, appliance);
      if (!p.target.onto) return { text: p.render.text, configPath: p.render.configPath, errors: p.render.errors, warnings: p.render.warnings };
      // manage: sections: what a push leaves is the box's own file with lbdesk's sections on it.
      const { text, onto } = await p.leaves({ ...ssh(), dataDir: deps.dataDir });
      const subject = `appliance ${appliance}`;
      return {
        text: shownConfig(text), configPath: p.render.configPath, onto: { target: onto!.target },
        errors: onto!.refused ? [{ subject, message: onto!.refused }] : [],
        warnings: onto!.conflicts.map((message) => ({ subject, message })),
      };
    },
    'appliance.compare': async ({ appliance, timeScale, ...src }) => {
      const { workspace } = await loadSource(src);
      const a = workspace.appliances.find((x: Appliance) => x.name === appliance);
      if (!a) throw new ApiError('not-found', unknownAppliance(appliance, workspace.appliances.map((x) => x.name)));
      try {
        return await compareWithAppliance(workspace, a, { workspacePath: src.path, timeScale });
      } catch (e) {
        if (e instanceof CompareUnavailableError) throw new ApiError('unsupported', `cannot compare with ${appliance}: ${e.message}`);
        throw e;
      }
    },
    'appliance.cancel': async ({ appliance }) => {
      const going = [...(connecting.get(appliance) ?? [])];
      going.forEach((c) => c.abort());
      return { cancelled: going.length };
    },
    'appliance.diff': async ({ appliance, ...src }) => {
      const p = await prepared(src, appliance);
      refuseErrors(p.errors);
      const cancel = new AbortController();
      const mine = connecting.get(appliance) ?? new Set<AbortController>();
      connecting.set(appliance, mine.add(cancel));
      const opts = { ...ssh(), dataDir: deps.dataDir, signal: cancel.signal };
      // The whole file as context: the UI folds it by section, only the changed ones open.
      const d = await p.diff({ ...opts, context: WHOLE_FILE }).finally(() => mine.delete(cancel));
      return diffResult(appliance, d);
    },
    'appliance.push': async ({ appliance, dryRun, confirmWithinMs, force, ...src }) => pushAction(await prepared(src, appliance), { dryRun, force, confirmWithinMs, onProgress }),
    'appliance.pushPair': async ({ pair: name, dryRun, confirmWithinMs, ...src }) => {
      const { workspace } = await loadSource(src);
      const pair = workspace.pairs.find((p) => p.name === name);
      if (!pair) throw new ApiError('not-found', unknownPair(name, workspace.pairs.map((p) => p.name)));
      const { standby, active, boxes } = await pushPairOf(pair, { workspace, path: src.path, dataDir: historyDir, dryRun, confirmWithinMs });
      const r = await pushPair(name, ...boxes, { ...ssh(), dataDir: deps.dataDir, dryRun, confirmWithinMs, onProgress });
      const appliancesOf = (box: string) => { const m = pair.members.find((x) => x.appliance === box)!; return [m.appliance, m.keepalived]; };
      return {
        pair: name, outcome: r.outcome, reason: r.reason, ...(r.failover ? { failover: r.failover } : {}),
        boxes: ([[standby, 'standby'], [active, 'active']] as const).map(([box, role]) => {
          const mine = r.reports.filter((x) => appliancesOf(box).includes(x.appliance));
          const pending = mine.find((x) => x.pending)?.pending;
          return { name: box, role, holds: r.holds[box] ?? '', steps: mine.map((x) => ({ appliance: x.appliance, outcome: x.outcome, reason: x.reason })), ...(pending ? { confirmBy: pending.deadline } : {}) };
        }),
      };
    },
    'appliance.confirm': async ({ appliance, ...src }) => {
      const p = await prepared(src, appliance);
      const r = await p.confirm({ ...ssh(), dataDir: deps.dataDir });
      return { confirmed: r.outcome === 'confirmed', reason: r.reason };
    },
    'appliance.pull': async ({ appliance, ...src }) => {
      const p = await prepared(src, appliance);
      const r = await p.pull({ ...ssh(), dataDir: deps.dataDir });
      return { text: shownConfig(r.data), remotePath: r.where };
    },
    'appliance.history': async ({ appliance }) => {
      // Pushes and restores, and the box's own file as lbdesk first found it (the snapshot before
      // its first push, or the first read when that came earlier): never pushed, but restorable.
      const all = await listHistory(historyDir, appliance);
      const first = all.findIndex((h) => h.kind === 'push' || h.kind === 'restore');
      const original = all.slice(0, first < 0 ? all.length : first + 1).find((h) => h.kind === 'before-push' || h.kind === 'pull');
      return all.filter((h) => h.kind === 'push' || h.kind === 'restore' || h === original).map(historyRow);
    },
    'appliance.version': async ({ appliance, id }) => {
      const { entry, data } = await stored(appliance, id);
      return { entry: historyRow(entry), text: shownConfig(data) };
    },
    'appliance.kept': async (src) => {
      const { workspace } = await loadSource(src);
      const groups = new Set(workspace.groups.map((g) => g.name));
      const services = new Set(workspace.services.map((s) => s.name));
      const out: KeptContext[] = [];
      for (const a of workspace.appliances) {
        const kept = a.manage === 'sections' ? driverOf(a)?.kept : undefined;
        if (!kept) continue;
        // The box's file as last read or pushed here (no connection): a push taken back never was the box's.
        const seen = (await listHistory(historyDir, a.name)).filter((e) => e.outcome !== 'rolled-back' && e.outcome !== 'failed').at(-1);
        if (!seen) continue;
        const { data } = await readHistory(historyDir, a.name, seen.id);
        out.push({ appliance: a.name, at: seen.at, configPath: seen.configPath ?? a.configPath ?? '', ...kept(data.toString('utf8'), groups, services) });
      }
      return out;
    },
    'appliance.configs': async ({ appliance, before, after, ...src }) => {
      const p = await prepared(src, appliance);
      const load = async (ref: ConfigRef, opts: ReadOptions): Promise<{ text: string; label: string }> => {
        if (ref.kind === 'workspace') {
          const { text, onto } = await p.leaves(opts);
          if (onto?.refused) throw new ApiError('refused', `${appliance}: ${onto.refused}`);
          return { text, label: onto ? `the workspace now, rendered onto ${appliance}'s file` : 'rendered from the workspace now' };
        }
        if (ref.kind === 'version') {
          const { entry, data } = await stored(appliance, ref.id);
          const how = entry.kind === 'push' || entry.kind === 'restore' ? 'pushed' : 'found on the box';
          return { text: data.toString('utf8'), label: `${how} ${new Date(entry.at).toISOString()} (${entry.hash.slice(0, 12)})` };
        }
        const r = await p.pull(opts);
        return { text: r.data.toString('utf8'), label: `running on ${appliance} now` };
      };
      const both = async (opts: ReadOptions) => {
        const a = await load(before, opts);
        const b = await load(after, opts);
        return { before: shownConfig(a.text), after: shownConfig(b.text), beforeLabel: a.label, afterLabel: b.label, configPath: p.where };
      };
      // Both sides read from the box (running against sections rendered onto it): one login for the two.
      const readsBox = (ref: ConfigRef) => ref.kind === 'running' || (ref.kind === 'workspace' && p.leavesFromBox);
      const opts = { ...ssh(), dataDir: deps.dataDir };
      return readsBox(before) && readsBox(after) ? withSession(p.target.endpoint, opts, both) : both(opts);
    },
    'appliance.state': async ({ appliance, ...src }) => operate.state(await operateContext(src, appliance), ssh()),
    'appliance.runtime': async ({ appliance, admin, members: names, ...src }) => {
      const ctx = await operateContext(src, appliance);
      let members;
      try {
        members = resolveMembers(ctx.workspace, names);
      } catch (err) {
        if (err instanceof MemberError) throw new ApiError('not-found', err.message);
        throw err;
      }
      const k = await operate.session(ctx, ssh());
      const r = await setAdmin(k.ctx, k.op, members, admin, historyDir);
      return { ok: r.ok, members: members.map((m) => m.label), ...(r.ok ? {} : { refused: r.refused }) };
    },
    'appliance.operateEnd': async ({ appliance }) => ({ closed: operate.end(appliance) }),
    'appliance.restore': async ({ appliance, id, dryRun, confirmWithinMs, ...src }) => pushAction(await prepared(src, appliance), { dryRun, confirmWithinMs, onProgress }, id),
  };
}
