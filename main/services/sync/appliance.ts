// One appliance as every caller (the API, the CLI) sees it: its config rendered by its driver,
// and diff, push, pull and confirm over its transport. One factory per transport: a config file
// replaced atomically and reloaded (haproxy, keepalived, lbdesk), or a vendor's command line
// (`driver: cli`); the choice is made here, once, so no caller asks which kind it holds.
import { isAbsolute } from 'node:path';
import { ApiError } from '../../../shared/api/contract';
import type { ConfirmReport, DiffReport, HistoryEntry, PushReport } from '../../../shared/api/sync';
import type { Appliance, Workspace } from '../../../shared/model/schema';
import { ownAddress } from '../../../shared/model/pairs';
import { driverFacts } from '../../../shared/model/drivers';
import { getDriver, renderForAppliance, selectIncluded, type ApplianceRender, type BatchApply, type CommandDriven } from '../drivers';
import { confirmPush } from './confirm-push';
import { diffConfig, pullConfig, renderOntoLive, type OntoNow, type ReadOptions } from './pull';
import { pushConfig, type PushOptions } from './push';
import { endpointOf, type OntoOutcome, type SyncTarget, type VerifyTarget } from './target';
import { renderOnto } from '../drivers/sections';
import { diffCli, pullCli } from './commands/pull';
import { pushCli } from './commands/apply';
import { cliTarget, cliWhere, type CliTarget } from './commands/target';
import { diffCliTexts } from './commands/diff';
import { pushCommands } from './commands/steps';
import { batchWhere, pullBatch, pushBatch } from './commands/batch';
import { confirmCommands, readPending } from './commands/confirm';
import { syncDataDir } from './state';
import { heldMembers, heldNotes, loadKept, type KeptMember } from './kept';
import { NO_CONFIRM_BATCH, NO_CONFIRM_CLI, noConfirmFor } from './refusals';

export interface PulledConfig {
  data: Buffer;
  /** The host it came from. */
  target: string;
  /** Where the config lives on the appliance. */
  where: string;
  /** How it was read, when the transport had a choice (sftp, scp, shell). */
  via?: string;
  entry?: HistoryEntry;
}

export interface ApplianceLink {
  appliance: Appliance;
  /** The config its driver renders from the workspace. */
  render: ApplianceRender;
  /** Why this appliance cannot be pushed (render errors, bad paths), one line each. */
  errors: string[];
  /** Endpoint and where the config goes, for reports (a fleet's included). */
  target: SyncTarget;
  /** Where the config lives on the appliance, for reports and diff headers. */
  where: string;
  /** Why commit-confirmed (push --confirm-within, confirm) cannot be used here; undefined: it can. */
  noConfirm?: string;
  /** What a push of `text` (default: the rendered config, onto the live file with manage: sections; a given text goes as it is) would change. */
  diff(opts: ReadOptions, text?: string | Buffer): Promise<DiffReport>;
  /** The file a push would leave: with manage: sections rendered onto the appliance's file as it
   * is now (read over SSH: `render --onto`), else the plain render (offline, `onto` unset). */
  leaves(opts: ReadOptions): Promise<{ text: string; onto?: OntoNow }>;
  /** leaves() reads the appliance (manage: sections, command-driven): it needs a login; else offline. */
  leavesFromBox: boolean;
  push(text: string | Buffer, opts: PushOptions): Promise<PushReport>;
  pull(opts: ReadOptions): Promise<PulledConfig>;
  confirm(opts: ReadOptions): Promise<ConfirmReport>;
}

/** A wildcard bind is checked on loopback: that is where the appliance itself can reach it. */
function probeAddress(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '::1';
  return address;
}

/**
 * VIPs to connect to after a reload: the appliance's enabled TCP services, for the drivers whose
 * facts say so (not keepalived, whose VIPs live on whichever node is master).
 */
export function verifyTargets(workspace: Workspace, appliance: Appliance): VerifyTarget[] {
  if (!driverFacts(appliance.driver).verifyVip) return [];
  const included = selectIncluded(workspace, appliance);
  return included.services
    .filter((s) => s.enabled && s.protocol === 'tcp')
    // A box of an HA pair is checked on its own address: the virtual one may be on its mate.
    .map((s) => ({ address: ownAddress(workspace, appliance.name, s.address) ?? probeAddress(s.address), port: s.port }));
}

