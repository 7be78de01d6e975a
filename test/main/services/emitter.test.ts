// The one event style of the services and the clients: typed names and payloads, `on` returns its `off`, and a
// listener that throws harms neither the emitter nor the other listeners.
import { describe, expect, it } from 'vitest';
import { Emitter, Told } from '../../../shared/emitter';
import { ApiEvents } from '../../../shared/api/api-events';
import { bridgeClient } from '../../../shared/api/client';

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

  it('Told: what its holder tells reaches every listener, past one that throws', () => {
    const told = new Told<number>();
    const seen: number[] = [];
    told.on('event', () => {
      throw new Error('a scenario listener with a bug');
    });
    const off = told.on('event', (n) => seen.push(n));
    expect(() => told.tell(1)).not.toThrow();
    off();
    told.tell(2);
    expect(seen).toEqual([1]);
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

// The contract's events go through the same Emitter in main (ApiEvents, fanned out to every
// transport) and in each client: a page's listener that throws stops neither the lab's other
// listeners nor the page's.
describe('the API events', () => {
  const member = { key: 'g:web/web1:8081', group: 'web', server: 'web1', address: '127.0.0.1', port: 8081, state: 'available', since: 0, reason: 'ok', score: 10, consecutiveFailures: 0, consecutivePasses: 1 } as const;

  it('fan out to every subscriber past one that throws', () => {
    const events = new ApiEvents();
    const seen: string[] = [];
    events.subscribe(() => {
      throw new Error('a bug in one transport');
    });
    events.subscribe((e) => seen.push(`all:${e.event}`));
    events.on('lab.member', (e) => seen.push(`member:${e.member.key}`));
    expect(() => events.send('lab.member', { member: member as never })).not.toThrow();
    expect(seen).toEqual(['all:lab.member', `member:${member.key}`]);
  });

  it('reach every listener of a client past one that throws', () => {
    const main = new ApiEvents();
    const client = bridgeClient({ methods: {}, onEvent: (l) => main.subscribe(l) });
    const seen: number[] = [];
    client.on('workspace.changed', () => {
      throw new Error('a bug in one page listener');
    });
    client.on('workspace.changed', (e) => seen.push(e.mtimeMs));
    main.send('workspace.changed', { path: '/tmp/x.yaml', mtimeMs: 1 });
    main.send('workspace.changed', { path: '/tmp/x.yaml', mtimeMs: 2 });
    expect(seen).toEqual([1, 2]);
  });
});
