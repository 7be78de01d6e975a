import { describe, expect, it } from 'vitest';
import type { MemberState } from '../../../../shared/api/types';
import {
  clientHash, healthWeighted, leastConnections, leastLoad, loadOf, newMemory, normaliseFactors, peerSpread,
  rendezvous, roundRobin, smoothWeighted, usableTier, withinDeviation, type Candidate, type LoadCandidate,
} from '../../../../main/services/engine/algorithms';

interface C extends Candidate { index: number; key: string; weight: number; state: MemberState; score: number; active: number }
const mk = (weights: number[], over: Partial<C>[] = []): C[] =>
  weights.map((weight, index) => ({ index, key: `s${index}`, weight, state: 'available', score: 10, active: 0, ...over[index] }));

function counts<T extends Candidate>(n: number, pick: () => T | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const c = pick();
    if (c) out[c.key] = (out[c.key] ?? 0) + 1;
  }
  return out;
}

describe('usableTier (seed 002)', () => {
  it('takes available servers before degraded ones and never unavailable, unknown, disabled or weight 0', () => {
    const ms = mk([100, 100, 100, 100, 100, 0], [
      { state: 'degraded' }, { state: 'available' }, { state: 'unavailable' }, { state: 'unknown' }, { state: 'disabled' }, { state: 'available' },
    ]);
    expect(usableTier(ms).map((m) => m.key)).toEqual(['s1']);
    ms[1]!.state = 'unavailable';
    expect(usableTier(ms).map((m) => m.key)).toEqual(['s0']);
    ms[0]!.state = 'unavailable';
    expect(usableTier(ms)).toEqual([]);
  });
});

describe('round-robin', () => {
  it('walks the servers in order and keeps its place when one leaves', () => {
    const ms = mk([1, 1, 1]);
    const mem = newMemory();
    expect([0, 1, 2, 3].map(() => roundRobin(ms, mem)!.key)).toEqual(['s0', 's1', 's2', 's0']);
    const without1 = [ms[0]!, ms[2]!];
    expect(roundRobin(without1, mem)!.key).toBe('s2');
    expect(roundRobin(without1, mem)!.key).toBe('s0');
    expect(roundRobin([], mem)).toBeUndefined();
  });
});

describe('smooth weighted round-robin (IPFE share = w / sum w)', () => {
  it('gives 100:300:0 exactly 1:3:0 over every full cycle, interleaved', () => {
    const ms = mk([100, 300, 0]);
    const mem = newMemory();
    const seq = Array.from({ length: 8 }, () => smoothWeighted(ms, mem)!.key);
    expect(seq).toEqual(['s1', 's0', 's1', 's1', 's1', 's0', 's1', 's1']);
    expect(counts(4000, () => smoothWeighted(ms, mem))).toEqual({ s0: 1000, s1: 3000 });
  });
  it('matches w / sum(w) for uneven weights over a cycle of sum/gcd', () => {
    const weights = [5, 3, 2, 7];
    const ms = mk(weights);
    const mem = newMemory();
    const sum = weights.reduce((a, b) => a + b, 0);
    const got = counts(sum * 10, () => smoothWeighted(ms, mem));
    weights.forEach((w, i) => expect(got[`s${i}`]).toBe(w * 10));
  });
  it('never picks weight 0 and returns nothing when all weights are 0', () => {
    expect(smoothWeighted(mk([0, 0]), newMemory())).toBeUndefined();
  });
});

describe('least-connections', () => {
  it('takes the server with the fewest connections per weight, ties in rotation', () => {
    const ms = mk([100, 100, 200]);
    const mem = newMemory();
    ms[0] = { ...ms[0]!, active: 3 };
    ms[1] = { ...ms[1]!, active: 1 };
    ms[2] = { ...ms[2]!, active: 4 }; // 4/200 = 2/100 > 1/100
    expect(leastConnections(ms, mem)!.key).toBe('s1');
    ms[1] = { ...ms[1]!, active: 2 }; // s1 2/100 ties s2 4/200
    expect(leastConnections(ms, mem)!.key).toBe('s2');
    expect(leastConnections(ms, mem)!.key).toBe('s1');
  });
  it('fills held servers up to the others before sharing again', () => {
    const ms = mk([1, 1, 1]);
    ms[0] = { ...ms[0]!, active: 5 };
    const mem = newMemory();
    const seq: string[] = [];
    for (let i = 0; i < 10; i++) {
      const c = leastConnections(ms, mem)!;
      seq.push(c.key);
      ms[c.index] = { ...c, active: c.active + 1 };
    }
    expect(seq.filter((k) => k === 's0').length).toBe(0);
    expect(ms.map((m) => m.active)).toEqual([5, 5, 5]);
  });
});

