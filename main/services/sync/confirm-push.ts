// `confirm`: keep a commit-confirmed push by stopping its timer on the appliance.
import type { ConfirmReport } from '../../../shared/api/sync';
import { connectSsh, type SshConnection, type SshOptions } from '../ssh/connect';
import { acknowledgeFired, disarmTimer } from './confirm';
import { settleConfirm } from './history';
import { Remote } from './remote';
import { loadState, saveState, syncDataDir } from './state';
import type { SyncTarget } from './target';

export async function confirmPush(target: SyncTarget, opts: SshOptions & { dataDir?: string; connection?: SshConnection } = {}): Promise<ConfirmReport> {
  const dir = syncDataDir(opts.dataDir);
  const conn = opts.connection ?? await connectSsh(target.endpoint, opts);
  try {
    const remote = Remote.for(conn, target, opts);
    const r = await disarmTimer(remote);
    const state = await loadState(dir, conn.label, target.configPath);
    const base = { appliance: target.appliance, target: conn.label, configPath: target.configPath, ...state, updatedAt: Date.now() };
    if (r.outcome === 'confirmed') {
      if (state?.pending) await saveState(dir, { ...base, hash: state.pending.hash, pending: undefined });
      await settleConfirm(dir, target.appliance, state?.pending?.hash, 'confirmed').catch(() => undefined);
      return { appliance: target.appliance, outcome: 'confirmed', reason: `confirmed: ${target.configPath} stays; the rollback timer is stopped` };
    }
    if (r.outcome === 'too-late') {
      await acknowledgeFired(remote);
      if (state?.pending) await saveState(dir, { ...base, hash: state.pending.backupHash, pending: undefined });
      await settleConfirm(dir, target.appliance, r.hash ?? state?.pending?.hash, 'rolled-back', r.firedAt).catch(() => undefined);
      const when = r.firedAt ? ` at ${new Date(r.firedAt).toISOString()}` : '';
      return { appliance: target.appliance, outcome: 'too-late', reason: `too late: the appliance restored the previous config${when} (reload exit ${r.rc ?? '?'})` };
    }
    return { appliance: target.appliance, outcome: 'none', reason: 'nothing is pending on this appliance' };
  } finally {
    if (!opts.connection) conn.close();
  }
}
