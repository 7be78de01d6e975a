// `--appliance` names: each appliance once, in the order given.
import { describe, expect, it } from 'vitest';
import { pickAppliances } from '../../../main/cli/sync-options';
import { workspaceSchema } from '../../../shared/model/schema';

const workspace = workspaceSchema.parse({
  lbdesk: 1,
  name: 'x',
  appliances: [
    { name: 'lb1', host: '192.0.2.1', driver: 'haproxy' },
    { name: 'lb2', host: '192.0.2.2', driver: 'haproxy' },
  ],
});

describe('pickAppliances', () => {
  it('a name given twice is one appliance (the second push found the first one\'s lock)', () => {
    expect(pickAppliances(workspace, ['lb2', 'lb1', 'lb2'], false, true).map((a) => a.name)).toEqual(['lb2', 'lb1']);
    expect(pickAppliances(workspace, ['lb1', 'lb1'], false, false).map((a) => a.name)).toEqual(['lb1']);
    expect(() => pickAppliances(workspace, ['lb1', 'lb2'], false, false)).toThrow('one --appliance only for this command');
  });
  it('an unknown name is named before "one --appliance only" (lb1,LB1 is a typo)', () => {
    expect(() => pickAppliances(workspace, ['lb1', 'LB1'], false, false)).toThrow('unknown appliance "LB1" (known: lb1, lb2)');
    expect(pickAppliances(workspace, undefined, true, true).map((a) => a.name)).toEqual(['lb1', 'lb2']);
  });
});
