// The document worker: the workspace text, its comment-keeping Document, validation and undo.
// Everything about YAML goes through shared/model; this only sequences it and keeps history.
import type { Document } from 'yaml';
import { addItem, addItems, appendSplice, createDocument, deleteField, documentToText, normaliseFactors, parseWorkspace, removeItem, setField, validateDocument, type Problem } from '../../../shared/model';
import { fastLoad } from '../../../shared/model/fastload';
import { documentData } from '../../../shared/model/aliases';
import type { Batch, EditOp, DocumentState, Rename } from './protocol';
import type { Renamed } from '../../../shared/model/crossref';
import { sameData, updateIn } from '../lib/tree';

interface Step { text: string; label: string; key?: string; at: number }

const UNDO_LIMIT = 200;
/** Edits of one field within this time make one undo step (typing). */
const MERGE_MS = 1500;

export class WorkspaceDocument {
  private text = '';
  private savedText = '';
  private file = 'workspace.yaml';
  private docRef: Document | undefined;
  private lazyDoc: (() => Document) | undefined;
  private problems: Problem[] = [];
  private done: Step[] = [];
  private undone: Step[] = [];
  /** Typing merges only into the step it started, and not across undo/redo/save. */
  private openKey: string | undefined;
  private openAt = 0;
  private migratedFrom: number | undefined;
  private renamed: Renamed = {};

  load(text: string, file: string, savedText = text): DocumentState {
    this.file = file;
    this.savedText = savedText;
    this.renamed = {};
    this.done = [];
    this.undone = [];
    this.openKey = undefined;
    this.setText(text, true);
    return this.state(true);
  }

  edit(batches: Batch[], renames?: Rename[]): DocumentState {
    if (renames) this.renamed = renamedOf(renames);
    let error: string | undefined;
    /** Whether the text changed since it was last validated. */
    let stale = false;
    for (const b of batches) {
      if (this.broken()) {
        error = 'the file has YAML syntax errors; fix them in a text editor, then reopen it';
        break;
      }
      const before = this.text;
      try {
        if (this.appendFast(b.ops)) stale = false;
        else {
          const doc = this.doc();
          for (const op of b.ops) apply(doc, op);
          this.text = documentToText(doc);
          stale = true;
        }
      } catch (e) {
        // A refused edit leaves the document as it was.
        this.setText(before, false);
        error = e instanceof Error ? e.message : String(e);
        break;
      }
      if (this.text === before) continue;
      const merge = b.mergeKey !== undefined && b.mergeKey === this.openKey && b.at - this.openAt <= MERGE_MS && this.done.length > 0;
      if (!merge) {
        this.done.push({ text: before, label: b.label, key: b.mergeKey, at: b.at });
        if (this.done.length > UNDO_LIMIT) this.done.shift();
      }
      this.undone = [];
      this.openKey = b.mergeKey;
      this.openAt = b.at;
    }
    if (stale || error !== undefined) this.validate();
    return { ...this.state(error !== undefined), error };
  }

  /**
   * Appends to lists (a paste of thousands) without the Document: splices from the current one,
   * then the fast reader validates the new text, and must read exactly the intended data; the
   * Document is rebuilt lazily (warm). False when the batch is not only appends, or not provable.
   */
  private appendFast(ops: EditOp[]): boolean {
    if (!ops.length || !ops.every((o) => o.op === 'addMany') || this.broken()) return false;
    const doc = this.doc();
    const splices = ops.map((o) => (o.op === 'addMany' ? appendSplice(doc, o.list, o.items) : undefined));
    if (splices.some((x) => !x)) return false;
    const ordered = (splices as NonNullable<(typeof splices)[number]>[]).sort((a, b) => b.at - a.at);
    if (ordered.some((x, i) => i > 0 && x.at === ordered[i - 1]!.at)) return false;
    let text = this.text;
    for (const x of ordered) text = text.slice(0, x.at) + x.text + text.slice(x.end);
    let want = asObject(documentData(doc));
    for (const o of ops) if (o.op === 'addMany') want = updateIn(want, o.list, (l) => [...(l as unknown[]), ...o.items]) as Record<string, unknown>;
    const got = fastLoad(text);
    if (!got.ok || !sameData(got.data, want)) return false;
    this.setText(text, true);
    return true;
  }

