// keepalived.conf as a tree of statements and blocks, each with its file and lines, `include`
// followed relative to the including file (loops refused by name).
import { ImportError } from './types';
import { splitLines } from './text';

export interface KaNode {
  file: string;
  /** 0-based line of the statement's first word. */
  line: number;
  words: string[];
  /** Set for blocks (`name … { … }`). */
  children?: KaNode[];
  /** 0-based line of the closing brace (blocks), else `line`. */
  endLine: number;
}

export interface KaFile {
  file: string;
  lines: string[];
  nodes: KaNode[];
}

interface Token {
  text: string;
  line: number;
}

/** keepalived's word splitting: blanks separate, double quotes group, `#` and `!` comment. */
export function tokenize(text: string): { lines: string[]; tokens: Token[] } {
  const lines = splitLines(text);
  const tokens: Token[] = [];
  lines.forEach((raw, line) => {
    let i = 0;
    const n = raw.length;
    while (i < n) {
      const c = raw[i]!;
      if (c === ' ' || c === '\t' || c === '\r') {
        i++;
      } else if (c === '#' || c === '!') {
        break;
      } else if (c === '{' || c === '}') {
        tokens.push({ text: c, line });
        i++;
      } else if (c === '"') {
        const close = raw.indexOf('"', i + 1);
        const end = close < 0 ? n : close;
        tokens.push({ text: raw.slice(i + 1, end), line });
        i = end + 1;
      } else {
        let j = i;
        while (j < n && !' \t\r{}'.includes(raw[j]!)) j++;
        tokens.push({ text: raw.slice(i, j), line });
        i = j;
      }
    }
  });
  return { lines, tokens };
}

/** Statements are one line of words; a `{` (same or next line) opens a block. */
export function parseKeepalivedText(text: string, file: string): KaFile {
  const { lines, tokens } = tokenize(text);
  let pos = 0;
  const parseBlock = (depth: number, opener?: KaNode): KaNode[] => {
    const out: KaNode[] = [];
    while (pos < tokens.length) {
      const t = tokens[pos]!;
      if (t.text === '}') {
        if (depth === 0) throw new ImportError(file, t.line + 1, 'unexpected "}": no block is open here');
        pos++;
        if (opener) opener.endLine = t.line;
        return out;
      }
      if (t.text === '{') {
        // A bare block (keepalived allows `{` on the line after its keyword).
        const prev = out[out.length - 1];
        if (!prev || prev.children) throw new ImportError(file, t.line + 1, 'unexpected "{": no keyword before it');
        pos++;
        prev.children = parseBlock(depth + 1, prev);
        continue;
      }
      const words: string[] = [];
      const line = t.line;
      while (pos < tokens.length && tokens[pos]!.line === line && tokens[pos]!.text !== '{' && tokens[pos]!.text !== '}') words.push(tokens[pos++]!.text);
      const node: KaNode = { file, line, words, endLine: line };
      out.push(node);
      if (pos < tokens.length && tokens[pos]!.text === '{' && (tokens[pos]!.line === line || isBlockKeyword(words[0]!))) {
        pos++;
        node.children = parseBlock(depth + 1, node);
      }
    }
    if (opener) throw unclosed(file, opener);
    return out;
  };
  const nodes = parseBlock(0);
  return { file, lines, nodes };
}

function unclosed(file: string, node: KaNode): ImportError {
  return new ImportError(file, node.line + 1, `block "${node.words.join(' ')}" is never closed (truncated file?)`);
}

const BLOCK_KEYWORDS = /^(global_defs|vrrp_|virtual_server|real_server|sorry_server|[A-Z_]+_CHECK|url|static_|track_|linkbeat_|garp_|net_namespace|bfd_instance)/;
function isBlockKeyword(word: string): boolean {
  return BLOCK_KEYWORDS.test(word);
}

export const TOP_LEVEL = new Set([
  'global_defs', 'vrrp_script', 'vrrp_instance', 'vrrp_sync_group', 'virtual_server', 'virtual_server_group',
  'static_ipaddress', 'static_routes', 'static_rules', 'include', 'track_file', 'track_process', 'linkbeat_interfaces',
  'garp_group', 'net_namespace', 'bfd_instance', 'vrrp_track_file', 'vrrp_track_process', '@', 'instance', 'use_instance',
]);
