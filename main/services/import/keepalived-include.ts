// keepalived `include` (glob patterns allowed), relative to the including file; loops refused.
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { decodeConfig } from './text';
import { parseKeepalivedText, type KaNode } from './keepalived-parse';
import { ImportError } from './types';

export interface IncludedFile {
  file: string;
  /** The include statement that brought it in. */
  from: KaNode;
  nodes: KaNode[];
  lines: string[];
}

function expand(pattern: string, from: KaNode): string[] {
  const full = isAbsolute(pattern) ? pattern : resolve(dirname(from.file), pattern);
  if (!/[*?[]/.test(basename(full))) return [full];
  const dir = dirname(full);
  const re = new RegExp(`^${basename(full).replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => re.test(n)).sort().map((n) => join(dir, n));
}

/** Every file the include statements of `nodes` bring in, depth first; a loop is an error. */
export function followIncludes(nodes: KaNode[], chain: string[], out: IncludedFile[] = []): IncludedFile[] {
  for (const node of nodes) {
    if (node.words[0] !== 'include') continue;
    const pattern = node.words[1];
    if (!pattern) throw new ImportError(node.file, node.line + 1, 'include without a file');
    for (const path of expand(pattern, node)) {
      let real: string;
      let bytes: Uint8Array;
      try {
        real = realpathSync(path);
        bytes = readFileSync(real);
      } catch (e) {
        throw new ImportError(node.file, node.line + 1, `include ${pattern}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
      }
      if (chain.includes(real)) throw new ImportError(node.file, node.line + 1, `include loop: ${[...chain, real].map((f) => basename(f)).join(' includes ')}`);
      if (chain.length > 8) throw new ImportError(node.file, node.line + 1, 'includes nested more than 8 deep');
      const parsed = parseKeepalivedText(decodeConfig(bytes, path), path);
      out.push({ file: path, from: node, nodes: parsed.nodes, lines: parsed.lines });
      followIncludes(parsed.nodes, [...chain, real], out);
    }
  }
  return out;
}