  undo(): DocumentState {
    const step = this.done.pop();
    if (!step) return this.state(false);
    this.undone.push({ ...step, text: this.text });
    this.openKey = undefined;
    this.setText(step.text, true);
    return this.state(true);
  }

  redo(): DocumentState {
    const step = this.undone.pop();
    if (!step) return this.state(false);
    this.done.push({ ...step, text: this.text });
    this.openKey = undefined;
    this.setText(step.text, true);
    return this.state(true);
  }

  /** Fm + Fc to 100 before saving (IPFE "on commit"), as one undoable step. */
  normalise(): { state: DocumentState; changes: string[] } {
    if (this.broken()) return { state: this.state(false), changes: [] };
    const before = this.text;
    const doc = this.doc();
    const changes = normaliseFactors(doc);
    if (!changes.length) return { state: this.state(false), changes };
    this.text = documentToText(doc);
    this.done.push({ text: before, label: 'normalise Fm + Fc to 100', at: Date.now() });
    this.undone = [];
    this.openKey = undefined;
    this.validate();
    return { state: this.state(true), changes };
  }

  /** Builds the Document ahead of the first edit (the fast load path skips it). */
  warm(): void {
    if (!this.broken()) this.doc();
  }

  currentText(): string {
    return this.text;
  }

  saved(text: string, file: string): DocumentState {
    this.savedText = text;
    this.file = file;
    this.openKey = undefined;
    return this.state(false);
  }

  /** The text after a merge with the file on disk (now `savedText`): undoable like an edit. */
  replace(text: string, savedText: string, label: string): DocumentState {
    if (text !== this.text) {
      this.done.push({ text: this.text, label, at: Date.now() });
      if (this.done.length > UNDO_LIMIT) this.done.shift();
      this.undone = [];
    }
    this.savedText = savedText;
    this.openKey = undefined;
    this.setText(text, true);
    return this.state(true);
  }

  // ------------------------------------------------------------------------------------------

  private broken(): boolean {
    return this.problems.some((p) => p.path === '(yaml)' && p.severity === 'error');
  }

  private doc(): Document {
    if (!this.docRef) this.docRef = this.lazyDoc ? this.lazyDoc() : createDocument(this.text);
    this.lazyDoc = undefined;
    return this.docRef;
  }

  /** Replaces the text: parse (fast path when possible), validate, and build the Document lazily. */
  private setText(text: string, validate: boolean): void {
    const r = parseWorkspace(text, this.file, { renamed: this.renamed });
    this.docRef = undefined;
    this.lazyDoc = () => r.doc;
    this.migratedFrom = r.migratedFrom;
    // A migration edits the document: its text is what a save writes.
    this.text = r.migratedFrom !== undefined ? documentToText(this.doc()) : text;
    if (validate) this.problems = r.problems;
  }

  private validate(): void {
    this.problems = validateDocument(this.doc(), this.file, { renamed: this.renamed }).problems;
  }

  private raw(): Record<string, unknown> {
    if (!this.docRef) {
      const fast = fastLoad(this.text);
      if (fast.ok) return asObject(fast.data);
    }
    try {
      return asObject(documentData(this.doc()));
    } catch {
      return {};
    }
  }

  private state(withRaw: boolean): DocumentState {
    const last = this.done.at(-1);
    const next = this.undone.at(-1);
    return {
      problems: this.problems,
      valid: !this.problems.some((p) => p.severity === 'error'),
      dirty: this.text !== this.savedText,
      broken: this.broken(),
      canUndo: this.done.length > 0,
      canRedo: this.undone.length > 0,
      undoLabel: last?.label,
      redoLabel: next?.label,
      size: this.text.length,
      raw: withRaw ? this.raw() : undefined,
      migratedFrom: this.migratedFrom,
    };
  }
}

function apply(doc: Document, op: EditOp): void {
  switch (op.op) {
    case 'set':
      return setField(doc, op.path, op.value as never);
    case 'delete':
      return deleteField(doc, op.path);
    case 'add':
      return addItem(doc, op.list, op.item as never);
    case 'addMany':
      return addItems(doc, op.list, op.items);
    case 'remove':
      return removeItem(doc, op.list, op.index);
  }
}

function renamedOf(list: Rename[]): Renamed {
  const out: Record<string, Map<string, string>> = {};
  for (const r of list) (out[r.list] ??= new Map()).set(r.from, r.to);
  return out as Renamed;
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
