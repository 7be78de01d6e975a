// The one service contract: every method the UI may call, with its argument schema and result
// type, and every event it may receive. Both transports (Electron IPC, WebSocket) carry exactly this.
import { FILE_IMPORT_DRIVERS } from '../model/drivers';
import { z } from 'zod';
import type { CertificateSeen, CheckResult, MemberStatus, StateChange } from './types';
import { FAULT_KINDS, type EngineEvent, type EngineStats, type FaultMeasure, type LabFault, type PairStatus } from './engine';
import { CONFIRM_WITHIN_MAX_MS, CONFIRM_WITHIN_MIN_MS } from '../model/limits';
import { applianceSchema, healthTimersSchema } from '../model/schema';
import type { CompareReport } from './compare';
import type { ImportApplianceResult, ImportDriver, ImportDriverInfo, ImportFileResult } from './import';
import { ADMIN_STATES, type LiveState, type RuntimeResult } from './operate';
import type { ReportExport } from './report';
import type { PairOutcome, PushOutcome, PushProgress } from './sync';
import type { SecretKeeping } from './secrets';
import type { ReplayReport, WhatIfReport } from './whatif';
import { VIEW_COMMANDS, type ViewCommand } from './views';

/** A method: arguments checked at runtime in main, result typed at compile time. */
interface Method<A extends z.ZodType, R> {
  args: A;
  /** Phantom: never read at runtime. */
  result?: R;
}
const method = <R>() => <A extends z.ZodType>(args: A): Method<A, R> => ({ args });

const path = z.string().min(1).max(4096);
const name = z.string().min(1).max(200);
/** A workspace to act on: its file, and optionally unsaved text that replaces the file's content. */
const source = z.strictObject({ path, text: z.string().max(16 * 1024 * 1024).optional() });
const none = z.strictObject({});
/** A config of one appliance: rendered from the workspace, running there now, or a stored version. */
const configRef = z.union([z.strictObject({ kind: z.enum(['workspace', 'running']) }), z.strictObject({ kind: z.literal('version'), id: name })]);
export type ConfigRef = z.infer<typeof configRef>;

export interface AppInfo {
  version: string;
  shell: 'electron' | 'browser';
  platform: string;
  /** The workspace to open first (demo on first start, else the last one). */
  startPath?: string;
  /** Things the user should know about this installation (e.g. secrets kept for this session only). */
  warnings?: string[];
}
export interface WorkspaceFile { path: string; text: string; mtimeMs: number }
export interface SavedFile { path: string; mtimeMs: number; backupPath?: string }
export interface DirEntry { name: string; path: string; kind: 'dir' | 'file' }
export interface DirListing { dir: string; parent?: string; entries: DirEntry[] }
export interface ApiProblem { severity: 'error' | 'warning'; file: string; line: number; col: number; path: string; message: string }
export interface Rendered {
  text: string; configPath: string; errors: { subject: string; message: string }[]; warnings: { subject: string; message: string }[];
  /** manage: sections: rendered onto the file the appliance holds now (read over SSH from `target`, secrets masked). */
  onto?: { target: string };
}
export interface LabStatus {
  running: boolean;
  path?: string;
  listening: { name: string; address: string; port: number; protocol: 'tcp' | 'udp' }[];
  members: MemberStatus[];
  notes: string[];
  /** Connections, bytes and errors per service/target set and server, when running. */
  stats?: EngineStats;
  /** HA pairs the lab runs as two engines (docs/ha.md). */
  pairs?: PairStatus[];
  /** Faults on the lab's path to members (docs/cli.md, "Lab faults"). */
  faults?: LabFault[];
  /** Services the lab could not listen for (the address is taken): left out, their members still checked. */
  unbound?: UnboundListener[];
}
/** A section of the box's own file lbdesk keeps (a frontend or listen), and the groups it sends to. */
export interface KeptFrontend {
  name: string; kind: string; line: number;
  /** `192.0.2.10:443 ssl`, as the bind line says. */
  binds: string[];
  /** Groups of the workspace it uses: `default_backend`, or `use_backend … if cond`. */
  uses: { group: string; how: string }[];
}
export interface KeptContext {
  appliance: string;
  /** When the file was read or pushed (epoch ms), and its path on the box. */
  at: number; configPath: string;
  frontends: KeptFrontend[];
  /** The box's `balance` line of each workspace group it has. */
  balance: Record<string, string>;
}
export interface UnboundListener {
  service: string; address: string; port: number; protocol: 'tcp' | 'udp';
  /** In words: "already in use by another program". */
  why: string;
  /** The program listening there, when this user may see it. */
  holder?: { pid: number; command: string };
}
export interface MemberHistory { results: CheckResult[]; changes: StateChange[] }
/**
 * `lab.member`, the one frame of a member's news: its status as the health checker holds it, with
 * the check result and the transition it made (a fault's detection time beside its bound), or a
 * transition without a check (apply, disable, maintenance).
 */
