// A scenario file (docs/cli.md, "Scenarios"): faults, clears and HA box stops at given times,
// and the transitions expected after them, so a run of `serve --scenario` is the proof.
//
//   - at: 2s fault web/web1 delay 1500ms
//   - expect: web/web1 degraded within 5s
//   - at: 12s stop a1
//
// Parsed with positions, so a mistake is one `file:line:col: path: message` line as in workspaces.
import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Node } from 'yaml';
import type { EngineEvent } from '../../../shared/api/engine';
import type { MemberState, MemberStatus } from '../../../shared/api/types';
import { formatDuration, parseDuration } from '../../../shared/model/duration';
import { positionOf } from '../../../shared/model/locate';
import { formatPath, ROOT_PATH, SYNTAX_PATH, type PathSegment, type Problem } from '../../../shared/model/problem';
import type { Workspace } from '../../../shared/model/schema';
import { FAULT_USAGE, faultTargets, parseFaultLine, type FaultLine, type FaultTarget } from './faults';

export type ScenarioStep =
  | { kind: 'at'; atMs: number; line: string; fileLine: number }
  | { kind: 'expect'; member: string; state: ExpectedState; withinMs: number; fileLine: number; text: string };

type ExpectedState = Extract<MemberState, 'available' | 'degraded' | 'unavailable'>;
const STATES: readonly string[] = ['available', 'degraded', 'unavailable'];
const HOW = 'a scenario is a list of steps, each "- at: DUR LINE" (LINE: fault MEMBER KIND [VALUE], clear MEMBER, clear all, stop [PAIR] BOX, start [PAIR] BOX) or "- expect: MEMBER STATE within DUR"';

/** The steps, or each problem found (members and boxes checked against the workspace). */
export function parseScenario(text: string, file: string, workspace: Workspace): { steps: ScenarioStep[] } | { problems: Problem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const problems: Problem[] = [];
  const at = (node: Node | null | undefined, path: PathSegment[], message: string) => {
    const { line, col } = node?.range ? positionOf(node.range[0], lines) : { line: 1, col: 1 };
    problems.push({ severity: 'error', file, line, col, path: path.length ? formatPath(path) : ROOT_PATH, message, segments: path });
  };
  for (const e of doc.errors) {
    const { line, col } = positionOf(e.pos[0], lines);
    problems.push({ severity: 'error', file, line, col, path: SYNTAX_PATH, message: e.message.split('\n')[0]! });
  }
  if (problems.length) return { problems };
  if (!isSeq(doc.contents) || doc.contents.items.length === 0) {
    at(doc.contents as Node | null, [], HOW);
    return { problems };
  }
  const targets = [...faultTargets(workspace).values()];
  const boxes = new Set(workspace.pairs.flatMap((p) => p.members.flatMap((m) => (m.ipfe ? [m.appliance, m.ipfe] : [m.appliance]))));
  const pairs = new Set(workspace.pairs.map((p) => p.name));
  const steps: ScenarioStep[] = [];
  let last = 0;
  doc.contents.items.forEach((item, i) => {
    const node = item as Node;
    if (!isMap(node) || node.items.length !== 1 || !isScalar(node.items[0]!.key)) return at(node, [i], `each step is "at: DUR LINE" or "expect: MEMBER STATE within DUR"`);
    const pair = node.items[0]!;
    const key = String((pair.key as { value: unknown }).value);
    const valueNode = pair.value as Node | null;
    const value = isScalar(valueNode) ? String(valueNode.value ?? '').trim() : undefined;
    const path = [i, key];
    const fileLine = valueNode?.range ? positionOf(valueNode.range[0], lines).line : 1;
    if (key !== 'at' && key !== 'expect') return at(pair.key as Node, [i], `"${key}" is not a step: use at or expect`);
    if (value === undefined || value === '') return at(valueNode ?? node, path, key === 'at' ? 'use "at: DUR LINE", e.g. "at: 2s fault web/web1 delay 1500ms"' : 'use "expect: MEMBER STATE within DUR", e.g. "expect: web/web1 unavailable within 5s"');
    const words = value.split(/\s+/);
    if (key === 'at') {
      const ms = parseDuration(words[0]);
      if (ms === undefined) return at(valueNode, path, `"${words[0]}" is not a time: use e.g. 2s or 1500ms (from the start of the scenario)`);
      if (ms < last) return at(valueNode, path, `${formatDuration(ms)} comes before the step above it (${formatDuration(last)}): steps go in time order`);
      const why = lineProblem(words.slice(1), targets, boxes, pairs);
      if (why) return at(valueNode, path, why);
      last = ms;
      steps.push({ kind: 'at', atMs: ms, line: words.slice(1).join(' '), fileLine });
      return;
    }
    const [member, state, within, dur, ...extra] = words;
    const ms = parseDuration(dur);
    if (!member || !state || within !== 'within' || ms === undefined || ms === 0 || extra.length) return at(valueNode, path, 'use "expect: MEMBER STATE within DUR", e.g. "expect: web/web1 unavailable within 5s"');
    if (!STATES.includes(state)) return at(valueNode, path, `"${state}" is not a state: use available, degraded or unavailable`);
    if (matching(targets, member).length === 0) return at(valueNode, path, unknownMember(member, targets));
    steps.push({ kind: 'expect', member, state: state as ExpectedState, withinMs: ms, fileLine, text: value });
  });
  return problems.length ? { problems } : { steps };
}

