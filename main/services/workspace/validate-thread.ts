// The validation thread: a big workspace is parsed and checked here, so the process that asked
// (the app's main process, the browser-mode host) keeps answering other calls meanwhile.
// Messages: { id, text, path } in, { id, problems } or { id, error } out.
import { parentPort } from 'node:worker_threads';
import { parseWorkspace } from '../../../shared/model/validate';

const port = parentPort!;
port.on('message', ({ id, text, path }: { id: number; text: string; path: string }) => {
  try {
    port.postMessage({ id, problems: parseWorkspace(text, path).problems });
  } catch (err) {
    port.postMessage({ id, error: (err as Error).message });
  }
});
