// `lbdesk push WS --appliance NAME …`: render, upload atomically, validate on the appliance,
// apply; with --confirm-within, the appliance rolls back unless `lbdesk confirm` follows.
// Exit 0 applied (or unchanged), 1 refused/failed with the appliance unchanged, 3 rolled back
// (or the appliance was touched and could not be rolled back cleanly).
// Also home of the options and loading that confirm, pull and diff share.
import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import type { FleetReport, PushProgress, PushReport } from '../../../shared/api/sync';
import { formatDuration, parseDuration } from '../../../shared/model/duration';
import { CONFIRM_WITHIN_MAX_MS, CONFIRM_WITHIN_MIN_MS } from '../../../shared/model/limits';
import type { Appliance, Workspace } from '../../../shared/model/schema';
import type { SshOptions } from '../../services/ssh';
import { pushFleet, readHistory, syncDataDir, type FleetItem } from '../../services/sync';
import { openAppliance, type ApplianceLink } from '../../services/sync/appliance';
import { pendingWatches } from '../../services/sync/vendor';
import { CliError, unprefixed } from '../errors';
import { CLI_SECRETS_HELP, cliSecretStore } from '../secrets-env';
import { pushPairCli } from './push-pair';
import { askOnTerminal } from '../../services/secrets/prompt';
import { readWorkspace } from '../workspace';
import { keptWords, loadKept, reloadKeeper } from '../../services/operate';

export interface SshCliOptions {
  appliance?: string[];
  all?: boolean;
  /** An HA pair: its two boxes (and each box's keepalived appliance). */
  pair?: string;
  knownHosts?: string;
  acceptNew?: boolean;
  identity?: string;
  sshConfig?: string;
}

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), ...v.split(',').map((s) => s.trim()).filter(Boolean)];

/** The SSH options every sync command takes. */
export function withSshOptions(cmd: Command, many: boolean): Command {
  cmd.option('--appliance <name>', many ? 'appliance to use (repeat, or comma-separate, for several)' : 'the appliance', collect);
  if (many) {
    cmd.option('--all', 'every appliance in the workspace');
    cmd.option('--pair <name>', 'an HA pair: both boxes (and their keepalived appliances), rolling: standby first, then active');
  }
  return cmd
    .option('--known-hosts <file>', 'known_hosts file to read and add to (default ~/.ssh/known_hosts)')
    .option('--accept-new', 'trust a host key never seen before (and add it); a changed key is always refused')
    .option('--identity <file>', 'private key to log in with, whatever the appliance\'s auth says')
    .option('--ssh-config <file>', 'ssh config file to use instead of ~/.ssh/config and /etc/ssh/ssh_config')
    .addHelpText('after', `\n${CLI_SECRETS_HELP}`);
}

export function sshOptionsFrom(o: SshCliOptions): SshOptions {
  return {
    ...(o.knownHosts ? { knownHostsFile: resolve(o.knownHosts) } : {}),
    ...(o.identity ? { identityFile: resolve(o.identity) } : {}),
    ...(o.sshConfig ? { sshConfigFile: resolve(o.sshConfig) } : {}),
    // LBDESK_SECRET_<NAME>, the keyring, then a prompt on the terminal (which the store does itself).
    secrets: cliSecretStore(),
    // A one-time code and other keyboard-interactive rounds: only where a terminal can answer.
    ...(process.stdin.isTTY ? { answerPrompts: (p) => askOnTerminal(p) } : {}),
    confirmHostKey: async (p) => {
      if (!o.acceptNew) return false;
      process.stderr.write(`lbdesk: ${p.appliance ?? ''}: accepted new host key for ${p.jump ? 'jump host ' : ''}${p.host}${p.port === 22 ? '' : `:${p.port}`}: ${p.keyType} ${p.fingerprint}\n`);
      return true;
    },
  };
}

export function pickAppliances(workspace: Workspace, names: string[] | undefined, all: boolean | undefined, many: boolean): Appliance[] {
  if (all) {
    if (workspace.appliances.length === 0) throw new CliError('the workspace has no appliances', 2);
    return workspace.appliances;
  }
  if (!names || names.length === 0) throw new CliError(`--appliance is required${many ? ' (or --all)' : ''}`, 2);
  // `--appliance lb1,lb1` (or twice): each appliance once, or the second push finds the first's lock.
  const unique = [...new Set(names)];
  // An unknown name first: `lb1,LB1` is a typo to name, not "one --appliance only".
  const picked = unique.map((n) => {
    const a = workspace.appliances.find((x) => x.name === n);
    if (!a) {
      const known = workspace.appliances.map((x) => x.name);
      throw new CliError(`unknown appliance "${n}" (known: ${known.length ? known.join(', ') : 'none, the workspace has no appliances'})`, 2);
    }
    return a;
  });
  if (!many && picked.length > 1) throw new CliError('one --appliance only for this command', 2);
  return picked;
}

