// A change report: what a change ticket needs about one workspace at one moment — the file and
// its hash, whether it validates, per appliance what a push changes (or changed) and the file's
// hash, and what the lab saw. Built by main/services/report, written as HTML and Markdown.
import type { ApiProblem } from './contract';
import type { CertificateSeen, MemberState } from './types';

export interface ReportWorkspace {
  path: string;
  name: string;
  /** sha256 (hex) of the text the report was made from. */
  sha256: string;
  bytes: number;
  /** The window's text differs from the file on disk (the report is of the text on screen). */
  unsaved: boolean;
}

export interface ReportValidation {
  errors: number;
  warnings: number;
  /** The first problems, as file:line:col (bounded). */
  problems: ApiProblem[];
}

/** What the appliance said when asked now: a diff of what push changes, or why it could not be asked. */
export type ReportLive =
  | { state: 'checked'; changed: boolean; patch: string; remoteSha256?: string; conflicts: string[]; refused?: string; confirmBy?: number; rolledBackAt?: number }
  | { state: 'not-asked'; why: string }
  | { state: 'unreachable'; reason: string };

export interface ReportPush {
  at: number;
  kind: 'push' | 'restore';
  outcome: string;
  sha256: string;
  confirm?: 'pending' | 'confirmed' | 'rolled-back';
  settledAt?: number;
  /** The lines it changed: the file as lbdesk last knew it before the push → the file pushed (secrets masked). */
  patch?: string;
}

/** A member lbdesk drained or put in maintenance on the live box, kept through pushes until set ready. */
export interface ReportRuntime {
  member: string;
  admin: 'drain' | 'maint';
  since: number;
  by: string;
}

export interface ReportAppliance {
  name: string;
  driver: string;
  /** `user@host:port`. */
  target: string;
  configPath: string;
  manage: 'file' | 'sections';
  /** Why a push would be refused before connecting (render errors, paths). */
  errors: string[];
  warnings: string[];
  /**
   * sha256 of the file a push would leave on the appliance: the render itself, or (manage:
   * sections) the render merged onto the appliance's file, known only when it was read.
   */
  renderedSha256?: string;
  live: ReportLive;
  /** The newest push or restore lbdesk recorded for it on this machine. */
  lastPush?: ReportPush;
  /** The newest push's file is the one the workspace renders now. */
  lastPushMatches?: boolean;
  /** Runtime states lbdesk set on the box (lbdesk drain / maint), as recorded on this machine. */
  runtime?: ReportRuntime[];
}

export interface ReportLabMember {
  group: string;
  server: string;
  state: MemberState;
  reason: string;
  since: number;
}

export interface ReportLab {
  /** `other-file`: the lab runs another workspace (named by `path`); its state is not this one's. */
  state: 'running' | 'stopped' | 'other-file';
  path?: string;
  uptimeMs?: number;
  counts: Partial<Record<MemberState, number>>;
  /** Members not available, with why. */
  members: ReportLabMember[];
  /** State changes the lab saw in its session. */
  changes: number;
  pools: { name: string; kind: 'service' | 'targetSet'; active: number; total: number; bytesIn: number; bytesOut: number; errors: number; refused: number }[];
}

/** A certificate a TLS check (https, ssl) saw on a member, and when. */
export interface ReportCertificate extends CertificateSeen {
  group: string;
  server: string;
  address: string;
  port?: number;
  /** When the check that saw it started (daysLeft counts from here). */
  at: number;
}

/**
 * The members' certificates: from the lab's latest results when it runs this workspace, else
 * from one TLS check of each https/ssl member made for the report; none in an offline report.
 */
export interface ReportCertificates {
  source: 'lab' | 'check' | 'not-checked';
  /** Why not checked, or what a check could not do. */
  note?: string;
  list: ReportCertificate[];
}

export interface ChangeReport {
  /** Epoch ms. */
  at: number;
  version: string;
  workspace: ReportWorkspace;
  validation: ReportValidation;
  appliances: ReportAppliance[];
  /** Why no appliance is listed (an invalid workspace is not rendered). */
  appliancesNote?: string;
  lab: ReportLab;
  /** Certificates seen on the members (absent in reports made before this existed). */
  certificates?: ReportCertificates;
  /** Services and target sets the workspace leaves with one member or none (`this change leaves web-vip with one member, …`). */
  capacity?: string[];
}

/** `report.export`: the report written as both files, and a summary line for the page. */
export interface ReportExport {
  html: string;
  markdown: string;
  htmlPath: string;
  markdownPath: string;
  /** `site-a: valid`. */
  headline: string;
  /** The headline and each appliance: `site-a: valid; lb1 no change: …` — one line for a terminal. */
  summary: string;
  /** Per appliance, what a push would do now in a few words; `ok` false where someone should look. */
  appliances: { name: string; says: string; ok: boolean }[];
}
