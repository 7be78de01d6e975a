// Keyboard shortcuts: one table used by the key handler, the help dialog and docs/ui.md.
import { VIEWS } from '../../../shared/api/views';
export interface Shortcut {
  /** `Ctrl+Shift+S`; Cmd counts as Ctrl on macOS. */
  keys: string[];
  label: string;
  action: string;
  /** Also while typing in a field (save, undo, sections…). */
  inInputs?: boolean;
  /** Keys only the desktop app takes: in a browser tab they stay the browser's (F5 reloads). */
  desktopKeys?: string[];
}

export const SHORTCUTS: Shortcut[] = [
  // A browser tab keeps Ctrl+N for a new window: Alt+Shift+N always reaches lbdesk.
  { keys: ['Ctrl+N', 'Alt+Shift+N'], label: 'New workspace…', action: 'new', inInputs: true },
  { keys: ['Ctrl+O'], label: 'Open a workspace', action: 'open', inInputs: true },
  { keys: ['Ctrl+S'], label: 'Save', action: 'save', inInputs: true },
  { keys: ['Ctrl+Shift+S'], label: 'Save as…', action: 'saveAs', inInputs: true },
  { keys: ['Ctrl+Z'], label: 'Undo', action: 'undo', inInputs: true },
  { keys: ['Ctrl+Shift+Z', 'Ctrl+Y'], label: 'Redo', action: 'redo', inInputs: true },
  // A browser tab may keep Ctrl+digits for its tabs: Alt+digit always reaches lbdesk. The action is the menu's command.
  ...VIEWS.map((v) => ({ keys: [`Ctrl+${v.key}`, `Alt+${v.key}`], label: `Go to ${v.label}`, action: v.command, inInputs: true })),
  { keys: ['Alt+L'], desktopKeys: ['F5'], label: 'Start or stop the lab', action: 'lab', inInputs: true },
  { keys: ['Alt+Shift+L'], desktopKeys: ['Shift+F5'], label: 'Apply edits to the running lab', action: 'labApply', inInputs: true },
  { keys: ['Ctrl+F'], label: 'Filter the table', action: 'filter', inInputs: true },
  { keys: ['Alt+N'], label: 'Add an item to this list', action: 'add', inInputs: true },
  { keys: ['Alt+D'], label: 'Duplicate the selected item', action: 'duplicate', inInputs: true },
  { keys: ['Alt+Delete'], label: 'Remove the selected item (undo brings it back)', action: 'remove', inInputs: false },
  { keys: ['F8'], label: 'Next problem', action: 'nextProblem', inInputs: true },
  { keys: ['Shift+F8'], label: 'Previous problem', action: 'prevProblem', inInputs: true },
  { keys: ['Ctrl+Shift+D'], label: 'Diff against the selected appliance', action: 'diff', inInputs: true },
  { keys: ['Ctrl+Shift+L'], label: 'Switch light / dark theme', action: 'theme', inInputs: true },
  { keys: ['F1', '?'], label: 'Show keyboard shortcuts', action: 'help' },
  { keys: ['Escape'], label: 'Close the dialog or the member detail', action: 'escape', inInputs: true },
];

/** The key combination of an event in the table's spelling. */
export function comboOf(e: KeyboardEvent): string {
  const parts: string[] = [];
  if (e.ctrlKey || e.metaKey) parts.push('Ctrl');
  if (e.altKey) parts.push('Alt');
  let key: string;
  if (e.code?.startsWith('Key')) key = e.code.slice(3);
  else if (e.code?.startsWith('Digit')) key = e.code.slice(5);
  else key = e.key.length === 1 ? e.key.toUpperCase() : e.key;
  if (e.shiftKey && key !== '?') parts.push('Shift');
  parts.push(key);
  return parts.join('+');
}

const index = new Map<string, Shortcut>();
for (const s of SHORTCUTS) for (const k of s.keys) index.set(k, s);
const desktopIndex = new Map<string, Shortcut>();
for (const s of SHORTCUTS) for (const k of s.desktopKeys ?? []) desktopIndex.set(k, s);

/** The keys of a shortcut where the window runs: the desktop app's first. */
export const keysOf = (s: Shortcut, desktop: boolean): string[] => (desktop ? [...(s.desktopKeys ?? []), ...s.keys] : s.keys);
/** The first key of an action, for tooltips: `F5` in the desktop app, `Alt+L` in a browser tab. */
export function keyFor(action: string, desktop: boolean): string {
  const s = SHORTCUTS.find((x) => x.action === action);
  return s ? keysOf(s, desktop)[0] ?? '' : '';
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable;
}

/** The shortcut an event triggers, if any (respecting "not while typing"). */
export function shortcutFor(e: KeyboardEvent, desktop = false): Shortcut | undefined {
  const combo = comboOf(e);
  const s = index.get(combo) ?? (desktop ? desktopIndex.get(combo) : undefined);
  if (!s) return undefined;
  // A function key types nothing, so it works in a field too (F1 there is help, not a no-op).
  if (!s.inInputs && typing(e.target) && !/^(?:Shift\+)?F\d{1,2}$/.test(combo)) return undefined;
  return s;
}
