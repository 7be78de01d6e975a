// What a compare run serves: the appliance's TCP services whose checks compare can back with
// its own loopback servers, moved to private loopback addresses and free ports (so the run
// never meets what already listens), timers optionally scaled.
import type { Appliance, CheckType, HealthCheck, Workspace } from '../../../shared/model/schema';
import { DEFAULT_TIMERS, groupTransport, resolveCheck, resolveTimers, type ResolvedTimers } from '../../../shared/model/resolve';
import { selectIncluded } from '../drivers';
import type { Personality } from './backends';

type Resolved = Exclude<CheckType, 'auto'>;

/** For each check: the kind of server compare answers it with, or why it cannot. A complete
 * Record, so a new check type does not compile until compare says what it does with it. */
const NO_SERVER = 'compare has no server that answers it';
const BACKEND: Record<Resolved, Personality | { skip: string }> = {
  none: 'http', tcp: 'http', http: 'http', rtsp: 'http', smtp: 'smtp', ftp: 'ftp', pop3: 'pop3', imap4: 'imap4', nntp: 'nntp',
  https: { skip: 'its check needs a TLS server' }, ssl: { skip: 'its check needs a TLS server' },
  ldap: { skip: 'its check needs an LDAP server' }, udp: { skip: 'UDP' }, dns: { skip: 'its check needs a DNS server' },
  radius: { skip: 'its check needs a RADIUS server' },
  ping: { skip: NO_SERVER }, telnet: { skip: NO_SERVER }, mms: { skip: NO_SERVER }, pnm: { skip: NO_SERVER },
};

export interface PlanBackend {
  /** `server:port` in the original workspace: how reports name it. */
  id: string;
  server: string;
  address: string;
  port: number;
  personality: Personality;
  /** The HTTP object the check asks for and the string it expects (answered unless faulted). */
  checkPath?: string;
  expect?: string;
}

export interface PlanService {
  name: string;
  address: string;
  port: number;
  algorithm: string;
  /** Backend ids of the members in service, in group order. */
  members: { id: string; server: string; weight: number; enabled: boolean }[];
  timers: ResolvedTimers;
  check: HealthCheck;
}

export interface Plan {
  workspace: Workspace;
  appliance: Appliance;
  services: PlanService[];
  backends: PlanBackend[];
  remapped: string[];
  skipped: { service: string; reason: string }[];
}

/** Private loopback: services on 127.88.0.x, servers on 127.88.1.x. */
const SERVICE_NET = '127.88.0.';
const SERVER_NET = '127.88.1.';

function scaleTimers<T extends Record<string, unknown> | undefined>(t: T, f: number): T {
  if (!t || f === 1) return t;
  const out: Record<string, unknown> = { ...t };
  for (const k of ['interval', 'retryInterval', 'timeout'] as const) if (typeof out[k] === 'number') out[k] = Math.max(1, Math.round((out[k] as number) * f));
  return out as T;
}

function scaleCheck(hc: HealthCheck, f: number): HealthCheck {
  if (f === 1) return hc;
  const out = { ...hc };
  if (out.degradedAbove !== undefined) out.degradedAbove = Math.max(1, Math.round(out.degradedAbove * f));
  if (out.availableBelow !== undefined) out.availableBelow = Math.max(1, Math.round(out.availableBelow * f));
  return out;
}

/**
 * `freePort(address)` gives a port nobody listens on at that address. `scale` multiplies every
 * interval, retry interval, timeout and response-time threshold (both sides alike).
 */