function sshTarget(workspace: Workspace, appliance: Appliance, render: ApplianceRender, workspacePath: string): SyncTarget {
  let volatile: RegExp[] = [];
  let listeners: ((text: string) => VerifyTarget[]) | undefined;
  try {
    ({ volatile, listeners } = getDriver(appliance.driver));
  } catch { /* reported by render */ }
  return {
    appliance: appliance.name,
    endpoint: endpointOf(appliance),
    configPath: render.configPath,
    validateCommand: render.validateCommand || undefined,
    reloadCommand: render.reloadCommand,
    verify: verifyTargets(workspace, appliance),
    // A file lbdesk keeps part of: every listener it has is verified, the site's own included.
    ...(listeners && appliance.manage === 'sections' ? { verifyFile: (data: Buffer) => listeners(data.toString('utf8')) } : {}),
    volatile,
    // auto: SFTP, else plain exec (`cat`); scp: the SCP protocol over exec (main/services/transfer).
    transfer: appliance.transfer,
    ...(appliance.become ? { become: appliance.become } : {}),
    workspace: workspacePath,
  };
}

/** A config file replaced atomically, validated, reloaded and verified (main/services/sync). */
function fileAppliance(appliance: Appliance, render: ApplianceRender, target: SyncTarget, renderErrors: string[]): ApplianceLink {
  const errors = [...renderErrors];
  if (!render.configPath) errors.push(`appliance ${appliance.name}: no configPath`);
  else if (!isAbsolute(render.configPath)) errors.push(`appliance ${appliance.name}: configPath must be absolute (${render.configPath})`);
  if (!render.reloadCommand) errors.push(`appliance ${appliance.name}: no reloadCommand`);
  // Pull and confirm need only the file's place; a render problem elsewhere does not stop them.
  const exact: SyncTarget = { ...target, onto: undefined };
  const needPath = () => {
    if (!target.configPath) throw new ApiError('refused', `${appliance.name}: ${errors.join('; ')}`);
  };
  return {
    appliance, render, errors, target, where: target.configPath, leavesFromBox: target.onto !== undefined,
    // A given text (a stored version restored) goes as it is: never rendered onto the live file again.
    diff: (opts, text) => (text === undefined ? diffConfig(target, render.text, opts) : diffConfig(exact, text, opts)),
    async leaves(opts) {
      if (!target.onto) return { text: render.text };
      needPath();
      const onto = await renderOntoLive(target, opts);
      return { text: onto.text, onto };
    },
    push: (text, opts) => pushConfig(opts.kind === 'restore' ? exact : target, text, opts),
    async pull(opts) {
      needPath();
      const r = await pullConfig(target, opts);
      return { data: r.data, target: r.target, where: target.configPath, entry: r.entry };
    },
    async confirm(opts) {
      needPath();
      return confirmPush(target, opts);
    },
  };
}

/** A vendor's command line: commands in an interactive session, rolled back on error (./vendor). */
function vendorAppliance(appliance: Appliance, render: ApplianceRender, target: SyncTarget, errors: string[], cli: CliTarget): ApplianceLink {
  const refuse = () => new ApiError('unsupported', noConfirmFor(appliance.name, NO_CONFIRM_CLI));
  const text = (t: string | Buffer) => (typeof t === 'string' ? t : t.toString('utf8'));
  return {
    appliance, render, errors, target, where: cliWhere(cli), noConfirm: NO_CONFIRM_CLI, leavesFromBox: false,
    diff: (opts, t = render.text) => diffCli(cli, text(t), opts),
    leaves: async () => ({ text: render.text }),
    push(t, opts) {
      if (opts.confirmWithinMs !== undefined) throw refuse();
      return pushCli(cli, text(t), opts);
    },
    async pull(opts) {
      const r = await pullCli(cli, opts);
      return { data: r.data, target: r.target, where: cliWhere(cli), via: r.via, ...(r.entry ? { entry: r.entry } : {}) };
    },
    confirm: async () => {
      throw refuse();
    },
  };
}

/**
 * A box changed by commands its driver computes from the running config read at push time
 * (driver adx…): each step with its inverse, saved only after all were accepted (./vendor/commands).
 */
