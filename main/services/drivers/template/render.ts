// Renders a workspace for a vendor CLI through a Liquid template (docs/vendor-cli.md).
// LiquidJS is built for untrusted templates: lookups see only the data's own properties (no
// `constructor`, `__proto__`), templates call no functions, and here it reads no files and
// stops at a bound on output and allocation. Strict: an undefined value or filter is an error,
// so a misspelt name never renders empty.
import { realpathSync } from 'node:fs';
import { readChecked, ReadRefused } from '../../files/read';
import { dirname, extname, resolve } from 'node:path';
import { Liquid, Tag, type Context, type FS, type Liquid as LiquidEngine, type TagToken, type TopLevelToken } from 'liquidjs';
import type { Appliance, Workspace } from '../../../../shared/model/schema';
import { CONTROL, shownText } from '../../../../shared/model/text-rules';
import { dedupe, type DriverProblem, type RenderContext, type RenderResult } from '../types';
import { templateContext } from './context';
import { commandsOf, splitSections } from './sections';

export const TEMPLATE_EXTENSION = '.liquid';
/** Characters of output plus elements of ranges and built strings one render may make. */
export const TEMPLATE_MEMORY_LIMIT = 16 * 1024 * 1024;
/** Milliseconds one render may take. */
const RENDER_LIMIT_MS = 10_000;
/** Characters of template source. */
const PARSE_LIMIT = 1024 * 1024;

/** No partials, layouts or includes: a template is one file. */
const NO_FILES: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async () => Promise.reject(new Error('templates read no other files (no include, render or layout)')),
  readFileSync: () => {
    throw new Error('templates read no other files (no include, render or layout)');
  },
  resolve: (_dir, file) => file,
  contains: async () => false,
  containsSync: () => false,
};

/** The tags that would read another file are refused where they stand, with their line. */
class OneFileOnly extends Tag {
  constructor(token: TagToken, remain: TopLevelToken[], liquid: LiquidEngine) {
    super(token, remain, liquid);
    throw new Error(`${token.name} is not available: a template is one file (no include, render or layout)`);
  }
  render(): void {}
}

/**
 * One file's place in the error: LiquidJS says `message, line:3, col:5` (syntax errors add the
 * offending text on further lines).
 */
function templateProblem(err: unknown, shown: string): string {
  const text = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  const m = /^(.*?), (?:file:[^,]*, )?line:(\d+), col:(\d+)$/.exec(text);
  let msg = (m ? m[1]! : text).trim();
  const undef = /^undefined variable: (.*)$/.exec(msg);
  if (undef) msg = `${undef[1]} is undefined (a misspelt name, or a field that is not set: test it with {% if %})`;
  if (/^memory alloc limit exceeded/.test(msg)) msg = `renders more than ${TEMPLATE_MEMORY_LIMIT} characters or loop steps: a loop runs away`;
  if (/^template render limit exceeded/.test(msg)) msg = `takes more than ${RENDER_LIMIT_MS / 1000} s to render: a loop runs away`;
  return m ? `${shown}:${m[2]}:${m[3]}: ${msg}` : `${shown}: ${msg}`;
}

/**
 * Only a .liquid file is read as a template, and only if what it really is (after links) is
 * one: the page can write .yaml files, never .liquid, so it cannot plant a template or read a
 * key as one.
 */