export interface MemberEvent { member: MemberStatus; result?: CheckResult; change?: StateChange & Partial<FaultMeasure> }
/** `lab.status` events: stats every second without members; with them when the set changed (start, apply, stop). */
export type LabStatusEvent = Omit<LabStatus, 'members'> & { members?: MemberStatus[] };
/**
 * What the running lab has seen so far, for a window that looks after it started (another
 * window, `serve --ui`, a reload): its state changes, each member's latest result and its recent
 * engine events (no stats), oldest first, bounded.
 */
export interface LabSession { changes: StateChange[]; latest: { key: string; result: CheckResult }[]; events: EngineEvent[] }

export type { PairOutcome, PushOutcome, PushProgress };
export interface PushResult {
  appliance: string;
  /** As the push reported it: `applied` with `confirmBy` is a commit-confirmed push still waiting. */
  outcome: PushOutcome;
  /** Why, in one sentence. */
  reason: string;
  diff: string;
  /** Epoch ms when an armed commit-confirmed timer rolls back, if armed. */
  confirmBy?: number;
  /** What the appliance holds now against the workspace, read over the push's own login (not for a
   * dry run or a refusal; absent when it could not be read, e.g. the connection was lost). */
  after?: DiffResult;
}
/** A rolling push to an HA pair (docs/ha.md): the two boxes side by side, standby first. */
export interface PairPushResult {
  pair: string;
  outcome: PairOutcome;
  reason: string;
  boxes: { name: string; role: 'standby' | 'active'; holds: string; steps: { appliance: string; outcome: PushOutcome; reason: string }[]; confirmBy?: number }[];
  failover?: { ok: boolean; reason: string };
}
export interface DiffResult {
  appliance: string; changed: boolean; diff: string; remotePath: string;
  /** A commit-confirmed push waiting on the appliance: when it rolls back unless confirmed (epoch ms). */
  confirmBy?: number;
  /** The appliance's timer restored the previous config (epoch ms when known; 0 when not). */
  rolledBackAt?: number;
}
export interface PushHistoryEntry {
  appliance: string; at: number; hash: string; outcome: PushOutcome; file: string;
  /** `original`: the box's file before lbdesk's first push (or first read), kept so it can be compared and restored. */
  kind?: 'push' | 'restore' | 'original';
  /** A commit-confirmed push: still waiting, confirmed, or taken back by the box's timer. */
  confirm?: 'pending' | 'confirmed' | 'rolled-back';
}
export interface HostKeyPrompt {
  id: string; host: string; port: number; keyType: string; fingerprint: string; reason: 'unknown' | 'changed';
  /** The appliance the connection is for. */
  appliance?: string;
  /** For `changed`: the keys known before and where each is kept (known_hosts file:line, `workspace hostKey`); yes replaces them all. */
  previous?: { fingerprint: string; from: string }[];
}
/** A keyboard-interactive round the user answers (OTP, "Verification code:"), shown as it comes; answered with `ssh.answer`. */
export interface SshPrompt { id: string; appliance: string; host: string; name: string; instructions: string; prompts: { prompt: string; echo: boolean }[] }

