// A group's check as an ACOS health monitor: create one (`health monitor NAME`, `method …`,
// `interval`, `retry`, `up-retry`) and bind it (`health-check NAME` in the service group), change
// only the lines of an owned monitor that differ, and unbind and remove one the workspace no
// longer uses. Owned: the monitor of an owned service group that no other object on the box names.
import type { CheckType, Group, HealthCheck } from '../../../../shared/model/schema';
import type { CommandStep, DriverProblem } from '../types';
import { quoteName, type A10Config, type A10Group, type A10Line, type A10Monitor } from './parse';

const q = quoteName;
const secs = (ms: number | undefined) => (ms === undefined ? undefined : Math.max(1, Math.round(ms / 1000)));

/** Each check's `method …` line as ACOS takes it; undefined where ACOS has no method lbdesk sends.
 * A complete Record, so a new check type does not compile until the A10 driver says what it does. */
type Method = ((c: HealthCheck, p: string) => string | undefined) | undefined;
const httpMethod: Method = (c, p) =>
  // ACOS words have no escapes: a path with a blank or quote, an expect with a quote cannot be written.
  /[\s"]/.test(c.http?.path ?? '') || /"/.test(c.http?.expect ?? '')
    ? undefined
    : `method ${c.type}${p}${c.http?.expect ? ` expect ${q(c.http.expect)}` : ''} url GET ${c.http?.path ?? '/'}`;
const METHOD: Record<CheckType, Method> = {
  tcp: (_c, p) => `method tcp${p}`,
  udp: (_c, p) => `method udp${p}`,
  ping: () => 'method icmp',
  http: httpMethod,
  https: httpMethod,
  auto: undefined, none: undefined, ssl: undefined, ftp: undefined, smtp: undefined, pop3: undefined, imap4: undefined,
  nntp: undefined, telnet: undefined, ldap: undefined, dns: undefined, radius: undefined, rtsp: undefined, mms: undefined, pnm: undefined,
};

/** The `method …` line for a check, or undefined when ACOS has no monitor method lbdesk sends for it. */
export function methodFor(c: HealthCheck, port: number | undefined): string | undefined {
  return METHOD[c.type]?.(c, port !== undefined ? ` port ${port}` : '');
}

/** What the box's method says, in the words lbdesk compares: type, port, path, expect. */
function methodParts(words: string[] | undefined): { type?: string; port?: string; path?: string; expect?: string } {
  if (!words) return {};
  const at = (k: string) => { const i = words.indexOf(k, 2); return i > 1 ? words[i + 1] : undefined; };
  const url = words.indexOf('url', 2);
  return { type: words[1], port: at('port'), path: url > 1 ? words[url + 2] : undefined, expect: at('expect') };
}

function sameMethod(box: string[] | undefined, want: string[]): boolean {
  const a = methodParts(box);
  const b = methodParts(want);
  const http = b.type === 'http' || b.type === 'https';
  // The workspace has no check port or "no expect": a box's port or expect it does not name stays.
  return a.type === b.type && (a.port === undefined || b.port === undefined || a.port === b.port)
    && (!http || ((a.path ?? '/') === (b.path ?? '/') && (b.expect === undefined || a.expect === b.expect)));
}

/** Lines naming the monitor (`health-check M`) outside the owned groups: then it is not the workspace's alone. */
function usedElsewhere(cfg: A10Config, name: string, owned: Set<string>): boolean {
  const users = cfg.groups.filter((g) => g.healthCheck === name).map((g) => g.name);
  const named = cfg.lines.filter((l) => { const w = l.trim().split(/\s+/); return w[0] === 'health-check' && w[1] === name; }).length;
  return users.some((u) => !owned.has(u)) || named > users.length;
}

/** Re-enters a monitor with every line it had, in its order. */
function monitorBack(m: A10Monitor): string[] {
  return [m.head.text.trim(), ...m.body.map((l: A10Line) => l.text.trim()), 'exit'];
}

/** The timer lines that differ from monitor m's (all the workspace sets, for a new monitor), with the line that puts each back. */
function timerChanges(t: NonNullable<Group['healthTimers']>, m?: A10Monitor): { key: string; go: string; back: string }[] {
  const lines: { key: string; go: string; back: string }[] = [];
  const was = m?.timers ?? {};
  const line = (k: string) => m?.body.find((l) => l.words[0] === k)?.text.trim();
  const iv = secs(t.interval);
  const to = secs(t.timeout);
  if ((iv !== undefined && iv !== was.interval) || (to !== undefined && to !== was.timeout)) {
    const i = iv ?? was.interval ?? 5;
    const go = `interval ${i}${to !== undefined || was.timeout !== undefined ? ` timeout ${to ?? was.timeout}` : ''}`;
    lines.push({ key: 'interval', go, back: line('interval') ?? `no ${go}` });
  }
  if (t.failAfter !== undefined && t.failAfter !== was.retry && !(t.failAfter === 1 && was.retry === 0)) lines.push({ key: 'retry', go: `retry ${t.failAfter}`, back: line('retry') ?? `no retry ${t.failAfter}` });
  if (t.restoreAfter !== undefined && t.restoreAfter !== was.upRetry) lines.push({ key: 'up-retry', go: `up-retry ${t.restoreAfter}`, back: line('up-retry') ?? `no up-retry ${t.restoreAfter}` });
  return lines;
}

/** A new monitor for group `base`'s check, named `BASE-hm` (or -hm2, … when taken); undefined when the check has no ACOS method. */
export function newMonitor(cfg: A10Config, base: string, group: Group, taken: Set<string>): { name: string; step: CommandStep } | undefined {
  const ports = [...new Set(group.members.map((m) => m.port).filter((p): p is number => p !== undefined))];
  const method = methodFor(group.healthCheck, ports.length === 1 ? ports[0] : undefined);
  if (!method) return undefined;
  let name = `${base}-hm`;
  for (let i = 2; cfg.monitors.some((m) => m.name === name) || taken.has(name); i++) name = `${base}-hm${i}`;
  taken.add(name);
  return { name, step: { what: `create health monitor ${name}`, commands: [`health monitor ${q(name)}`, method, ...timerChanges(group.healthTimers ?? {}).map((l) => l.go), 'exit'], inverse: [`no health monitor ${q(name)}`] } };
}

export interface MonitorPlan { before: CommandStep[]; group: { go: string[]; back: string[]; what: string[] }; after: CommandStep[] }

/**
 * The steps that give owned service group `box` the workspace group's check: monitor steps to
 * send before the group's own step, lines for the group's step, and removals to send after it.
 */
export function planMonitor(cfg: A10Config, box: A10Group, group: Group, owned: Set<string>, taken: Set<string>, warnings: DriverProblem[]): MonitorPlan {
  const out: MonitorPlan = { before: [], group: { go: [], back: [], what: [] }, after: [] };
  const c = group.healthCheck;
  const mon = box.healthCheck ? cfg.monitors.find((m) => m.name === box.healthCheck) : undefined;
  const mine = mon !== undefined && !usedElsewhere(cfg, mon.name, owned);
  const subject = `group ${group.name}`;
  const ports = [...new Set(group.members.map((m) => m.port).filter((p): p is number => p !== undefined))];
  const method = methodFor(c, ports.length === 1 ? ports[0] : undefined);
  const t = group.healthTimers ?? {};
  const bindLine = box.healthCheck ? [`health-check ${q(box.healthCheck)}`] : box.checkOff ? [box.body.find((l) => /^(health-check-disable|no health-check)$/.test(l.words.join(' ')))!.text.trim()] : [];
  // ACOS keeps one health-check setting per group: a new `health-check X` or
  // `health-check-disable` takes the old one's place, and the old line puts it back.
  const bind = (line: string, what: string) => {
    out.group.go.push(line);
    out.group.back.push(...(bindLine.length ? bindLine : [`no ${line}`]));
    out.group.what.push(what);
  };
  const dropOld = () => {
    if (mine && mon) out.after.push({ what: `remove health monitor ${mon.name}`, commands: [`no health monitor ${q(mon.name)}`], inverse: monitorBack(mon) });
  };
  const unbind = (what: string) => {
    if (!box.healthCheck) return;
    out.group.go.push(`no health-check ${q(box.healthCheck)}`);
    out.group.back.push(...bindLine);
    out.group.what.push(what);
    dropOld();
  };

  if (c.type === 'none') {
    if (box.checkOff) return out;
    bind('health-check-disable', `${box.healthCheck ? `health-check ${box.healthCheck}` : 'default check'} -> health-check-disable`);
    dropOld();
    return out;
  }
  if (c.type === 'auto') {
    // The box's own checking (no monitor bound, or one lbdesk reads as its default) stays as it is.
    if (!mon || box.checkOff) return out;
    unbind(`health-check ${mon.name} removed`);
    return out;
  }
  if (!method) {
    const why = c.type === 'http' || c.type === 'https' ? 'its path has a blank or a quote, or its expect a quote, which an ACOS method line cannot hold' : 'ACOS has no health monitor method lbdesk sends for it';
    warnings.push({ subject, message: `check ${c.type}: ${why}; service-group ${box.name}'s stays as it is` });
    return out;
  }
  const want = method.split(' ');
  const timerLines = (m?: A10Monitor) => timerChanges(t, m);
  // ACOS 2.x timers on the head line: not edited in place; a new monitor takes their place.
  if (mon && mine && mon.head.words.length <= 3) {
    const go: string[] = [];
    const back: string[] = [];
    const what: string[] = [];
    if (!sameMethod(mon.method?.words, want)) {
      go.push(method);
      back.push(mon.method ? mon.method.words.map((w, i) => (i && /\s/.test(w) ? q(w) : w)).join(' ') : `no ${method}`);
      what.push(`${mon.method ? `"${mon.method.words.join(' ')}"` : 'no method'} -> "${method}"`);
    }
    for (const l of timerLines(mon)) { go.push(l.go); back.push(l.back); what.push(`${l.key} -> ${l.go}`); }
    if (go.length) out.before.push({ what: `health monitor ${mon.name}: ${what.join(', ')}`, commands: [`health monitor ${q(mon.name)}`, ...go, 'exit'], inverse: [`health monitor ${q(mon.name)}`, ...back, 'exit'] });
    return out;
  }
  if (mon && sameMethod(mon.method?.words, want) && !timerLines(mon).length) return out;
  const created = newMonitor(cfg, box.name, group, taken)!;
  const name = created.name;
  out.before.push(created.step);
  bind(`health-check ${q(name)}`, `${box.healthCheck ? `health-check ${box.healthCheck}` : box.checkOff ? 'health-check-disable' : 'default check'} -> health-check ${name}`);
  dropOld();
  return out;
}
