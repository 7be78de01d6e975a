import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../../shared/model/problem';

describe('formatProblem', () => {
  it('keeps a problem on one line and shows control characters as escapes (no terminal control)', () => {
    const line = formatProblem({ severity: 'error', file: 'new\nline.yaml', line: 5, col: 7, path: 'services[0].group', message: 'unknown group "\u001b[2Jg\nh"' });
    expect(line).toBe('new\\nline.yaml:5:7: services[0].group: unknown group "\\u001b[2Jg\\nh"');
    expect([...line].every((c) => c.charCodeAt(0) >= 0x20)).toBe(true);
  });
});
