// The document engine off the UI thread.
import { DocEngine } from '../engine/engine';
import { handle } from '../engine/handle';
import type { Request } from '../engine/protocol';

const engine = new DocEngine();
self.onmessage = (m: MessageEvent<Request>) => {
  (self as unknown as Worker).postMessage(handle(engine, m.data));
};
