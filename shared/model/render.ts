// YAML text for values inserted by the document editor, in the house style of the example
// workspace: block mappings, `{ a: 1, b: 2 }` flow mappings, `[1, 2]` flow lists.
import { parse } from 'yaml';

export type Style = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL' | 'BLOCK_FOLDED';

/** Strings a YAML 1.2 core schema would read as something else when written plain. */
const CORE_TYPED = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+)$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
];
/** Plain in any context, no need to ask the parser. */
const SIMPLE = /^[A-Za-z0-9_/(][A-Za-z0-9_./@=()*+~^$-]*$/;
/** Words of those characters with single spaces between (a description): plain too, without the parser. */
const SIMPLE_WORDS = /^[A-Za-z0-9_/(][A-Za-z0-9_./@=()*+~^$-]*(?: [A-Za-z0-9_./@=()*+~^$-]+)+$/;
/** Characters a plain or single-quoted scalar cannot hold (controls, line breaks, tab). */
const hasControl = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

export function isPlainSafe(s: string, inFlow: boolean, key: boolean): boolean {
  if (CORE_TYPED.some((re) => re.test(s))) return false;
  if (SIMPLE.test(s) || SIMPLE_WORDS.test(s)) return true;
  if (s.trim() !== s || hasControl(s) || /^[-?:,[\]{}#&*!|>'"%@`]/.test(s)) return false;
  if (/: |:$| #/.test(s) || (inFlow && /[,[\]{}]/.test(s))) return false;
  try {
    const back = inFlow ? (parse(`[${s}]`) as unknown[])[0] : key ? Object.keys(parse(`${s}: 1`) as object)[0] : (parse(`k: ${s}`) as Record<string, unknown>).k;
    return back === s;
  } catch {
    return false;
  }
}

export function scalarText(value: unknown, opts: { inFlow?: boolean; style?: Style; key?: boolean } = {}): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '.nan';
    if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf';
    return String(value);
  }
  const s = String(value);
  if (opts.style === 'QUOTE_SINGLE' && !hasControl(s)) return `'${s.replace(/'/g, "''")}'`;
  if (opts.style !== 'QUOTE_DOUBLE' && opts.style !== 'QUOTE_SINGLE' && isPlainSafe(s, opts.inFlow ?? false, opts.key ?? false)) return s;
  // JSON strings are valid YAML double-quoted scalars.
  return JSON.stringify(s);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function isEmptyCollection(v: unknown): boolean {
  return Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0;
}

export function isCollection(v: unknown): boolean {
  return v !== null && typeof v === 'object';
}

/** One-line flow text: `{ server: web1, port: 8081 }`, `[3868, 443]`. */
export function flowText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flowText).join(', ')}]`;
  if (isObject(value)) {
    const parts = Object.entries(value).map(([k, v]) => `${scalarText(k, { inFlow: true, key: true })}: ${flowText(v)}`);
    return parts.length ? `{ ${parts.join(', ')} }` : '{}';
  }
  return scalarText(value, { inFlow: true });
}

/**
 * Block lines for a collection, every line indented by `indent` spaces. Lists of mappings use
 * compact items (`- name: web1` then the other keys under it); nested lists and empty
 * collections are written in flow style.
 */
export function blockLines(value: unknown, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isObject(item) && Object.keys(item).length > 0) {
        const inner = blockLines(item, indent + 2);
        out.push(`${pad}- ${inner[0]!.slice(indent + 2)}`, ...inner.slice(1));
      } else {
        out.push(`${pad}- ${isCollection(item) ? flowText(item) : scalarText(item)}`);
      }
    }
    return out;
  }
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const key = scalarText(k, { key: true });
      if (isCollection(v) && !isEmptyCollection(v)) out.push(`${pad}${key}:`, ...blockLines(v, indent + 2));
      else out.push(`${pad}${key}: ${isCollection(v) ? flowText(v) : scalarText(v)}`);
    }
  }
  return out;
}
