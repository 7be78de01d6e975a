// `lbdesk render` prints driver problems grouped by message: each subject named once.
import { describe, expect, it } from 'vitest';
import { grouped } from '../../../main/cli/commands/render';

describe('render: grouped problems', () => {
  it('names a subject once per message, keeps first-seen order', () => {
    expect(grouped([
      { subject: 'service vip6', message: 'host "x" cannot be written' },
      { subject: 'service vip6', message: 'host "x" cannot be written' },
      { subject: 'target set 1', message: 'hash: client address only' },
      { subject: 'service web', message: 'host "x" cannot be written' },
      { subject: 'target set 4', message: 'hash: client address only' },
    ])).toEqual([
      'service vip6, service web: host "x" cannot be written',
      'target set 1, target set 4: hash: client address only',
    ]);
  });
});
