// One time format: local HH:MM:SS in the UI, ISO in tooltips; ISO instants in main's messages
// shown as local time. And the small things: the SCTP note only where SCTP was chosen.
import { describe, expect, it } from 'vitest';
import { clockTime, dateTime, isoTime, timePieces } from '../../renderer/src/lib/format';
import { labNotes } from '../../renderer/src/lib/derive';

const pad = (n: number) => String(n).padStart(2, '0');
const local = (at: number) => {
  const d = new Date(at);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

describe('time format', () => {
  const at = Date.UTC(2026, 11, 1, 13, 48, 3, 120);
  it('is local time with seconds, 24 h, no milliseconds; ISO for the tooltip', () => {
    expect(clockTime(at)).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    expect(clockTime(at)).toBe(local(at));
    expect(dateTime(at)).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} ${local(at)}$`));
    expect(isoTime(at)).toBe('2026-12-01T13:48:03.120Z');
  });
  it('turns the ISO instants of a push or rollback message into local time, keeping the ISO', () => {
    const p = timePieces('timer pid 42 restores the previous config at 2026-12-01T13:48:03.120Z unless confirmed');
    expect(p).toEqual([
      { text: 'timer pid 42 restores the previous config at ' },
      { text: local(at), iso: '2026-12-01T13:48:03.120Z' },
      { text: ' unless confirmed' },
    ]);
    expect(timePieces('no time here')).toEqual([{ text: 'no time here' }]);
    expect(timePieces('2026-12-01T13:48:03Z')).toEqual([{ text: local(Date.UTC(2026, 11, 1, 13, 48, 3)), iso: '2026-12-01T13:48:03.000Z' }]);
  });
});

describe('labNotes', () => {
  const notes = ['target set 1: TCP is forwarded; SCTP is kept in the config but not forwarded locally', 'target set 2 is SCTP only: kept in the config but not forwarded locally', 'target set 3 has no ports: nothing to forward'];
  it('keeps the SCTP note only for a target set whose protocols the workspace sets', () => {
    const raw = { targetSets: [{ number: 1 }, { number: 2, protocols: 'sctp' }, { number: 3 }] };
    expect(labNotes(notes, raw)).toEqual(notes.slice(1));
    expect(labNotes(notes, { targetSets: [{ number: 1, protocols: 'both' }, { number: 2, protocols: 'sctp' }] })).toEqual(notes);
  });
});