export async function makePlan(workspace: Workspace, appliance: Appliance, freePort: (address: string) => Promise<number>, scale = 1): Promise<Plan> {
  const included = selectIncluded(workspace, appliance);
  // Scaled, the defaults are written out too: unscaled they keep Px's 30 s interval and 10 s
  // retry, and a run on an imported site (no timers of its own) takes tens of minutes.
  const globalTimers = scale === 1 ? workspace.healthTimers : scaleTimers({ ...DEFAULT_TIMERS, ...workspace.healthTimers }, scale);
  const skipped: Plan['skipped'] = [];
  const remapped: string[] = [];
  const serverAddress = new Map<string, string>();
  const backends = new Map<string, PlanBackend>();
  const services: PlanService[] = [];
  const groups: Workspace['groups'] = [];
  const outServices: Workspace['services'] = [];
  const serviceAddress = new Map<string, string>();
  for (const s of included.services) {
    if (s.protocol !== 'tcp') { skipped.push({ service: s.name, reason: 'UDP: HAProxy does not load-balance it' }); continue; }
    if (!s.enabled) { skipped.push({ service: s.name, reason: 'disabled in the workspace' }); continue; }
    const group = workspace.groups.find((g) => g.name === s.group);
    if (!group) { skipped.push({ service: s.name, reason: `group ${s.group} does not exist` }); continue; }
    const transport = groupTransport({ services: included.services }, group.name);
    const types = [...new Set(group.members.map((m) => resolveCheck(group.healthCheck, m.port ?? s.port, transport).type))];
    const type = types.length === 1 ? types[0]! : 'tcp';
    const personality = BACKEND[type];
    if (typeof personality !== 'string') { skipped.push({ service: s.name, reason: `check ${type}: ${personality.skip}` }); continue; }
    if (group.members.some((m) => !workspace.servers.some((x) => x.name === m.server))) { skipped.push({ service: s.name, reason: 'a member server does not exist' }); continue; }
    if (!serviceAddress.has(s.address)) serviceAddress.set(s.address, `${SERVICE_NET}${serviceAddress.size + 1}`);
    const address = serviceAddress.get(s.address)!;
    const port = await freePort(address);
    remapped.push(`service ${s.name}: ${s.address}:${s.port} -> ${address}:${port}`);
    // The check the original ports chose (auto picks by port), written out: new ports must not change it.
    const check = scaleCheck({ ...group.healthCheck, type }, scale);
    const members: PlanService['members'] = [];
    const outMembers: Workspace['groups'][number]['members'] = [];
    for (const m of group.members) {
      const server = workspace.servers.find((x) => x.name === m.server)!;
      if (!serverAddress.has(server.name)) serverAddress.set(server.name, `${SERVER_NET}${serverAddress.size + 1}`);
      const origPort = m.port ?? s.port;
      const id = `${server.name}:${origPort}`;
      let b = backends.get(id);
      if (!b) {
        const addr = serverAddress.get(server.name)!;
        b = { id, server: server.name, address: addr, port: await freePort(addr), personality, checkPath: check.http?.path ?? (check.http?.expect ? '/' : undefined), expect: check.http?.expect };
        backends.set(id, b);
        remapped.push(`server ${server.name}: ${server.address}:${origPort} -> ${b.address}:${b.port}`);
      }
      members.push({ id, server: server.name, weight: m.weight, enabled: server.enabled });
      outMembers.push({ ...m, port: b.port });
    }
    groups.push({ ...group, name: `${group.name}~${s.name}`, healthCheck: check, healthTimers: scaleTimers(group.healthTimers, scale), members: outMembers });
    outServices.push({ ...s, address, port, group: `${group.name}~${s.name}` });
    services.push({
      name: s.name, address, port, algorithm: s.algorithm, members, check,
      timers: resolveTimers({ server: scaleTimers(workspace.servers.find((x) => x.name === group.members[0]?.server)?.healthTimers, scale), group: scaleTimers(group.healthTimers, scale), global: globalTimers }),
    });
  }
  const usedServers = new Set(groups.flatMap((g) => g.members.map((m) => m.server)));
  const servers = workspace.servers.filter((x) => usedServers.has(x.name)).map((x) => ({ ...x, address: serverAddress.get(x.name)!, healthTimers: scaleTimers(x.healthTimers, scale) }));
  const out: Workspace = {
    ...workspace, healthTimers: globalTimers, servers, groups, services: outServices, targetSets: [],
    appliances: [{ ...appliance, include: undefined }],
  };
  for (const t of included.targetSets) skipped.push({ service: `target set ${t.number}`, reason: 'target sets are not compared (their servers answer on every target-set port)' });
  return { workspace: out, appliance: out.appliances[0]!, services, backends: [...backends.values()], remapped, skipped };
}
