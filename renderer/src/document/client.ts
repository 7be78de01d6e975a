// Talks to the document worker: in a worker when the platform has one (browser, Electron),
// in-process otherwise (component tests). Requests are answered in order.
import type { Request, Response } from './protocol';

type Body = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface DocumentClient {
  send(req: Body): Promise<Response>;
  readonly mode: 'worker' | 'inline';
}

/** The document worker on this thread (tests, or a platform without workers); loaded only when needed. */
export function inlineDocument(): DocumentClient {
  const ready = Promise.all([import('./document'), import('./handle')]).then(([e, h]) => ({ doc: new e.WorkspaceDocument(), handle: h.handle }));
  let id = 0;
  // Keep the async shape (and ordering) of the worker so callers behave the same in tests.
  let chain: Promise<unknown> = Promise.resolve();
  return {
    mode: 'inline',
    send(req) {
      const next = chain.then(async () => {
        const { doc, handle } = await ready;
        return handle(doc, { ...req, id: ++id } as Request);
      });
      chain = next;
      return next;
    },
  };
}

/** A document worker, or the inline one when workers are missing or fail to start. */
export async function createDocumentClient(opts: { worker?: boolean } = {}): Promise<DocumentClient> {
  if (opts.worker === false || typeof Worker === 'undefined') return inlineDocument();
  let worker: Worker;
  try {
    worker = new Worker(new URL('../workers/document.worker.ts', import.meta.url), { type: 'module', name: 'lbdesk-document' });
  } catch {
    return inlineDocument();
  }
  const waiting = new Map<number, (r: Response) => void>();
  let id = 0;
  worker.onmessage = (m: MessageEvent<Response>) => {
    waiting.get(m.data.id)?.(m.data);
    waiting.delete(m.data.id);
  };
  const client: DocumentClient = {
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
  return inlineDocument();
}
