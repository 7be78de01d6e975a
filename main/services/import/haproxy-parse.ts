// haproxy.cfg as sections of lines, each line with its words and their offsets, so a later
// edit can change one word of one line and leave every other byte as it was.
import { ImportError } from './types';
import { splitLines } from './text';

export interface Word {
  /** The word as HAProxy reads it (quotes and escapes removed). */
  text: string;
  /** Offsets in the raw line (quotes included). */
  start: number;
  end: number;
}

/**
 * One line of the file. Its words are split when first asked for: most lines are only looked
 * at by their first word, and 20,000 server lines' words kept alive through an import would be
 * most of what the garbage collector has to copy.
 */
export class CfgLine {
  private split?: Word[];
  private head?: string | null;
  /** `index`: 0-based index in the file. */
  constructor(readonly index: number, readonly raw: string) {}

  get words(): Word[] {
    return (this.split ??= splitWords(this.raw));
  }

  /** The first word's text; undefined for blank and comment lines. */
  get first(): string | undefined {
    if (this.head === undefined) this.head = this.split ? (this.split[0]?.text ?? null) : firstWord(this.raw);
    return this.head ?? undefined;
  }
}

function firstWord(raw: string): string | null {
  if (!PLAIN.test(raw)) return splitWords(raw)[0]?.text ?? null;
  const n = raw.length;
  let i = 0;
  while (i < n && blank(raw.charCodeAt(i))) i++;
  if (i >= n) return null;
  const start = i;
  while (i < n && !blank(raw.charCodeAt(i))) i++;
  return raw.slice(start, i);
}

export interface CfgSection {
  /** `global`, `defaults`, `frontend`, `backend`, `listen`, `userlist`, … */
  kind: string;
  name: string;
  /** The header line (its words include kind and name, and `from X` for defaults). */
  header: CfgLine;
  /** Lines after the header up to the next section (comments and blanks included). */
  body: CfgLine[];
  /** 0-based line after the section's last line. */
  end: number;
}

export interface HaproxyConfig {
  file: string;
  lines: string[];
  /** Lines before the first section (comments, blanks). */
  preamble: number;
  sections: CfgSection[];
}

export const SECTION_KEYWORDS = new Set([
  'global', 'defaults', 'frontend', 'backend', 'listen', 'userlist', 'peers', 'resolvers', 'mailers',
  'program', 'http-errors', 'ring', 'cache', 'fcgi-app', 'log-forward', 'crt-store', 'traces', 'namespace_list',
]);
const NAMED = new Set(['frontend', 'backend', 'listen', 'userlist', 'peers', 'resolvers', 'mailers', 'program', 'http-errors', 'ring', 'cache', 'fcgi-app', 'log-forward']);

const ESCAPES: Record<string, string> = { r: '\r', n: '\n', t: '\t' };
const unescape = (c: string): string => ESCAPES[c] ?? c;

/** HAProxy's word splitting: blanks separate, quotes group, backslash escapes, `#` comments. */
const PLAIN = /^[^"'\\#]*$/;
const blank = (c: number): boolean => c === 32 || c === 9 || c === 13;

export function splitWords(line: string): Word[] {
  // Most lines have no quotes, escapes or comments: split on blanks, by hand (a regex match
  // object per word would be most of the garbage a 20,000-server file makes).
  if (PLAIN.test(line)) {
    const out: Word[] = [];
    const n = line.length;
    let i = 0;
    while (i < n) {
      while (i < n && blank(line.charCodeAt(i))) i++;
      if (i >= n) break;
      const start = i;
      while (i < n && !blank(line.charCodeAt(i))) i++;
      out.push({ text: line.slice(start, i), start, end: i });
    }
    return out;
  }
  const words: Word[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    while (i < n && (line[i] === ' ' || line[i] === '\t' || line[i] === '\r')) i++;
    if (i >= n || line[i] === '#') break;
    const start = i;
    let text = '';
    while (i < n && line[i] !== ' ' && line[i] !== '\t' && line[i] !== '\r') {
      const c = line[i]!;
      if (c === '#') break;
      if (c === '\\' && i + 1 < n) {
        text += unescape(line[i + 1]!);
        i += 2;
      } else if (c === '"') {
        i++;
        while (i < n && line[i] !== '"') {
          if (line[i] === '\\' && i + 1 < n) {
            text += unescape(line[i + 1]!);
            i += 2;
          } else text += line[i++];
        }
        i++;
      } else if (c === "'") {
        i++;
        while (i < n && line[i] !== "'") text += line[i++];
        i++;
      } else {
        text += c;
        i++;
      }
    }
    words.push({ text, start, end: Math.min(i, n) });
  }
  return words;
}

/** Splits the file into sections; text that is not haproxy.cfg is an error at its first line. */
export function parseHaproxy(text: string, file: string): HaproxyConfig {
  const lines = splitLines(text);
  const sections: CfgSection[] = [];
  let current: CfgSection | undefined;
  let preamble = lines.length;
  for (let index = 0; index < lines.length; index++) {
    const line = new CfgLine(index, lines[index]!);
    const first = line.first;
    if (first !== undefined && SECTION_KEYWORDS.has(first)) {
      const words = line.words;
      if (current) current.end = index;
      else preamble = index;
      const name = first === 'defaults' ? (words[1] && words[1].text !== 'from' ? words[1].text : '') : (words[1]?.text ?? '');
      if (NAMED.has(first) && !name) throw new ImportError(file, index + 1, `${first} section without a name (truncated file?)`);
      current = { kind: first, name, header: line, body: [], end: lines.length };
      sections.push(current);
    } else if (current) {
      current.body.push(line);
    } else if (first !== undefined) {
      throw new ImportError(file, index + 1, `"${first}" is not a HAProxy section keyword (expected global, defaults, frontend, backend or listen): not a haproxy.cfg`);
    }
  }
  if (!sections.length) throw new ImportError(file, 1, 'no HAProxy section (global, defaults, frontend, backend, listen): not a haproxy.cfg');
  return { file, lines, preamble, sections };
}

/** The `from NAME` of a defaults/proxy header, if any. */
export function fromName(section: CfgSection): string | undefined {
  const w = section.header.words;
  const i = w.findIndex((x, k) => k > 0 && x.text === 'from');
  return i > 0 ? w[i + 1]?.text : undefined;
}

export function sectionKey(s: CfgSection): string {
  return s.name ? `${s.kind} ${s.name}` : s.kind;
}