function commandAppliance(workspace: Workspace, appliance: Appliance, render: ApplianceRender, target: SyncTarget, driver: CommandDriven, cli: CliTarget): ApplianceLink {
  // Members drained or in maintenance at run time (lbdesk drain/maint) stay so through a push.
  const held = async (dataDir?: string) => loadKept(syncDataDir(dataDir), appliance.name);
  const planWith = (running: string, kept: KeptMember[]) => driver.plan(workspace, appliance, running, heldMembers(kept));
  const where = cliWhere(cli);
  return {
    appliance, render, errors: [], target, where, leavesFromBox: true,
    async diff(opts) {
      const pulled = await pullCli(cli, { ...opts, record: false });
      const p = planWith(pulled.data.toString('utf8'), await held(opts.dataDir));
      if (p.errors.length) throw new ApiError('refused', `${appliance.name}: ${p.errors.map((e) => `${e.subject}: ${e.message}`).join('; ')}`);
      return diffCliTexts(cli, pulled.data, p.after);
    },
    // What the box's running config reads after a push: its own config with the plan applied.
    async leaves(opts) {
      const pulled = await pullCli(cli, { ...opts, record: false });
      return { text: planWith(pulled.data.toString('utf8'), await held(opts.dataDir)).after };
    },
    async push(_t, opts) {
      // A change not yet confirmed is not pushed over: its inverse is computed from the box before it.
      const waiting = await pendingFor(syncDataDir(opts.dataDir), cli);
      if (waiting) throw new ApiError('refused', `${appliance.name}: ${waiting}`);
      // The push is computed from the box's running config, not from a text: an old version is
      // brought back by restoring the workspace it came from, not by replaying a pulled file.
      if (opts.kind === 'restore') throw new ApiError('unsupported', `${appliance.name}: --restore is not supported for command-driven appliances: check out the workspace version and push it`);
      const kept = await held(opts.dataDir);
      const r = await pushCommands(cli, driver, (running) => planWith(running, kept), opts);
      r.notes.push(...heldNotes(kept));
      return r;
    },
    async pull(opts) {
      const r = await pullCli(cli, opts);
      return { data: r.data, target: r.target, where: cliWhere(cli), via: r.via, ...(r.entry ? { entry: r.entry } : {}) };
    },
    confirm: (opts) => confirmCommands(cli, driver, where, { ...opts, dataDir: syncDataDir(opts.dataDir) }),
  };
}

/**
 * A box whose own tool applies a batch file (driver pingdirectory): the plan's commands from its
 * configuration read at push time, sent as one batch over SSH exec, the inverse on a refusal (./vendor/batch).
 */
function batchAppliance(workspace: Workspace, appliance: Appliance, render: ApplianceRender, target: SyncTarget, driver: CommandDriven, tool: BatchApply, cli: CliTarget): ApplianceLink {
  const refuse = () => new ApiError('unsupported', noConfirmFor(appliance.name, NO_CONFIRM_BATCH));
  const plan = (running: string) => driver.plan(workspace, appliance, running);
  const where = batchWhere(tool);
  const planned = (running: Buffer) => {
    const p = plan(running.toString('utf8'));
    if (p.errors.length) throw new ApiError('refused', `${appliance.name}: ${p.errors.map((e) => `${e.subject}: ${e.message}`).join('; ')}`);
    return p;
  };
  // No server root or bind secret: refused before any login (a render problem is the push's own, at push time).
  const errors = [tool.show(appliance), tool.apply(appliance)].flatMap((r) => ('refused' in r ? [r.refused] : [])).slice(0, 1);
  return {
    appliance, render, errors, target, where, noConfirm: NO_CONFIRM_BATCH, leavesFromBox: true,
    async diff(opts) {
      const pulled = await pullBatch(cli, appliance, tool, { ...opts, record: false });
      return diffCliTexts({ ...cli, settings: { ...cli.settings, uploadPath: where } }, pulled.data, planned(pulled.data).after);
    },
    async leaves(opts) {
      const pulled = await pullBatch(cli, appliance, tool, { ...opts, record: false });
      return { text: plan(pulled.data.toString('utf8')).after };
    },
    push(_t, opts) {
      if (opts.confirmWithinMs !== undefined) throw refuse();
      if (opts.kind === 'restore') throw new ApiError('unsupported', `${appliance.name}: --restore is not supported for command-driven appliances: check out the workspace version and push it`);
      return pushBatch(cli, appliance, tool, plan, opts);
    },
    async pull(opts) {
      const r = await pullBatch(cli, appliance, tool, opts);
      return { data: r.data, target: r.target, where, via: 'shell', ...(r.entry ? { entry: r.entry } : {}) };
    },
    confirm: async () => {
      throw refuse();
    },
  };
}

