import { describe, expect, it } from 'vitest';
import { EventLimiter, type EventBody } from '../../../../main/services/engine/runtime';

describe('EventLimiter', () => {
  it('emits the first event at once and merges the rest of the second into one with a count', () => {
    const out: EventBody[] = [];
    const l = new EventLimiter((e) => out.push(e));
    const make = (reason: string) => (count: number): EventBody => ({ type: 'refused', service: 'vip', reason, count });
    l.push('k', make('a'), 1000);
    l.push('k', make('b'), 1100);
    l.push('k', make('c'), 1500);
    l.push('other', make('x'), 1500);
    expect(out).toEqual([
      { type: 'refused', service: 'vip', reason: 'a', count: 1 },
      { type: 'refused', service: 'vip', reason: 'x', count: 1 },
    ]);
    l.flush(1900);
    expect(out).toHaveLength(2);
    l.flush(2000);
    expect(out.at(-1)).toEqual({ type: 'refused', service: 'vip', reason: 'c', count: 2 });
    // Quiet for a window: the next one goes out at once again.
    l.flush(3100);
    l.push('k', make('d'), 3200);
    expect(out.at(-1)).toEqual({ type: 'refused', service: 'vip', reason: 'd', count: 1 });
  });
});