function templateFile(workspacePath: string, template: string, shown: string): { file: string } | { problem: string } {
  const notTemplate = `${shown}: a template is a Liquid file ending in ${TEMPLATE_EXTENSION}`;
  if (extname(template).toLowerCase() !== TEMPLATE_EXTENSION) return { problem: notTemplate };
  const file = resolve(dirname(workspacePath), template);
  let real: string;
  try {
    real = realpathSync(file);
  } catch (err) {
    return { problem: `cannot read ${shown} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (extname(real).toLowerCase() !== TEMPLATE_EXTENSION) return { problem: `${shown}: links to ${real}, which is not a ${TEMPLATE_EXTENSION} file` };
  return { file: real };
}

function seconds(ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new Error(`seconds: ${JSON.stringify(ms)} is not a duration in milliseconds`);
  return ms <= 0 ? 0 : Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Every `{{ value }}` goes through here (LiquidJS's outputEscape): a value is one word of one
 * command, so a line break in it would send the rest as a command of its own. Refused with the
 * template's line and column; the rendered text's own lines are checked after as well.
 */
function oneLineValue(value: unknown): string {
  const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join('') : String(value ?? '');
  const control = CONTROL.exec(text);
  if (control) throw new Error(`the value ${shownText(text, 60)} holds a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}): a value is never sent as more than one line`);
  return text;
}

function quote(value: unknown): string {
  oneLineValue(value);
  return `"${String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Every piece of output counts against the render's memory limit, captures included. */
class BoundedEmitter {
  buffer = '';
  constructor(private readonly ctx: Context) {}
  write(html: unknown): void {
    const s = typeof html === 'string' ? html : html === null || html === undefined ? '' : String(html);
    this.ctx.memoryLimit.use(s.length);
    this.buffer += s;
  }
}

function templateEngine(problems: { errors: DriverProblem[]; warnings: DriverProblem[] }): Liquid {
  const liquid = new Liquid({
    fs: NO_FILES,
    root: [],
    partials: [],
    layouts: [],
    relativeReference: false,
    dynamicPartials: false,
    ownPropertyOnly: true,
    strictFilters: true,
    strictVariables: true,
    // An `if` may test a field that is not set; printing one is the error.
    lenientIf: true,
    greedy: false,
    memoryLimit: TEMPLATE_MEMORY_LIMIT,
    renderLimit: RENDER_LIMIT_MS,
    parseLimit: PARSE_LIMIT,
    cache: false,
    outputEscape: oneLineValue,
  });
  for (const tag of ['include', 'render', 'layout']) liquid.registerTag(tag, OneFileOnly);
  liquid.registerFilter('seconds', seconds);
  liquid.registerFilter('quote', quote);
  // `raw` would skip the one-line check: here it is a plain identity, checked like any value.
  liquid.registerFilter('raw', (v: unknown) => v);
  // Templates say what they cannot express, by name: warn renders on, fail refuses the render.
  // `{{ "service x" | warn: "message" }}`; both print nothing.
  liquid.registerFilter('warn', (what: unknown, message: unknown) => {
    problems.warnings.push({ subject: String(what), message: String(message) });
    return '';
  });
  liquid.registerFilter('fail', (what: unknown, message: unknown) => {
    problems.errors.push({ subject: String(what), message: String(message) });
    return '';
  });
  const renderer = liquid.renderer;
  const renderTemplates = renderer.renderTemplates.bind(renderer);
  renderer.renderTemplates = (templates, ctx, emitter) => renderTemplates(templates, ctx, emitter ?? new BoundedEmitter(ctx));
  return liquid;
}

export function renderCliTemplate(workspace: Workspace, appliance: Appliance, ctx: RenderContext): RenderResult {
  const subject = `appliance ${appliance.name}`;
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const fail = (): RenderResult => ({ text: '', errors: dedupe(errors), warnings: dedupe(warnings) });
  const mode = appliance.cli?.mode ?? 'shell';
  if (mode !== 'shell' && !appliance.cli?.uploadPath) errors.push({ subject, message: `cli.mode ${mode} needs cli.uploadPath (where the config goes on the appliance)` });
  if (!appliance.template) {
    errors.push({ subject, message: `driver cli needs a template: a Liquid file (${TEMPLATE_EXTENSION}), path relative to the workspace file` });
    return fail();
  }
  const shown = `template ${appliance.template}`;
  const found = templateFile(ctx.workspacePath, appliance.template, shown);
  if ('problem' in found) {
    errors.push({ subject, message: found.problem });
    return fail();
  }
  let source: string;
  try {
    // The read rule: a FIFO is refused at once (never waited on), so is a template in a hidden folder.
    source = readChecked(found.file, { max: 4 * PARSE_LIMIT }).bytes.toString('utf8');
  } catch (err) {
    errors.push({ subject, message: `cannot read ${shown}: ${err instanceof ReadRefused ? err.detail : (err as Error).message}` });
    return fail();
  }
  const liquid = templateEngine({ errors, warnings });
  const data = templateContext(workspace, appliance, errors);
  let text: string;
  try {
    text = liquid.parseAndRenderSync(source, data as unknown as object) as string;
  } catch (err) {
    errors.push({ subject, message: templateProblem(err, shown) });
    return fail();
  }
  if (!text.endsWith('\n')) text += '\n';
  const sections = splitSections(text);
  for (const p of sections.problems) errors.push({ subject, message: `${shown} rendered ${p}` });
  // eslint-disable-next-line no-control-regex
  const bad = [...sections.lines.prologue, ...sections.lines.config, ...sections.lines.epilogue, ...sections.lines.rollback].find((l) => /[\x00-\x08\x0b-\x1f\x7f]/.test(l.text));
  if (bad) errors.push({ subject, message: `${shown} rendered a control character on line ${bad.n}` });
  if (commandsOf(sections.lines.config).length && !commandsOf(sections.lines.rollback).length) {
    warnings.push({ subject, message: `${shown} has no rollback commands: an error during apply leaves the commands sent so far in place` });
  }
  if (errors.length) return fail();
  return { text, errors: [], warnings: dedupe(warnings) };
}