/** What the shell around the page offers: its info, native dialogs, links in the user's browser. */
const appMethods = {
  'app.info': method<AppInfo>()(none),
  'dialog.openFile': method<string | null>()(none),
  'dialog.saveFile': method<string | null>()(z.strictObject({ suggested: path.optional() })),
  'shell.openExternal': method<boolean>()(z.strictObject({ url: z.string().max(2048) })),
} as const;
/** Workspace files: open, save, browse, validate. */
const workspaceMethods = {
  'workspace.demo': method<WorkspaceFile>()(none),
  'workspace.read': method<WorkspaceFile>()(z.strictObject({ path })),
  'workspace.write': method<SavedFile>()(z.strictObject({ path, text: z.string().max(16 * 1024 * 1024), expectedMtimeMs: z.number().optional() })),
  'workspace.recent': method<string[]>()(none),
/** A folder's subfolders and workspace files (`files: 'any'`: every file, for configs to import). */
  'workspace.browse': method<DirListing>()(z.strictObject({ dir: path.optional(), files: z.enum(['workspace', 'any']).optional() })),
  'workspace.validate': method<ApiProblem[]>()(source),
} as const;
/** The local lab (health checks and forwarding engine) and one-off checks. */
const labMethods = {
  // A member checked over TLS carries the certificate its check saw (the member detail shows it).
  'check.run': method<(MemberStatus & { certificate?: CertificateSeen; checkedAt?: number })[]>()(z.strictObject({ ...source.shape, group: name.optional() })),
  'lab.start': method<LabStatus>()(source),
  'lab.apply': method<LabStatus>()(source),
  'lab.stop': method<LabStatus>()(none),
  'lab.status': method<LabStatus>()(none),
  'lab.history': method<MemberHistory>()(z.strictObject({ key: z.string().min(1).max(600) })),
  'lab.session': method<LabSession>()(none),
  /** A fault in an HA pair of the running lab: stop a box (its mate takes over) or start it again. */
  'lab.pairBox': method<LabStatus>()(z.strictObject({ pair: name, box: name, action: z.enum(['stop', 'start']) })),
  /** `lbdesk whatif`: offline, what each service and target set keeps with `fail` failed (servers, members, groups, boxes). */
  'lab.whatif': method<WhatIfReport>()(z.strictObject({ ...source.shape, fail: z.array(name).min(1).max(500) })),
  /**
   * `lbdesk replay`: a member's recorded checks (`history`: the lab's history as JSON, or HAProxy
   * log lines; `historyName` is what errors call it) replayed under `timers` beside its own.
   */
  'lab.replay': method<ReplayReport>()(z.strictObject({
    ...source.shape,
    member: name,
    history: z.string().max(64 * 1024 * 1024),
    historyName: name.optional(),
    timers: healthTimersSchema.optional(),
    year: z.number().int().min(1970).max(9999).optional(),
  })),
  /** A fault on the lab's path to a member (its key or `web/web1:8081`), or `clear` it. */
  'lab.fault': method<LabStatus>()(z.strictObject({ member: z.string().min(1).max(600), fault: z.enum([...FAULT_KINDS, 'clear']), value: z.string().min(1).max(40).optional() })),
  /** The .yaml/.yml files beside the running lab's workspace that parse as scenarios against it. */
  'lab.scenarios': method<{ path: string; name: string; steps: number }[]>()(none),
  /**
   * Runs a scenario file beside the running lab's workspace start to finish (the runner of
   * `serve --scenario`): each step, expectation (`expect`) and the summary are `lab.event`s.
   */
  'lab.scenario': method<{ passed: number; failed: number; stopped: boolean }>()(z.strictObject({ path: z.string().min(1).max(4096) })),
  /** Stops the scenario that runs (false: none did). */
  'lab.scenarioStop': method<boolean>()(none),
} as const;
/** Appliances: render, diff, push, pull, confirm, history, compare. */
const appliancesMethods = {
  /** What would make a push to each appliance refused before it connects (driver, paths). */
  'appliance.problems': method<ApiProblem[]>()(source),
  'appliance.render': method<Rendered>()(z.strictObject({ ...source.shape, appliance: name })),
  'appliance.diff': method<DiffResult>()(z.strictObject({ ...source.shape, appliance: name })),
  /** Gives up the diffs still connecting to an appliance (a silent one): each fails with "cancelled". */
  'appliance.cancel': method<{ cancelled: number }>()(z.strictObject({ appliance: name })),
  'appliance.push': method<PushResult>()(z.strictObject({
    ...source.shape,
    appliance: name,
    dryRun: z.boolean().optional(),
    /** Commit-confirmed window in ms; rollback on the appliance unless confirmed in time. */
    confirmWithinMs: z.number().int().min(CONFIRM_WITHIN_MIN_MS).max(CONFIRM_WITHIN_MAX_MS).optional(),
    force: z.boolean().optional(),
  })),
  'appliance.pushPair': method<PairPushResult>()(z.strictObject({
    ...source.shape,
    pair: name,
    dryRun: z.boolean().optional(),
    confirmWithinMs: z.number().int().min(CONFIRM_WITHIN_MIN_MS).max(CONFIRM_WITHIN_MAX_MS).optional(),
  })),
  'appliance.confirm': method<{ confirmed: boolean; reason: string }>()(z.strictObject({ ...source.shape, appliance: name })),
  /** `lbdesk compare`: the lab and the appliance's software on loopback, side by side (tens of seconds). */
  'appliance.compare': method<CompareReport>()(z.strictObject({ ...source.shape, appliance: name, timeScale: z.number().positive().max(10).optional() })),
  'appliance.pull': method<{ text: string; remotePath: string }>()(z.strictObject({ ...source.shape, appliance: name })),
  'appliance.history': method<PushHistoryEntry[]>()(z.strictObject({ appliance: name })),
  /** What each manage: sections appliance keeps, from its file as last read or pushed (no connection): read-only context. */
  'appliance.kept': method<KeptContext[]>()(source),
  /** One stored version (`file` of a history entry, or a unique prefix), secrets masked. */
  'appliance.version': method<{ entry: PushHistoryEntry; text: string }>()(z.strictObject({ appliance: name, id: name })),
  /** Two configs of an appliance to diff (what the workspace renders, what it runs, a stored version), secrets masked in both. */
  'appliance.configs': method<{ before: string; after: string; beforeLabel: string; afterLabel: string; configPath: string }>()(z.strictObject({
    ...source.shape, appliance: name, before: configRef, after: configRef,
  })),
  /**
   * `lbdesk state` for the Operate view: each member the appliance serves as the box sees it. The
   * SSH connection is kept in main for the next call (closed by `appliance.operateEnd` or when idle).
   */
  'appliance.state': method<LiveState>()(z.strictObject({ ...source.shape, appliance: name })),
  /** `lbdesk drain | maint | ready` on the live box, on the kept connection: at once, no reload. */
  'appliance.runtime': method<RuntimeResult>()(z.strictObject({
    ...source.shape, appliance: name, admin: z.enum(ADMIN_STATES), members: z.array(z.string().min(1).max(600)).min(1).max(500),
  })),
  /** The Operate view closed: its kept connection to the appliance goes. */
  'appliance.operateEnd': method<{ closed: boolean }>()(z.strictObject({ appliance: name })),
  /** Pushes a stored version again (`lbdesk push --restore`): the push pipeline, commit-confirmed when asked. */
  'appliance.restore': method<PushResult>()(z.strictObject({
    ...source.shape,
    appliance: name,
    id: name,
    dryRun: z.boolean().optional(),
    confirmWithinMs: z.number().int().min(CONFIRM_WITHIN_MIN_MS).max(CONFIRM_WITHIN_MAX_MS).optional(),
  })),
} as const;
/** Answers to the questions an SSH login puts to the user (host keys, keyboard-interactive). */
const sshMethods = {
  'hostKey.answer': method<void>()(z.strictObject({ id: z.string().min(1).max(100), accept: z.boolean() })),
  /** Answers to an `ssh.prompt`, one per prompt in order; null cancels the login. */
  'ssh.answer': method<void>()(z.strictObject({ id: z.string().min(1).max(100), answers: z.array(z.string().max(1024)).max(16).nullable() })),
} as const;
/** The secret store: values go in, never come out. */
const secretsMethods = {
  'secrets.set': method<SecretKeeping>()(z.strictObject({ name, value: z.string().max(64 * 1024) })),
  'secrets.has': method<boolean>()(z.strictObject({ name })),
  'secrets.delete': method<void>()(z.strictObject({ name })),
} as const;

