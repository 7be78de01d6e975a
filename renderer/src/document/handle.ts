// One request to the document worker, one response: the same in a worker and in-process.
import type { WorkspaceDocument } from './document';
import type { Request, Response } from './protocol';

export function handle(doc: WorkspaceDocument, req: Request): Response {
  try {
    switch (req.kind) {
      case 'load':
        return { id: req.id, state: doc.load(req.text, req.file, req.savedText) };
      case 'edit':
        return { id: req.id, state: doc.edit(req.batches, req.renames) };
      case 'undo':
        return { id: req.id, state: doc.undo() };
      case 'redo':
        return { id: req.id, state: doc.redo() };
      case 'normalise': {
        const r = doc.normalise();
        return { id: req.id, state: r.state, changes: r.changes };
      }
      case 'text':
        return { id: req.id, text: doc.currentText() };
      case 'saved':
        return { id: req.id, state: doc.saved(req.text, req.file) };
      case 'replace':
        return { id: req.id, state: doc.replace(req.text, req.savedText, req.label) };
      case 'warm':
        doc.warm();
        return { id: req.id };
      case 'ping':
        return { id: req.id };
    }
  } catch (e) {
    return { id: req.id, fatal: e instanceof Error ? e.message : String(e) };
  }
}
