// Where the user is: section, selected row per list, the member whose detail is open, and the
// field a "jump to problem" should focus once it is on screen.
import { defineStore } from 'pinia';
import { reactive, ref, shallowRef } from 'vue';
import { isListView, type ListViewId, type ViewId } from '../../../shared/api/views';
import { parsePath, pathKey, type Path } from '../lib/tree';

export const useNav = defineStore('nav', () => {
  const section = ref<ViewId>('overview');
  const selected = reactive<Record<ListViewId, number | undefined>>({
    servers: undefined, groups: undefined, services: undefined, targetSets: undefined, appliances: undefined,
  });
  /** Field (path key) to focus once its editor is rendered; consumed by the field itself. */
  const focusKey = ref<string>();
  /** Bumps on each jump so the same field can be focused twice. */
  const focusSeq = ref(0);
  const member = ref<string>();
  const shortcutsOpen = ref(false);
  /** The list view on screen offers these to the keyboard (Alt+N, Alt+D, Alt+Delete). */
  const listActions = shallowRef<{ add(): void; duplicate(): void; remove(): void }>();
  const problemCursor = ref(-1);

  function go(id: ViewId): void {
    section.value = id;
  }
  function select(list: ListViewId, index: number | undefined): void {
    selected[list] = index;
  }

  /** Opens the editor that owns a path and focuses the field (or its nearest shown parent). */
  function jumpTo(path: Path | string): void {
    const p = parsePath(path);
    const head = p[0];
    if (isListView(head)) {
      section.value = head;
      if (typeof p[1] === 'number') selected[head] = p[1];
    } else if (head === 'healthTimers' || head === 'name' || head === 'description' || head === 'lbdesk') {
      section.value = 'overview';
    }
    focus(p);
  }
  /** Focuses the field at `path` once it is on screen (App.vue), without changing section. */
  function focus(path: Path | string): void {
    focusKey.value = pathKey(parsePath(path));
    focusSeq.value++;
  }

  return { section, selected, focusKey, focusSeq, member, shortcutsOpen, listActions, problemCursor, go, select, jumpTo, focus };
});