/** Prepares (renders) every named appliance; `warn`: print the driver's warnings (push: what goes out is approximated). */
export async function prepareForSync(file: string, o: SshCliOptions, many: boolean, warn = false): Promise<{ path: string; workspace: Workspace; prepared: ApplianceLink[] }> {
  // A usage error is one before anything is read (an invalid workspace would otherwise exit 1).
  if (o.all && o.appliance?.length) throw new CliError('--all and --appliance name the appliances twice: give one of them', 2);
  if (o.pair !== undefined && (o.all || o.appliance?.length)) throw new CliError('--pair names the appliances itself: give --pair, --appliance or --all', 2);
  const { workspace, path } = await readWorkspace(file, { unreadable: 2, invalid: 1 });
  const names = o.pair !== undefined ? pairAppliances(workspace, o.pair) : o.appliance;
  const prepared = pickAppliances(workspace, names, o.all, many).map((a) => openAppliance(workspace, a, path));
  if (warn) for (const p of prepared) for (const w of p.render.warnings) process.stderr.write(`lbdesk: ${p.appliance.name}: warning: ${w.subject}: ${w.message}\n`);
  return { path, workspace, prepared };
}

/** The appliances of a pair: each member and its keepalived, in member order. */
export function pairAppliances(workspace: Workspace, name: string): string[] {
  const pair = workspace.pairs.find((p) => p.name === name);
  if (!pair) throw new CliError(`unknown pair "${name}" (known: ${workspace.pairs.length ? workspace.pairs.map((p) => p.name).join(', ') : 'none, the workspace has no pairs'})`, 2);
  return pair.members.flatMap((m) => (m.keepalived ? [m.appliance, m.keepalived] : [m.appliance]));
}

/** Commit-confirmed needs a rollback timer on the appliance: refused (exit 2) before anything is sent. */
export function refuseNoConfirm(prepared: ApplianceLink[]): void {
  const p = prepared.find((x) => x.noConfirm);
  if (p) throw new CliError(`${p.appliance.name}: ${p.noConfirm}`, 2);
}

export function durationOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined) throw new CliError(`${flag} "${value}" is not a duration (seconds, or 500ms, 10s, 5m, 1h)`, 2);
  if (ms <= 0) throw new CliError(/[1-9]/.test(value) ? `${flag} ${value} is shorter than 1ms` : `${flag} ${value} must be more than 0`, 2);
  return ms;
}

function intOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new CliError(`${flag} must be a positive whole number`, 2);
  return Number(value);
}

function progressLine(e: PushProgress): string | undefined {
  if (e.status === 'start') return undefined;
  return `${e.appliance}: ${e.step} ${e.status}${e.message ? ` (${unprefixed(e.appliance, e.message)})` : ''}`;
}

export { progressLine };

export function exitCodeFor(reports: PushReport[]): number {
  if (reports.some((r) => r.outcome === 'rolled-back' || r.outcome === 'failed')) return 3;
  if (reports.some((r) => r.outcome === 'refused' || r.outcome === 'skipped')) return 1;
  return 0;
}

interface PushCliOptions extends SshCliOptions {
  dryRun?: boolean;
  confirmWithin?: string;
  force?: boolean;
  verify: boolean;
  verifyTimeout?: string;
  concurrency?: string;
  canary?: string;
  maxFailures?: string;
  restore?: string;
  json?: boolean;
  quiet?: boolean;
  failoverTest?: boolean;
  failoverRelease: string;
  failoverRestore: string;
}

export type { PushCliOptions };

