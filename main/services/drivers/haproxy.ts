// HAProxy: one frontend/backend pair per TCP service and per target-set port, in TCP mode.
import { existsSync } from 'node:fs';
import { haproxyListeners } from './sections/haproxy-binds';
import { haproxyKept } from './sections/haproxy-kept';
import type { Algorithm, Appliance, HealthCheck, Service, TargetSet, Workspace } from '../../../shared/model/schema';
import { commentText, withHeader } from './header';
import { haproxyCheck } from './haproxy-checks';
import { selectIncluded } from './include';
import { equalWeights, haproxyAddress, haproxyTime, indent, scaleWeights } from './format';
import { missingSecondaries, servicePool, serviceSubject, targetSetCheck, targetSetMembers, targetSetSubject, type PoolMember } from './pools';
import { dedupe } from './types';
import { ownAddress } from '../../../shared/model/pairs';
import type { Driver, DriverProblem, RenderResult } from './types';

const HAPROXY_MAX_WEIGHT = 256;

/** lbdesk's engine replays to another server what HAProxy in TCP mode cannot retry. */
export const RESET_WARNING = 'a server that resets a connection before its first byte: lbdesk moves the client to another server and replays what it sent, HAProxy passes the reset on';

const GLOBAL = [
  'global',
  '    log /dev/log local0',
  '    log /dev/log local1 notice',
  '    chroot /var/lib/haproxy',
  '    user haproxy',
  '    group haproxy',
  '',
  'defaults',
  '    mode tcp',
  '    log global',
  '    option tcplog',
  '    option dontlognull',
  '    timeout connect 5s',
  '    timeout client 10m',
  '    timeout server 10m',
];

interface Balance {
  lines: string[];
  /** Whether member weights matter (else all equal, 0 still drains). */
  weighted: boolean;
  warning?: string;
}

/**
 * Hash on the client's address and port, as lbdesk's engine and IPFE do (`balance source` hashes
 * the address only: every connection of one client would land on one server).
 */
const ADDRESS_PORT_HASH = ['balance hash src,concat(:,txn.lbdesk_sport)', 'hash-type consistent', 'tcp-request content set-var(txn.lbdesk_sport) src_port'];

/** The balance lines and weighting for an algorithm (manage: sections patches the same lines). */
export function balanceOf(algorithm: Algorithm): Balance {
  switch (algorithm) {
    case 'round-robin': return { lines: ['balance roundrobin'], weighted: false };
    case 'weighted-round-robin': return { lines: ['balance roundrobin'], weighted: true };
    case 'least-connections': return { lines: ['balance leastconn'], weighted: false };
    case 'source-hash': return { lines: ADDRESS_PORT_HASH, weighted: true };
    case 'health-weighted':
      return {
        lines: ['balance leastconn'],
        weighted: true,
        warning: 'health-weighted approximated by weighted least connections: HAProxy has no degraded state or score',
      };
  }
}

interface BackendSpec {
  name: string;
  subject: string;
  balance: Balance;
  members: PoolMember[];
  healthCheck: HealthCheck;
  port: number;
  idleMs: number;
  extra: string[];
}

function backend(spec: BackendSpec, errors: DriverProblem[], warnings: DriverProblem[]): string[] {
  const { subject, members, balance } = spec;
  if (balance.warning) warnings.push({ subject, message: balance.warning });
  const raw = members.map((m) => m.weight);
  const scaled = balance.weighted ? scaleWeights(raw, HAPROXY_MAX_WEIGHT) : { weights: equalWeights(raw), scaled: false };
  if (scaled.scaled) {
    warnings.push({ subject, message: `weights ${raw.join('/')} scaled to ${scaled.weights.join('/')} (HAProxy weights are 0-256)` });
  }
  if (members.length === 0) warnings.push({ subject, message: 'no members: every connection is refused' });
  else warnings.push({ subject, message: RESET_WARNING });
  const check = haproxyCheck(subject, spec.healthCheck, members, spec.port);
  errors.push(...check.errors);
  warnings.push(...check.warnings);
  const names = uniqueNames(members.map((m) => m.name));
  const servers = members.map((m, i) => {
    const words = ['server', names[i]!, haproxyAddress(m.address, m.port), `weight ${scaled.weights[i]}`];
    if (!m.enabled) words.push('disabled');
    const args = check.serverArgs(m);
    if (args) words.push(args);
    const note = m.description ? `# ${commentText(m.description)}` : undefined;
    return note ? [note, words.join(' ')] : [words.join(' ')];
  });
  return [
    `backend ${spec.name}`,
    ...indent([
      ...balance.lines,
      `timeout server ${haproxyTime(spec.idleMs)}`,
      ...spec.extra,
      // As lbdesk's engine redispatches: a failed connect moves the client to another server
      // (every retry redispatched, no turn-around wait), trying each member once.
      'option redispatch 1',
      `retries ${Math.max(members.length - 1, 0)}`,
      ...check.backendLines,
      ...servers.flat(),
    ]),
  ];
}

