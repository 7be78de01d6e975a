// Text -> Workspace with every problem placed at file:line:col. Pure and browser-safe, so the
// renderer validates as the user types with the same code as `lbdesk validate`.
import { isMap, isPair, isSeq, Lexer, visit, type Alias, type Document, type Node } from 'yaml';
import {
  applianceSchema, groupSchema, pairSchema, healthTimersSchema, serverSchema, serviceSchema, targetSetResolvedSchema, workspaceSchema,
  type Workspace,
} from './schema';
import { formatPath, hasErrors, sortProblems, ROOT_PATH, SYNTAX_PATH, type PathSegment, type Problem } from './problem';
import { zodIssues, type Issue } from './issues';
import { crossCheck, type LooseWorkspace, type Renamed } from './crossref';
import { locate, pathAt, positionOf } from './locate';
import { createDocument, documentLines, documentToText } from './document';
import { fastLoad } from './fastload';
import { fastLocator } from './fastpos';
import { FORMAT_VERSION, formatVersionOf, migrateDocument, MigrationError, MIGRATIONS, type Migration } from './migrate';
import { MAX_ALIAS_EXPANSION, MAX_DEPTH, MAX_PROBLEMS, MAX_WORKSPACE_BYTES } from './limits';
import { aliasBomb, documentData } from './aliases';
import { cutText } from './text-rules';

/** Longest problem message: one that quotes a 100 KB name shows its start, not all of it. */
const MESSAGE_MAX = 400;
const PATH_MAX = 200;

export interface ParseResult {
  /**
   * The editable document (built on first use when the fast path validated the text). For text
   * refused before parsing (too large, nested too deep) it is an empty document.
   */
  readonly doc: Document;
  /** Undefined when there is any error; warnings allow it. */
  workspace?: Workspace;
  problems: Problem[];
  /** Set when an older format was migrated in `doc`; saving writes the new format. */
  migratedFrom?: number;
}

export interface ParseOptions {
  /** The migration steps (the real ones by default; tests pass their own). */
  migrations?: readonly Migration[];
  /** Items renamed in the editor since the file was opened (for the suggestions of references left behind). */
  renamed?: Renamed;
}

/**
 * Structural (zod) and cross-reference issues of plain data. Counting stops (stopped: true) once
 * more than `limit` issues are found with an error among them: the rest would not be shown.
 */
export function checkData(data: unknown, limit = Infinity, renamed?: Renamed): { workspace?: Workspace; issues: Issue[]; stopped?: boolean } {
  const r = workspaceSchema.safeParse(data);
  if (r.success) {
    const { issues, stopped } = crossCheck(r.data, data, limit, renamed);
    return { workspace: stopped || issues.some((i) => i.severity === 'error') ? undefined : r.data, issues, stopped };
  }
  // One past the limit: exactly `limit` problems is not "more".
  const issues = zodIssues(r.error.issues, data, workspaceSchema, limit + 1);
  if (issues.length > limit) return { issues: issues.slice(0, limit), stopped: true };
  // Cross-check what did parse, so one typo does not hide every other finding; what was set
  // aside to get an entry through is already reported, so nothing more is said about it.
  const set = new Set<string>();
  const under = (p: PathSegment[]) => p.some((_, n) => set.has(JSON.stringify(p.slice(0, n + 1))));
  const cross = crossCheck(loose(data, set), data, limit - issues.length, renamed);
  issues.push(...cross.issues.filter((i) => !under(i.path)));
  return { issues, stopped: cross.stopped };
}

interface ZodLike<T> {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { code: string; path: PropertyKey[]; keys?: string[] }[] } };
}

/**
 * Fields whose value nothing else reads (no default steers another check): an entry with only
 * such a field wrong is cross-checked without it. Taking out a `protocol`, `type` or `port`
 * would put a default in its place, and other checks would judge that default (a service with
 * `protocol: tcpx` would clash as tcp with another one).
 */
const SET_ASIDE = new Set(['weight', 'description']);

/**
 * An entry with a bad field that nothing else reads, checked again without it (a target set
 * whose one server weight is out of range still has its address families compared; a member
 * with an unknown key still has its server looked up): the fields taken out go into `set`
 * (under `at`). Undefined when another kind of field is wrong, or it still does not parse.
 */
