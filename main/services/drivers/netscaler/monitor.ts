// A group's check as a NetScaler lb monitor: `add lb monitor NAME HTTP -httpRequest "GET /p"
// -respCode 200 -interval 5 -retries 3` and `bind serviceGroup G -monitorName NAME` for a check
// the box lacks, `set lb monitor NAME TYPE -opt …` for the options of an owned monitor that
// differ, `unbind serviceGroup G -monitorName M` and `rm lb monitor M TYPE` for one the workspace
// no longer uses. A monitor's type cannot be changed on a NetScaler: a new type is a new monitor.
// Owned: a monitor added by an `add lb monitor` line that no line but its group's bind names.
import type { CheckType, Group } from '../../../../shared/model/schema';
import type { CommandStep, DriverProblem } from '../types';
import { monitorTimers } from './import';
import { quoteNs, type NsConfig, type NsGroup, type NsMonitor } from './parse';

const q = quoteNs;

type Kind = { type: string; opts: [string, string][] };
const httpKind = (group: Group): Kind => {
  const c = group.healthCheck;
  const path = c.http?.path ?? '/';
  const secure: [string, string][] = c.type === 'https' ? [['secure', 'YES']] : [];
  if (c.http?.expect) return { type: 'HTTP-ECV', opts: [['send', `GET ${path}`], ['recv', c.http.expect], ...secure] };
  return { type: 'HTTP', opts: [['respCode', '200'], ['httpRequest', `GET ${path}`], ...secure] };
};
/** Each check as a monitor type and its request options; undefined where lbdesk sends none. A
 * complete Record, so a new check type does not compile until the NetScaler driver says what it does. */
const KIND: Record<CheckType, ((group: Group) => Kind) | undefined> = {
  tcp: () => ({ type: 'TCP', opts: [] }),
  ping: () => ({ type: 'PING', opts: [] }),
  http: httpKind,
  https: httpKind,
  auto: undefined, none: undefined, udp: undefined, ssl: undefined, ftp: undefined, smtp: undefined, pop3: undefined, imap4: undefined,
  nntp: undefined, telnet: undefined, ldap: undefined, dns: undefined, radius: undefined, rtsp: undefined, mms: undefined, pnm: undefined,
};

/** The monitor type and its request options for a check; undefined when lbdesk sends none for it. */
const kindFor = (group: Group): Kind | undefined => KIND[group.healthCheck.type]?.(group);