/** Why a push must wait: a commit-confirmed push to this box not confirmed nor undone yet. */
async function pendingFor(dir: string, cli: CliTarget): Promise<string | undefined> {
  const p = await readPending(dir, cli.appliance, cliWhere(cli));
  if (!p) return undefined;
  if (p.unsent) return `a commit-confirmed push was not confirmed and its inverse was not sent (${p.unsent}): run lbdesk confirm to keep it, then push`;
  return `a commit-confirmed push is pending until ${new Date(p.deadline).toISOString()}: run lbdesk confirm, or wait for lbdesk to send its inverse`;
}

/** The appliance named in the workspace, rendered, with its transport. */
export function openAppliance(workspace: Workspace, appliance: Appliance, workspacePath: string): ApplianceLink {
  const render = renderForAppliance(workspace, appliance, { workspacePath });
  // manage: sections renders onto the live file at push time, with its own errors then; the
  // whole-file render (e.g. "nothing to serve" when every listener is hand-written) does not apply.
  const sections = appliance.manage === 'sections' && driverFacts(appliance.driver).sections === 'file';
  // A command-driven box is rendered onto its running config at push time: the plain render's
  // problems (from an empty box) are not the push's.
  const errors = sections ? [] : render.errors.map((e) => `${e.subject}: ${e.message}`);
  const target = sshTarget(workspace, appliance, render, workspacePath);
  if (sections) target.onto = ontoFor(workspace, appliance, workspacePath, render.configPath);
  const commands = getDriver(appliance.driver).commands;
  if (commands?.batch) return batchAppliance(workspace, appliance, render, target, commands, commands.batch, cliTarget(appliance, workspacePath));
  if (commands) {
    const cli = withDriverPatterns(cliTarget(appliance, workspacePath), appliance, commands);
    // The dialect's own show command, unless the workspace names another.
    if (cli.settings.pullCommand === 'show running-config') cli.settings = { ...cli.settings, pullCommand: commands.show };
    return commandAppliance(workspace, appliance, render, target, commands, cli);
  }
  // A vendor CLI has no config file to replace and no reload command: its commands are the config.
  if (driverFacts(appliance.driver).template) return vendorAppliance(appliance, render, target, errors, cliTarget(appliance, workspacePath));
  return fileAppliance(appliance, render, target, errors);
}

/** The dialect's own prompt, pager and errors (tmsh's prompt is nothing like Cisco's) unless `cli:` sets them. */
export function withDriverPatterns(cli: CliTarget, appliance: Appliance, driver: CommandDriven): CliTarget {
  const own = driver.patterns;
  if (!own) return cli;
  const set = appliance.cli;
  return {
    ...cli,
    patterns: {
      ...cli.patterns,
      ...(own.prompt && !set?.prompt ? { prompt: own.prompt } : {}),
      ...(own.pager && !set?.pager ? { pager: own.pager } : {}),
      ...(own.pagerKey ? { pagerKey: own.pagerKey } : {}),
      ...(own.errors && !set?.errors?.length ? { errors: own.errors } : {}),
    },
  };
}

/** manage: sections: the push and the diff render onto the live file (its bytes outside owned sections kept). */
function ontoFor(workspace: Workspace, appliance: Appliance, workspacePath: string, configPath: string): SyncTarget['onto'] {
  return (live, base, force): OntoOutcome => {
    if (live === undefined) return { refused: `manage: sections needs the appliance's ${configPath}, and it does not exist: push once with manage: file, or create it`, conflicts: [] };
    const r = renderOnto(workspace, appliance, live.toString('utf8'), { workspacePath }, { file: `${appliance.name}:${configPath}`, base: base?.toString('utf8'), force });
    if (r.errors.length) return { refused: r.errors.map((e) => `${e.subject}: ${e.message}`).join('; '), conflicts: r.conflicts };
    return { data: Buffer.from(r.text, 'utf8'), conflicts: r.conflicts };
  };
}
