import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMERS, groupTransport, layerOf, resolveCheck, resolveTimers, TIMER_NAMES } from '../../../shared/model/resolve';
import type { HealthCheck } from '../../../shared/model/schema';

describe('resolveTimers: server > group > global > default (Px seed 004)', () => {
  it('built-in defaults are the Px ones: interval 30 s, retry 10 s, fail-after 2, restore-after 2', () => {
    expect(DEFAULT_TIMERS).toMatchObject({ interval: 30_000, retryInterval: 10_000, failAfter: 2, restoreAfter: 2 });
    const r = resolveTimers({});
    for (const name of TIMER_NAMES) {
      expect(r[name]).toBe(DEFAULT_TIMERS[name]);
      expect(r.source[name]).toBe('default');
    }
  });

  type Layer = Partial<Record<'interval' | 'retryInterval' | 'failAfter' | 'restoreAfter' | 'timeout', number>> | undefined;
  const table: [string, Layer, Layer, Layer, number, string][] = [
    // name, server, group, global, expected interval, source
    ['only default', undefined, undefined, undefined, 30_000, 'default'],
    ['global beats default', undefined, undefined, { interval: 20_000 }, 20_000, 'global'],
    ['group beats global', undefined, { interval: 15_000 }, { interval: 20_000 }, 15_000, 'group'],
    ['server beats group and global', { interval: 5_000 }, { interval: 15_000 }, { interval: 20_000 }, 5_000, 'server'],
    ['server beats default alone', { interval: 5_000 }, undefined, undefined, 5_000, 'server'],
    ['group without the field falls through', undefined, { failAfter: 3 }, { interval: 20_000 }, 20_000, 'global'],
    ['server without the field falls through', { timeout: 1_000 }, { interval: 15_000 }, undefined, 15_000, 'group'],
  ];
  it.each(table)('%s', (_name, server, group, global, interval, source) => {
    const r = resolveTimers({ server, group, global });
    expect(r.interval).toBe(interval);
    expect(r.source.interval).toBe(source);
  });

  it('resolves each timer on its own', () => {
    const r = resolveTimers({ server: { timeout: 1_000 }, group: { failAfter: 3 }, global: { retryInterval: 7_000 } });
    expect(r).toMatchObject({ interval: 30_000, retryInterval: 7_000, failAfter: 3, restoreAfter: 2, timeout: 1_000 });
    expect(r.source).toEqual({ interval: 'default', retryInterval: 'global', failAfter: 'group', restoreAfter: 'default', timeout: 'server' });
  });
});

const auto = (extra: Partial<HealthCheck> = {}) => ({ type: 'auto', ...extra }) as HealthCheck;

