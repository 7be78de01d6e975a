import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../shared/model/duration';

describe('durations', () => {
  it.each([
    [30, 30_000], ['500ms', 500], ['10s', 10_000], ['5m', 300_000], ['1h', 3_600_000], ['1.5s', 1500], [' 2 s ', 2000],
  ])('%j is %d ms', (input, ms) => expect(parseDuration(input)).toBe(ms));
  it.each([['10 sec'], ['-1'], [-1], ['1d'], [''], [null], [Number.NaN]])('%j is refused', (input) => {
    expect(parseDuration(input)).toBeUndefined();
  });
  it('formats the shortest exact unit', () => {
    expect([500, 10_000, 90_000, 300_000, 7_200_000].map(formatDuration)).toEqual(['500ms', '10s', '90s', '5m', '2h']);
  });
});
