// What every appliance driver offers; the SSH sync service builds on this only.
import type { KeptSections } from './sections/haproxy-kept';
import type { Appliance, DriverName, Workspace } from '../../../shared/model/schema';
import type { ImportResult } from '../import/types';
import type { LiveDialect } from './live';
import type { OntoOptions, OntoResult } from './sections/types';

export interface DriverProblem {
  /** The service, target set or group named (e.g. `service dns-vip`). */
  subject: string;
  message: string;
}

export interface RenderResult {
  /** The complete file to upload; deterministic for the same input. */
  text: string;
  /** Parts the driver cannot express: rendering is refused when non-empty. */
  errors: DriverProblem[];
  /** Lossy but safe approximations, each named. */
  warnings: DriverProblem[];
}

// The defaults live with the driver's facts in shared/ (the editor shows them); the registry test
// checks each Driver's own against them.
import type { DriverDefaults } from '../../../shared/model/drivers';
export type { DriverDefaults };

export interface RenderContext {
  /** Absolute path of the workspace file, for headers and relative templates. */
  workspacePath: string;
}

export interface Driver {
  name: DriverName;
  defaults: DriverDefaults;
  render(workspace: Workspace, appliance: Appliance, ctx: RenderContext): RenderResult;
  /** Lines that change on their own (clock, counters), masked before diffing. */
  volatile: RegExp[];
  /** Every TCP address a config file of this driver listens on (what a push of a kept-sections file verifies). */
  listeners?: (text: string) => { address: string; port: number }[];
  /** What the box's file keeps that names the workspace's groups (frontends, balance): read-only context. */
  kept?: (text: string, groups: Set<string>, services: Set<string>) => KeptSections;
  /** A box changed by commands computed from its running config (the vendor dialects). */
  commands?: CommandDriven;
  /** Its members' live state and runtime admin changes, by its show and enable/disable commands. */
  live?: LiveDialect;
  /** `manage: sections` on a config file: the workspace's sections patched into the file the box holds. */
  onto?: (workspace: Workspace, appliance: Appliance, current: string, opts: OntoOptions) => OntoResult;
  /** `lbdesk compare`: why the driver's software cannot run here, undefined when it can (absent: it has none that runs locally). */
  runsHere?: () => string | undefined;
  /** Reads the box's running config into a workspace (`lbdesk import --driver`). */
  importer?: (text: string, file: string, opts: { taken?: { servers?: Iterable<string> }; existingServers?: { name: string; address: string }[] }) => ImportResult;
}

/** A change and what undoes it, each a list of config-mode commands entered and left in full. */
export interface CommandStep {
  /** `create real server web3`, `weight of web2 2 -> 5`… */
  what: string;
  commands: string[];
  inverse: string[];
}

/** A workspace member held out at run time (main/services/sync/kept.ts). */
export interface HeldMember {
  group: string;
  server: string;
  port?: number;
  admin: 'drain' | 'maint';
}

export interface CommandPlan {
  steps: CommandStep[];
  /** The running config as it will read after the steps (the input's bytes when there are none). */
  after: string;
  errors: DriverProblem[];
  warnings: DriverProblem[];
}

export interface CommandDriven {
  /**
   * The steps from the box's running config to the workspace's owned objects. `held`: members an
   * operator drained or put in maintenance at run time (lbdesk drain/maint): the plan leaves
   * their runtime state (a disabled server, port or member) as it is until they are set ready.
   */
  plan(workspace: Workspace, appliance: Appliance, running: string, held?: HeldMember[]): CommandPlan;
  /** The CLI's prompt, when the default pattern does not know it (NetScaler's bare `> `). */
  prompt?: RegExp;
  /** Sent first when the CLI greets with an unprivileged prompt (`ADX>`). */
  enable?: string;
  /** Sent first: paging off, configuration mode. */
  prologue: string[];
  /** Sent after every step was accepted: leave configuration mode, save. */
  save: string[];
  /** Leaves configuration mode without saving (after a rollback). */
  leave: string[];
  /** Prints the running config. */
  show: string;
  /** The CLI's own prompt, pager and error lines, used unless the appliance's `cli:` sets them. */
  patterns?: { prompt?: RegExp; pager?: RegExp; pagerKey?: string; errors?: RegExp[] };
  /**
   * The box applies a change whole or not at all (tmsh `create cli transaction`): `begin` before
   * the first command, `submit` after the last; a command or the submit refused leaves the box
   * unchanged, so nothing is undone by inverse commands; `abort` drops a transaction begun.
   */
  transaction?: { begin: string; submit: string; abort: string };
  /** Applied as a batch file by the box's own tool over SSH exec, not typed into a CLI session (main/services/sync/commands/batch.ts). */
  batch?: BatchApply;
}

/** A remote shell script and its arguments ($1…), or why this appliance cannot run it. */
export type RemoteScript = { script: string; args: string[]; secret?: { name: string; port: number } } | { refused: string };

/** A box whose tool applies a file of commands (PingDirectoryProxy's dsconfig --batch-file). */
export interface BatchApply {
  /** The tool, for reports (`bin/dsconfig --no-prompt --batch-file`). */
  tool: string;
  /** Prints the running configuration (what `plan` reads). */
  show(appliance: Appliance): RemoteScript;
  /**
   * Applies the batch read from stdin. With `secret`, that secret of the store (bound to the box's
   * host at `port`, where the password is used) is the first stdin line, the batch after it.
   */
  apply(appliance: Appliance): RemoteScript;
  /** The batch file of these commands. */
  file(commands: string[]): string;
  /** The tool's output and exit status: how many commands it took, and the one it refused. */
  result(output: string, code: number, commands: string[]): BatchResult;
}

export interface BatchResult {
  /** Commands taken before the stop (all when none failed). */
  taken: number;
  /** The command refused (0-based, when the tool names it) and the tool's words. */
  failed?: { index?: number; message: string };
}

/** Problems without repeats (a set rendered on several ports says each thing once). */
export function dedupe(problems: DriverProblem[]): DriverProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.subject}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
