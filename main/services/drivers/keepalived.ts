// keepalived (Linux IPVS): one virtual_server per service and per target-set port and protocol.
import { existsSync } from 'node:fs';
import type { Algorithm, Appliance, HealthCheck, Service, TargetSet, Workspace } from '../../../shared/model/schema';
import { commentText, withHeader } from './header';
import { indent } from './format';
import { selectIncluded } from './include';
import { keepalivedChecker } from './keepalived-checks';
import { degradedWarning, missingSecondaries, servicePool, serviceSubject, targetSetCheck, targetSetMembers, targetSetSubject, type PoolMember } from './pools';
import type { Driver, DriverProblem, RenderResult } from './types';
import { isV6 } from '../address-family';
import { renderVrrp } from './keepalived-vrrp';

const LB_ALGO: Record<Algorithm, string> = {
  'round-robin': 'rr',
  'weighted-round-robin': 'wrr',
  'least-connections': 'lc',
  'source-hash': 'sh',
  'health-weighted': 'wlc',
};

interface Problems {
  errors: DriverProblem[];
  warnings: DriverProblem[];
}

/** Adds a warning once per subject (a group's members share most of them). */
function warnOnce(p: Problems, subject: string, message: string): void {
  if (!p.warnings.some((w) => w.subject === subject && w.message === message)) p.warnings.push({ subject, message });
}

function errorOnce(p: Problems, subject: string, message: string): void {
  if (!p.errors.some((e) => e.subject === subject && e.message === message)) p.errors.push({ subject, message });
}

/** keepalived's range for lvs_timeouts (keepalived -t: "outside range [0, 2678400]"). */
const IPVS_MAX_TIMEOUT_S = 2_678_400;

/** IPVS timeouts are host-wide: one idle timeout per protocol, the longest asked for. */
class IdleTimeouts {
  private readonly asked = { tcp: new Map<string, number>(), udp: new Map<string, number>() };
  add(proto: 'tcp' | 'udp', subject: string, seconds: number): void {
    this.asked[proto].set(subject, seconds);
  }
  render(p: Problems): string[] {
    const parts: string[] = [];
    for (const proto of ['tcp', 'udp'] as const) {
      const asked = this.asked[proto];
      if (asked.size === 0) continue;
      const wanted = Math.max(...asked.values());
      const max = Math.min(wanted, IPVS_MAX_TIMEOUT_S);
      if (wanted > max) {
        for (const [subject, s] of asked) if (s > max) warnOnce(p, subject, `idle timeout ${s}s is beyond keepalived's longest IPVS timeout (${max}s, 31 days): ${max}s used`);
      }
      parts.push(`${proto} ${max}`);
      for (const [subject, s] of asked) {
        if (s < max) warnOnce(p, subject, `idle timeout ${s}s: IPVS has one ${proto.toUpperCase()} idle timeout for the host, ${max}s used`);
      }
    }
    return parts.length ? [`lvs_timeouts ${parts.join(' ')}`] : [];
  }
}

function realServers(subject: string, hc: HealthCheck, members: PoolMember[], virtualAddress: string, servicePort: number, sctpOnly: boolean, p: Problems): string[] {
  const out: string[] = [];
  const d = degradedWarning(subject, hc, 'keepalived');
  if (d) warnOnce(p, d.subject, d.message);
  for (const m of members) {
    const port = m.port ?? servicePort;
    const label = `${m.name}${m.description ? ` (${commentText(m.description)})` : ''}`;
    if (isV6(m.address) !== isV6(virtualAddress)) {
      // keepalived -t only logs "Address family … don't match - skipping real server".
      errorOnce(p, subject, `server ${m.name} (${m.address}) is ${isV6(m.address) ? 'IPv6' : 'IPv4'} but the virtual address ${virtualAddress} is not: IPVS NAT cannot forward across address families`);
      continue;
    }
    if (!m.enabled) {
      out.push(`# ${label}: disabled in the workspace, not rendered`);
      continue;
    }
    if (m.timers.restoreAfter > 1 && m.check.type !== 'none') {
      warnOnce(p, subject, `keepalived returns a server to service after 1 passing check, not ${m.timers.restoreAfter} (restoreAfter)`);
    }
    const checker = keepalivedChecker(hc, m, sctpOnly);
    for (const w of checker.warnings) warnOnce(p, subject, w);
    // Every member shares the group's check: its unwritable value is one problem, not one per member.
    for (const e of checker.errors) errorOnce(p, subject, e);
    out.push(`# ${label}`, `real_server ${m.address} ${port} {`, ...indent([`weight ${m.weight}`, ...checker.lines]), '}');
  }
  return out;
}

function virtualServer(head: string[], address: string, port: number, protocol: string, body: string[], subject: string, p: Problems): string[] {
  if (!body.some((l) => l.startsWith('real_server '))) {
    // keepalived ignores a virtual server without real servers (and -t fails on it).
    warnOnce(p, subject, 'no server in service: the virtual server is left out, connections to it are not balanced');
    return [...head, `# no server in service: virtual_server ${address} ${port} (${protocol}) not rendered`];
  }
  return [...head, `virtual_server ${address} ${port} {`, ...indent([`protocol ${protocol}`, 'lb_kind NAT', 'alpha', ...body]), '}'];
}