/** Import a config an appliance runs (the importer of `lbdesk import`). */
const importMethods = {
  /** The driver a config file looks like (a suggestion for the import dialog; null when neither). */
  'import.detect': method<{ driver: ImportDriver | null }>()(z.strictObject({ config: path })),
  /** `lbdesk import CONFIG --driver D --out WS`: a new workspace file (an existing one is refused). */
  'import.file': method<ImportFileResult>()(z.strictObject({ config: path, driver: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/), out: path, appliance: name.optional() })),
  /** `lbdesk import WS --appliance NAME`, written nowhere: the edits for the page to apply. */
  'import.appliance': method<ImportApplianceResult>()(z.strictObject({ ...source.shape, appliance: name })),
  /**
   * The drivers whose configs import.file reads (the dialog offers these, in this order), with where
   * their config lives and how it is checked and reloaded by default; `fromBox`: import.box reads it.
   */
  'import.drivers': method<{ drivers: ImportDriverInfo[] }>()(z.strictObject({})),
  /** `import.file` with the config pulled over SSH from the box itself; the new appliance is that box (host, login, paths). */
  'import.box': method<ImportFileResult>()(z.strictObject({
    box: applianceSchema.pick({ host: true, port: true, user: true, auth: true, keyFile: true, configPath: true, validateCommand: true, reloadCommand: true }),
    driver: z.enum(FILE_IMPORT_DRIVERS), out: path, appliance: name.optional(),
  })),
} as const;