describe('source hash (weighted rendezvous on client address + port)', () => {
  const clients = Array.from({ length: 20000 }, (_, i) => clientHash(`127.0.5.${i % 250}`, 20000 + i));
  it('spreads clients by weight', () => {
    const ms = mk([100, 300, 0]);
    const got = { s0: 0, s1: 0, s2: 0 } as Record<string, number>;
    for (const h of clients) got[rendezvous(ms, h)!.key]! += 1;
    expect(got.s2).toBe(0);
    expect(got.s1! / clients.length).toBeGreaterThan(0.72);
    expect(got.s1! / clients.length).toBeLessThan(0.78);
  });
  it('is stable for everyone but the clients of a server that leaves', () => {
    const ms = mk([100, 100, 100, 100]);
    const before = clients.map((h) => rendezvous(ms, h)!.key);
    const after = clients.map((h) => rendezvous([ms[0]!, ms[1]!, ms[3]!], h)!.key);
    let moved = 0;
    before.forEach((k, i) => {
      if (k !== 's2') expect(after[i]).toBe(k);
      else moved += 1;
    });
    expect(moved / clients.length).toBeGreaterThan(0.2);
    expect(moved / clients.length).toBeLessThan(0.3);
  });
  it('gives the same client the same server every time', () => {
    const ms = mk([1, 2, 3]);
    const h = clientHash('127.0.5.9', 40000);
    expect(new Set(Array.from({ length: 10 }, () => rendezvous(ms, h)!.key)).size).toBe(1);
  });
});

describe('IPFE least load', () => {
  const lc = (weight: number, m: number, c: number, index: number, mtotal = 1000, ctotal = 100): LoadCandidate & C =>
    ({ index, key: `s${index}`, weight, state: 'available', score: 10, active: c, m, mtotal, c, ctotal });
  it('computes L = (Fm m/mtotal + Fc c/ctotal) Whigh/w with Fm+Fc normalised to 100', () => {
    expect(normaliseFactors(30, 10)).toEqual({ fm: 75, fc: 25 });
    expect(normaliseFactors(0, 0)).toEqual({ fm: 50, fc: 50 });
    // Fm=30, Fc=10 -> 75/25. m/mtotal = 0.2, c/ctotal = 0.4; Whigh/w = 300/100.
    expect(loadOf(lc(100, 200, 40, 0), { fm: 30, fc: 10, whigh: 300 })).toBeCloseTo((75 * 0.2 + 25 * 0.4) * 3, 10);
    expect(loadOf(lc(0, 0, 0, 0), { fm: 50, fc: 50, whigh: 300 })).toBe(Infinity);
  });
  it('sends to the least loaded server when the gap is at least the allowed deviation', () => {
    const p = { fm: 50, fc: 50, deviation: 5, whigh: 100 };
    const ms = [lc(100, 0, 20, 0), lc(100, 0, 10, 1), lc(100, 0, 30, 2)]; // L = 10, 5, 15
    const mem = newMemory();
    expect(counts(10, () => leastLoad(ms, p, mem))).toEqual({ s1: 10 });
  });
  it('shares by weighted round-robin among servers within the deviation', () => {
    const p = { fm: 50, fc: 50, deviation: 5, whigh: 300 };
    // L: s0 = 50*(10/100)*3 = 15, s1 = 50*(30/100)*1 = 15, s2 = 50*(40/100)*3 = 60 (out of range).
    const ms = [lc(100, 0, 10, 0), lc(300, 0, 30, 1), lc(100, 0, 40, 2)];
    expect(withinDeviation(ms, p).map((m) => m.key)).toEqual(['s0', 's1']);
    const mem = newMemory();
    expect(counts(400, () => leastLoad(ms, p, mem))).toEqual({ s0: 100, s1: 300 });
  });
  it('uses the heartbeat m when reported and weighs it by Fm', () => {
    const p = { fm: 100, fc: 0, deviation: 0, whigh: 100 };
    const ms = [lc(100, 900, 0, 0), lc(100, 100, 50, 1)];
    expect(leastLoad(ms, p, newMemory())!.key).toBe('s1');
    expect(leastLoad(ms, { ...p, fm: 0, fc: 100 }, newMemory())!.key).toBe('s0');
  });
  it('peer node awareness keeps servers less than D above the lowest group count', () => {
    const ms = mk([1, 1, 1, 1]);
    const g = [2, 0, 1, 3];
    expect(peerSpread(ms, (c) => g[c.index]!, 1).map((m) => m.key)).toEqual(['s1']);
    expect(peerSpread(ms, (c) => g[c.index]!, 2).map((m) => m.key)).toEqual(['s1', 's2']);
    expect(peerSpread(ms, (c) => g[c.index]!, 0).length).toBe(4);
  });
});

describe('health-weighted', () => {
  it('shares by weight x score, so a higher score gets more', () => {
    const ms = mk([100, 100], [{ score: 10 }, { score: 5 }]);
    const mem = newMemory();
    expect(counts(300, () => healthWeighted(ms, mem))).toEqual({ s0: 200, s1: 100 });
  });
});
