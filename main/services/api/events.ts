// Fan-out of contract events to every connected UI (IPC windows, WebSocket pages).
import type { ApiEvent, EventMap, EventName } from '../../../shared/api/contract';

type Listener = (event: ApiEvent) => void;

export class EventBus {
  private readonly listeners = new Set<Listener>();
  readonly emit = <E extends EventName>(event: E, payload: EventMap[E]): void => {
    for (const l of [...this.listeners]) l({ event, payload } as ApiEvent);
  };
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
