// Which health-check settings can apply, given the ports and transports they will run on.
import type { HealthCheck } from '../schema';
import type { PathSegment } from '../problem';
import type { Issue } from '../issues';
import { resolveCheck, type ResolvedCheck, type Transport } from '../resolve';
import { formatDuration } from '../duration';
import type { CheckType } from './descriptors';
import { checkTransport, layerOf, OPTION_BLOCK_NAMES, OPTION_TYPES, REQUIRED_FIELDS, UDP_PROTOCOLS, WELL_KNOWN_TCP, checkLabel } from './tables';

/** Who sends traffic to the members: the names of TCP and UDP services (target sets are TCP). */
export interface Users {
  subject: string;
  tcp: string[];
  udp: string[];
  /** HAProxy appliances (manage: sections) that keep a group no service here uses as a backend of
   * the box's own frontends: its members take TCP there, as HAProxy forwards nothing else. */
  carriers?: string[];
}

export interface CheckedMember {
  port?: number;
}

function onlyBy(users: Users, proto: Transport): string | undefined {
  const mine = users[proto];
  const other = users[proto === 'tcp' ? 'udp' : 'tcp'];
  const carriers = users.carriers ?? [];
  if (proto === 'tcp' && carriers.length && mine.length === 0 && other.length === 0) {
    const many = carriers.length > 1;
    return `no service here uses ${users.subject}, and the HAProxy appliance${many ? 's' : ''} ${carriers.join(', ')} keep${many ? '' : 's'} it as a backend of the box's own frontends: HAProxy forwards TCP only`;
  }
  if (mine.length === 0 || other.length > 0) return undefined;
  const shown = mine.slice(0, 3).join(', ') + (mine.length > 3 ? ', …' : '');
  return `${users.subject} is used only by ${proto.toUpperCase()} services (${shown})`;
}

/** The transport members are checked over: UDP only when every user is UDP (as groupTransport). */
export function transportOf(users: Users): Transport {
  return users.udp.length > 0 && users.tcp.length === 0 ? 'udp' : 'tcp';
}

/** What the check type will be without knowing a port, when the settings alone decide it. */
function nominalType(hc: HealthCheck): CheckType | undefined {
  if (hc.type !== 'auto') return hc.type;
  if (hc.protocol && hc.layer !== 4) return hc.protocol;
  return undefined;
}

export interface CheckReport {
  issues: Issue[];
  /** The check each member gets, in member order. */
  resolved: ResolvedCheck[];
}

/**
 * Checks `hc` against the members' ports and the services that use them: settings that cannot
 * apply are errors (a UDP check on a TCP-only group, HTTP options on an LDAP check), settings
 * that have no effect are warnings.
 */