describe('resolveCheck: the ADX rule for auto (seed 000)', () => {
  // Every TCP port the ADX knows by name gets that protocol's Layer 7 check.
  const wellKnown: [number, string][] = [
    [21, 'ftp'], [23, 'telnet'], [25, 'smtp'], [80, 'http'], [110, 'pop3'], [119, 'nntp'], [143, 'imap4'],
    [389, 'ldap'], [443, 'ssl'], [554, 'rtsp'], [1755, 'mms'], [7070, 'pnm'],
  ];
  it.each(wellKnown)('TCP %d -> %s, Layer 7', (port, type) => {
    expect(resolveCheck(auto(), port, 'tcp')).toMatchObject({ type, layer: 7 });
  });

  const table: [string, Partial<HealthCheck>, number | undefined, 'tcp' | 'udp', string, 4 | 7][] = [
    ['TCP 20 is FTP data, not the FTP port: Layer 4', {}, 20, 'tcp', 'tcp', 4],
    ['unknown TCP port: Layer 4 TCP', {}, 8081, 'tcp', 'tcp', 4],
    ['protocol names the L7 check of an unknown port', { protocol: 'ldap' }, 1389, 'tcp', 'ldap', 7],
    ['protocol overrides the port\'s own protocol', { protocol: 'https' }, 80, 'tcp', 'https', 7],
    ['layer 4 turns a well-known port into the TCP check', { layer: 4 }, 80, 'tcp', 'tcp', 4],
    ['layer 4 wins over protocol', { layer: 4, protocol: 'ldap' }, 1389, 'tcp', 'tcp', 4],
    ['layer 7 without a method stays Layer 4 on an unknown port', { layer: 7 }, 8081, 'tcp', 'tcp', 4],
    ['layer 7 on a well-known port', { layer: 7 }, 25, 'tcp', 'smtp', 7],
    ['UDP 53 is DNS, Layer 7', {}, 53, 'udp', 'dns', 7],
    ['UDP 1812 is RADIUS, Layer 7', {}, 1812, 'udp', 'radius', 7],
    ['other UDP ports: Layer 4 UDP', {}, 5353, 'udp', 'udp', 4],
    ['UDP: a well-known TCP port means nothing', {}, 80, 'udp', 'udp', 4],
    ['UDP: the layer has no effect', { layer: 4 }, 53, 'udp', 'dns', 7],
    ['UDP: layer 7 does not make an unknown port Layer 7', { layer: 7 }, 5353, 'udp', 'udp', 4],
    ['UDP: protocol dns gives an unknown port the DNS check', { protocol: 'dns' }, 5353, 'udp', 'dns', 7],
    ['UDP: protocol radius on 53 uses the RADIUS method', { protocol: 'radius' }, 53, 'udp', 'radius', 7],
    ['UDP: a TCP protocol is ignored', { protocol: 'http' }, 5353, 'udp', 'udp', 4],
    ['TCP: protocol dns is a UDP method, so the port decides', { protocol: 'dns' }, 8081, 'tcp', 'tcp', 4],
    ['TCP 53 is not well known over TCP', {}, 53, 'tcp', 'tcp', 4],
    ['no port: ping (the Px default)', {}, undefined, 'tcp', 'ping', 4],
    ['no port over UDP: ping', {}, undefined, 'udp', 'ping', 4],
  ];
  it.each(table)('%s', (_name, hc, port, transport, type, layer) => {
    const r = resolveCheck(auto(hc), port, transport);
    expect(r).toMatchObject({ type, layer });
    expect(r.why.length).toBeGreaterThan(0);
  });

  it('explicit types stand whatever the port', () => {
    expect(resolveCheck({ type: 'http' } as HealthCheck, 8081, 'tcp')).toMatchObject({ type: 'http', layer: 7 });
    expect(resolveCheck({ type: 'tcp' } as HealthCheck, 80, 'tcp')).toMatchObject({ type: 'tcp', layer: 4 });
    expect(resolveCheck({ type: 'ping' } as HealthCheck, 80, 'tcp')).toMatchObject({ type: 'ping', layer: 4 });
    expect(resolveCheck({ type: 'dns' } as HealthCheck, 5353, 'udp')).toMatchObject({ type: 'dns', layer: 7 });
  });

  it.each([['tcp', 4], ['udp', 4], ['ping', 4], ['none', 4], ['http', 7], ['ldap', 7], ['radius', 7]] as const)('layerOf(%s) = %d', (t, l) => {
    expect(layerOf(t)).toBe(l);
  });
});

describe('groupTransport', () => {
  const svc = (group: string, protocol: 'tcp' | 'udp') => ({ group, protocol }) as never;
  it.each([
    ['unused group', [], 'tcp'],
    ['only TCP services', [svc('g', 'tcp')], 'tcp'],
    ['only UDP services', [svc('g', 'udp'), svc('g', 'udp')], 'udp'],
    ['mixed: TCP', [svc('g', 'udp'), svc('g', 'tcp')], 'tcp'],
    ['other groups do not count', [svc('h', 'udp'), svc('g', 'tcp')], 'tcp'],
    ['UDP service of this group only', [svc('h', 'tcp'), svc('g', 'udp')], 'udp'],
  ] as const)('%s -> %s', (_n, services, expected) => {
    expect(groupTransport({ services: [...services] }, 'g')).toBe(expected);
  });
});
