// keepalived `include` (glob patterns allowed), relative to the including file; loops refused.
// Every target goes through the read rule (files/read.ts) and must lie in the main config's
// folder or below it: a received keepalived.conf may not make lbdesk read (and report, line by
// line) /etc/shadow or a key in ~/.ssh, nor a file beside it that is no keepalived config.
import { readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { decodeConfig } from './text';
import { parseKeepalivedText, TOP_LEVEL, type KaNode } from './keepalived-parse';
import { ImportError, MAX_IMPORT_BYTES } from './types';
import { readChecked, ReadRefused, refuseHidden } from '../files/read';

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
  // A hidden folder is not even listed.
  refuseHidden(dir);
  const re = new RegExp(`^${basename(full).replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  // As in a shell, a wildcard matches no dotfile.
  return names.filter((n) => !n.startsWith('.') && re.test(n)).sort().map((n) => join(dir, n));
}

/**
 * Every file the include statements of `nodes` bring in, depth first; a loop is an error.
 * `within`: the real folder of the main config (targets outside it are refused).
 */
export function followIncludes(nodes: KaNode[], chain: string[], within: string, out: IncludedFile[] = []): IncludedFile[] {
  for (const node of nodes) {
    if (node.words[0] !== 'include') continue;
    const pattern = node.words[1];
    const at = (why: string) => new ImportError(node.file, node.line + 1, why);
    if (!pattern) throw at('include without a file');
    let paths: string[];
    try {
      paths = expand(pattern, node);
    } catch (e) {
      throw e instanceof ReadRefused ? at(`include ${pattern}: ${e.message}`) : e;
    }
    for (const path of paths) {
      let real: string;
      let bytes: Uint8Array;
      try {
        ({ real, bytes } = readChecked(path, { max: MAX_IMPORT_BYTES, within }));
      } catch (e) {
        throw e instanceof ReadRefused ? at(`include ${pattern}: ${e.message}`) : e;
      }
      if (chain.includes(real)) throw at(`include loop: ${[...chain, real].map((f) => basename(f)).join(' includes ')}`);
      if (chain.length > 8) throw at('includes nested more than 8 deep');
      const parsed = parseKeepalivedText(decodeConfig(bytes, path), path);
      // A file beside the config that is no keepalived config (notes, a token) is not shown line by line.
      const first = parsed.nodes[0];
      if (first && !TOP_LEVEL.has(first.words[0]!)) throw at(`include ${pattern}: ${path} is not a keepalived config (its first statement is no keepalived keyword): refused, nothing of it is shown`);
      out.push({ file: path, from: node, nodes: parsed.nodes, lines: parsed.lines });
      followIncludes(parsed.nodes, [...chain, real], within, out);
    }
  }
  return out;
}
