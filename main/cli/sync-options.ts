// The options and loading the sync commands share (push, confirm, pull, diff, import, operate,
// report): which appliances, how to log in, and the values every one of them parses alike.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { PushProgress } from '../../shared/api/sync';
import { parseDuration } from '../../shared/model/duration';
import type { Appliance, Workspace } from '../../shared/model/schema';
import type { SshOptions } from '../services/ssh';
import { openAppliance, type ApplianceLink } from '../services/sync/appliance';
import { askOnTerminal } from '../services/secrets/prompt';
import { noConfirmFor, unknownAppliance, unknownPair } from '../services/sync/refusals';
import { CliError, unprefixed } from './errors';
import { CLI_SECRETS_HELP, cliSecretStore } from './secrets-env';
import { readWorkspace } from './workspace';

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
    if (!a) throw new CliError(unknownAppliance(n, workspace.appliances.map((x) => x.name)), 2);
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
  if (!pair) throw new CliError(unknownPair(name, workspace.pairs.map((p) => p.name)), 2);
  return pair.members.flatMap((m) => (m.keepalived ? [m.appliance, m.keepalived] : [m.appliance]));
}

/** Commit-confirmed needs a rollback timer on the appliance: refused (exit 2) before anything is sent. */
export function refuseNoConfirm(prepared: ApplianceLink[]): void {
  const p = prepared.find((x) => x.noConfirm);
  if (p?.noConfirm) throw new CliError(noConfirmFor(p.appliance.name, p.noConfirm), 2);
}

export function durationOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined) throw new CliError(`${flag} "${value}" is not a duration (seconds, or 500ms, 10s, 5m, 1h)`, 2);
  if (ms <= 0) throw new CliError(/[1-9]/.test(value) ? `${flag} ${value} is shorter than 1ms` : `${flag} ${value} must be more than 0`, 2);
  return ms;
}

export function intOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new CliError(`${flag} must be a positive whole number`, 2);
  return Number(value);
}

/** One progress event as a stderr line (a step's start is not printed). */
export function progressLine(e: PushProgress): string | undefined {
  if (e.status === 'start') return undefined;
  return `${e.appliance}: ${e.step} ${e.status}${e.message ? ` (${unprefixed(e.appliance, e.message)})` : ''}`;
}
