// No two folders of main/, shared/ and renderer/src/ (the renderer's root, App.vue and main.ts,
// one of them) import each other, directly or around a
// loop: each folder can be read, tested and moved with only what it names below it.
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli';
import { folderCycles, folderGraph, folderOf } from '../helpers/folders';

describe('folder dependencies', () => {
  it('have no cycles', () => {
    const graph = folderGraph(ROOT);
    const cycles = folderCycles(graph).map((set) =>
      set.flatMap((a) => set.filter((b) => graph.get(a)?.has(b)).map((b) => graph.get(a)!.get(b)!)).join('\n  '),
    );
    expect(cycles).toEqual([]);
    // The graph is the real one: the layers are in it.
    expect(graph.get('main/services/lab')?.has('main/services/health')).toBe(true);
    expect(graph.get('renderer/src')?.has('renderer/src/views')).toBe(true);
  });

  it('finds a cycle around three folders, and none in a chain', () => {
    const g = (edges: [string, string][]) => {
      const m = new Map<string, Map<string, string>>();
      for (const [a, b] of edges) m.set(a, (m.get(a) ?? new Map<string, string>()).set(b, `${a}->${b}`));
      return m;
    };
    expect(folderCycles(g([['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd']]))).toEqual([['a', 'b', 'c']]);
    expect(folderCycles(g([['a', 'b'], ['b', 'c'], ['a', 'c']]))).toEqual([]);
  });

  it('names a folder by its first level', () => {
    expect(folderOf('main/services/sync/commands/apply.ts')).toBe('main/services/sync');
    expect(folderOf('main/services/paths.ts')).toBe('main/services/paths');
    expect(folderOf('renderer/src/App.vue')).toBe('renderer/src');
    expect(folderOf('renderer/src/main.ts')).toBe('renderer/src');
    expect(folderOf('main/cli/commands/push.ts')).toBe('main/cli');
    expect(folderOf('renderer/src/stores/lab.ts')).toBe('renderer/src/stores');
    expect(folderOf('shared/version.ts')).toBe('shared/version');
  });
});
