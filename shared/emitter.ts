// The one way anything here tells about what happens in it (health checker, forwarding engine,
// the API's events in main and in every client): a typed map of event names to payloads, `on` returning its own `off`.
// A listener's fault stays with it: the emitter and the other listeners carry on (a bug in a
// page's listener must not stop health checking or forwarding).

export type Listener<T> = (payload: T) => void;

export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  /** Listens to `event` until the returned function is called. */
  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => void set.delete(listener as Listener<never>);
  }

  protected emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        (l as Listener<Events[E]>)(payload);
      } catch {
        // see the file comment
      }
    }
  }
}

/** One kind of event told by whoever holds it (a lab's events for a scenario, serve's printed lines). */
export class Told<T> extends Emitter<{ event: T }> {
  tell(payload: T): void {
    this.emit('event', payload);
  }
}
