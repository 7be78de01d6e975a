// A rolling push to an HA pair (docs/ha.md): never both boxes at once, always a way back.
// Standby first (validate, reload, verify through its own address), an optional failover test
// (the active box lets its addresses go, the standby must answer on them, then it takes them
// back), then the active box. The first failure stops the push and puts every box already
// changed back on its previous config, so the pair is left on the last good config.
import type { PairOutcome, PushReport } from '../../../shared/api/sync';
import { connectSsh } from '../ssh/connect';
import { confirmPush } from './confirm-push';
import { listHistory, readHistory } from './history';
import { pushConfig, type PushOptions } from './push';
import { Remote, verifyMethod } from './remote';
import { syncDataDir } from './state';
import type { SyncTarget, VerifyTarget } from './target';

/** One box: the configs pushed to it, in order (an HAProxy box: haproxy.cfg, then its keepalived.conf). */
export interface PairBox {
  name: string;
  /** `keep`: the runtime states lbdesk keeps on that appliance, set again after its reload. */
  items: { target: SyncTarget; text: string | Buffer; keep?: PushOptions['keep'] }[];
  /** Why it cannot be pushed (render errors): nothing is pushed to the pair. */
  refused?: string;
}

export interface FailoverTest {
  /** Run on the active box: let its addresses go (e.g. `systemctl stop keepalived`). */
  release: string;
  /** Run on the active box afterwards: take them back. */
  restore: string;
  /** What must answer from the standby while it holds them. */
  verify: VerifyTarget[];
  /** How long the addresses may take to move (default 10 s). */
  timeoutMs?: number;
}

export interface PairPushOptions extends PushOptions {
  failover?: FailoverTest;
}


export interface PairReport {
  pair: string;
  outcome: PairOutcome;
  reason: string;
  /** Box names in the order pushed: standby, then active. */
  order: [string, string];
  /** Every push, restores included, in the order run. */
  reports: PushReport[];
  /** What each box runs now, in words. */
  holds: Record<string, string>;
  failover?: { ok: boolean; reason: string };
}

