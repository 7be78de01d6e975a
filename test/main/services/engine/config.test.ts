import { describe, expect, it } from 'vitest';
import { buildConfig, DEFAULT_CAPACITY, listenerId } from '../../../../main/services/engine/config';
import { memberKey } from '../../../../shared/api/types';
import { workspace } from '../../../helpers/engine';

const servers = [
  { name: 'a', address: '127.0.5.31' },
  { name: 'b', address: '127.0.5.32', enabled: false, healthTimers: { timeout: '700ms' } },
];

describe('buildConfig', () => {
  it('makes a pool and a listener per enabled service, members keyed like the health checker', () => {
    const cfg = buildConfig(workspace({
      healthTimers: { timeout: '2s' },
      servers,
      groups: [{ name: 'g', members: [{ server: 'a', port: 81, weight: 5 }, { server: 'b' }] }],
      services: [
        { name: 'web', address: '127.0.5.30', port: 8080, group: 'g', algorithm: 'least-connections', persistence: { type: 'client-ip', timeout: '30s' }, idleTimeout: '90s' },
        { name: 'off', address: '127.0.5.30', port: 8081, group: 'g', enabled: false },
        { name: 'dns', address: '127.0.5.30', port: 5353, protocol: 'udp', group: 'g' },
      ],
    }));
    expect(cfg.problems).toEqual([]);
    expect(cfg.listeners.map((l) => l.id)).toEqual(['tcp:127.0.5.30:8080', 'udp:127.0.5.30:5353']);
    const web = cfg.pools.find((p) => p.id === 'svc:web')!;
    expect(web).toMatchObject({ algorithm: 'least-connections', persistence: { type: 'client-ip', timeoutMs: 30_000 }, idleTimeoutMs: 90_000, protocol: 'tcp' });
    expect(web.members).toEqual([
      { key: memberKey({ group: 'g', server: 'a', port: 81 }), server: 'a', address: '127.0.5.31', port: 81, weight: 5, enabled: true, connectTimeoutMs: 2000, capacity: DEFAULT_CAPACITY },
      // Without a member port the service's port is used; the health key keeps "-".
      { key: memberKey({ group: 'g', server: 'b' }), server: 'b', address: '127.0.5.32', port: 8080, weight: 100, enabled: false, connectTimeoutMs: 700, capacity: DEFAULT_CAPACITY },
    ]);
    expect(cfg.notices.map((n) => n.message)).toContain('service off is disabled: not listening');
  });

  it('forwards target sets over TCP only and says so for SCTP', () => {
    const cfg = buildConfig(workspace({
      targetSets: [
        { number: 1, address: '127.0.5.40', secondaryAddress: '127.0.5.45', ports: [3868, 3869], protocols: 'both', deleteAge: 30,
          leastLoad: { mpsFactor: 30, connectionFactor: 10, allowedDeviation: 7 }, peerNodeAware: { enabled: true, threshold: 2 },
          heartbeat: { port: 9100, ttl: '5s' },
          servers: [{ address: '127.0.5.41', secondaryAddress: '127.0.5.46', weight: 300, capacity: { mps: 5000 } }, { address: '127.0.5.42' }] },
        { number: 2, address: '127.0.5.50', ports: [3868], protocols: 'sctp', servers: [{ address: '127.0.5.51' }] },
        { number: 3, address: '127.0.5.60', ports: [3868], disabled: true, servers: [{ address: '127.0.5.61' }] },
      ],
    }));
    expect(cfg.problems).toEqual([]);
    expect(cfg.listeners.map((l) => [l.id, l.secondary])).toEqual([
      ['tcp:127.0.5.40:3868', false], ['tcp:127.0.5.45:3868', true], ['tcp:127.0.5.40:3869', false], ['tcp:127.0.5.45:3869', true],
    ]);
    const ts = cfg.pools[0]!;
    // Fm 30 + Fc 10 run as saved: normalised to 75 + 25 (seed 003), as render and save write them.
    expect(ts).toMatchObject({ id: 'ts:1', kind: 'targetSet', algorithm: 'least-load', idleTimeoutMs: 30_000, leastLoad: { fm: 75, fc: 25, deviation: 7 }, peerThreshold: 2, heartbeat: { address: '127.0.5.40', port: 9100, ttlMs: 5000 } });
    expect(ts.members[0]).toMatchObject({ key: 'ts:1/127.0.5.41', secondaryAddress: '127.0.5.46', weight: 300, capacity: { mps: 5000, connections: DEFAULT_CAPACITY.connections } });
    expect(ts.members[1]!.port).toBeUndefined();
    const notices = cfg.notices.map((n) => n.message);
    expect(notices).toContain('target set 1: TCP is forwarded; SCTP is kept in the config but not forwarded locally');
    expect(notices).toContain('target set 2 is SCTP only: kept in the config but not forwarded locally');
    expect(notices).toContain('target set 3 is disabled: defined but not in use');
    expect(cfg.pools.map((p) => p.id)).toEqual(['ts:1']);
  });

  it('turns peer awareness off with the hash algorithm and when disabled', () => {
    const cfg = buildConfig(workspace({
      targetSets: [
        { number: 1, address: '127.0.5.40', ports: [1], algorithm: 'hash', servers: [{ address: '127.0.5.41' }] },
        { number: 2, address: '127.0.5.50', ports: [1], peerNodeAware: { enabled: false }, servers: [{ address: '127.0.5.51' }] },
      ],
    }));
    expect(cfg.pools.map((p) => p.peerThreshold)).toEqual([undefined, undefined]);
  });

  it('reports two things on one address and port as a problem', () => {
    const cfg = buildConfig(workspace({
      servers,
      groups: [{ name: 'g', members: [{ server: 'a' }] }],
      services: [{ name: 'x', address: '127.0.5.30', port: 80, group: 'g' }],
      targetSets: [{ number: 4, address: '127.0.5.30', ports: [80], servers: [{ address: '127.0.5.41' }] }],
    }));
    expect(cfg.problems).toEqual(['target set 4 and service x both listen on 127.0.5.30:80/tcp']);
  });

  it('spells IPv6 listener ids one way', () => {
    expect(listenerId('tcp', '0:0:0:0:0:0:0:1', 80)).toBe(listenerId('tcp', '::1', 80));
  });
});
