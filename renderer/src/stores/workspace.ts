// The open workspace: its file, the plain-JS mirror the editors bind to, problems from the shared
// validation, undo/redo, the dirty marker, and open/save. The YAML itself lives in the document
// worker; edits show at once in the mirror and reach the document worker in small batches.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { WorkspaceFile } from '../../../shared/api/contract';
import { ApiError } from '../../../shared/api/contract';
import { useApi } from '../api/inject';
import { errorSentence } from '../lib/errors';
import { compareTexts } from '../lib/textdiff';
import { conflictsOf, mergedText, mergeWorkspace, overwriteLoss, pathsAtLines, type Merge, type Side } from '../../../shared/model/merge';
import { fastLoad } from '../../../shared/model/fastload';
import { parsePath, pathKey, itemRoot, getIn, type Path } from '../lib/tree';
import { mirror, plain, type Raw } from './mirror';
import { advanceRename, beginRename, renameOps, type RenameKind, type RenameSession } from '../lib/references';
import type { Problem } from '../lib/model';
import { createDocumentClient, type DocumentClient } from '../document/client';
import { quickCheck } from '../lib/quickCheck';
import { describeAt, itemNoun } from '../lib/labels';
import type { Batch, EditOp, DocumentState, Rename } from '../document/protocol';

export interface KeyedProblem extends Problem { key: string; itemKey: string }
/** The file changed on disk while edits were unsaved, and both changed the same lines: the user chooses. */
export interface PendingMerge { theirs: string; mtimeMs: number; result: Merge; where: string[]; choices: (Side | undefined)[]; lost: { dropped: string[]; restored: number } }
/** A merge with the file on disk that needed no question: what it did, and each change's place. */
export interface DoneMerge { result: Merge; where: string[]; said: string }
export type { Raw } from './mirror';

const EMPTY: DocumentState = { problems: [], valid: true, dirty: false, broken: false, canUndo: false, canRedo: false, size: 0 };
/** Above this many characters, edits reach the document worker less often (each one re-parses the file). */
const BIG = 200_000;
const LISTS: Record<RenameKind, string> = { server: 'servers', group: 'groups', service: 'services', appliance: 'appliances' };

export interface WorkspaceOptions { worker?: boolean }
let options: WorkspaceOptions = {};
/** Tests run the document worker in-process. */
export function configureWorkspace(o: WorkspaceOptions): void {
  options = o;
}

/** Optional mappings whose absence reads like an empty one (their fields all have defaults). */
const EMPTY_MEANS_ABSENT = new Set(['healthTimers', 'peerNodeAware']);

/** After the last validation, how long before main is asked what a push would refuse. */
const PUSH_CHECK_DELAY_MS = 600;