function renderService(workspace: Workspace, served: Service[], s: Service, idle: IdleTimeouts, p: Problems): string[] {
  const subject = serviceSubject(s);
  const { pool, errors } = servicePool(workspace, served, s);
  p.errors.push(...errors);
  if (!pool) return [];
  const head = [`# service ${s.name}: ${s.algorithm} over group ${pool.group.name}`];
  if (s.description) head.push(`# ${commentText(s.description)}`);
  if (!s.enabled) return [...head, `# disabled in the workspace: virtual_server ${s.address} ${s.port} (${s.protocol.toUpperCase()}) not rendered`];
  if (s.algorithm === 'health-weighted') {
    warnOnce(p, subject, 'health-weighted approximated by weighted least connections (wlc): IPVS has no degraded state or score');
  }
  const idleSeconds = Math.ceil(s.idleTimeout / 1000);
  if (idleSeconds * 1000 !== s.idleTimeout) warnOnce(p, subject, `idle timeout rounded up to ${idleSeconds}s (IPVS counts whole seconds)`);
  idle.add(s.protocol, subject, idleSeconds);
  const body = [`lb_algo ${LB_ALGO[s.algorithm]}`];
  if (s.persistence.type === 'client-ip') {
    const seconds = Math.ceil(s.persistence.timeout / 1000);
    if (seconds * 1000 !== s.persistence.timeout) warnOnce(p, subject, `persistence timeout rounded up to ${seconds}s (IPVS counts whole seconds)`);
    body.push(`persistence_timeout ${seconds}`);
  }
  body.push(...realServers(subject, pool.healthCheck, pool.members, s.address, s.port, false, p));
  return virtualServer(head, s.address, s.port, s.protocol.toUpperCase(), body, subject, p);
}

function renderTargetSet(workspace: Workspace, t: TargetSet, idle: IdleTimeouts, p: Problems): string[][] {
  const subject = targetSetSubject(t);
  const before = p.errors.length;
  if (t.algorithm === 'least-load') {
    p.errors.push({ subject, message: 'IPVS has no IPFE least-load (it needs load reports from the servers); use algorithm hash' });
  }
  if (t.initiatorSupport) p.errors.push({ subject, message: 'keepalived cannot route connections initiated from the target set address (initiatorSupport)' });
  if (p.errors.length > before) return [];
  const head = [`# target set ${t.number}: hash on client address and port over ${t.servers.length} servers`];
  if (t.description) head.push(`# ${commentText(t.description)}`);
  if (t.disabled) return [[...head, '# disabled in the workspace: not rendered']];
  if (t.ports.length === 0) warnOnce(p, subject, 'no ports: nothing rendered');
  const missing = missingSecondaries(t);
  if (missing.length) warnOnce(p, subject, `servers without a secondary address get secondary-address traffic on their primary: ${missing.join(', ')}`);
  const protocols = t.protocols === 'both' ? ['TCP', 'SCTP'] : [t.protocols.toUpperCase()];
  if (protocols.includes('TCP')) idle.add('tcp', subject, t.deleteAge);
  if (protocols.includes('SCTP')) warnOnce(p, subject, 'deleteAge does not apply to SCTP: keepalived cannot set IPVS SCTP timeouts');
  const out: string[][] = [];
  const addresses: [string, boolean][] = [[t.address, false]];
  if (t.secondaryAddress) addresses.push([t.secondaryAddress, true]);
  for (const port of t.ports) {
    for (const [address, secondary] of addresses) {
      for (const protocol of protocols) {
        const members = targetSetMembers(workspace, t, port, secondary);
        const body = ['lb_algo sh', 'sh-port', ...realServers(subject, targetSetCheck(t), members, address, port, t.protocols === 'sctp', p)];
        const note = secondary ? [`# target set ${t.number}: secondary address`] : head;
        out.push(virtualServer(note, address, port, protocol, body, subject, p));
      }
    }
  }
  return out;
}

export function renderKeepalived(workspace: Workspace, appliance: Appliance): RenderResult {
  const included = selectIncluded(workspace, appliance);
  const p: Problems = { errors: [...included.errors], warnings: [] };
  const idle = new IdleTimeouts();
  const sections: string[][] = [];
  for (const s of included.services) {
    const lines = renderService(workspace, included.services, s, idle, p);
    if (lines.length) sections.push(lines);
  }
  for (const t of included.targetSets) sections.push(...renderTargetSet(workspace, t, idle, p));
  const vrrp = renderVrrp(workspace, appliance);
  p.errors.push(...vrrp.errors);
  sections.push(...vrrp.sections);
  const global = [...idle.render(p), ...vrrp.global];
  if (global.length) sections.unshift(['global_defs {', ...indent(global), '}']);
  if (p.errors.length) return { text: '', errors: p.errors, warnings: p.warnings };
  const intro = '# Rendered by lbdesk from the workspace; edits here are overwritten by the next push.';
  const body = [intro, '', sections.map((s) => s.join('\n')).join('\n\n'), ''].join('\n');
  return { text: withHeader({ workspace: workspace.name, appliance: appliance.name, driver: 'keepalived' }, body), errors: p.errors, warnings: p.warnings };
}

export const keepalivedDriver: Driver = {
  name: 'keepalived',
  defaults: {
    configPath: '/etc/keepalived/keepalived.conf',
    validateCommand: 'keepalived -t -e -f {file}',
    reloadCommand: 'systemctl reload keepalived',
  },
  render: (workspace, appliance) => renderKeepalived(workspace, appliance),
  volatile: [],
  runsHere: () => {
    // keepalived balances through the kernel's IPVS; without it nothing would forward, even in
    // a network namespace of our own.
    if (!existsSync('/proc/net/ip_vs')) return 'keepalived balances through the kernel\'s IPVS, which this kernel does not offer (no /proc/net/ip_vs: module ip_vs not loaded), so it cannot forward here, not even in a network namespace';
    return 'keepalived needs a network namespace with IPVS and CAP_NET_ADMIN; compare runs HAProxy only so far';
  },
};
