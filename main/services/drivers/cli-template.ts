// Renders a workspace for a vendor CLI through a nunjucks template (docs/vendor-cli.md).
// Strict: an undefined value in `{{ }}` is an error, so a misspelt name never renders empty.
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import nunjucks from 'nunjucks';
import type { Appliance, Workspace } from '../../../shared/model/schema';
import { dedupe, type DriverProblem, type RenderContext, type RenderResult } from './types';
import { templateContext } from './cli-context';
import { commandsOf, splitSections } from './cli-sections';

/** `(file) [Line 3, Column 5]\n  Error: message` → `file:3:5: message`. */
function templateProblem(err: unknown, shown: string): string {
  const text = err instanceof Error ? err.message : String(err);
  const m = /^\(([^)]*)\)(?: \[Line (\d+), Column (\d+)\])?\s*(?:Error: )?([\s\S]*)$/.exec(text);
  let msg = (m ? m[4]! : text).trim().split('\n')[0]!;
  if (/attempted to output null or undefined value/.test(msg)) msg = 'a value in {{ }} is undefined (a misspelt name, or a field that is not set: test it with {% if %})';
  return m?.[2] ? `${shown}:${m[2]}:${m[3]}: ${msg}` : `${shown}: ${msg}`;
}

/**
 * Nunjucks is not a sandbox: `range.constructor("...")()` is the Function constructor. Every
 * `a.b` and `a[b]` in a template goes through runtime.memberLookup, so the names that lead from
 * a value to code are refused there, after the key is made a string (a key object's toString
 * could otherwise say "constructor" only when the lookup converts it).
 */
const UNREACHABLE = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', 'caller', 'callee', 'arguments']);
/**
 * A bare name (`{{ constructor }}`) is looked up in the frame and the context, plain objects
 * whose prototype answers `constructor` (Object, and from it Function): no Object.prototype
 * name is a template variable.
 */
const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), ...UNREACHABLE]);
type Runtime = {
  memberLookup(obj: unknown, key: unknown): unknown;
  contextOrFrameLookup(context: unknown, frame: unknown, name: string): unknown;
  lbdeskGuarded?: true;
};
const runtime = (nunjucks as unknown as { runtime: Runtime }).runtime;
if (!runtime.lbdeskGuarded) {
  const lookup = runtime.memberLookup;
  runtime.memberLookup = (obj, key) => {
    const name = typeof key === 'number' ? key : String(key);
    if (typeof name === 'string' && UNREACHABLE.has(name)) throw new Error(`${name} is not available in a template`);
    return lookup(obj, name);
  };
  const variable = runtime.contextOrFrameLookup;
  runtime.contextOrFrameLookup = (context, frame, name) => {
    if (PROTOTYPE_NAMES.has(String(name))) throw new Error(`${String(name)} is not available in a template`);
    return variable(context, frame, name);
  };
  runtime.lbdeskGuarded = true;
}

/**
 * Only a .njk file is read as a template, and only if what it really is (after links) is one:
 * the page can write .yaml files, never .njk, so it cannot plant a template or read a key as one.
 */
function templateFile(workspacePath: string, template: string, shown: string): { file: string } | { problem: string } {
  const notNjk = `${shown}: a template is a nunjucks file ending in .njk`;
  if (extname(template).toLowerCase() !== '.njk') return { problem: notNjk };
  const file = resolve(dirname(workspacePath), template);
  let real: string;
  try {
    real = realpathSync(file);
  } catch (err) {
    return { problem: `cannot read ${shown} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (extname(real).toLowerCase() !== '.njk') return { problem: `${shown}: links to ${real}, which is not a .njk file` };
  return { file: real };
}

function seconds(ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new Error(`seconds: ${JSON.stringify(ms)} is not a duration in milliseconds`);
  return ms <= 0 ? 0 : Math.max(1, Math.ceil(ms / 1000));
}

function quote(value: unknown): string {
  return `"${String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function renderCliTemplate(ws: Workspace, appliance: Appliance, ctx: RenderContext): RenderResult {
  const subject = `appliance ${appliance.name}`;
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const fail = (): RenderResult => ({ text: '', errors: dedupe(errors), warnings: dedupe(warnings) });
  const mode = appliance.cli?.mode ?? 'shell';
  if (mode !== 'shell' && !appliance.cli?.uploadPath) errors.push({ subject, message: `cli.mode ${mode} needs cli.uploadPath (where the config goes on the appliance)` });
  if (!appliance.template) {
    errors.push({ subject, message: 'driver cli needs a template: a nunjucks file, path relative to the workspace file' });
    return fail();
  }
  const shown = `template ${appliance.template}`;
  const found = templateFile(ctx.workspacePath, appliance.template, shown);
  if ('problem' in found) {
    errors.push({ subject, message: found.problem });
    return fail();
  }
  const file = found.file;
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    errors.push({ subject, message: `cannot read ${shown} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
    return fail();
  }
  const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(dirname(file), { noCache: true }), {
    autoescape: false, throwOnUndefined: true, trimBlocks: true, lstripBlocks: true,
  });
  env.addFilter('seconds', seconds);
  env.addFilter('quote', quote);
  // Templates say what they cannot express, by name: warn() renders on, fail() refuses the render.
  env.addGlobal('warn', (what: unknown, message: unknown) => { warnings.push({ subject: String(what), message: String(message) }); return ''; });
  env.addGlobal('fail', (what: unknown, message: unknown) => { errors.push({ subject: String(what), message: String(message) }); return ''; });
  const data = templateContext(ws, appliance, errors);
  let text: string;
  try {
    text = new nunjucks.Template(source, env, file, true).render(data as unknown as object);
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
