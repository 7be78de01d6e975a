// What every list section shares: the selected item, add / duplicate / remove with undo, and the
// keyboard hooks (Alt+N, Alt+D, Alt+Delete).
import { computed, nextTick, onBeforeUnmount, onMounted, ref } from 'vue';
import { useNav } from '../stores/nav';
import { useWorkspace } from '../stores/workspace';
import { useApp } from '../stores/app';
import { usePrefs } from '../stores/prefs';
import { describeReferences, ownedReferences, type RenameKind } from '../lib/references';
import type { ListViewId } from '../../../shared/api/views';
import type { Path } from '../lib/tree';

export interface ListOptions {
  /** A fresh item for "Add"; the field to focus after adding. */
  create(): { item: Record<string, unknown>; focus?: string };
  /** A copy for "Duplicate" (a new name or number). */
  copy?(item: Record<string, unknown>): Record<string, unknown>;
  /** Words for the remove question's sentence, e.g. `server web1`. */
  describe(item: Record<string, unknown>): string;
}

const KIND: Partial<Record<ListViewId, RenameKind>> = { servers: 'server', groups: 'group', services: 'service', appliances: 'appliance' };

/** `group web`, `groups web and directory`, `group web and service x`. */
function joinWords(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

export function useList(list: ListViewId, opts: ListOptions) {
  const workspaceStore = useWorkspace();
  const nav = useNav();
  const filter = ref('');
  const items = computed(() => (Array.isArray(workspaceStore.raw[list]) ? (workspaceStore.raw[list] as Record<string, unknown>[]) : []));
  const selected = computed<number | undefined>({
    get: () => {
      const i = nav.selected[list];
      return i !== undefined && i < items.value.length ? i : undefined;
    },
    set: (i) => nav.select(list, i),
  });
  const current = computed(() => (selected.value === undefined ? undefined : items.value[selected.value]));
  const base = computed<Path | undefined>(() => (selected.value === undefined ? undefined : [list, selected.value]));

  function add(): void {
    const { item, focus } = opts.create();
    const at = workspaceStore.insert([list], item);
    if (at < 0) return;
    selected.value = at;
    if (focus) void nextTick(() => nav.focus([list, at, focus]));
  }
  function duplicate(): void {
    const i = selected.value;
    const cur = current.value;
    if (i === undefined || !cur || !opts.copy) return;
    // The copy goes at the end of the list (the document helpers append), and is selected.
    const at = workspaceStore.insert([list], opts.copy(JSON.parse(JSON.stringify(cur)) as Record<string, unknown>));
    if (at >= 0) selected.value = at;
  }
  /** Removes the selected item; one that others refer to is removed only after the user says so. */
  async function remove(): Promise<boolean> {
    const i = selected.value;
    const cur = current.value;
    if (i === undefined || !cur) return false;
    const what = opts.describe(cur);
    const kind = KIND[list];
    const refs = kind ? ownedReferences(workspaceStore.raw, kind, i) : [];
    if (refs.length) {
      const who = describeReferences(workspaceStore.raw, refs);
      const answer = await useApp().ask(`Remove ${what}?`, `${joinWords(who)} ${who.length === 1 ? 'refers' : 'refer'} to it (${refs.length} ${refs.length === 1 ? 'reference' : 'references'}): after removing it ${refs.length === 1 ? 'that reference names' : 'they name'} nothing, and validation reports ${refs.length === 1 ? 'it' : 'them'}. Undo (Ctrl+Z) brings it back.`, [
        { id: 'remove', label: `Remove ${what}`, danger: true },
        { id: 'cancel', label: 'Keep it', primary: true },
      ]);
      // The list may have changed while the question was open.
      if (answer !== 'remove' || items.value[i] !== cur) return false;
    }
    workspaceStore.remove([list], i, `remove ${what}`);
    const n = items.value.length;
    selected.value = n === 0 ? undefined : Math.min(i, n - 1);
    return true;
  }

  /** Enter (or a double click) on a row: into its editor, on the first field (the panel shown). */
  function enter(index: number): void {
    selected.value = index;
    usePrefs().panelCollapsed = false;
    void nextTick(() => document.querySelector<HTMLElement>('.list-layout .detail :is(input, select, textarea)')?.focus());
  }

  const actions = { add, duplicate, remove: () => void remove() };
  onMounted(() => {
    nav.listActions = actions;
    if (selected.value === undefined && items.value.length) selected.value = 0;
  });
  onBeforeUnmount(() => {
    if (nav.listActions === actions) nav.listActions = undefined;
  });

  return { filter, items, selected, current, base, add, duplicate, remove, enter, describe: opts.describe };
}
