// Fan-out of contract events to every connected UI (IPC windows, WebSocket pages). `emit` is
// the EventSink the services are handed; `subscribe` is how a transport listens to them all.
import type { ApiEvent, EventSink } from '../../../shared/api/contract';
import { Emitter } from '../emitter';

class Fanout extends Emitter<{ event: ApiEvent }> {
  send(e: ApiEvent): void {
    this.emit('event', e);
  }
}

export class EventBus {
  private readonly fanout = new Fanout();
  readonly emit: EventSink = (event, payload) => this.fanout.send({ event, payload } as ApiEvent);
  subscribe(listener: (event: ApiEvent) => void): () => void {
    return this.fanout.on('event', listener);
  }
}
