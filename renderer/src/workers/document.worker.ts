// The document worker off the UI thread.
import { WorkspaceDocument } from '../document/document';
import { handle } from '../document/handle';
import type { Request } from '../document/protocol';

const doc = new WorkspaceDocument();
self.onmessage = (m: MessageEvent<Request>) => {
  (self as unknown as Worker).postMessage(handle(doc, m.data));
};
