// IPFE rules (seed 003): mates, Fm + Fc normalised to 100 on save, include names.
import { describe, expect, it } from 'vitest';
import { ipfeMate, normaliseFactorValues, parseTargetSetIncludeName, targetSetIncludeName } from '../../../shared/model/ipfe';
import { normaliseFactors } from '../../../shared/model/normalise';
import { createDocument, documentToText } from '../../../shared/model/document';

describe('IPFE mates', () => {
  it.each([['A1', 'A2'], ['A2', 'A1'], ['B1', 'B2'], ['B2', 'B1']] as const)('%s <-> %s', (a, b) => {
    expect(ipfeMate(a)).toBe(b);
    expect(ipfeMate(ipfeMate(a))).toBe(a);
  });
});

describe('Fm + Fc normalised to 100', () => {
  it.each([
    [50, 50, 50, 50], [30, 50, 38, 62], [1, 1, 50, 50], [0, 10, 0, 100], [100, 100, 50, 50], [1, 2, 33, 67], [2, 1, 67, 33], [100, 0, 100, 0],
  ])('%d + %d -> %d + %d', (fm, fc, nm, nc) => {
    expect(normaliseFactorValues(fm, fc)).toEqual({ mpsFactor: nm, connectionFactor: nc });
  });
  it('0 + 0 has nothing to apportion', () => {
    expect(normaliseFactorValues(0, 0)).toBeUndefined();
  });

  it('rewrites only the sets that need it, keeping comments, counting a missing factor as 50', () => {
    const text = [
      'targetSets:',
      '  - number: 1',
      '    leastLoad:',
      '      mpsFactor: 30    # Fm',
      '      connectionFactor: 50   # Fc',
      '  - number: 2',
      '    leastLoad: { mpsFactor: 80 }',
      '  - number: 3',
      '    leastLoad: { mpsFactor: 60, connectionFactor: 40 }',
      '  - number: 4',
      '  - number: 5',
      '    leastLoad: { mpsFactor: 0, connectionFactor: 0 }',
      '  - number: 6',
      '    leastLoad: { mpsFactor: 500 }',
      '',
    ].join('\n');
    const doc = createDocument(text);
    expect(normaliseFactors(doc)).toEqual(['targetSets[0].leastLoad: 30+50 -> 38+62', 'targetSets[1].leastLoad: 80+50 -> 62+38']);
    expect(documentToText(doc)).toBe(text
      .replace('mpsFactor: 30    # Fm', 'mpsFactor: 38    # Fm')
      .replace('connectionFactor: 50   # Fc', 'connectionFactor: 62   # Fc')
      .replace('{ mpsFactor: 80 }', '{ mpsFactor: 62, connectionFactor: 38 }'));
  });
});

describe('target-set include names', () => {
  it.each([['ts1', 1], ['ts-12', 12], ['target-set-3', 3], ['TargetSet4', 4], ['web', undefined], ['ts', undefined], ['ts123', undefined]] as const)('%s -> %s', (name, n) => {
    expect(parseTargetSetIncludeName(name)).toBe(n);
  });
  it('the canonical name round-trips', () => {
    expect(parseTargetSetIncludeName(targetSetIncludeName(32))).toBe(32);
  });
});
