// Import a config an appliance runs: into a new workspace, or merged into an existing one.
import { parseWorkspace } from '../../../shared/model/validate';
import { formatProblem, hasErrors } from '../../../shared/model/problem';
import { addItem, createDocument, documentToText, setField } from '../../../shared/model/document';
import { blockLines } from '../../../shared/model/render';
import type { Appliance, DriverName, Workspace } from '../../../shared/model/schema';
import { importHaproxy } from './haproxy-import';
import { importKeepalived } from './keepalived-import';
import { decodeConfig } from './text';
import { ImportError, type ImportDriver, type ImportResult, type IncludedText, type ReportItem } from './types';

export { ImportError, MAX_IMPORT_BYTES } from './types';
export { decodeConfig } from './text';
export { detectDriver } from './detect';
export type { ImportDriver, ImportResult, ReportItem, Outcome, SectionBinding } from './types';

export interface ImportInput {
  bytes: Uint8Array;
  /** The name shown in report lines and errors (`-` for stdin is shown as `<stdin>`). */
  file: string;
  driver: ImportDriver;
  /** Real path of the file (keepalived includes are followed relative to it; none for stdin). */
  realPath?: string;
  existing?: Workspace;
  /** keepalived: follow `include` (off for a config pulled over SSH: its includes are on the appliance). */
  includes?: boolean;
}

export interface Imported extends ImportResult {
  /** keepalived services defined in included files (not the appliance's to write). */
  fromIncludes: string[];
  /** keepalived: the included files as they were read (never read again to be shown). */
  included: IncludedText[];
}

/** Parses and maps the config; throws ImportError (file:line: message) for bad input. */
export function importConfig(input: ImportInput): Imported {
  const text = decodeConfig(input.bytes, input.file);
  const existingServers = input.existing?.servers.map((s) => ({ name: s.name, address: s.address }));
  const taken = input.existing ? { servers: input.existing.servers.map((s) => s.name) } : undefined;
  return READERS[input.driver](text, input, { taken, existingServers });
}

type Reader = (text: string, input: ImportInput, known: { taken?: { servers: string[] }; existingServers?: { name: string; address: string }[] }) => Imported;

/** The reader of each driver shared/model/drivers.ts says this folder imports (a complete record: one per driver). */
const READERS: Record<ImportDriver, Reader> = {
  haproxy: (text, input, known) => ({ ...importHaproxy(text, input.file, known), fromIncludes: [], included: [] }),
  keepalived: (text, input, known) => importKeepalived(text, input.file, { ...known, realPath: input.realPath, includes: input.includes ?? true }),
};

export interface ApplianceSpec {
  name: string;
  driver: DriverName;
  configPath?: string;
  /** The box the config was pulled from, as the user reached it (else the host is the name, to be set). */
  box?: Pick<Appliance, 'host' | 'port' | 'user' | 'auth' | 'keyFile' | 'validateCommand' | 'reloadCommand'>;
}

function applianceEntry(r: Imported, spec: ApplianceSpec): Record<string, unknown> {
  const b = spec.box;
  const a: Record<string, unknown> = { name: spec.name, host: b?.host ?? spec.name };
  if (b && b.port !== 22) a.port = b.port;
  if (b?.user) a.user = b.user;
  if (b && b.auth !== 'agent') a.auth = b.auth;
  if (b?.keyFile) a.keyFile = b.keyFile;
  a.driver = spec.driver;
  if (spec.configPath) a.configPath = spec.configPath;
  if (b?.validateCommand) a.validateCommand = b.validateCommand;
  if (b?.reloadCommand) a.reloadCommand = b.reloadCommand;
  a.manage = 'sections';
  if (r.fromIncludes.length) a.include = r.workspace.services.map((s) => s.name).filter((n) => !r.fromIncludes.includes(n));
  return a;
}

/** A new workspace file holding what was imported, with the appliance it came from. */
export function newWorkspaceText(r: Imported, spec: ApplianceSpec & { workspaceName: string; source: string }): string {
  const data = {
    lbdesk: 1,
    name: spec.workspaceName,
    servers: r.workspace.servers,
    groups: r.workspace.groups,
    services: r.workspace.services,
    appliances: [applianceEntry(r, spec)],
  };
  const head = [
    `# Imported by lbdesk from ${spec.source} (driver ${spec.driver}).`,
    '# What the config had that lbdesk does not model stays on the appliance (manage: sections).',
    ...(spec.box ? [] : [`# Set appliances[0].host to the appliance's address or an alias from ~/.ssh/config.`]),
    '',
  ].join('\n');
  // Plain lines, as the document editor writes inserted values: a YAML Document for 20,000
  // servers cost more than the import itself.
  return `${head}${blockLines(defined(data), 0).join('\n')}\n`;
}