function salvage<T>(schema: ZodLike<T>, value: unknown, at: PathSegment[], set: Set<string>): T | undefined {
  const first = schema.safeParse(value);
  if (first.success) return first.data;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const copy = structuredClone(value) as Record<string, unknown>;
  const removed: PathSegment[][] = [];
  for (const issue of first.error.issues) {
    const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys ?? []) if (drop(copy, [...path, k])) removed.push([...path, k]);
      continue;
    }
    const last = path[path.length - 1];
    if (typeof last !== 'string' || !SET_ASIDE.has(last) || !drop(copy, path)) return undefined;
    removed.push(path);
  }
  const again = schema.safeParse(copy);
  if (!again.success) return undefined;
  for (const p of removed) set.add(JSON.stringify([...at, ...p]));
  return again.data;
}

/** Deletes the field at `path` in plain data; false when it is not there. */
function drop(obj: Record<string, unknown>, path: PathSegment[]): boolean {
  let cur: unknown = obj;
  for (const k of path.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return false;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  const last = path[path.length - 1]!;
  if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.prototype.hasOwnProperty.call(cur, last)) return false;
  delete (cur as Record<string | number, unknown>)[last];
  return true;
}

function loose(data: unknown, set: Set<string>): LooseWorkspace {
  const obj = (data !== null && typeof data === 'object' && !Array.isArray(data) ? data : {}) as Record<string, unknown>;
  const each = <T>(key: string, schema: ZodLike<T>): (T | undefined)[] => {
    const list = obj[key];
    return Array.isArray(list) ? list.map((v, i) => salvage(schema, v, [key, i], set)) : [];
  };
  const timers = healthTimersSchema.safeParse(obj.healthTimers);
  return {
    healthTimers: timers.success ? timers.data : undefined,
    servers: each('servers', serverSchema),
    groups: each('groups', groupSchema),
    services: each('services', serviceSchema),
    targetSets: each('targetSets', targetSetResolvedSchema),
    appliances: each('appliances', applianceSchema),
    pairs: each('pairs', pairSchema),
  };
}

function utf8Length(text: string): number {
  // Cheap upper bound first; exact count only near the limit.
  if (text.length * 3 <= MAX_WORKSPACE_BYTES) return text.length;
  return new TextEncoder().encode(text).length;
}

