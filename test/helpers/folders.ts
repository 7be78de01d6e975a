// The import graph between folders of main/, shared/ and renderer/src/: a folder is the first
// level under main/services, main, shared and renderer/src; a file at the root of main/services,
// main or shared (services/paths.ts) is a module of its own. The renderer's root files (main.ts,
// App.vue) are the app itself, one module `renderer/src`: no folder below may import them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

export function folderOf(file: string): string {
  const parts = file.split('/');
  const base = parts[0] === 'main' && parts[1] === 'services' ? 2 : parts[0] === 'renderer' && parts[1] === 'src' ? 2 : 1;
  if (parts.length > base + 1) return parts.slice(0, base + 1).join('/');
  return parts[0] === 'renderer' ? 'renderer/src' : file.replace(/\.(ts|vue)$/, '');
}

function sources(root: string, dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) sources(root, rel, out);
    else if (/\.(ts|vue)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Folder -> folder -> one file that makes the edge (for the message). */
export function folderGraph(root: string): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of ['main', 'shared', 'renderer/src'].flatMap((d) => sources(root, d))) {
    const from = folderOf(file);
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (!spec.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(file), spec));
      const to = folderOf(/\.(ts|vue)$/.test(target) ? target : `${target}.ts`);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${file} imports ${spec}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Every strongly connected set of more than one folder (Tarjan), each sorted. */
export function folderCycles(graph: Map<string, Map<string, string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) out.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}
