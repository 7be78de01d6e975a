// A small valid workspace with one of everything, and ways to break it one field at a time.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { parseWorkspace } from '../../../shared/model/validate';
import type { PathSegment, Problem } from '../../../shared/model/problem';

export const ROOT = resolve(__dirname, '../../..');
export const EXAMPLE_PATH = resolve(ROOT, 'assets/demo/lab-site-a.yaml');
export const exampleText = (): string => readFileSync(EXAMPLE_PATH, 'utf8');

export type Obj = Record<string, unknown>;

export function base(): Obj {
  return {
    lbdesk: 1,
    name: 'site',
    healthTimers: { interval: '30s', retryInterval: '10s', failAfter: 2, restoreAfter: 2, timeout: '5s' },
    servers: [
      { name: 'web1', address: '127.0.0.21' },
      { name: 'web2', address: '127.0.0.22', healthTimers: { interval: '5s' } },
      { name: 'dir1', address: '127.0.0.31' },
      { name: 'dns1', address: '127.0.0.41', enabled: false },
      { name: 'six', address: '::1' },
    ],
    groups: [
      {
        name: 'web',
        members: [{ server: 'web1', port: 8081, weight: 100 }, { server: 'web2', port: 8081 }],
        healthCheck: { type: 'http', http: { path: '/status', expect: 'OK' }, degradedAbove: '1s', availableBelow: '500ms' },
      },
      { name: 'directory', members: [{ server: 'dir1', port: 1389 }], healthCheck: { type: 'auto', protocol: 'ldap', ldap: { baseDn: 'cn=monitor' } } },
      { name: 'resolvers', members: [{ server: 'dns1', port: 53 }], healthCheck: { type: 'auto', dns: { query: 'example.test' } }, healthTimers: { interval: '10s', failAfter: 3 } },
      { name: 'pinged', members: [{ server: 'six' }] },
    ],
    services: [
      { name: 'web-vip', address: '127.0.0.10', port: 8080, group: 'web', persistence: { type: 'client-ip', timeout: '300s' } },
      { name: 'ldap-vip', address: '127.0.0.10', port: 1389, group: 'directory', algorithm: 'health-weighted' },
      { name: 'dns-vip', address: '127.0.0.10', port: 5353, protocol: 'udp', group: 'resolvers' },
    ],
    targetSets: [
      {
        number: 1,
        address: '127.0.0.50',
        ports: [3868],
        leastLoad: { mpsFactor: 50, connectionFactor: 50, allowedDeviation: 5 },
        peerNodeAware: { enabled: true, threshold: 1 },
        servers: [{ address: '127.0.0.51', description: 'DA-MP 1' }, { address: '127.0.0.52', weight: 300 }],
      },
    ],
    appliances: [{ name: 'lab', host: '127.0.0.1', port: 2222, driver: 'haproxy', include: ['web-vip', 'ts1'] }],
  };
}

/** Sets (or with `undefined`, deletes) the value at `path` in a copy of `obj`. */
export function edit(obj: Obj, path: PathSegment[], value: unknown): Obj {
  const copy = structuredClone(obj);
  let cur = copy as Record<PathSegment, unknown>;
  for (const seg of path.slice(0, -1)) {
    if (cur[seg] === undefined) cur[seg] = {};
    cur = cur[seg] as Record<PathSegment, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(cur)) cur.splice(Number(last), 1);
    else delete cur[last];
  } else cur[last] = value;
  return copy;
}

export function problemsOf(obj: Obj | string, file = 'workspace.yaml'): Problem[] {
  return parseWorkspace(typeof obj === 'string' ? obj : stringify(obj), file).problems;
}

export const errorsOf = (ps: Problem[]) => ps.filter((p) => p.severity === 'error');
export const warningsOf = (ps: Problem[]) => ps.filter((p) => p.severity === 'warning');

/** A deterministic PRNG, so fuzz failures can be replayed from the seed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}
