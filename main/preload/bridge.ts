// Builds the object the preload exposes: exactly one function per contract method and one event
// subscription. Never exposes ipcRenderer itself. Kept free of `electron` so it can be tested.
import { METHOD_NAMES, EVENT_NAMES, type ApiEvent } from '../../shared/api/contract';
import { channelOf, EVENT_CHANNEL } from '../../shared/api/channels';

export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export interface Bridge {
  methods: Record<string, (args: unknown) => Promise<unknown>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
}

export function buildBridge(ipc: IpcRendererLike): Bridge {
  const methods: Bridge['methods'] = {};
  for (const m of METHOD_NAMES) methods[m] = (args: unknown) => ipc.invoke(channelOf(m), args);
  const known = new Set<string>(EVENT_NAMES);
  return {
    methods: Object.freeze(methods) as Bridge['methods'],
    onEvent(listener) {
      const wrapped = (_e: unknown, payload: unknown) => {
        const ev = payload as ApiEvent;
        if (ev && known.has(ev.event)) listener(ev);
      };
      ipc.on(EVENT_CHANNEL, wrapped);
      return () => ipc.removeListener(EVENT_CHANNEL, wrapped);
    },
  };
}
