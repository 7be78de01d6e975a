// The one event style of the services: typed names and payloads, `on` returns its `off`, and a
// listener that throws harms neither the emitter nor the other listeners.
import { describe, expect, it } from 'vitest';
import { Emitter } from '../../main/services/emitter';

interface Events { tick: number; note: { text: string } }
class Source extends Emitter<Events> {
  fire<E extends keyof Events>(event: E, payload: Events[E]): void {
    this.emit(event, payload);
  }
}

describe('Emitter', () => {
  it('delivers each event to its own listeners, in order, until they are turned off', () => {
    const s = new Source();
    const seen: string[] = [];
    const off = s.on('tick', (n) => seen.push(`a${n}`));
    s.on('tick', (n) => seen.push(`b${n}`));
    s.on('note', ({ text }) => seen.push(text));
    s.fire('tick', 1);
    s.fire('note', { text: 'hi' });
    off();
    s.fire('tick', 2);
    expect(seen).toEqual(['a1', 'b1', 'hi', 'b2']);
  });

  it('keeps going past a listener that throws, and past one that turns itself off', () => {
    const s = new Source();
    const seen: number[] = [];
    s.on('tick', () => {
      throw new Error('a bug in one listener');
    });
    const off = s.on('tick', (n) => {
      seen.push(n);
      off();
    });
    s.on('tick', (n) => seen.push(n * 10));
    expect(() => s.fire('tick', 1)).not.toThrow();
    s.fire('tick', 2);
    expect(seen).toEqual([1, 10, 20]);
  });

  it('types names and payloads', () => {
    const s = new Source();
    // @ts-expect-error no such event
    s.on('tock', () => undefined);
    // @ts-expect-error a tick carries a number
    s.fire('tick', 'one');
    // @ts-expect-error only the owner emits
    s.emit('tick', 1);
    expect(true).toBe(true);
  });
});
