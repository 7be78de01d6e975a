// skipBecause: a reason skips and is printed once; no reason runs the test and prints nothing.
import { afterEach, expect, it, vi } from 'vitest';
import { skipBecause } from '../helpers/skip';

afterEach(() => vi.restoreAllMocks());

it('prints "skipped: what: why" once per reason, and nothing when there is none', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  expect(skipBecause('', 'x')).toBe(false);
  expect(skipBecause(false, 'x')).toBe(false);
  expect(skipBecause(undefined, 'x')).toBe(false);
  expect(warn).not.toHaveBeenCalled();
  expect(skipBecause(' (skipped: haproxy is not installed)', 'compare unit')).toBe(true);
  expect(skipBecause('haproxy is not installed', 'compare unit')).toBe(true);
  expect(warn.mock.calls).toEqual([['skipped: compare unit: haproxy is not installed']]);
});