function tooDeep(doc: Document): Node | undefined {
  const stack: [unknown, number][] = [[doc.contents, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (isMap(node) || isSeq(node)) {
      if (depth > MAX_DEPTH) return node;
      for (const item of node.items) {
        if (isPair(item)) stack.push([item.key, depth + 1], [item.value, depth + 1]);
        else stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}

/** Problems in order, one line each, capped; `stopped`: checking stopped at the cap. */
function finish(file: string, problems: Problem[], stopped = false): Problem[] {
  // One line per problem, whatever the parser or a value put in the message.
  for (const p of problems) {
    p.message = cutText(p.message.replace(/\s*[\r\n]+\s*/g, ' '), MESSAGE_MAX);
    // A path names keys of the file: a 100 KB key is shown by its start (segments keep it whole).
    p.path = cutText(p.path, PATH_MAX);
  }
  // The same problem found twice (a value two checks both refuse) is said once.
  const seen = new Set<string>();
  problems = problems.filter((p) => {
    const k = `${p.line}:${p.col}:${p.path}:${p.severity}:${p.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  sortProblems(problems);
  if (stopped) {
    const shown = problems.slice(0, MAX_PROBLEMS);
    const last = shown[shown.length - 1]!;
    shown.push({
      severity: 'error', file, line: last.line, col: last.col, path: ROOT_PATH,
      message: `… and more problems (checking stopped after ${MAX_PROBLEMS})`, omitted: { errors: 0, warnings: 0, more: true },
    });
    return shown;
  }
  if (problems.length <= MAX_PROBLEMS) return problems;
  const rest = problems.length - MAX_PROBLEMS;
  const shown = problems.slice(0, MAX_PROBLEMS);
  const last = shown[shown.length - 1]!;
  const restErrors = problems.slice(MAX_PROBLEMS).filter((p) => p.severity === 'error').length;
  shown.push({
    severity: restErrors > 0 ? 'error' : 'warning', file, line: last.line, col: last.col, path: ROOT_PATH,
    message: `… and ${rest} more problem${rest > 1 ? 's' : ''}`, omitted: { errors: restErrors, warnings: rest - restErrors },
  });
  return shown;
}

/** The yaml library's message, except where it gives advice meant for programmers. */
/** A YAML parse error in words (the library's first line, or ours where it speaks to programmers). */
/**
 * Where the unclosed quoted scalar yaml reports at the end of the file opens: the last quoted
 * token before `end` that does not close. Offsets skip the lexer's control tokens.
 */
function unclosedQuote(text: string, end: number): { at: number; quote: string } | undefined {
  let offset = 0;
  let found: { at: number; quote: string } | undefined;
  for (const token of new Lexer().lex(text)) {
    if (offset > end) break;
    // Control tokens are not in the source; a byte-order mark is (one character).
    if (token === '\x02' || token === '\x18' || token === '\x1f') continue;
    const q = token[0];
    if (q === '"' && !/^"(?:[^"\\]|\\[\s\S])*"$/.test(token)) found = { at: offset, quote: '"' };
    else if (q === "'" && !/^'(?:[^']|'')*'$/.test(token)) found = { at: offset, quote: "'" };
    offset += token.length;
  }
  return found;
}

export function yamlErrorMessage(e: { code: string; message: string }): string {
  if (e.code === 'MULTIPLE_DOCS') return 'the file holds more than one YAML document (a second "---" here)';
  // The parser ran out of stack on absurd nesting: say what the depth limit says.
  if (/Maximum call stack size exceeded/.test(e.message)) return `nested deeper than ${MAX_DEPTH} levels`;
  return e.message;
}

/**
 * Validates a parsed document: YAML errors, hostile structure, format version (migrated in
 * place when `migrate` is set), schema and cross-references.
 */
export function validateDocument(doc: Document, file: string, opts: ParseOptions & { migrate?: boolean } = {}): Omit<ParseResult, 'doc'> {
  const problems: Problem[] = [];
  const at = (offset: number) => positionOf(offset, documentLines(doc));
  const add = (severity: Problem['severity'], pos: { line: number; col: number }, path: string, message: string) =>
    problems.push({ severity, file, line: pos.line, col: pos.col, path, message });

  for (const e of doc.errors) {
    // A duplicate key is named by its path, like any other field.
    const key = e.code === 'DUPLICATE_KEY' ? pathAt(doc, e.pos[0]) : [];
    const open = e.code === 'MISSING_CHAR' && /closing .?quote/i.test(e.message) ? unclosedQuote(documentToText(doc), e.pos[0]) : undefined;
    if (key.length > 0) add('error', at(e.pos[0]), formatPath(key), `${JSON.stringify(String(key[key.length - 1]))} is given twice here: keep one`);
    else if (open) add('error', at(open.at), SYNTAX_PATH, `this quoted value is never closed: add the closing ${open.quote} (the file ends inside it)`);
    else add('error', at(e.pos[0]), SYNTAX_PATH, yamlErrorMessage(e));
    // Running out of stack is reported at every level it unwinds through: once is enough.
    if (/Maximum call stack size exceeded/.test(e.message)) break;
  }
  for (const w of doc.warnings) add('warning', at(w.pos[0]), SYNTAX_PATH, w.message);
  if (doc.errors.length) return { problems: finish(file, problems) };

  const deep = tooDeep(doc);
  if (deep) {
    add('error', at(deep.range?.[0] ?? 0), ROOT_PATH, `nested deeper than ${MAX_DEPTH} levels`);
    return { problems: finish(file, problems) };
  }

  let migratedFrom: number | undefined;
  const target = FORMAT_VERSION;
  const version = formatVersionOf(doc);
  if (version !== undefined && version !== target) {
    const versionAt = locate(doc, documentLines(doc), ['lbdesk']);
    try {
      if (!opts.migrate) throw new MigrationError(version > target ? `format version ${version} is newer than this lbdesk understands (${target}); update lbdesk` : `format version ${version} must be migrated to ${target} (open and save the file in lbdesk)`);
      const done = migrateDocument(doc, opts.migrations ?? MIGRATIONS, target);
      migratedFrom = done?.from;
    } catch (e) {
      if (!(e instanceof MigrationError)) throw e;
      add('error', versionAt, 'lbdesk', e.message);
      return { problems: finish(file, problems) };
    }
    if (migratedFrom !== undefined) {
      add('warning', locate(doc, documentLines(doc), ['lbdesk']), 'lbdesk', `migrated from format version ${migratedFrom} to ${target}; saving writes the new format`);
    }
  }

  // An alias whose anchor is missing (or comes later) would fail toJS with a bare message:
  // name it where it is.
  let dangling: Alias | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (node.resolve(doc) !== undefined) return undefined;
      dangling = node;
      return visit.BREAK;
    },
  });
  if (dangling) {
    const offset = dangling.range?.[0] ?? 0;
    add('error', at(offset), formatPath(pathAt(doc, offset)) || ROOT_PATH, `unknown alias *${dangling.source}: no anchor &${dangling.source} is set before it`);
    return { problems: finish(file, problems) };
  }

  const bomb = aliasBomb(doc);
  if (bomb) {
    const offset = bomb.alias.range?.[0] ?? 0;
    add('error', at(offset), formatPath(pathAt(doc, offset)) || ROOT_PATH, `alias *${bomb.alias.source} expands to ${bomb.size} nodes, and the aliases up to here to more than ${MAX_ALIAS_EXPANSION} in all: refused as an alias bomb`);
    return { problems: finish(file, problems) };
  }
  let data: unknown;
  try {
    data = documentData(doc);
  } catch (e) {
    add('error', { line: 1, col: 1 }, ROOT_PATH, (e as Error).message);
    return { problems: finish(file, problems) };
  }
  const checked = checkData(data, MAX_PROBLEMS, opts.renamed);
  const lines = documentLines(doc);
  for (const issue of checked.issues) {
    const pos = locate(doc, lines, issue.path, issue.at === 'key' ? 'key' : 'value');
    problems.push({ severity: issue.severity, file, line: pos.line, col: pos.col, path: formatPath(issue.path), message: issue.message, segments: issue.path });
  }
  return { workspace: hasErrors(problems) ? undefined : checked.workspace, problems: finish(file, problems, checked.stopped), migratedFrom };
}

/**
 * Parses and validates workspace text. The common case (no anchors, no YAML errors) is read by
 * a fast reader and the yaml Document is built only when `doc` is first read; anything else
 * goes through the Document. Either way every problem has its line and column.
 */
/** The first CR not followed by LF, at the line and column an editor shows (every break counted). */
function loneCr(text: string): { line: number; col: number } | undefined {
  const at = text.search(/\r(?!\n)/);
  if (at < 0) return undefined;
  const before = text.slice(0, at);
  const breaks = before.match(/\r\n?|\n/g) ?? [];
  const lineStart = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) + 1;
  // A byte-order mark is no column.
  const bom = lineStart === 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  return { line: breaks.length + 1, col: at - lineStart - bom + 1 };
}

export function parseWorkspace(text: string, file: string, opts: ParseOptions = {}): ParseResult {
  if (utf8Length(text) > MAX_WORKSPACE_BYTES) {
    return {
      doc: createDocument(''),
      problems: [{ severity: 'error', file, line: 1, col: 1, path: ROOT_PATH, message: `file is larger than ${MAX_WORKSPACE_BYTES / 1024 / 1024} MiB: refused` }],
    };
  }
  const cr = loneCr(text);
  if (cr) {
    // YAML calls a lone CR a line break, but the editor's parser (yaml) reads it as a space: the
    // file would validate and then refuse every edit. Say so once, where the first one is.
    return {
      doc: createDocument(''),
      problems: [{ severity: 'error', file, line: cr.line, col: cr.col, path: ROOT_PATH, message: 'a line ends with a lone carriage return (CR, old Mac line endings): save the file with LF or CRLF line endings' }],
    };
  }
  const fast = fastLoad(text);
  if (fast.ok) {
    const data = fast.data as Record<string, unknown> | null;
    if (data && typeof data === 'object' && data.lbdesk === FORMAT_VERSION) {
      const checked = checkData(data, MAX_PROBLEMS, opts.renamed);
      // Problems are placed from js-yaml's parse events when they can be (big files stay fast).
      const locator = checked.issues.length === 0 ? undefined : fastLocator(text);
      if (checked.issues.length === 0 || locator) {
        let doc: Document | undefined;
        const problems = checked.issues.map((issue) => {
          const pos = locator!(issue.path, issue.at === 'key' ? 'key' : 'value');
          return { severity: issue.severity, file, line: pos.line, col: pos.col, path: formatPath(issue.path), message: issue.message, segments: issue.path };
        });
        return {
          get doc() {
            return (doc ??= createDocument(text));
          },
          workspace: checked.workspace,
          problems: finish(file, problems, checked.stopped),
        };
      }
    }
  } else if (fast.reason === 'depth') {
    return {
      doc: createDocument(''),
      problems: [{ severity: 'error', file, line: fast.line, col: fast.col, path: ROOT_PATH, message: `nested deeper than ${MAX_DEPTH} levels` }],
    };
  }
  const doc = createDocument(text);
  return { doc, ...validateDocument(doc, file, { ...opts, migrate: true }) };
}
