// What an import produces: a workspace (plain input objects), one report item per section or
// directive, and where each modelled thing sits in the source (for `render --onto`).
import type { DriverName, WorkspaceInput } from '../../../shared/model/schema';
import type { FileImportDriver } from '../../../shared/model/drivers';

export type Outcome = 'imported' | 'approximated' | 'kept';

export interface ReportItem {
  /** The file the item is in (an included file for keepalived), as given. */
  file: string;
  line: number;
  section: string;
  outcome: Outcome;
  detail: string;
}

/** A bad input: one line, `file:line: message`. */
export class ImportError extends Error {
  constructor(readonly file: string, readonly line: number, readonly reason: string) {
    super(`${file}:${line}: ${reason}`);
  }
}

/** The drivers this folder reads (shared/model/drivers.ts: importer `file`). */
export type ImportDriver = FileImportDriver;

/** Where a modelled member sits: the server (or real_server) line or block in the source. */
export interface MemberSource {
  line: number;
}

/** A section of the main config that lbdesk models, and what it became. */
export interface SectionBinding {
  /** `backend web`, `frontend www`, `virtual_server 192.0.2.10 80`… */
  key: string;
  /** 0-based line of the section header. */
  start: number;
  /** 0-based line after the section's last line. */
  end: number;
  group?: string;
  /** Services and the 0-based line of their bind (HAProxy) or header (keepalived). */
  services: { name: string; line: number }[];
  /** Members in group order, each with its 0-based line. */
  members: MemberSource[];
}

export interface ImportResult {
  /** haproxy, keepalived, or a driver's own importer (drivers/<name>/). */
  driver: DriverName;
  workspace: WorkspaceInput & { servers: ServerInput[]; groups: GroupInput[]; services: ServiceInput[] };
  items: ReportItem[];
  sections: SectionBinding[];
}

/** A file an include brought in, as read (the report shows it beside its rows). */
export interface IncludedText {
  file: string;
  text: string;
}

export type ServerInput = NonNullable<WorkspaceInput['servers']>[number];
export type GroupInput = NonNullable<WorkspaceInput['groups']>[number];
export type ServiceInput = NonNullable<WorkspaceInput['services']>[number];

/** Imports read at most this much: a site config is kilobytes to a few megabytes. */
export const MAX_IMPORT_BYTES = 16 * 1024 * 1024;
