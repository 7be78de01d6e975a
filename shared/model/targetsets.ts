// IPFE target-set rules (seed 003) beyond single-field ranges.
import type { TargetSet } from './schema';
import type { PathSegment } from './problem';
import type { Issue } from './issues';
import { valueAt } from './issues';
import { familyOf, normalAddress } from './address';
import { DEFAULT_FACTOR, INITIATOR_PORT_RANGE, ipfeMate, normaliseFactorValues } from './ipfe';

/** Target set Delete Age default (seed 003), in seconds. */
const DEFAULT_DELETE_AGE_S = 600;

const FAMILY_NAME = { ipv4: 'IPv4', ipv6: 'IPv6' } as const;

export function checkTargetSet(t: TargetSet, index: number, raw: unknown): Issue[] {
  const base: PathSegment[] = ['targetSets', index];
  const issues: Issue[] = [];
  const err = (path: PathSegment[], message: string) => issues.push({ severity: 'error', path: [...base, ...path], message });
  const warn = (path: PathSegment[], message: string) => issues.push({ severity: 'warning', path: [...base, ...path], message });
  const family = familyOf(t.address);
  const secondaryFamily = t.secondaryAddress === undefined ? undefined : familyOf(t.secondaryAddress);

  const seen = new Map<string, number>();
  t.servers.forEach((s, j) => {
    const at: PathSegment[] = ['servers', j];
    const f = familyOf(s.address);
    if (family && f && f !== family) {
      err([...at, 'address'], `${s.address} is ${FAMILY_NAME[f]} but the target set address ${t.address} is ${FAMILY_NAME[family]}: every server must be of the target set's address family`);
    }
    const key = normalAddress(s.address);
    const first = seen.get(key);
    if (first !== undefined) err([...at, 'address'], `${s.address} is already in this target set (servers[${first}])`);
    else seen.set(key, j);
    if (t.secondaryAddress !== undefined) {
      if (s.secondaryAddress === undefined) {
        err([...at, 'secondaryAddress'], 'required: the target set has a secondaryAddress, so every server needs one');
      } else {
        const sf = familyOf(s.secondaryAddress);
        if (secondaryFamily && sf && sf !== secondaryFamily) {
          err([...at, 'secondaryAddress'], `${s.secondaryAddress} is ${FAMILY_NAME[sf]} but the target set's secondaryAddress ${t.secondaryAddress} is ${FAMILY_NAME[secondaryFamily]}`);
        }
      }
    } else if (s.secondaryAddress !== undefined) {
      err([...at, 'secondaryAddress'], 'cannot apply: the target set has no secondaryAddress');
    }
    if (s.weight === 0) warn([...at, 'weight'], 'weight 0: this server never receives new connections');
  });
  if (t.servers.length === 0 && !t.disabled) warn(['servers'], 'no servers: connections to this target set have nowhere to go');

  if (t.secondaryActiveIpfe !== undefined) {
    if (t.secondaryAddress === undefined) err(['secondaryActiveIpfe'], 'cannot apply: the target set has no secondaryAddress');
    else if (t.secondaryActiveIpfe === t.activeIpfe) {
      warn(['secondaryActiveIpfe'], `same IPFE as activeIpfe: choose another (e.g. ${ipfeMate(t.activeIpfe)}) so the secondary address has an alternative path`);
    }
  }

  const ports = new Map<number, number>();
  t.ports.forEach((p, j) => {
    const first = ports.get(p);
    if (first !== undefined) err(['ports', j], `port ${p} is listed twice (ports[${first}])`);
    else ports.set(p, j);
    if (t.initiatorSupport && p >= INITIATOR_PORT_RANGE.min && p <= INITIATOR_PORT_RANGE.max) {
      warn(['ports', j], `port ${p} is inside the initiator port range ${INITIATOR_PORT_RANGE.min}-${INITIATOR_PORT_RANGE.max} used for connections the servers initiate`);
    }
  });

  // Seed 003: "it is inadvisable to reduce Delete Age value to less than the default".
  if (t.deleteAge < DEFAULT_DELETE_AGE_S) {
    warn(['deleteAge'], `${t.deleteAge} s is below the default ${DEFAULT_DELETE_AGE_S} s: idle connections are dropped sooner, which the vendor advises against`);
  }

  // As written, a factor left out counting as its default 50 (the parsed target set holds them
  // normalised already).
  const written = (key: string) => {
    const v = valueAt(raw, [...base, 'leastLoad', key]);
    return typeof v === 'number' ? v : DEFAULT_FACTOR;
  };
  const fm = written('mpsFactor');
  const fc = written('connectionFactor');
  const normal = normaliseFactorValues(fm, fc);
  if (!normal) err(['leastLoad'], 'mpsFactor and connectionFactor cannot both be 0 (Fm + Fc is normalised to 100)');
  else if (fm + fc !== 100) {
    warn(['leastLoad'], `Fm + Fc = ${fm + fc}: saved as mpsFactor ${normal.mpsFactor}, connectionFactor ${normal.connectionFactor} (normalised to 100)`);
  }
  if (t.algorithm === 'hash') {
    for (const key of ['leastLoad', 'peerNodeAware'] as const) {
      if (valueAt(raw, [...base, key]) !== undefined) warn([key], 'has no effect with algorithm hash (it configures least-load)');
    }
  }
  return issues;
}
