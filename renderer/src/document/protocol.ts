// The document worker's messages. The worker owns the YAML text and Document (parsing a
// 10,000-server file takes long enough to stutter a UI thread, so it runs in a worker); the
// UI keeps a plain-JS mirror it updates at once and learns problems and undo state from here.
import type { Problem } from '../lib/model';
import type { Path } from '../lib/tree';

export type EditOp =
  | { op: 'set'; path: Path; value: unknown }
  | { op: 'delete'; path: Path }
  | { op: 'add'; list: Path; item: unknown }
  /** Many entries appended as one document edit (a paste): one re-parse, not one per entry. */
  | { op: 'addMany'; list: Path; items: unknown[] }
  | { op: 'remove'; list: Path; index: number };

export interface Batch { ops: EditOp[]; label: string; mergeKey?: string; at: number }

/** Items renamed in the editor since the file was opened (old name → new), for the suggestions of references left behind. */
export interface Rename { list: 'servers' | 'groups' | 'services' | 'appliances'; from: string; to: string }

export interface DocumentState {
  problems: Problem[];
  /** No errors (warnings allowed). */
  valid: boolean;
  /** The text differs from the last load or save. */
  dirty: boolean;
  /** The file has YAML syntax errors: shown, never edited. */
  broken: boolean;
  canUndo: boolean;
  canRedo: boolean;
  undoLabel?: string;
  redoLabel?: string;
  /** Text length, for choosing debounce times. */
  size: number;
  /** The whole mirror, when it may differ from what the UI predicted (load, undo, a refused edit). */
  raw?: Record<string, unknown>;
  /** A refused edit, as a sentence's body. */
  error?: string;
  migratedFrom?: number;
}

export type Request =
  | { id: number; kind: 'load'; text: string; file: string; savedText?: string }
  | { id: number; kind: 'edit'; batches: Batch[]; renames?: Rename[] }
  | { id: number; kind: 'undo' }
  | { id: number; kind: 'redo' }
  | { id: number; kind: 'normalise' }
  | { id: number; kind: 'text' }
  | { id: number; kind: 'saved'; text: string; file: string }
  /** A merge with the file on disk: `text` becomes the document (one undo step), `savedText` what is on disk. */
  | { id: number; kind: 'replace'; text: string; savedText: string; label: string }
  | { id: number; kind: 'warm' }
  | { id: number; kind: 'ping' };

export type Response = { id: number; state?: DocumentState; text?: string; changes?: string[]; fatal?: string };
