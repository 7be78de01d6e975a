import { describe, expect, it } from 'vitest';
import { detectionTimes } from '../../../shared/model/detection';
import { DEFAULT_TIMERS } from '../../../shared/model/resolve';
import { detectionTimes as reexported } from '../../../main/services/health';

describe('detectionTimes', () => {
  it('Px defaults: 30 s interval, 10 s retry, 2 failures, 2 passes, 5 s timeout', () => {
    expect(detectionTimes(DEFAULT_TIMERS)).toEqual({
      failure: { bestMs: 10_000, worstMs: 30_000 + 10_000 + 5_000 },
      recovery: { bestMs: 10_000, worstMs: 2 * 10_000 + 5_000 },
    });
  });

  it('a single failure or pass is enough: best case is immediate', () => {
    const t = detectionTimes({ interval: 2000, retryInterval: 500, failAfter: 1, restoreAfter: 1, timeout: 300 });
    expect(t.failure).toEqual({ bestMs: 0, worstMs: 2000 + 300 });
    expect(t.recovery).toEqual({ bestMs: 0, worstMs: 500 + 300 });
  });

  it('a timeout longer than the retry interval stretches every gap (one check in flight)', () => {
    const t = detectionTimes({ interval: 1000, retryInterval: 300, failAfter: 3, restoreAfter: 2, timeout: 2000 });
    expect(t.failure.worstMs).toBe(2000 + 2 * 2000 + 2000);
    expect(t.recovery.worstMs).toBe(2 * 2000 + 2000);
    expect(t.failure.bestMs).toBe(600);
  });

  it('jitter only shortens: it lowers the best case and leaves the worst alone', () => {
    const plain = detectionTimes(DEFAULT_TIMERS);
    const jittered = detectionTimes(DEFAULT_TIMERS, 0.1);
    expect(jittered.failure.bestMs).toBe(9000);
    expect(jittered.recovery.bestMs).toBe(9000);
    expect(jittered.failure.worstMs).toBe(plain.failure.worstMs);
  });

  it('is re-exported by the health engine', () => {
    expect(reexported).toBe(detectionTimes);
  });
});