const GOOD = new Set(['applied', 'unchanged', 'would-apply']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Done { box: string; target: SyncTarget; report: PushReport }

export async function pushPair(pair: string, standby: PairBox, active: PairBox, opts: PairPushOptions = {}): Promise<PairReport> {
  const reports: PushReport[] = [];
  const order: [string, string] = [standby.name, active.name];
  const holds: Record<string, string> = { [standby.name]: 'its previous config (untouched)', [active.name]: 'its previous config (untouched)' };
  const out = (outcome: PairOutcome, reason: string, failover?: PairReport['failover']): PairReport => ({ pair, outcome, reason, order, reports, holds, ...(failover ? { failover } : {}) });
  const bad = [standby, active].find((b) => b.refused);
  if (bad) return out('refused', `${bad.name} cannot be pushed (${bad.refused}): nothing was pushed to either box`);

  const done: Done[] = [];
  /** Pushes one box; undefined when all went well, else the pair report of the stop. */
  const pushBox = async (box: PairBox, role: 'standby' | 'active'): Promise<PairReport | undefined> => {
    for (const item of box.items) {
      const r = await pushConfig(item.target, item.text, item.keep ? { ...opts, keep: item.keep } : opts);
      reports.push(r);
      if (GOOD.has(r.outcome)) {
        done.push({ box: box.name, target: item.target, report: r });
        continue;
      }
      const what = `${role} ${box.name}: ${item.target.appliance} ${r.outcome}: ${r.reason}`;
      holds[box.name] = r.outcome === 'failed' ? `UNKNOWN: ${r.reason}` : r.outcome === 'refused' ? 'its previous config (the new one was refused before going live)' : 'its previous config (rolled back on the box)';
      const changed = done.some((d) => d.report.outcome === 'applied');
      const undone = await undo(done, opts, reports, holds);
      const outcome: PairOutcome = r.outcome === 'failed' || !undone ? 'failed' : r.outcome === 'refused' && !changed ? 'refused' : 'rolled-back';
      return out(outcome, `${what}; ${role === 'standby' ? `${active.name} was not touched` : `${standby.name} was put back on its previous config too`}${undone ? '' : ' (a restore failed: see the reports)'}`);
    }
    const same = box.items.length > 0 && done.filter((d) => d.box === box.name).every((d) => d.report.outcome === 'unchanged');
    holds[box.name] = opts.dryRun ? 'its previous config (dry run: validated only)' : same ? 'the new config (it already ran it)' : 'the new config';
    return undefined;
  };

  const first = await pushBox(standby, 'standby');
  if (first) return first;

  let failover: PairReport['failover'];
  if (opts.failover && !opts.dryRun) {
    failover = await failoverTest(standby, active, opts.failover, opts);
    if (!failover.ok) {
      holds[standby.name] = 'its previous config';
      const undone = await undo(done, opts, reports, holds);
      return out(undone ? 'rolled-back' : 'failed', `failover test: ${failover.reason}; ${standby.name} was put back on its previous config, ${active.name} was not pushed`, failover);
    }
  }

  const second = await pushBox(active, 'active');
  if (second) return { ...second, ...(failover ? { failover } : {}) };
  const outcome: PairOutcome = opts.dryRun ? 'would-apply' : reports.every((r) => r.outcome === 'unchanged') ? 'unchanged' : 'applied';
  const pending = reports.some((r) => r.pending) ? '; commit-confirmed on both boxes: one `confirm --pair` keeps both, else both roll back' : '';
  return out(outcome, `${outcome === 'applied' ? `${standby.name} then ${active.name} pushed, reloaded and verified` : outcome === 'unchanged' ? 'both boxes already run this config' : 'both boxes validated the new config; nothing applied'}${pending}`, failover);
}

/** Puts every pushed config back (newest first); false when one could not be. */
async function undo(done: Done[], opts: PairPushOptions, reports: PushReport[], holds: Record<string, string>): Promise<boolean> {
  let ok = true;
  const dir = syncDataDir(opts.dataDir);
  for (const d of done.splice(0).reverse()) {
    if (d.report.outcome !== 'applied') continue;
    const prev = d.report.previousHash;
    if (!prev) {
      holds[d.box] = `the new config: ${d.target.appliance} had no previous file to go back to`;
      ok = false;
      continue;
    }
    // A pending commit-confirmed push blocks every push: keep it, then push the old file back at once.
    if (d.report.pending) await confirmPush(d.target, { ...opts, dataDir: dir }).catch(() => undefined);
    const entry = (await listHistory(dir, d.target.appliance)).find((h) => h.hash === prev);
    if (!entry) {
      holds[d.box] = `the new config: the previous version of ${d.target.appliance} is not in the history`;
      ok = false;
      continue;
    }
    const { data } = await readHistory(dir, d.target.appliance, entry.id);
    // The exact bytes it had: not rendered onto again (manage: sections).
    const r = await pushConfig({ ...d.target, onto: undefined }, data, { ...opts, kind: 'restore', confirmWithinMs: undefined, dryRun: false });
    reports.push(r);
    if (r.outcome !== 'applied' && r.outcome !== 'unchanged') {
      holds[d.box] = `UNKNOWN: restoring ${d.target.appliance} ended ${r.outcome}: ${r.reason}`;
      ok = false;
    } else if (!holds[d.box]?.startsWith('UNKNOWN')) holds[d.box] = 'its previous config (restored by lbdesk)';
  }
  return ok;
}

/** The active box lets its addresses go, the standby must answer on them, the active takes them back. */
async function failoverTest(standby: PairBox, active: PairBox, test: FailoverTest, opts: PairPushOptions): Promise<{ ok: boolean; reason: string }> {
  const at = active.items[0]!.target;
  const st = standby.items[0]!.target;
  const a = await connectSsh(at.endpoint, opts);
  const s = await connectSsh(st.endpoint, opts);
  try {
    const rel = await a.exec(test.release, { timeoutMs: 30_000 });
    if (rel.code !== 0) return { ok: false, reason: `"${test.release}" on ${active.name} exited ${rel.code}` };
    const remote = Remote.for(s, st, opts);
    const method = verifyMethod(await remote.capabilities());
    if (method === 'none') return { ok: false, reason: `${standby.name} has neither bash nor nc to connect with: cannot test the failover` };
    const until = Date.now() + (test.timeoutMs ?? 10_000);
    const waiting = new Set(test.verify.map((v) => `${v.address}\t${v.port}`));
    while (waiting.size && Date.now() < until) {
      for (const key of [...waiting]) {
        const [address, port] = key.split('\t') as [string, string];
        if ((await remote.probe(address, Number(port), method)) === 0) waiting.delete(key);
      }
      if (waiting.size) await sleep(200);
    }
    const back = await a.exec(test.restore, { timeoutMs: 30_000 });
    if (waiting.size) return { ok: false, reason: `${standby.name} did not answer on ${[...waiting].map((k) => k.replace('\t', ':')).join(', ')} while ${active.name} had let go (${back.code === 0 ? `${active.name} took them back` : `"${test.restore}" on ${active.name} exited ${back.code}: LOOK AT IT`})` };
    if (back.code !== 0) return { ok: false, reason: `"${test.restore}" on ${active.name} exited ${back.code}: its addresses may still be on ${standby.name}` };
    return { ok: true, reason: `${standby.name} answered on ${test.verify.map((v) => `${v.address}:${v.port}`).join(', ')} while ${active.name} had let go; ${active.name} took them back` };
  } finally {
    a.close();
    s.close();
  }
}
