// The native menu's template: shortcuts, commands reaching the renderer, recent documents, and
// DevTools offered in development only.
import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate, RECENT_IN_MENU, recentLabel, type MenuOptions } from '../../../main/app/menu';
import { VIEWS } from '../../../shared/api/views';
import { MENU_COMMANDS } from '../../../shared/api/contract';

function build(over: Partial<MenuOptions> = {}) {
  const sent: [string, string | undefined][] = [];
  let docs = 0;
  let about = 0;
  const template = buildMenuTemplate({
    platform: 'linux',
    dev: false,
    recent: [],
    send: (c, p) => sent.push([c, p]),
    openDocs: () => void docs++,
    about: () => void about++,
    ...over,
  });
  return { template, sent, docs: () => docs, about: () => about };
}

/** Every item, depth first, with the top menu's label. */
function items(template: MenuItemConstructorOptions[]): (MenuItemConstructorOptions & { top: string })[] {
  const out: (MenuItemConstructorOptions & { top: string })[] = [];
  const walk = (list: MenuItemConstructorOptions[], top: string) => {
    for (const item of list) {
      out.push({ ...item, top });
      if (Array.isArray(item.submenu)) walk(item.submenu, top);
    }
  };
  for (const menu of template) walk(Array.isArray(menu.submenu) ? menu.submenu : [], String(menu.label ?? menu.role));
  return out;
}

const byLabel = (template: MenuItemConstructorOptions[], label: string) => items(template).find((i) => i.label === label);
const click = (item: MenuItemConstructorOptions | undefined) => (item?.click as unknown as () => void)();

describe('native menu', () => {
  it('has File, Edit, View, Lab and Help on Linux and Windows', () => {
    expect(build().template.map((m) => m.label)).toEqual(['&File', '&Edit', '&View', '&Lab', '&Help']);
  });

  it('binds the documented shortcuts to menu.command events', () => {
    const { template, sent } = build();
    const expected: [string, string, string][] = [
      ['&Open…', 'CmdOrCtrl+O', 'open'],
      ['&Save', 'CmdOrCtrl+S', 'save'],
      ['Save &As…', 'CmdOrCtrl+Shift+S', 'save-as'],
      ['&Start Lab', 'F5', 'lab-start'],
      ['S&top Lab', 'Shift+F5', 'lab-stop'],
      ['Toggle &Theme', 'CmdOrCtrl+Shift+L', 'toggle-theme'],
    ];
    for (const [label, accelerator, command] of expected) {
      const item = byLabel(template, label);
      expect(item?.accelerator, label).toBe(accelerator);
      sent.length = 0;
      click(item);
      expect(sent).toEqual([[command, undefined]]);
    }
    expect(byLabel(template, '&Quit')).toMatchObject({ role: 'quit', accelerator: 'CmdOrCtrl+Q' });
  });

  it('has every view in View, with Ctrl+1… and a command the renderer knows', () => {
    const { template, sent } = build();
    const view = template.find((m) => m.label === '&View')!.submenu as MenuItemConstructorOptions[];
    VIEWS.forEach((v, i) => {
      const item = byLabel(template, v.label);
      expect(item?.accelerator).toBe(`CmdOrCtrl+${i + 1}`);
      expect(view[i]?.label).toBe(v.label);
      click(item);
    });
    expect(sent.map(([c]) => c)).toEqual(VIEWS.map((v) => v.command));
    const known = new Set<string>(MENU_COMMANDS);
    for (const [c] of sent) expect(known.has(c), c).toBe(true);
  });

  it('uses the roles for editing', () => {
    const roles = items(build().template).filter((i) => i.top === '&Edit').map((i) => i.role).filter(Boolean);
    expect(roles).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']);
  });

  it('offers reload and DevTools only in development', () => {
    const prodRoles = items(build({ dev: false }).template).map((i) => i.role);
    expect(prodRoles).not.toContain('toggleDevTools');
    expect(prodRoles).not.toContain('reload');
    expect(prodRoles).not.toContain('forceReload');
    const devRoles = items(build({ dev: true }).template).map((i) => i.role);
    expect(devRoles).toEqual(expect.arrayContaining(['toggleDevTools', 'reload']));
  });

  it('lists recent workspaces, newest first, and opens the one clicked', () => {
    const recent = Array.from({ length: 14 }, (_, i) => `/home/me/sites/site-${i}.yaml`);
    const { template, sent } = build({ recent });
    const openRecent = byLabel(template, 'Open &Recent');
    const sub = openRecent?.submenu as MenuItemConstructorOptions[];
    expect(sub).toHaveLength(RECENT_IN_MENU);
    expect(sub[0]!.label).toBe('site-0.yaml — /home/me/sites');
    click(sub[2]);
    expect(sent).toEqual([['open', '/home/me/sites/site-2.yaml']]);
    const empty = byLabel(build().template, 'Open &Recent')?.submenu as MenuItemConstructorOptions[];
    expect(empty).toEqual([{ label: 'No recent workspaces', enabled: false }]);
    expect(recentLabel('/a/b.yaml')).toBe('b.yaml — /a');
  });

  it('opens the docs through the checked opener and shows About', () => {
    const m = build();
    click(byLabel(m.template, 'lbdesk &Documentation'));
    click(byLabel(m.template, '&About lbdesk'));
    expect([m.docs(), m.about()]).toEqual([1, 1]);
  });

  it('follows macOS conventions: app menu with About and Quit, a Window menu', () => {
    const { template } = build({ platform: 'darwin' });
    expect(template.map((m) => m.label ?? m.role)).toEqual(['lbdesk', '&File', '&Edit', '&View', '&Lab', 'windowMenu', '&Help']);
    expect(items([template[0]!]).map((i) => i.role ?? i.label)).toContain('quit');
    expect(byLabel(template, '&Quit')).toBeUndefined();
  });
});
