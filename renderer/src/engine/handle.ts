// One request to the engine, one response: the same in a worker and in-process.
import type { DocEngine } from './engine';
import type { Request, Response } from './protocol';

export function handle(engine: DocEngine, req: Request): Response {
  try {
    switch (req.kind) {
      case 'load':
        return { id: req.id, state: engine.load(req.text, req.file, req.savedText) };
      case 'edit':
        return { id: req.id, state: engine.edit(req.batches) };
      case 'undo':
        return { id: req.id, state: engine.undo() };
      case 'redo':
        return { id: req.id, state: engine.redo() };
      case 'normalise': {
        const r = engine.normalise();
        return { id: req.id, state: r.state, changes: r.changes };
      }
      case 'text':
        return { id: req.id, text: engine.currentText() };
      case 'saved':
        return { id: req.id, state: engine.saved(req.text, req.file) };
      case 'warm':
        engine.warm();
        return { id: req.id };
      case 'ping':
        return { id: req.id };
    }
  } catch (e) {
    return { id: req.id, fatal: e instanceof Error ? e.message : String(e) };
  }
}