const duration = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}` : `${ms} MSEC`);

/** The timer options the workspace sets, as the box takes them. */
function timerOpts(group: Group): [string, string, number][] {
  const t = group.healthTimers ?? {};
  const out: [string, string, number][] = [];
  if (t.interval !== undefined) out.push(['interval', duration(t.interval), t.interval]);
  if (t.timeout !== undefined) out.push(['resptimeout', duration(t.timeout), t.timeout]);
  if (t.retryInterval !== undefined) out.push(['downTime', duration(t.retryInterval), t.retryInterval]);
  if (t.failAfter !== undefined) out.push(['retries', String(t.failAfter), t.failAfter]);
  if (t.restoreAfter !== undefined) out.push(['successRetries', String(t.restoreAfter), t.restoreAfter]);
  return out;
}
const TIMER_KEY: Record<string, keyof ReturnType<typeof monitorTimers>> = { interval: 'interval', resptimeout: 'timeout', downTime: 'retryInterval', retries: 'failAfter', successRetries: 'restoreAfter' };

/** True when no line but `add`/`set lb monitor M` and group g's bind names monitor m. */
function ownedMonitor(cfg: NsConfig, m: NsMonitor, g: NsGroup): boolean {
  const bind = g.monitors.find((x) => x.name === m.name)?.line.n;
  return cfg.lines.every((raw, n) => {
    if (n === m.line.n || n === bind) return true;
    const w = raw.trim().split(/\s+/).map((x) => x.replace(/^"|"$/g, ''));
    if (w[0]?.toLowerCase() === 'set' && w[1]?.toLowerCase() === 'lb' && w[2]?.toLowerCase() === 'monitor' && w[3] === m.name) return true;
    return !w.includes(m.name);
  });
}

/** The request option of a box monitor as written (for the inverse): `-httpRequest "GET /x"`. */
function optText(m: NsMonitor, key: string): string | undefined {
  const v = m.opts.get(key.toLowerCase());
  return v && v.length ? v.map((x) => (/^\S+$/.test(x) && !/"/.test(x) ? x : q(x))).join(' ') : undefined;
}

/** Steps that give owned service group `box` the workspace group's check. */
export function planNsMonitor(cfg: NsConfig, box: NsGroup, group: Group, taken: Set<string>, warnings: DriverProblem[]): CommandStep[] {
  const steps: CommandStep[] = [];
  const subject = `group ${group.name}`;
  const bound = box.monitors[0];
  const mon = bound && cfg.monitors.find((m) => m.name === bound.name);
  const mine = mon !== undefined && box.monitors.length === 1 && ownedMonitor(cfg, mon, box);
  const G = q(box.name);
  const dropOld = () => {
    if (!bound) return;
    steps.push({ what: `serviceGroup ${box.name}: unbind monitor ${bound.name}`, commands: [`unbind serviceGroup ${G} -monitorName ${q(bound.name)}`], inverse: [bound.line.text.trim()] });
    if (mine && mon) steps.push({ what: `remove lb monitor ${mon.name}`, commands: [`rm lb monitor ${q(mon.name)} ${mon.type}`], inverse: [mon.line.text.trim()] });
  };
  if (group.healthCheck.type === 'auto' || group.healthCheck.type === 'none') {
    if (group.healthCheck.type === 'none') warnings.push({ subject, message: 'check none: a NetScaler service group is always monitored (its default monitor without a bound one)' });
    if (bound && box.monitors.length === 1) dropOld();
    return steps;
  }
  const want = kindFor(group);
  if (!want) { warnings.push({ subject, message: `check ${group.healthCheck.type}: lbdesk sends no NetScaler monitor for it; serviceGroup ${box.name}'s stays as it is` }); return steps; }
  const timers = timerOpts(group);
  if (mon && mine && mon.type.toUpperCase() === want.type) {
    const have = monitorTimers(mon.opts);
    const go: string[] = [];
    const set: string[] = [];
    const unset: string[] = [];
    for (const [k, v] of want.opts) {
      if (k === 'respCode' || k === 'secure') continue;
      if (mon.opts.get(k.toLowerCase())?.join(' ') === v) continue;
      go.push(`-${k} ${q(v)}`);
      const old = optText(mon, k);
      if (old !== undefined) set.push(`-${k} ${old}`); else unset.push(`-${k}`);
    }
    for (const [k, v, ms] of timers) {
      if (have[TIMER_KEY[k]!] === ms) continue;
      go.push(`-${k} ${v}`);
      const old = optText(mon, k);
      if (old !== undefined) set.push(`-${k} ${old}`); else unset.push(`-${k}`);
    }
    if (!go.length) return steps;
    const M = `${q(mon.name)} ${mon.type}`;
    steps.push({
      what: `lb monitor ${mon.name}: ${go.join(' ')}`,
      commands: [`set lb monitor ${M} ${go.join(' ')}`],
      inverse: [...(set.length ? [`set lb monitor ${M} ${set.join(' ')}`] : []), ...(unset.length ? [`unset lb monitor ${M} ${unset.join(' ')}`] : [])],
    });
    return steps;
  }
  if (box.monitors.length > 1) { warnings.push({ subject, message: `serviceGroup ${box.name} has ${box.monitors.length} monitors bound: lbdesk does not replace them; its check is not sent` }); return steps; }
  // The box's check already is the workspace's (a built-in one, or one another object shares): kept.
  if (bound && sameAsBox(bound.name, mon, want.type, group, timers)) return steps;
  let name = `${box.name}-mon`;
  for (let i = 2; cfg.monitors.some((m) => m.name === name) || taken.has(name); i++) name = `${box.name}-mon${i}`;
  taken.add(name);
  const opts = [...want.opts.map(([k, v]) => ` -${k} ${q(v)}`), ...timers.map(([k, v]) => ` -${k} ${v}`)].join('');
  steps.push({ what: `add lb monitor ${name}`, commands: [`add lb monitor ${q(name)} ${want.type}${opts}`], inverse: [`rm lb monitor ${q(name)} ${want.type}`] });
  steps.push({ what: `serviceGroup ${box.name}: bind monitor ${name}`, commands: [`bind serviceGroup ${G} -monitorName ${q(name)}`], inverse: [`unbind serviceGroup ${G} -monitorName ${q(name)}`] });
  dropOld();
  return steps;
}

/** A monitor lbdesk does not own that already checks what the workspace asks. */
function sameAsBox(name: string, mon: NsMonitor | undefined, type: string, group: Group, timers: [string, string, number][]): boolean {
  const boxType = (mon?.type ?? name).toUpperCase().replace(/-DEFAULT$/, '');
  if (boxType !== type) return false;
  if (type === 'HTTP' || type === 'HTTP-ECV') {
    const req = mon?.opts.get('httprequest')?.[0] ?? mon?.opts.get('send')?.[0];
    if ((req?.split(/\s+/)[1] ?? '/') !== (group.healthCheck.http?.path ?? '/')) return false;
  }
  const have = monitorTimers(mon?.opts);
  return timers.every(([k, , ms]) => have[TIMER_KEY[k]!] === ms);
}

/** A new service group's monitor: its add line and bind, or none when the check has no monitor. */
export function newNsMonitor(cfg: NsConfig, groupName: string, group: Group, taken: Set<string>): CommandStep[] {
  const want = kindFor(group);
  if (!want) return [];
  let name = `${groupName}-mon`;
  for (let i = 2; cfg.monitors.some((m) => m.name === name) || taken.has(name); i++) name = `${groupName}-mon${i}`;
  taken.add(name);
  const opts = [...want.opts.map(([k, v]) => ` -${k} ${q(v)}`), ...timerOpts(group).map(([k, v]) => ` -${k} ${v}`)].join('');
  return [
    { what: `add lb monitor ${name}`, commands: [`add lb monitor ${q(name)} ${want.type}${opts}`], inverse: [`rm lb monitor ${q(name)} ${want.type}`] },
    { what: `serviceGroup ${groupName}: bind monitor ${name}`, commands: [`bind serviceGroup ${q(groupName)} -monitorName ${q(name)}`], inverse: [`unbind serviceGroup ${q(groupName)} -monitorName ${q(name)}`] },
  ];
}
