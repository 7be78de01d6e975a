import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import type { DefineComponent } from 'vue';
import DataTable, { type Column } from '../../renderer/src/components/DataTable.vue';

interface Row { i: number; name: string; n: number }
// The generic component, seen by the mount helper with its props for Row.
const Table = DataTable as unknown as DefineComponent<{ rows: Row[]; columns: Column<Row>[]; rowKey: (r: Row) => number; label: string; selectedKey?: number; filter?: string }>;
const rows: Row[] = Array.from({ length: 10_000 }, (_, i) => ({ i, name: `srv${i}`, n: (i * 7919) % 10_000 }));
const columns: Column<Row>[] = [
  { id: 'name', label: 'Name', width: '1fr', value: (r: Row) => r.name, sortable: true },
  { id: 'n', label: 'N', width: '80px', value: (r: Row) => r.n, sortable: true, align: 'right' },
];

function make(props: Record<string, unknown> = {}) {
  return mount(Table, { props: { rows, columns, rowKey: (r: Row) => r.i, label: 'Servers', ...props }, attachTo: document.body });
}

describe('DataTable', () => {
  it('renders only a window of 10,000 rows and says how many there are', () => {
    const w = make();
    const shown = w.findAll('[role="row"]').length - 1;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(120);
    expect(w.find('[role="grid"]').attributes('aria-rowcount')).toBe('10001');
    w.unmount();
  });

  it('sorts by a column (numbers as numbers), descending on a second click, off on a third', async () => {
    const w = make();
    const first = () => w.findAll('[role="row"]')[1]!.text();
    const header = w.findAll('[role="columnheader"]')[1]!;
    await header.find('button').trigger('click');
    expect(header.attributes('aria-sort')).toBe('ascending');
    expect(first()).toContain('srv0');
    await header.find('button').trigger('click');
    expect(header.attributes('aria-sort')).toBe('descending');
    expect(first()).toMatch(/9999$/);
    await header.find('button').trigger('click');
    expect(header.attributes('aria-sort')).toBe('none');
    w.unmount();
  });

  it('filters on every word typed', async () => {
    const w = make({ filter: 'srv12 34' });
    expect((w.vm as unknown as { shown: number }).shown).toBe(rows.filter((r) => r.name.includes('srv12') && `${r.name} ${r.n}`.includes('34')).length);
    await w.setProps({ filter: 'nothing-like-this' });
    expect(w.text()).toContain('No rows match the filter.');
    w.unmount();
  });

  it('moves the selection with the keyboard and activates with Enter', async () => {
    const w = make({ selectedKey: 3 });
    const grid = w.find('[role="grid"]');
    await grid.trigger('keydown', { key: 'ArrowDown' });
    expect(w.emitted('select')?.[0]?.[0]).toMatchObject({ i: 4 });
    await grid.trigger('keydown', { key: 'End' });
    expect(w.emitted('select')?.[1]?.[0]).toMatchObject({ i: 9999 });
    await grid.trigger('keydown', { key: 'Enter' });
    expect(w.emitted('activate')?.[0]?.[0]).toMatchObject({ i: 3 });
    expect(grid.attributes('aria-activedescendant')).toBeTruthy();
    w.unmount();
  });

  it('shows the empty slot only when there are no rows at all', () => {
    const w = mount(Table, {
      props: { rows: [], columns, rowKey: (r: Row) => r.i, label: 'Servers' },
      slots: { empty: '<p class="e">No real servers yet</p>' },
    });
    expect(w.find('.e').exists()).toBe(true);
    w.unmount();
  });
});

describe('DataTable multi-select', () => {
  it('Shift+click takes a range, Ctrl+click toggles, Shift+arrows extend, Ctrl+A takes all shown, Esc goes back to one', async () => {
    const small = rows.slice(0, 20);
    let sel = { keys: new Set<number | string>([2]), anchor: 2 as number | string, cursor: 2 as number | string };
    const w = make({ rows: small, selectedKey: 2, selection: sel, 'onUpdate:selection': (s: typeof sel) => (sel = s) });
    const update = async (key: number) => {
      await w.setProps({ selection: sel, selectedKey: key } as Record<string, unknown>);
    };
    const row = (i: number) => w.findAll('[role="row"]')[i + 1]!;
    await row(5).trigger('click', { shiftKey: true });
    expect([...sel.keys].sort((a, b) => Number(a) - Number(b))).toEqual([2, 3, 4, 5]);
    await update(5);
    expect(w.findAll('[aria-selected="true"]')).toHaveLength(4);
    await row(8).trigger('click', { ctrlKey: true });
    expect(sel.keys.size).toBe(5);
    await update(8);
    await row(3).trigger('click', { metaKey: true });
    expect(sel.keys.has(3)).toBe(false);
    await update(3);
    const grid = w.find('[role="grid"]');
    await grid.trigger('keydown', { key: 'ArrowDown', shiftKey: true });
    expect([...sel.keys]).toEqual([3, 4]);
    await update(4);
    await grid.trigger('keydown', { key: 'a', ctrlKey: true });
    expect(sel.keys.size).toBe(20);
    await update(4);
    await grid.trigger('keydown', { key: 'Escape' });
    expect([...sel.keys]).toEqual([4]);
    w.unmount();
  });
});