export const useWorkspace = defineStore('workspace', () => {
  const api = useApi();
  let documentClient: Promise<DocumentClient> | undefined;
  const getDocument = () => (documentClient ??= createDocumentClient({ worker: options.worker }));

  const path = ref('');
  const mtimeMs = ref<number | undefined>();
  const loaded = ref(false);
  /**
   * Plain data, replaced on every change with copies along the edited path (siblings keep their
   * identity): no deep proxies over 10,000 servers, and every computed sees what changed.
   */
  const raw = shallowRef<Raw>({});
  /** The data of the file as last read or written here: what a lab started from the file runs. */
  const savedRaw = shallowRef<Raw>({});
  /** Bumps on every change of the mirror (edit, undo, load): the lab's "edited since start". */
  const rev = ref(0);
  const state = shallowRef<DocumentState>(EMPTY);
  /** Problems of the whole file, as the document worker last validated it. */
  const fileProblems = shallowRef<KeyedProblem[]>([]);
  /** Items edited since: their own quick check stands in for them until the document worker catches up. */
  const quick = shallowRef(new Map<string, KeyedProblem[]>());
  /** Pushes the file cannot make (asked of main after each clean validation): problems too. */
  const pushProblems = shallowRef<KeyedProblem[]>([]);
  const problems = computed<KeyedProblem[]>(() => {
    if (!quick.value.size && !pushProblems.value.length) return fileProblems.value;
    const out = fileProblems.value.filter((p) => !quick.value.has(p.itemKey));
    for (const list of quick.value.values()) out.push(...list);
    out.push(...pushProblems.value);
    return out;
  });
  const pendingCount = ref(0);
  /** The document worker is building the editable Document of a just-opened file (big files: seconds). */
  const warming = ref(false);
  const inFlight = ref(0);
  const loading = ref(false);
  const saving = ref(false);
  const lastSavedAt = ref<number>();
  const message = ref('');
  const notice = ref('');
  const externalChange = ref<{ mtimeMs: number }>();
  const conflict = ref('');
  /** After a conflict: the lines only the file on disk has, which "Overwrite with mine" drops. */
  const dropped = ref<string[]>([]);
  /** …and how many lines the file on disk removed that "Overwrite with mine" puts back. */
  const restored = ref(0);
  /** The file on disk and mine both changed the same lines: each conflict waits for a choice. */
  const merge = shallowRef<PendingMerge>();
  /** The last merge with the file on disk taken without a question (its changes, for "Show changes"). */
  const lastMerge = shallowRef<DoneMerge>();
  /** The text last read or written here: the base of a merge with the file on disk. */
  let baseText = '';
  const recent = ref<string[]>([]);

  const name = computed(() => (typeof raw.value.name === 'string' ? raw.value.name : ''));
  // Edits on their way to the document worker count too: the marker stays on while a batch is in
  // flight, so a Save that waits for it to go off reads the file after the write.
  const dirty = computed(() => loaded.value && (pendingCount.value > 0 || inFlight.value > 0 || state.value.dirty));
  const validating = computed(() => pendingCount.value > 0 || inFlight.value > 0);
  const canUndo = computed(() => state.value.canUndo || pendingCount.value > 0);
  const canRedo = computed(() => state.value.canRedo && pendingCount.value === 0);
  const undoLabel = computed(() => state.value.undoLabel);
  const redoLabel = computed(() => state.value.redoLabel);
  const broken = computed(() => state.value.broken);
  const errors = computed(() => problems.value.filter((p) => p.severity === 'error'));
  const warnings = computed(() => problems.value.filter((p) => p.severity === 'warning'));

  const byKey = computed(() => {
    const m = new Map<string, KeyedProblem[]>();
    for (const p of problems.value) m.set(p.key, [...(m.get(p.key) ?? []), p]);
    return m;
  });
  const byItem = computed(() => {
    const m = new Map<string, { errors: number; warnings: number }>();
    for (const p of problems.value) {
      const c = m.get(p.itemKey) ?? { errors: 0, warnings: 0 };
      if (p.severity === 'error') c.errors++;
      else c.warnings++;
      m.set(p.itemKey, c);
    }
    return m;
  });
  const problemsAt = (key: string): KeyedProblem[] => byKey.value.get(key) ?? [];

  function keyed(list: Problem[]): KeyedProblem[] {
    return list.map((p) => {
      const pp = p.segments ?? parsePath(p.path);
      return { ...p, key: pathKey(pp), itemKey: pathKey(itemRoot(pp)) };
    });
  }

  // --- the document worker ----------------------------------------------------------------------------
  let pending: Batch[] = [];
  /** The rename being typed, if any (see rename()), and the name the item had when it began. */
  let renaming: { key: string; session: RenameSession; from: string } | undefined;
  /** Every rename since the file was opened: a reference left on an old name is pointed at the new one. */
  let renames: Rename[] = [];
  let renamesChanged = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  // A push refused before it connects (HAProxy has no IPFE least-load, a relative configPath)
  // shows in Problems with the rest, not only when Push is pressed. Main renders for each
  // appliance, so it is asked once edits pause, and only of a file with appliances and no errors.
  let pushCheck: ReturnType<typeof setTimeout> | undefined;
  let pushCheckSeq = 0;
  function schedulePushCheck(): void {
    clearTimeout(pushCheck);
    const seq = ++pushCheckSeq;
    const apps = raw.value.appliances;
    if (!loaded.value || !Array.isArray(apps) || !apps.length || fileProblems.value.some((p) => p.severity === 'error')) {
      pushProblems.value = [];
      return;
    }
    pushCheck = setTimeout(() => {
      void (async () => {
        try {
          const found = await api.call('appliance.problems', await source());
          if (seq === pushCheckSeq) pushProblems.value = keyed(found);
        } catch {
          if (seq === pushCheckSeq) pushProblems.value = [];
        }
      })();
    }, PUSH_CHECK_DELAY_MS);
  }

  function take(st: DocumentState | undefined): void {
    if (!st) return;
    state.value = st;
    fileProblems.value = keyed(st.problems);
    schedulePushCheck();
    if (!pending.length && inFlight.value <= 1) quick.value = new Map();
    if (st.raw) {
      // The document worker's word wins; edits made since it was asked are replayed on top.
      let next = st.raw;
      for (const b of pending) for (const op of b.ops) next = mirror(next, op);
      raw.value = next;
      rev.value++;
    }
    if (st.error) message.value = errorSentence(new Error(st.error), 'apply the edit');
  }

  /** Every request to the document worker, answered or not: the worker answers them in order. */
  let idle: Promise<void> = Promise.resolve();
  function tracked<T>(p: Promise<T>): Promise<T> {
    // Settled to undefined: each link would otherwise keep every earlier answer (whole workspaces) alive.
    idle = Promise.allSettled([idle, p]).then(() => undefined);
    return p;
  }

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const batches = pending;
    pending = [];
    pendingCount.value = 0;
    inFlight.value++;
    try {
      const e = await getDocument();
      const sent = renamesChanged ? renames.map((x) => ({ ...x })) : undefined;
      renamesChanged = false;
      const r = await tracked(e.send({ kind: 'edit', batches, renames: sent }));
      if (r.fatal) message.value = errorSentence(new Error(r.fatal), 'apply the edit');
      take(r.state);
      // Appends (a paste) skip the editable Document; build it now, before the next keystroke.
      if (batches.some((b) => b.ops.some((o) => o.op === 'addMany'))) warm(e);
    } finally {
      inFlight.value--;
    }
    if (pending.length) schedule();
  }
  function schedule(): void {
    if (timer) clearTimeout(timer);
    // One batch in flight at a time: big files re-parse per batch, so let typing pile up.
    if (inFlight.value > 0) return;
    timer = setTimeout(() => void flush(), state.value.size > BIG ? 300 : 40);
  }

  /** Applies edits: the mirror now, the document shortly (one undo step per call, typing merges). */
  function edit(label: string, ops: EditOp[], mergeKey?: string): boolean {
    if (!loaded.value) return false;
    // Any other edit ends a rename in progress: what names the item may have changed.
    if (mergeKey === undefined || renaming?.key !== mergeKey) renaming = undefined;
    if (state.value.broken) {
      message.value = 'The file has YAML syntax errors, so it cannot be edited here: fix them in a text editor, then reopen it.';
      return false;
    }
    let next = raw.value;
    for (const op of ops) next = mirror(next, op);
    raw.value = next;
    rev.value++;
    recheck(ops);
    pending.push({ ops, label, mergeKey, at: Date.now() });
    pendingCount.value = pending.length;
    schedule();
    return true;
  }

  function recheck(ops: EditOp[]): void {
    const m = new Map(quick.value);
    for (const op of ops) {
      // Many new items at once (a paste, checked in its preview): the document worker validates them all
      // together; one quick check each would compare every name with every other.
      if (op.op === 'addMany') continue;
      let root = itemRoot(op.op === 'add' || op.op === 'remove' ? op.list : op.path);
      if (op.op === 'remove' && op.list.length === 1) {
        // Later items moved up: their quick results no longer match their index.
        for (const k of [...m.keys()]) if (k.startsWith(`${String(op.list[0])}.`)) m.delete(k);
        continue;
      }
      if (op.op === 'add' && op.list.length === 1) root = [op.list[0]!, ((getIn(raw.value, op.list) as unknown[] | undefined)?.length ?? 1) - 1];
      const found = quickCheck(raw.value, root, path.value);
      if (found) m.set(pathKey(root), keyed(found));
    }
    quick.value = m;
  }

  function warm(e: DocumentClient): void {
    warming.value = true;
    void tracked(e.send({ kind: 'warm' })).finally(() => (warming.value = false));
  }

  // --- opening -------------------------------------------------------------------------------
  async function load(file: WorkspaceFile): Promise<void> {
    const e = await getDocument();
    pending = [];
    renaming = undefined;
    renames = [];
    renamesChanged = false;
    pendingCount.value = 0;
    quick.value = new Map();
    const r = await e.send({ kind: 'load', text: file.text, file: file.path });
    if (r.fatal) throw new Error(r.fatal);
    path.value = file.path;
    mtimeMs.value = file.mtimeMs;
    loaded.value = true;
    externalChange.value = undefined;
    conflict.value = '';
    dropped.value = [];
    restored.value = 0;
    merge.value = undefined;
    lastMerge.value = undefined;
    baseText = file.text;
    message.value = '';
    // What was said about the file before (normalised on save, saved N s ago) is not about this one.
    notice.value = '';
    lastSavedAt.value = undefined;
    take(r.state);
    savedRaw.value = raw.value;
    // Parse the editable Document now, while the user is still looking, not on the first keystroke.
    warm(e);
    if (r.state?.migratedFrom !== undefined) notice.value = `This file was in format version ${r.state.migratedFrom}; it was migrated here and is written in the new format when you save.`;
  }

  async function withLoading(what: string, fn: () => Promise<WorkspaceFile>): Promise<boolean> {
    loading.value = true;
    message.value = '';
    try {
      await load(await fn());
      void refreshRecent();
      return true;
    } catch (e) {
      message.value = errorSentence(e, what);
      return false;
    } finally {
      loading.value = false;
    }
  }
  const open = (file: string) => withLoading(`open ${file}`, () => api.call('workspace.read', { path: file }));
  const openDemo = () => withLoading('open the demo workspace', () => api.call('workspace.demo', {}));

  /** First start: the last workspace, else the demo; a missing last file falls back to the demo. */
  async function start(startPath?: string): Promise<void> {
    if (startPath && (await open(startPath))) return;
    const why = message.value;
    if (await openDemo()) notice.value = why ? `${why} Opened the demo workspace instead.` : '';
  }

  async function refreshRecent(): Promise<void> {
    try {
      recent.value = await api.call('workspace.recent', {});
    } catch {
      // The recent list is a convenience; everything else works without it.
    }
  }

  // --- saving --------------------------------------------------------------------------------
  let changedWhileSaving: { path: string; mtimeMs: number } | undefined;

  /** The current text (after pending edits). */
  async function text(): Promise<string> {
    await flush();
    const r = await (await getDocument()).send({ kind: 'text' });
    return r.text ?? '';
  }

  /** What a call runs on: the file, with the text on screen when it has edits not saved. */
  async function source(): Promise<{ path: string; text?: string }> {
    return dirty.value ? { path: path.value, text: await text() } : { path: path.value };
  }

  async function save(to?: string): Promise<boolean> {
    if (!loaded.value || saving.value) return false;
    const target = to ?? path.value;
    if (!target) return false;
    saving.value = true;
    changedWhileSaving = undefined;
    const sameFile = target === path.value;
    try {
      await flush();
      const e = await getDocument();
      const n = await e.send({ kind: 'normalise' });
      take(n.state);
      const body = await text();
      const saved = await api.call('workspace.write', { path: target, text: body, expectedMtimeMs: sameFile ? mtimeMs.value : undefined });
      take((await e.send({ kind: 'saved', text: body, file: saved.path })).state);
      savedRaw.value = raw.value;
      path.value = saved.path;
      mtimeMs.value = saved.mtimeMs;
      lastSavedAt.value = Date.now();
      externalChange.value = undefined;
      conflict.value = '';
      dropped.value = [];
      restored.value = 0;
      merge.value = undefined;
      lastMerge.value = undefined;
      baseText = body;
      message.value = '';
      const errs = errors.value.length;
      const norm = n.changes?.length ? `Fm + Fc normalised to 100 in ${n.changes.length} target ${n.changes.length === 1 ? 'set' : 'sets'}. ` : '';
      notice.value = errs ? `${norm}Saved with ${errs} ${errs === 1 ? 'error' : 'errors'} still to fix.` : norm;
      void refreshRecent();
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.code === 'conflict') {
        conflict.value = errorSentence(e);
        const loss = await theirsOnly(target, await text(), sameFile);
        dropped.value = loss.dropped;
        restored.value = loss.restored;
      }
      else message.value = errorSentence(e, `save ${target}`);
      return false;
    } finally {
      saving.value = false;
      const ev = changedWhileSaving;
      changedWhileSaving = undefined;
      if (ev) onChanged(ev);
    }
  }

  /**
   * What overwriting the file on disk with `mine` loses: the lines its changes since the base
   * brought (for another file than the open one, every line of it mine does not have).
   */
  async function theirsOnly(file: string, mine: string, sameFile: boolean): Promise<{ dropped: string[]; restored: number }> {
    const disk = await api.call('workspace.read', { path: file }).catch(() => undefined);
    if (!disk) return { dropped: [], restored: 0 };
    return overwriteLoss(mergeWorkspace(sameFile ? baseText : '', mine, disk.text));
  }
  /** After a conflict: the user chose their version over the one on disk. */
  async function overwrite(): Promise<boolean> {
    mtimeMs.value = undefined;
    return save();
  }
  const reload = async (): Promise<boolean> => (path.value ? open(path.value) : false);

  function onChanged(ev: { path: string; mtimeMs: number }): void {
    if (saving.value) {
      changedWhileSaving = ev;
      return;
    }
    if (ev.path !== path.value || mtimeMs.value === undefined) return;
    if (Math.abs(ev.mtimeMs - mtimeMs.value) <= 1) return;
    // Nothing to lose (a pinned host key, another window's save): follow the file. With unsaved
    // edits, ask.
    if (!dirty.value && !saving.value) {
      void (async () => {
        const before = await text();
        if (!(await open(ev.path))) return;
        const d = compareTexts(before, await text());
        notice.value = `The file changed on disk and was reloaded: +${d.added} −${d.removed} lines.`;
      })();
    } else {
      externalChange.value = { mtimeMs: ev.mtimeMs };
      void mergeDisk(ev.path);
    }
  }
  api.on('workspace.changed', onChanged);

  // --- merging with the file on disk ---------------------------------------------------------
  /**
   * The file changed on disk under unsaved edits: what only one side changed is merged at once
   * (comments and untouched lines exact); lines both changed wait in `merge` for the user.
   */
  async function mergeDisk(file: string): Promise<void> {
    const disk = await api.call('workspace.read', { path: file }).catch((e: unknown) => {
      message.value = errorSentence(e, `read ${file} to merge it`);
      return undefined;
    });
    if (!disk || disk.path !== path.value || saving.value) return;
    if (disk.text === baseText) {
      // Touched, not changed: nothing to merge.
      mtimeMs.value = disk.mtimeMs;
      externalChange.value = undefined;
      return;
    }
    const mine = await text();
    const m = mergeWorkspace(baseText, mine, disk.text);
    const where = places(m, mine, disk.text);
    if (m.conflicts) {
      merge.value = { theirs: disk.text, mtimeMs: disk.mtimeMs, result: m, where, choices: [], lost: overwriteLoss(m) };
      return;
    }
    await adopt(mergedText(m, []), disk);
    const n = m.theirsChanges;
    lastMerge.value = { result: m, where, said: `The file changed on disk: ${n} ${n === 1 ? 'change' : 'changes'} from there merged with your unsaved edits, no conflicts. Save to write both.` };
  }

  /** Each change's place in words (`server web2 address`), from the side that has its lines. */
  function places(m: Merge, mine: string, theirs: string): string[] {
    const changed = m.chunks.flatMap((c) => (c.kind === 'same' ? [] : [c]));
    const inMine = pathsAtLines(mine, changed.map((c) => c.mineLine));
    const inTheirs = pathsAtLines(theirs, changed.map((c) => c.theirsLine));
    const theirsRaw = fastLoad(theirs);
    const theirsData = theirsRaw.ok ? theirsRaw.data : {};
    let k = 0;
    return m.chunks.map((c) => {
      if (c.kind === 'same') return '';
      const i = k++;
      const mineSide = c.mine.some((l) => l.trim()) || !c.theirs.some((l) => l.trim());
      const p = mineSide ? inMine[i]! : inTheirs[i]!;
      return p.length ? describeAt(mineSide ? raw.value : theirsData, p) : `line ${c.baseLine}`;
    });
  }

  /** The merged text becomes the document; the file on disk is its new base. */
  async function adopt(merged: string, disk: { text: string; mtimeMs: number }): Promise<void> {
    const e = await getDocument();
    const r = await tracked(e.send({ kind: 'replace', text: merged, savedText: disk.text, label: 'merge the file on disk' }));
    if (r.fatal) throw new Error(r.fatal);
    baseText = disk.text;
    mtimeMs.value = disk.mtimeMs;
    const fast = fastLoad(disk.text);
    if (fast.ok && fast.data && typeof fast.data === 'object') savedRaw.value = fast.data as Raw;
    externalChange.value = undefined;
    merge.value = undefined;
    conflict.value = '';
    dropped.value = [];
    restored.value = 0;
    take(r.state);
  }

  /** Keeps mine or takes theirs for the i-th conflict. */
  function choose(i: number, side: Side): void {
    const cur = merge.value;
    if (!cur) return;
    const choices = [...cur.choices];
    choices[i] = side;
    merge.value = { ...cur, choices };
  }

  /** Every conflict chosen: merges (edits typed meanwhile included; if they moved a conflict, asks again). */
  async function applyMerge(): Promise<boolean> {
    const cur = merge.value;
    if (!cur || cur.result.chunks.length === 0) return false;
    const mine = await text();
    const m = mergeWorkspace(baseText, mine, cur.theirs);
    if (JSON.stringify(conflictsOf(m).map((c) => [c.mine, c.theirs])) !== JSON.stringify(conflictsOf(cur.result).map((c) => [c.mine, c.theirs]))) {
      merge.value = { ...cur, result: m, where: places(m, mine, cur.theirs), choices: [], lost: overwriteLoss(m) };
      message.value = 'Your edits since changed the lines in conflict: choose again.';
      return false;
    }
    const missing = conflictsOf(m).findIndex((_, i) => !cur.choices[i]);
    if (missing >= 0) {
      message.value = `Choose yours or theirs for conflict ${missing + 1} of ${m.conflicts} first.`;
      return false;
    }
    const taken = cur.choices.filter((c) => c === 'theirs').length;
    const where = places(m, mine, cur.theirs);
    await adopt(mergedText(m, cur.choices), { text: cur.theirs, mtimeMs: cur.mtimeMs });
    message.value = '';
    const kept = m.conflicts - taken;
    lastMerge.value = { result: m, where, said: `Merged with the file on disk: ${m.theirsChanges - kept} of its changes taken, ${kept} of your conflicting ${kept === 1 ? 'edit' : 'edits'} kept over theirs. Save to write it.` };
    return true;
  }

  // --- editing -------------------------------------------------------------------------------
  const get = (p: Path): unknown => getIn(raw.value, p);
  /** Sets a field; undefined removes it. Typing in one field merges into one undo step. */
  function set(p: Path, value: unknown): void {
    let target = p;
    // Clearing the last field of a mapping whose absence means the same as empty removes the
    // mapping too: no `healthTimers: {}` left behind in the file.
    if (value === undefined && p.length > 1 && EMPTY_MEANS_ABSENT.has(String(p[p.length - 2]))) {
      const parent = getIn(raw.value, p.slice(0, -1));
      const keys = parent && typeof parent === 'object' && !Array.isArray(parent) ? Object.keys(parent) : [];
      if (keys.length === 1 && keys[0] === String(p[p.length - 1])) target = p.slice(0, -1);
    }
    const op: EditOp = value === undefined ? { op: 'delete', path: target } : { op: 'set', path: p, value: plain(value) };
    edit(`edit ${describeAt(raw.value, p)}`, [op], `set:${pathKey(p)}`);
  }
  /** Appends to a list; returns the new item's index. */
  function insert(list: Path, item: unknown): number {
    const cur = getIn(raw.value, list);
    const at = Array.isArray(cur) ? cur.length : 0;
    const label = list.length === 1 ? `add ${itemNoun(String(list[0]))}` : `add to ${describeAt(raw.value, list)}`;
    return edit(label, [{ op: 'add', list, item: plain(item) }]) ? at : -1;
  }
  /** Removes a list item; the label names it for the Undo tooltip (`remove server web1`). */
  function remove(list: Path, index: number, label?: string): void {
    edit(label ?? `remove ${describeAt(raw.value, [...list, index])}`, [{ op: 'remove', list, index }]);
  }
  /** Several edits as one undo step. */
  function transact(label: string, ops: EditOp[], mergeKey?: string): void {
    edit(label, ops, mergeKey);
  }
  /**
   * Renames an object and every reference to it, as one step. Successive renames of the same item
   * (typing) move the references it had when the first one began, and only those.
   */
  function rename(kind: RenameKind, index: number, to: string): void {
    const key = `rename:${kind}:${index}`;
    let s = renaming?.key === key && getIn(raw.value, [LISTS[kind], index, 'name']) === renaming.session.name ? renaming.session : undefined;
    const from = s && renaming ? renaming.from : (getIn(raw.value, [LISTS[kind], index, 'name']) as string | undefined) ?? '';
    s ??= beginRename(raw.value, kind, index);
    const before = raw.value;
    const prev = getIn(before, [LISTS[kind], index, 'name']);
    const ops = renameOps(before, s, to).map(([p, v]): EditOp => ({ op: 'set', path: p, value: v }));
    if (edit(`rename ${kind} ${s.name || '(unnamed)'}`, ops, key)) {
      renaming = { key, session: advanceRename(before, s, to), from };
      noteRename(LISTS[kind] as Rename['list'], index, from, typeof prev === 'string' ? prev : '', to);
    }
  }
  /**
   * `from` (the name when the rename began) is now `to`, and so is every name that had become
   * `prev` (the name before this keystroke); a name another item still has is that item's, not a
   * former name.
   */
  function noteRename(list: Rename['list'], index: number, from: string, prev: string, to: string): void {
    if (!from) return;
    const items = raw.value[list];
    const shared = Array.isArray(items) && items.some((x, i) => i !== index && (x as { name?: unknown } | null)?.name === from);
    const next = renames.filter((r) => !(r.list === list && r.from === from)).map((r) => (r.list === list && r.to === prev ? { ...r, to } : r));
    if (!shared) next.push({ list, from, to });
    renames = next.filter((r) => r.from !== r.to && r.to);
    renamesChanged = true;
  }
  /** The name field lost the focus: the next rename of the item starts from what names it then. */
  function endRename(): void {
    renaming = undefined;
  }

  // Undo and redo count as in flight from the key press: a dialog opened meanwhile waits for them.
  function undo(): Promise<boolean> {
    return tracked(step('undo'));
  }
  function redo(): Promise<boolean> {
    return tracked(step('redo'));
  }
  async function step(kind: 'undo' | 'redo'): Promise<boolean> {
    if (!loaded.value) return false;
    renaming = undefined;
    await flush();
    const r = await (await getDocument()).send({ kind });
    take(r.state);
    return true;
  }
  /**
   * Resolves once every edit so far is in the document and validated, and every request already
   * sent (an undo queued behind a paste's warm-up) has answered: "dirty" is only final then.
   */
  async function settle(): Promise<void> {
    await flush();
    await idle;
  }

  return {
    path, mtimeMs, loaded, raw, savedRaw, rev, state, problems, validating, warming, loading, saving, lastSavedAt, message, notice, externalChange,
    conflict, dropped, restored, merge, lastMerge, recent, name, dirty, canUndo, canRedo, undoLabel, redoLabel, broken, errors, warnings, byItem, problemsAt,
    load, open, openDemo, start, refreshRecent, text, source, save, overwrite, reload, choose, applyMerge, get, set, insert, remove, transact, rename, endRename,
    undo, redo, settle,
  };
});

export type WorkspaceStore = ReturnType<typeof useWorkspace>;
export { mirror } from './mirror';
