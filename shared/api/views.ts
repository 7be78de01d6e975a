// The window's views, in sidebar order: the one list the sidebar, the keyboard shortcuts, the
// desktop menu (main/app/menu.ts) and the contract's `view:` menu commands derive from. What a
// view draws (its component and icon) is the renderer's part: renderer/src/views/registry.ts and
// renderer/src/lib/views.ts, each a complete Record over ViewId, so a view added here does not
// compile until it has both.
export interface ViewSpec {
  id: string;
  label: string;
  /** The `menu.command` the desktop menu sends for it. */
  command: `view:${string}`;
  /** Ctrl+<key> (and Alt+<key>, for a browser tab that keeps Ctrl+digits) and the menu accelerator. */
  key?: string;
  /** A list of the workspace (`servers`…): the view is a table of its items with an editor. */
  list?: true;
}

const LIST = [
  { id: 'overview', label: 'Overview', command: 'view:overview', key: '1' },
  { id: 'servers', label: 'Real servers', command: 'view:servers', key: '2', list: true },
  { id: 'groups', label: 'Server groups', command: 'view:groups', key: '3', list: true },
  { id: 'services', label: 'Virtual services', command: 'view:services', key: '4', list: true },
  { id: 'targetSets', label: 'Target sets', command: 'view:target-sets', key: '5', list: true },
  { id: 'appliances', label: 'Appliances', command: 'view:appliances', key: '6', list: true },
  { id: 'problems', label: 'Problems', command: 'view:problems', key: '7' },
  { id: 'history', label: 'History', command: 'view:history', key: '8' },
  { id: 'operate', label: 'Operate', command: 'view:operate', key: '9' },
] as const satisfies readonly ViewSpec[];

export type View = (typeof LIST)[number];
/** Typed so that a view without a key or a list still reads `key`/`list` as absent. */
export const VIEWS: readonly (View & Pick<ViewSpec, 'key' | 'list'>)[] = LIST;
export type ViewId = View['id'];
export type ViewCommand = View['command'];
/** The views that edit a list of the workspace (their ids are its keys). */
export type ListViewId = Extract<View, { list: true }>['id'];

export const VIEW_COMMANDS: readonly ViewCommand[] = LIST.map((v) => v.command);
export const LIST_VIEWS: readonly ListViewId[] = LIST.flatMap((v) => ('list' in v ? [v.id] : []));

export function isListView(id: unknown): id is ListViewId {
  return typeof id === 'string' && (LIST_VIEWS as readonly string[]).includes(id);
}

export function viewOf(id: ViewId): View {
  return VIEWS.find((v) => v.id === id)!;
}

export function viewOfCommand(command: string): View | undefined {
  return VIEWS.find((v) => v.command === command);
}
