// Transport-independent API clients: over the preload bridge (Electron) and over a WebSocket
// (browser mode). Pure: the socket class is passed in, so Node tests drive the same code.
import { ApiError, type ApiClient, type ApiErrorShape, type ApiEvent, type ArgsOf, type EventMap, type EventName, type MethodName, type ResultOf } from './contract';
import { ApiEvents } from './api-events';

export type Outcome = { ok: true; result: unknown } | { ok: false; error: ApiErrorShape };
export interface PreloadBridge {
  methods: Record<string, (args: unknown) => Promise<Outcome>>;
  onEvent(listener: (e: ApiEvent) => void): () => void;
}

/** The part of the WebSocket API both browsers and the `ws` package offer. */
export interface SocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
}
export type SocketFactory = (url: string) => SocketLike;

function unwrap<T>(out: Outcome): T {
  if (!out.ok) throw new ApiError(out.error.code, out.error.message);
  return out.result as T;
}

export function bridgeClient(bridge: PreloadBridge): ApiClient {
  // The page's listeners, each apart from the others (a throwing one stops none).
  const listeners = new ApiEvents();
  bridge.onEvent((e) => listeners.deliver(e));
  return {
    async call(method, args) {
      const fn = bridge.methods[method];
      if (!fn) throw new ApiError('bad-method', `unknown method ${method}`);
      return unwrap(await fn(args));
    },
    on: (event, fn) => listeners.on(event, fn),
  };
}

/** Waits between reconnect attempts: doubling from the first, never more than the last. */
export const RECONNECT_MS = { first: 250, max: 5000 };

/**
 * WebSocket client. After a drop it fails the calls in flight and reconnects by itself, waiting
 * longer after each failed attempt (RECONNECT_MS), so a page that only listens resumes too.
 */
export function socketClient(url: string, open: SocketFactory): ApiClient & { close(): void; ready(): Promise<void> } {
  const listeners = new ApiEvents();
  const watchers = new Set<(state: 'connected' | 'reconnecting') => void>();
  const pending = new Map<number, (o: Outcome) => void>();
  let nextId = 1;
  let socket: SocketLike | undefined;
  let connecting: Promise<SocketLike> | undefined;
  let closed = false;
  let wasOpen = false;
  let wait = RECONNECT_MS.first;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const tell = (state: 'connected' | 'reconnecting') => watchers.forEach((fn) => fn(state));
  const again = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => again());
    }, wait);
    wait = Math.min(wait * 2, RECONNECT_MS.max);
  };

  const connect = (): Promise<SocketLike> =>
    (connecting ??= new Promise((resolve, reject) => {
      const ws = open(url);
      ws.onopen = () => {
        socket = ws;
        wait = RECONNECT_MS.first;
        if (wasOpen) tell('connected');
        wasOpen = true;
        resolve(ws);
      };
      ws.onmessage = (m) => {
        const frame = JSON.parse(String(m.data)) as (Outcome & { id: number }) | ApiEvent;
        if ('event' in frame) return listeners.deliver(frame);
        pending.get(frame.id)?.(frame);
        pending.delete(frame.id);
      };
      ws.onclose = () => {
        socket = undefined;
        connecting = undefined;
        for (const [, done] of pending) done({ ok: false, error: { code: 'failed', message: 'the connection to lbdesk closed' } });
        pending.clear();
        reject(new ApiError('failed', 'cannot reach lbdesk'));
        // A connection that was up and dropped: get it back without waiting for a call.
        if (wasOpen && !closed) {
          tell('reconnecting');
          again();
        }
      };
    }));

  return {
    async call<M extends MethodName>(method: M, args: ArgsOf<M>): Promise<ResultOf<M>> {
      if (closed) throw new ApiError('failed', 'the client is closed');
      const ws = socket ?? (await connect());
      const id = nextId++;
      const out = await new Promise<Outcome>((resolve) => {
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, args }));
      });
      return unwrap(out);
    },
    on<E extends EventName>(event: E, fn: (p: EventMap[E]) => void) {
      void connect().catch(() => undefined);
      return listeners.on(event, fn);
    },
    onConnection(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    async ready() {
      await connect();
    },
    close() {
      closed = true;
      clearTimeout(retry);
      socket?.close();
    },
  };
}