export function checkHealthCheck(hc: HealthCheck, base: PathSegment[], members: CheckedMember[], users: Users, timeoutMs: number): CheckReport {
  const issues: Issue[] = [];
  const err = (path: PathSegment[], message: string) => issues.push({ severity: 'error', path: [...base, ...path], message });
  const warn = (path: PathSegment[], message: string) => issues.push({ severity: 'warning', path: [...base, ...path], message });
  const transport = transportOf(users);
  let refused: CheckType | undefined;
  const tcpOnly = onlyBy(users, 'tcp');
  const udpOnly = onlyBy(users, 'udp');

  if (hc.type === 'none') {
    const set = (['protocol', 'layer', ...OPTION_BLOCK_NAMES, 'degradedAbove', 'availableBelow'] as const).filter((k) => hc[k] !== undefined);
    for (const k of set) err([k], `type none runs no check, so ${k} cannot apply`);
    return { issues, resolved: members.map(() => ({ type: 'none', layer: 4, why: 'type none' })) };
  }

  if (hc.type !== 'auto') {
    if (hc.protocol !== undefined && hc.protocol !== hc.type) {
      err(['protocol'], `protocol only chooses the check when type is auto; type ${hc.type} already names it`);
    }
    if (hc.layer !== undefined && hc.layer !== layerOf(hc.type)) {
      err(['layer'], `layer ${hc.layer} contradicts type ${hc.type} (a Layer ${layerOf(hc.type)} check)`);
    }
    const needs: Transport | undefined = checkTransport(hc.type);
    if (needs) {
      const against = needs === 'udp' ? tcpOnly : udpOnly;
      if (against) err(['type'], `a ${hc.type} check runs over ${needs.toUpperCase()} and cannot apply: ${against}`);
    }
  } else {
    if (hc.protocol !== undefined) {
      const udpProto = UDP_PROTOCOLS.has(hc.protocol);
      if (udpProto && tcpOnly) err(['protocol'], `protocol ${hc.protocol} is checked over UDP and cannot apply: ${tcpOnly}`);
      if (!udpProto && udpOnly) {
        err(['protocol'], `protocol ${hc.protocol} has no effect on UDP ports (only DNS and RADIUS have a UDP Layer 7 check): ${udpOnly}`);
      }
      // Its options follow the protocol's fate: one error for the protocol, not one per block.
      if ((udpProto && tcpOnly) || (!udpProto && udpOnly)) refused = hc.protocol;
    }
    if (hc.layer !== undefined && transport === 'udp') {
      warn(['layer'], 'layer has no effect on UDP ports: 53 (DNS) and 1812 (RADIUS) get a Layer 7 check, every other port Layer 4');
    }
    if (hc.layer === 7 && transport === 'tcp' && (hc.protocol === undefined || UDP_PROTOCOLS.has(hc.protocol))) {
      const unknown = members.find((m) => m.port !== undefined && WELL_KNOWN_TCP[m.port] === undefined);
      if (unknown) {
        err(['layer'], `layer 7 needs a protocol: port ${unknown.port} is not a well-known port (name it, e.g. protocol: http)`);
      }
    }
  }

  const resolved = members.map((m) => resolveCheck(hc, m.port, transport));
  const types = new Set<CheckType>(resolved.map((r) => r.type));
  if (users.tcp.length + users.udp.length === 0 && !users.carriers?.length) {
    // Nothing uses it yet, so the transport is open: an option that fits either way is fine.
    for (const m of members) types.add(resolveCheck(hc, m.port, 'udp').type);
  }
  if (refused) types.add(refused);
  if (types.size === 0) {
    const nominal = nominalType(hc);
    if (nominal) types.add(nominal);
  }

  if (types.size > 0) {
    for (const block of OPTION_BLOCK_NAMES) {
      if (hc[block] === undefined) continue;
      const fits: readonly CheckType[] = OPTION_TYPES[block];
      if ([...types].some((t) => fits.includes(t))) continue;
      const which = resolved.find((r) => !fits.includes(r.type));
      const why = which ? ` (${which.why})` : '';
      err([block], `${block} options do not apply to the ${[...types].join('/')} check${why}; they configure ${fits.join('/')} checks`);
    }
    const runs = (t: CheckType) => types.has(t) && t !== refused;
    for (const { type, field } of REQUIRED_FIELDS) {
      if (runs(type) && hc[field.block] === undefined) err([], `a ${checkLabel(type)} check needs ${field.block}.${field.key} (${field.required})`);
    }
  }

  if (hc.ldap?.bindDn !== undefined && hc.ldap.bindSecret === undefined) {
    err(['ldap', 'bindSecret'], 'bindDn needs bindSecret (the name of the stored secret holding the bind password): without it every check fails');
  }
  if (hc.ldap?.bindSecret !== undefined && hc.ldap.bindDn === undefined) {
    warn(['ldap', 'bindSecret'], 'bindSecret has no effect without bindDn: the check searches anonymously');
  }
  if (hc.http?.expect !== undefined && hc.http.path === undefined) {
    err(['http', 'expect'], 'expect needs a path: without one the check is HEAD /, which returns no body to search');
  }
  if (hc.availableBelow !== undefined) {
    if (hc.degradedAbove === undefined) err(['availableBelow'], 'availableBelow needs degradedAbove (the response time that makes a server degraded)');
    else if (hc.availableBelow > hc.degradedAbove) {
      err(['availableBelow'], `availableBelow (${formatDuration(hc.availableBelow)}) must not exceed degradedAbove (${formatDuration(hc.degradedAbove)}): a server must beat the stricter time to become available again`);
    }
  }
  if (hc.degradedAbove !== undefined && hc.degradedAbove >= timeoutMs) {
    warn(['degradedAbove'], `degradedAbove (${formatDuration(hc.degradedAbove)}) is not below the probe timeout (${formatDuration(timeoutMs)}): a slow server times out instead of becoming degraded`);
  }
  return { issues, resolved };
}
