// What an import shows the user: the report rows, the source text they point into, and for an
// import into the open workspace the edits the page applies as one undo step.
/** A driver with an importer: haproxy, keepalived, and those `import.drivers` lists (adx, f5 …). */
export type ImportDriver = string;
export type ImportKind = 'imported' | 'approximated' | 'kept' | 'error';

export interface ImportRow {
  kind: ImportKind;
  /** The config file the row is about (an included file for keepalived), as shown. */
  file: string;
  line: number;
  /** The section or statement: `backend web`, `vrrp_instance VI_1`. */
  what: string;
  why: string;
}

export interface ImportReport {
  driver: ImportDriver;
  /** `file:line: reason` when the config was refused: nothing was written. */
  error?: string;
  rows: ImportRow[];
  /** The config and the files it included, as the rows name them; secrets masked (lines kept). */
  sources: { file: string; text: string }[];
}

/** An edit in the document helpers' terms: `add` an item to a list, `set` a field. */
export type ImportEdit = { op: 'add'; list: string[]; item: unknown } | { op: 'set'; path: (string | number)[]; value: unknown };

export interface ImportFileResult extends ImportReport {
  /** The new workspace file, when written. */
  workspace?: { path: string; mtimeMs: number };
  summary: string;
}

export interface ImportApplianceResult extends ImportReport {
  appliance: string;
  /** Applied by the page to the open workspace (one undo step); empty when refused. */
  edits: ImportEdit[];
  summary: string;
}

/** A driver the import reads, with its defaults (the appliance editor's and the push's). */
export interface ImportDriverInfo {
  name: ImportDriver;
  configPath: string;
  validateCommand: string;
  reloadCommand: string;
  /** import.box can pull it from the box over SSH (a config file lbdesk's importer reads). */
  fromBox: boolean;
}