/** Change reports for a ticket (`lbdesk report`). */
const reportMethods = {
  /**
   * Gathers the report (each appliance asked what a push changes, unless `offline`) and writes it
   * as HTML and Markdown in `reports/` beside the workspace.
   */
  'report.export': method<ReportExport>()(z.strictObject({ ...source.shape, offline: z.boolean().optional(), appliances: z.array(name).max(500).optional() })),
} as const;

/**
 * The contract grouped by area: each area's handlers are written (and typed) as one object in
 * main/services/api, and the full table is assembled from exactly these areas.
 */
export const areas = {
  app: appMethods,
  workspace: workspaceMethods,
  lab: labMethods,
  appliances: appliancesMethods,
  ssh: sshMethods,
  secrets: secretsMethods,
  import: importMethods,
  report: reportMethods,
} as const;
export type AreaName = keyof typeof areas;
export const AREA_NAMES = Object.keys(areas) as AreaName[];
/** The methods of one area. */
export type MethodOf<A extends AreaName> = Extract<keyof (typeof areas)[A], MethodName>;

export const contract = { ...appMethods, ...workspaceMethods, ...labMethods, ...appliancesMethods, ...sshMethods, ...secretsMethods, ...importMethods, ...reportMethods } as const;

export type Contract = typeof contract;
export type MethodName = keyof Contract;
export const METHOD_NAMES = Object.keys(contract) as MethodName[];
export type ArgsOf<M extends MethodName> = z.input<Contract[M]['args']>;
export type ParsedArgsOf<M extends MethodName> = z.output<Contract[M]['args']>;
export type ResultOf<M extends MethodName> = Exclude<Contract[M]['result'], undefined>;

/** Events pushed from main to every UI. */
export interface EventMap {
  'lab.member': MemberEvent;
  'lab.status': LabStatusEvent;
  'lab.event': EngineEvent;
  'workspace.changed': { path: string; mtimeMs: number };
  'push.progress': PushProgress;
  'hostKey.prompt': HostKeyPrompt;
  'ssh.prompt': SshPrompt;
  /** A native menu item, shortcut, or a file handed to the app by the OS (see MENU_COMMANDS). */
  'menu.command': { command: string; path?: string };
}
export type EventName = keyof EventMap;
export const EVENT_NAMES: EventName[] = ['lab.member', 'lab.status', 'lab.event', 'workspace.changed', 'push.progress', 'hostKey.prompt', 'ssh.prompt', 'menu.command'];

/** The `command` values of `menu.command` events (desktop app only). `open` carries `path` when
 * the OS handed the app a file (second launch, file association, Open Recent); without `path`
 * the UI shows its open dialog. `view:<section>` selects a sidebar section. */
const FILE_COMMANDS = ['open', 'save', 'save-as'] as const;
const OTHER_COMMANDS = ['toggle-theme', 'lab-start', 'lab-stop', 'import-new', 'import-into', 'change-report'] as const;
/** The `view:` commands come from the views' registry (shared/api/views.ts). */
export type MenuCommand = (typeof FILE_COMMANDS)[number] | ViewCommand | (typeof OTHER_COMMANDS)[number];
export const MENU_COMMANDS: readonly MenuCommand[] = [...FILE_COMMANDS, ...VIEW_COMMANDS, ...OTHER_COMMANDS];
export interface ApiEvent<E extends EventName = EventName> { event: E; payload: EventMap[E] }
/** Where a service sends its events (every transport fans them out). */
export type EventSink = <E extends EventName>(event: E, payload: EventMap[E]) => void;

/** Errors travel as a code and one sentence; never a stack. */
export type ApiErrorCode = 'bad-method' | 'bad-args' | 'not-found' | 'conflict' | 'refused' | 'unsupported' | 'failed';
export interface ApiErrorShape { code: ApiErrorCode; message: string }
export class ApiError extends Error implements ApiErrorShape {
  constructor(readonly code: ApiErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What a UI holds: the typed call and the event subscription, whatever the transport. */
export interface ApiClient {
  call<M extends MethodName>(method: M, args: ArgsOf<M>): Promise<ResultOf<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void;
  /**
   * A transport that can drop (the browser's WebSocket) says when it is trying to get back
   * (`reconnecting`) and when it is back (`connected`: events missed meanwhile are lost).
   */
  onConnection?(listener: (state: 'connected' | 'reconnecting') => void): () => void;
}
