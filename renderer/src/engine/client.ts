// Talks to the document engine: in a worker when the platform has one (browser, Electron),
// in-process otherwise (component tests). Requests are answered in order.
import type { Request, Response } from './protocol';

type Body = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface EngineClient {
  send(req: Body): Promise<Response>;
  readonly mode: 'worker' | 'inline';
}

/** The engine on this thread (tests, or a platform without workers); loaded only when needed. */
export function inlineEngine(): EngineClient {
  const ready = Promise.all([import('./engine'), import('./handle')]).then(([e, h]) => ({ engine: new e.DocEngine(), handle: h.handle }));
  let id = 0;
  // Keep the async shape (and ordering) of the worker so callers behave the same in tests.
  let chain: Promise<unknown> = Promise.resolve();
  return {
    mode: 'inline',
    send(req) {
      const next = chain.then(async () => {
        const { engine, handle } = await ready;
        return handle(engine, { ...req, id: ++id } as Request);
      });
      chain = next;
      return next;
    },
  };
}

/** A worker engine, or the inline one when workers are missing or fail to start. */
export async function createEngine(opts: { worker?: boolean } = {}): Promise<EngineClient> {
  if (opts.worker === false || typeof Worker === 'undefined') return inlineEngine();
  let worker: Worker;
  try {
    worker = new Worker(new URL('../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'lbdesk-document' });
  } catch {
    return inlineEngine();
  }
  const waiting = new Map<number, (r: Response) => void>();
  let id = 0;
  worker.onmessage = (m: MessageEvent<Response>) => {
    waiting.get(m.data.id)?.(m.data);
    waiting.delete(m.data.id);
  };
  const client: EngineClient = {
    mode: 'worker',
    send(req) {
      const n = ++id;
      return new Promise((resolve) => {
        waiting.set(n, resolve);
        worker.postMessage({ ...req, id: n });
      });
    },
  };
  const ok = await Promise.race([
    client.send({ kind: 'ping' }).then(() => true),
    new Promise<boolean>((resolve) => {
      worker.onerror = () => resolve(false);
      setTimeout(() => resolve(false), 5000);
    }),
  ]);
  if (ok) return client;
  worker.terminate();
  return inlineEngine();
}
