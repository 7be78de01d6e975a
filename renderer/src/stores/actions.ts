// Every command the header, the menus and the keyboard share, by name.
import { nextTick } from 'vue';
import { viewOfCommand } from '../../../shared/api/views';
import { useApp } from './app';
import { useAppliances } from './appliances';
import { useLab } from './lab';
import { useNav } from './nav';
import { usePrefs } from './prefs';
import { useWorkspace } from './workspace';

export function useActions() {
  const app = useApp();
  const workspaceStore = useWorkspace();
  const nav = useNav();
  const lab = useLab();
  const prefs = usePrefs();
  const apps = useAppliances();

  function problemStep(dir: 1 | -1): void {
    const list = workspaceStore.problems;
    if (!list.length) return;
    const n = list.length;
    nav.problemCursor = (((nav.problemCursor + dir) % n) + n) % n;
    const p = list[nav.problemCursor]!;
    nav.jumpTo(p.segments ?? p.path);
  }

  const table: Record<string, () => unknown> = {
    new: () => app.newWorkspace(),
    open: () => app.open(),
    save: () => app.save(),
    saveAs: () => app.saveAs(),
    undo: () => workspaceStore.undo(),
    redo: () => workspaceStore.redo(),
    lab: () => lab.toggle(),
    labApply: () => lab.running && app.applyToLab(),
    filter: () => nextTick(() => document.querySelector<HTMLInputElement>('[data-filter]')?.focus()),
    add: () => nav.listActions?.add(),
    duplicate: () => nav.listActions?.duplicate(),
    remove: () => nav.listActions?.remove(),
    nextProblem: () => problemStep(1),
    prevProblem: () => problemStep(-1),
    diff: () => {
      nav.go('appliances');
      void apps.loadDiff();
    },
    theme: () => prefs.toggleTheme(),
    help: () => (nav.shortcutsOpen = true),
    escape: () => {
      if (nav.member) nav.member = undefined;
    },
  };

  function run(action: string): void {
    const view = viewOfCommand(action);
    if (view) return nav.go(view.id);
    void table[action]?.();
  }

  return { run };
}
