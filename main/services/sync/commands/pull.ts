// Pull and diff for vendor appliances: the running config by SFTP/SCP when the appliance
// exposes it as a file (configPath), else the CLI's `show running-config` (paged, prompted).
import type { DiffReport, HistoryEntry } from '../../../../shared/api/sync';
import { connectSsh, type SshConnection, type SshOptions } from '../../ssh/connect';
import { listHistory, recordHistory } from '../history';
import { syncDataDir } from '../state';
import { openTransfer } from '../../transfer';
import { BoxSession } from './box-session';
import { diffCliTexts } from './diff';
import { redact } from './redact';
import { cliWhere, type CliTarget } from './target';
import { sha256 } from '../../hash';

export interface CliReadOptions extends SshOptions {
  dataDir?: string;
  connection?: SshConnection;
  /** Keep the pulled version in history (default true for pull, false for diff). */
  record?: boolean;
}

export interface CliPullResult {
  data: Buffer;
  hash: string;
  target: string;
  via: 'sftp' | 'scp' | 'shell';
  entry?: HistoryEntry;
}


async function readRunning(target: CliTarget, conn: SshConnection): Promise<{ data: Buffer; via: CliPullResult['via'] }> {
  const timeoutMs = target.settings.timeout;
  if (target.configPath) {
    const xfer = await openTransfer(conn, target.transfer, { timeoutMs });
    return { data: await xfer.read(target.configPath, { timeoutMs }), via: xfer.kind };
  }
  const session = await BoxSession.open(conn.client, { patterns: target.patterns, timeoutMs, label: conn.label });
  try {
    const r = await session.run(target.settings.pullCommand);
    if (r.error !== undefined) throw new Error(`${conn.label}: "${target.settings.pullCommand}" failed: ${redact(r.error)}`);
    return { data: Buffer.from(r.output.endsWith('\n') || r.output === '' ? r.output : `${r.output}\n`, 'utf8'), via: 'shell' };
  } finally {
    session.close();
  }
}

export async function pullCli(target: CliTarget, opts: CliReadOptions = {}): Promise<CliPullResult> {
  const conn = opts.connection ?? await connectSsh(target.endpoint, opts);
  try {
    const { data, via } = await readRunning(target, conn);
    const hash = sha256(data);
    let entry: HistoryEntry | undefined;
    if (opts.record !== false) {
      const dir = syncDataDir(opts.dataDir);
      entry = (await listHistory(dir, target.appliance).catch(() => [])).filter((e) => e.hash === hash).pop()
        ?? await recordHistory(dir, { appliance: target.appliance, kind: 'pull', data, target: conn.label, configPath: cliWhere(target) });
    }
    return { data, hash, target: conn.label, via, ...(entry ? { entry } : {}) };
  } finally {
    if (!opts.connection) conn.close();
  }
}

/** What push would change: the running config against the rendered config section. */
export async function diffCli(target: CliTarget, rendered: string, opts: CliReadOptions = {}): Promise<DiffReport> {
  const pulled = await pullCli(target, { ...opts, record: opts.record ?? false });
  return diffCliTexts(target, pulled.data, rendered);
}