function lineProblem(words: string[], targets: FaultTarget[], boxes: Set<string>, pairs: Set<string>): string | undefined {
  const parsed = parseFaultLine(words);
  if (parsed && 'error' in parsed) return parsed.error;
  if (parsed) return parsed.member === 'all' && parsed.op === 'clear' ? undefined : matching(targets, parsed.member).length ? undefined : unknownMember(parsed.member, targets);
  const [action, ...rest] = words;
  if ((action !== 'stop' && action !== 'start') || rest.length < 1 || rest.length > 2) return `"${words.join(' ')}" is not a step: use fault, clear, stop or start after the time`;
  if (rest.length === 2 && !pairs.has(rest[0]!)) return `no pair "${rest[0]}" in the workspace`;
  const box = rest.at(-1)!;
  return boxes.has(box) ? undefined : `no box "${box}" in the workspace's pairs${boxes.size ? ` (boxes: ${[...boxes].join(', ')})` : ''}`;
}

/** A member name as faults read it: exactly, or every port of `group/server`. */
export function matching(targets: FaultTarget[], member: string): FaultTarget[] {
  const exact = targets.filter((t) => t.name === member);
  return exact.length ? exact : targets.filter((t) => t.name.startsWith(`${member}:`));
}

function unknownMember(member: string, targets: FaultTarget[]): string {
  return `no member "${member}" in the workspace (members: ${targets.slice(0, 6).map((t) => t.name).join(', ')}${targets.length > 6 ? ', …' : ''})`;
}

export interface ScenarioDeps {
  /** Runs one `at` line (fault, clear, stop, start). */
  exec(line: string): Promise<void>;
  members(): MemberStatus[];
  /** Every lab event from now on; returns its off. */
  events(listener: (e: EngineEvent) => void): () => void;
  /** Each expectation as it settles. */
  report(e: Extract<EngineEvent, { type: 'expect' }>): void;
  /** How long to wait for every member's first result before the clock starts (default 10 s). */
  settleMs?: number;
  /** Stops the run: it rejects with "stopped", and no expectation is reported after. */
  signal?: AbortSignal;
}

/** What runs one line of the fault language: serve's runner, or the window's lab. */
export interface LineTarget {
  fault(line: FaultLine): Promise<unknown>;
  pairBox(pair: string | undefined, box: string, action: 'stop' | 'start'): Promise<unknown>;
}

/** One line of the fault language (stdin, scenario steps); a line that is not one is an Error. */
export async function runFaultLine(target: LineTarget, run: <T>(f: () => Promise<T>) => Promise<T>, line: string): Promise<void> {
  const words = line.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return;
  const parsed = parseFaultLine(words);
  if (parsed && 'error' in parsed) throw new Error(`"${line.trim()}": ${parsed.error}`);
  if (parsed) return void (await run(() => target.fault(parsed)));
  const [action, ...rest] = words;
  if ((action !== 'stop' && action !== 'start') || rest.length < 1 || rest.length > 2) {
    throw new Error(`"${line.trim()}" is not a fault: use "stop [PAIR] BOX", "start [PAIR] BOX", or ${FAULT_USAGE}`);
  }
  const [pair, box] = rest.length === 2 ? [rest[0], rest[1]!] : [undefined, rest[0]!];
  return void (await run(() => target.pairBox(pair, box, action)));
}

