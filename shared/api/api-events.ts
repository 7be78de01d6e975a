// The contract's events (EventMap) on the one Emitter: main fans them out to every connected UI
// (IPC windows, WebSocket pages) through one of these, and each client hands them to the page's
// listeners through another. `send` is the EventSink a service is handed; `subscribe` hears every
// event, for a transport. A listener that throws harms no other (shared/emitter.ts).
import { Emitter } from '../emitter';
import { EVENT_NAMES, type ApiEvent, type EventSink } from './contract';

export class ApiEvents extends Emitter<import('./contract').EventMap> {
  readonly send: EventSink = (event, payload) => this.emit(event, payload);

  /** Hands on one event as it came over a transport. */
  deliver(e: ApiEvent): void {
    this.send(e.event, e.payload);
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    const offs = EVENT_NAMES.map((event) => this.on(event, (payload) => listener({ event, payload } as ApiEvent)));
    return () => offs.forEach((off) => off());
  }
}