/** Plain data without its undefined fields (YAML leaves them out). */
function defined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(defined);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = defined(x);
  }
  return out;
}

/** Checks the text is a valid workspace; the problems, one line each, when it is not. */
export function workspaceProblems(text: string, file: string): string[] {
  const parsed = parseWorkspace(text, file);
  return hasErrors(parsed.problems) ? parsed.problems.filter((p) => p.severity === 'error').map(formatProblem) : [];
}

export interface MergeResult {
  text: string;
  /** Names the workspace already had: reported, not imported. */
  skipped: ReportItem[];
}

/** One edit of a merge, in the document helpers' terms (the app applies them as one undo step). */
export type MergeEdit = { op: 'add'; list: string[]; item: unknown } | { op: 'set'; path: (string | number)[]; value: unknown };

export interface MergePlan {
  edits: MergeEdit[];
  skipped: ReportItem[];
}

/**
 * What adding an import to an existing workspace takes. A group or service whose name the
 * workspace has is skipped and reported; servers are reused by address. The appliance is
 * switched to `manage: sections`, so a push keeps what lbdesk does not own.
 */
export function planMerge(workspace: Workspace, r: Imported, appliance: string, file: string): MergePlan {
  const skipped: ReportItem[] = [];
  const groups = new Set(workspace.groups.map((g) => g.name));
  const services = new Set(workspace.services.map((s) => s.name));
  const lineOf = (name: string): number => r.items.find((i) => i.detail.includes(name))?.line ?? 1;
  const keptGroups = r.workspace.groups.filter((g) => {
    if (!groups.has(g.name)) return true;
    skipped.push({ file, line: lineOf(g.name), section: `group ${g.name}`, outcome: 'kept', detail: `the workspace already has a group ${g.name}: not imported (the workspace's group is what lbdesk writes)` });
    return false;
  });
  const keptServices = r.workspace.services.filter((s) => {
    if (!services.has(s.name)) return true;
    skipped.push({ file, line: lineOf(s.name), section: `service ${s.name}`, outcome: 'kept', detail: `the workspace already has a service ${s.name}: not imported (the workspace's service is what lbdesk writes)` });
    return false;
  });
  const used = new Set(keptGroups.flatMap((g) => (g.members ?? []).map((m) => m.server)));
  const known = new Set(workspace.servers.map((s) => s.name));
  const edits: MergeEdit[] = [];
  for (const s of r.workspace.servers) if (!known.has(s.name) && used.has(s.name)) edits.push({ op: 'add', list: ['servers'], item: s });
  for (const g of keptGroups) edits.push({ op: 'add', list: ['groups'], item: g });
  for (const s of keptServices) edits.push({ op: 'add', list: ['services'], item: s });
  const index = workspace.appliances.findIndex((a) => a.name === appliance);
  if (index >= 0) {
    if (workspace.appliances[index]!.manage !== 'sections') edits.push({ op: 'set', path: ['appliances', index, 'manage'], value: 'sections' });
    const include = workspace.appliances[index]!.include;
    if (include) {
      const add = keptServices.map((s) => s.name).filter((n) => !r.fromIncludes.includes(n) && !include.includes(n));
      if (add.length) edits.push({ op: 'set', path: ['appliances', index, 'include'], value: [...include, ...add] });
    }
  }
  return { edits, skipped };
}

/** The plan's edits on the workspace text (comments and layout kept). */
export function applyMerge(text: string, edits: MergeEdit[]): string {
  const doc = createDocument(text);
  for (const e of edits) {
    if (e.op === 'add') addItem(doc, e.list, e.item as never);
    else setField(doc, e.path, e.value as never);
  }
  return documentToText(doc);
}

/** Adds what was imported to an existing workspace as a comment-preserving edit (see planMerge). */
export function mergeIntoWorkspace(text: string, workspace: Workspace, r: Imported, appliance: string, file: string): MergeResult {
  const plan = planMerge(workspace, r, appliance, file);
  return { text: applyMerge(text, plan.edits), skipped: plan.skipped };
}

/** One report line: `file:line: section: outcome: detail`. */
export function reportLine(i: ReportItem): string {
  return `${i.file}:${i.line}: ${i.section}: ${i.outcome}${i.detail ? `: ${i.detail}` : ''}`;
}

export function isImportError(e: unknown): e is ImportError {
  return e instanceof ImportError;
}