const nameOf = (m: { group?: string; targetSet?: number; server: string; address: string; port?: number }) =>
  m.group !== undefined ? `${m.group}/${m.server}${m.port !== undefined ? `:${m.port}` : ''}` : `ts${m.targetSet}/${m.address}`;

const matches = (name: string, member: string) => name === member || name.startsWith(`${member}:`);

/** Runs the steps from start to finish; resolves with how many expectations passed and failed. */
export async function runScenario(steps: ScenarioStep[], deps: ScenarioDeps): Promise<{ passed: number; failed: number }> {
  const states = new Map<string, MemberState>();
  const waiters = new Set<() => void>();
  const measures = new Map<string, string>();
  const off = deps.events((e) => {
    if (e.type !== 'state') return;
    const name = nameOf(e);
    states.set(name, e.to);
    if (e.detectedMs !== undefined && e.bound) measures.set(`${name}>${e.to}`, `${e.fault}: ${e.detectedMs} ms, bound ${e.bound[0]}-${e.bound[1]} ms${e.withinBound ? '' : ', OUTSIDE THE BOUND'}`);
    for (const w of [...waiters]) w();
  });
  const signal = deps.signal;
  let stopped = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    stopped = () => reject(new Error('stopped'));
    if (signal?.aborted) stopped();
    signal?.addEventListener('abort', stopped, { once: true });
  });
  aborted.catch(() => undefined);
  for (const m of deps.members()) states.set(nameOf(m), m.state);
  try {
    // The clock starts once every member has its first result.
    await Promise.race([waitFor(() => [...states.values()].every((s) => s !== 'unknown'), deps.settleMs ?? 10_000, waiters), aborted]);
  } catch (err) {
    off();
    throw err;
  }
  const t0 = Date.now();
  let stepAt = t0;
  let passed = 0;
  let failed = 0;
  const pending: Promise<void>[] = [];
  try {
    for (const step of steps) {
      if (step.kind === 'at') {
        const wait = t0 + step.atMs - Date.now();
        if (wait > 0) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([new Promise((r) => (timer = setTimeout(r, wait))), aborted]).finally(() => clearTimeout(timer));
        }
        stepAt = Date.now();
        await Promise.race([deps.exec(step.line), aborted]);
        continue;
      }
      const from = stepAt;
      pending.push((async () => {
        const reached = () => {
          const names = [...states.keys()].filter((n) => matches(n, step.member));
          return names.length > 0 && names.every((n) => states.get(n) === step.state);
        };
        const ok = await waitFor(reached, from + step.withinMs - Date.now(), waiters);
        if (signal?.aborted) return;
        const afterMs = Date.now() - from;
        const names = [...states.keys()].filter((n) => matches(n, step.member));
        const measured = names.map((n) => measures.get(`${n}>${step.state}`)).filter(Boolean);
        const now = names.map((n) => `${n} ${states.get(n)}`).join(', ');
        if (ok) passed++;
        else failed++;
        deps.report({
          ts: new Date().toISOString(), type: 'expect', member: step.member, state: step.state, withinMs: step.withinMs, ok, line: step.fileLine,
          ...(ok ? { afterMs } : {}),
          reason: ok ? `after ${afterMs} ms${measured.length ? ` (${measured.join('; ')})` : ''}` : `still ${now} after ${formatDuration(step.withinMs)}`,
        });
      })());
    }
    await Promise.race([Promise.all(pending), aborted]);
  } finally {
    signal?.removeEventListener('abort', stopped);
    off();
  }
  return { passed, failed };
}

/** Resolves true once `ok()` holds (checked on every state event), false after `ms`. */
function waitFor(ok: () => boolean, ms: number, waiters: Set<() => void>): Promise<boolean> {
  if (ok()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      clearTimeout(timer);
      waiters.delete(check);
      resolve(v);
    };
    const check = () => (ok() ? done(true) : undefined);
    const timer = setTimeout(() => done(ok()), Math.max(0, ms));
    waiters.add(check);
  });
}