/** HAProxy timers are 32-bit milliseconds (2147483647 ms): whole seconds just below. */
const HAPROXY_MAX_TIMEOUT_MS = 2_147_483_000;

function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const count = (seen.get(n) ?? 0) + 1;
    seen.set(n, count);
    return count === 1 ? n : `${n}-${count}`;
  });
}

function frontend(name: string, binds: string[], idleMs: number, disabled: boolean): string[] {
  return [
    `frontend ${name}`,
    ...indent([
      ...binds.map((b) => `bind ${b}`),
      ...(disabled ? ['disabled'] : []),
      `timeout client ${haproxyTime(idleMs)}`,
      `default_backend ${name}`,
    ]),
  ];
}

function renderService(workspace: Workspace, served: Service[], s: Service, own: string | undefined, errors: DriverProblem[], warnings: DriverProblem[]): string[] {
  const subject = serviceSubject(s);
  if (s.protocol === 'udp') {
    // A disabled one asks for nothing to run: left out and said, as keepalived does.
    if (!s.enabled) return [`# service ${s.name}: UDP and disabled in the workspace, not rendered (HAProxy does not load-balance UDP)`];
    errors.push({ subject, message: 'HAProxy does not load-balance UDP' });
    return [];
  }
  const { pool, errors: poolErrors } = servicePool(workspace, served, s);
  errors.push(...poolErrors);
  if (!pool) return [];
  const extra: string[] = [];
  if (s.persistence.type === 'client-ip') {
    const type = s.address.includes(':') ? 'ipv6' : 'ip';
    extra.push(`stick-table type ${type} size 100k expire ${haproxyTime(s.persistence.timeout)}`, 'stick on src');
  }
  const comment = [`# service ${s.name}: ${s.algorithm} over group ${pool.group.name}${s.enabled ? '' : ' (disabled)'}`];
  if (s.description) comment.push(`# ${commentText(s.description)}`);
  return [
    ...comment,
    // An HA pair's box answers on its own address too (docs/ha.md): checked directly, master or not.
    ...frontend(s.name, [haproxyAddress(s.address, s.port), ...(own ? [haproxyAddress(own, s.port)] : [])], s.idleTimeout, !s.enabled),
    '',
    ...backend({
      name: s.name, subject, balance: balanceOf(s.algorithm), members: pool.members,
      healthCheck: pool.healthCheck, port: s.port, idleMs: s.idleTimeout, extra,
    }, errors, warnings),
  ];
}