export function register(program: Command): void {
  const cmd = program
    .command('push')
    .description('render, upload atomically, validate on the appliance and apply (exit 0 applied, 1 refused with the appliance unchanged, 3 rolled back)')
    .argument('<workspace>', 'workspace file');
  withSshOptions(cmd, true)
    .option('--dry-run', 'upload to a temp file and validate on the appliance; change nothing')
    .option('--confirm-within <duration>', 'commit-confirmed: the appliance restores the previous config unless `lbdesk confirm` arrives in time (a vendor box without its own timer: applied unsaved, and this process waits to send the inverse)')
    .option('--force', 'overwrite a remote config changed since the last pull or push')
    .option('--no-verify', 'skip connecting to the VIPs from the appliance after the reload')
    .option('--verify-timeout <duration>', 'how long the VIPs may take to answer after a reload (default 5s)')
    .option('--concurrency <n>', 'appliances pushed at once (default 8)')
    .option('--canary <n>', 'push this many appliances first, one by one; stop if one fails')
    .option('--max-failures <n>', 'stop starting new pushes after this many failures')
    .addOption(new Option('--restore <id>', 'push a version from the appliance\'s history (see `lbdesk pull --history`) instead of rendering'))
    .option('--failover-test', 'with --pair: between the boxes, move the addresses to the pushed standby and check it answers on them')
    .option('--failover-release <command>', 'with --failover-test: run on the active box to let its addresses go', 'systemctl stop keepalived')
    .option('--failover-restore <command>', 'with --failover-test: run on the active box to take them back', 'systemctl start keepalived')
    .option('--json', 'print the report as JSON on stdout')
    .option('--quiet', 'no progress lines on stderr')
    .action(async (file: string, o: PushCliOptions) => {
      const confirmWithinMs = durationOption(o.confirmWithin, '--confirm-within');
      if (confirmWithinMs !== undefined && (confirmWithinMs < CONFIRM_WITHIN_MIN_MS || confirmWithinMs > CONFIRM_WITHIN_MAX_MS)) {
        throw new CliError(`--confirm-within ${o.confirmWithin} is out of range: from ${formatDuration(CONFIRM_WITHIN_MIN_MS)} (time for the push and the confirm) to ${formatDuration(CONFIRM_WITHIN_MAX_MS)}`, 2);
      }
      const verifyTimeoutMs = durationOption(o.verifyTimeout, '--verify-timeout');
      const concurrency = intOption(o.concurrency, '--concurrency');
      const canary = intOption(o.canary, '--canary');
      const maxFailures = intOption(o.maxFailures, '--max-failures');
      if (o.pair !== undefined) {
        if (o.restore || o.canary || o.concurrency || o.maxFailures) throw new CliError('--pair pushes one box at a time by itself: --restore, --canary, --concurrency and --max-failures do not apply', 2);
        await pushPairCli(file, o, { confirmWithinMs, verifyTimeoutMs });
        return;
      }
      if (o.failoverTest) throw new CliError('--failover-test needs --pair', 2);
      const { prepared, workspace } = await prepareForSync(file, o, true, true);
      if (o.restore && prepared.length !== 1) throw new CliError('--restore takes exactly one --appliance', 2);
      const dataDir = syncDataDir();
      const items: FleetItem[] = [];
      if (confirmWithinMs !== undefined) refuseNoConfirm(prepared);
      for (const p of prepared) {
        if (p.errors.length) {
          items.push({ target: p.target, refused: `cannot render: ${p.errors.join('; ')}` });
          continue;
        }
        let text: string | Buffer = p.render.text;
        if (o.restore) {
          const { entry, data } = await readHistory(dataDir, p.appliance.name, o.restore).catch((err: Error) => { throw new CliError(err.message, 2); });
          process.stderr.write(`lbdesk: ${p.appliance.name}: restoring ${entry.id} (${entry.kind} of ${new Date(entry.at).toISOString()})\n`);
          text = data;
        }
        const config = text;
        // Members drained or in maintenance at run time stay so: named now, set again after the reload.
        const kept = await loadKept(dataDir, p.appliance.name);
        for (const k of kept) process.stderr.write(`lbdesk: ${p.appliance.name}: ${o.dryRun ? 'would keep' : 'keeps'} ${keptWords(k)}\n`);
        const keep = o.dryRun ? undefined : await reloadKeeper({ workspace, appliance: p.appliance, target: p.target }, dataDir);
        items.push({ target: p.target, run: (shared) => p.push(config, { ...shared, ...(keep ? { keep } : {}) }) });
      }
      const report: FleetReport = await pushFleet(items, {
        ...sshOptionsFrom(o),
        dataDir,
        dryRun: o.dryRun,
        force: o.force,
        confirmWithinMs,
        skipVerify: !o.verify,
        verifyTimeoutMs,
        concurrency,
        canary,
        maxFailures,
        kind: o.restore ? 'restore' : 'push',
        onProgress: (e) => {
          const line = o.quiet || o.json ? undefined : progressLine(e);
          if (line) process.stderr.write(`${line}\n`);
        },
      });
      if (o.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        for (const r of report.reports) {
          process.stdout.write(`${r.appliance}: ${r.outcome}: ${unprefixed(r.appliance, r.reason)}\n`);
          for (const n of r.notes) process.stdout.write(`${r.appliance}: note: ${n}\n`);
          if (r.pending) process.stdout.write(`${r.appliance}: confirm with: lbdesk confirm ${file} --appliance ${r.appliance}\n`);
        }
        if (report.reports.length > 1) {
          const counts = Object.entries(report.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
          process.stdout.write(`${report.reports.length} appliances: ${counts} in ${(report.durationMs / 1000).toFixed(1)}s${report.stopped ? ` (stopped: ${report.stopped})` : ''}\n`);
        }
      }
      process.exitCode = exitCodeFor(report.reports);
      await waitForConfirm(o.quiet || o.json);
    });
}

/**
 * A vendor box without a timer of its own: this process is what sends the inverse at the
 * deadline, so it waits for it (or for `lbdesk confirm` from elsewhere) before it exits.
 */
async function waitForConfirm(quiet?: boolean): Promise<void> {
  const watches = pendingWatches();
  if (!watches.length) return;
  if (!quiet) process.stderr.write(`lbdesk: waiting for lbdesk confirm (from another terminal or the window) until the deadline, when this process sends the inverse; stopped before then (Ctrl-C), it sends nothing and the change stays running unsaved until the box reloads\n`);
  for (const w of watches) {
    const r = await w.done;
    const line = r.outcome === 'confirmed' ? 'confirmed: saved on the box'
      : r.outcome === 'rolled-back' ? `not confirmed: the inverse was sent at ${new Date(r.at).toISOString()}, nothing saved; the running config is the one before the push`
        : r.reason;
    process.stdout.write(`${w.appliance}: ${line}\n`);
    if (r.outcome !== 'confirmed') process.exitCode = 3;
  }
}