function renderTargetSet(workspace: Workspace, t: TargetSet, errors: DriverProblem[], warnings: DriverProblem[]): string[][] {
  const subject = targetSetSubject(t);
  const before = errors.length;
  if (t.protocols === 'sctp') errors.push({ subject, message: 'HAProxy does not load-balance SCTP (protocols: sctp)' });
  if (t.algorithm === 'least-load') {
    errors.push({ subject, message: 'HAProxy has no IPFE least-load (it needs load reports from the servers); use algorithm hash' });
  }
  if (t.initiatorSupport) errors.push({ subject, message: 'HAProxy cannot route connections initiated from the target set address (initiatorSupport)' });
  if (errors.length > before) return [];
  if (t.protocols === 'both') warnings.push({ subject, message: 'protocols both: only TCP is rendered, SCTP is dropped' });
  if (t.ports.length === 0) warnings.push({ subject, message: 'no ports: nothing rendered' });
  const missing = missingSecondaries(t);
  if (missing.length) warnings.push({ subject, message: `servers without a secondary address get secondary-address traffic on their primary: ${missing.join(', ')}` });
  let idleMs = t.deleteAge * 1000;
  if (idleMs > HAPROXY_MAX_TIMEOUT_MS) {
    warnings.push({ subject, message: `deleteAge ${t.deleteAge}s is beyond HAProxy's longest timeout (about 24.8 days): ${haproxyTime(HAPROXY_MAX_TIMEOUT_MS)} used` });
    idleMs = HAPROXY_MAX_TIMEOUT_MS;
  }
  const out: string[][] = [];
  const addresses: [string, boolean][] = [[t.address, false]];
  if (t.secondaryAddress) addresses.push([t.secondaryAddress, true]);
  for (const port of t.ports) {
    for (const [address, secondary] of addresses) {
      const name = `ts${t.number}:${port}${secondary ? ':secondary' : ''}`;
      const comment = [`# target set ${t.number}${secondary ? ' (secondary address)' : ''}: hash over ${t.servers.length} servers${t.disabled ? ' (disabled)' : ''}`];
      if (t.description) comment.push(`# ${commentText(t.description)}`);
      out.push([
        ...comment,
        ...frontend(name, [haproxyAddress(address, port)], idleMs, t.disabled),
        '',
        ...backend({
          name, subject, balance: { lines: ADDRESS_PORT_HASH, weighted: true },
          members: targetSetMembers(workspace, t, port, secondary), healthCheck: targetSetCheck(t), port, idleMs, extra: [],
        }, errors, warnings),
      ]);
    }
  }
  return out;
}

export function renderHaproxy(workspace: Workspace, appliance: Appliance): RenderResult {
  const included = selectIncluded(workspace, appliance);
  const errors: DriverProblem[] = [...included.errors];
  const warnings: DriverProblem[] = [];
  // The runtime API lbdesk's state and drain use (main/services/operate), where the appliance names one.
  const global = appliance.statsSocket ? GLOBAL.map((l) => (l === 'global' ? `global\n    stats socket ${appliance.statsSocket} mode 600 level admin` : l)) : GLOBAL;
  const sections: string[][] = [global];
  for (const s of included.services) {
    const lines = renderService(workspace, included.services, s, ownAddress(workspace, appliance.name, s.address), errors, warnings);
    if (lines.length) sections.push(lines);
  }
  for (const t of included.targetSets) sections.push(...renderTargetSet(workspace, t, errors, warnings));
  if (sections.length === 1 && errors.length === 0) {
    errors.push({ subject: `appliance ${appliance.name}`, message: 'nothing to serve: HAProxy does not start without a listener' });
  }
  const unique = dedupe(warnings);
  if (errors.length) return { text: '', errors: dedupe(errors), warnings: unique };
  const body = ['# Rendered by lbdesk from the workspace; edits here are overwritten by the next push.', '', sections.map((s) => s.join('\n')).join('\n\n'), ''].join('\n');
  return { text: withHeader({ workspace: workspace.name, appliance: appliance.name, driver: 'haproxy' }, body), errors, warnings: unique };
}

/** Where `lbdesk compare` looks for the haproxy binary. */
export const HAPROXY_CANDIDATES = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy'];

export const haproxyDriver: Driver = {
  name: 'haproxy',
  defaults: {
    configPath: '/etc/haproxy/haproxy.cfg',
    validateCommand: 'haproxy -c -f {file}',
    reloadCommand: 'systemctl reload haproxy',
  },
  render: (workspace, appliance) => renderHaproxy(workspace, appliance),
  volatile: [],
  runsHere: () => (HAPROXY_CANDIDATES.some((p) => existsSync(p)) ? undefined : 'haproxy is not installed (apt-get install haproxy)'),
  listeners: haproxyListeners,
  kept: haproxyKept,
};
