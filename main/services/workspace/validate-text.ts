// Validation off the event loop: text past a few kilobytes is validated in a worker thread
// (validate-thread.ts), one request at a time, so a 4 MB workspace does not stop every other
// call, event and timer of the process for seconds. Small text is quicker validated here.
import type { Worker } from 'node:worker_threads';
import type { Problem } from '../../../shared/model/problem';
import { parseWorkspace } from '../../../shared/model/validate';
import { startWorker, workerPath } from '../workers';

/** Below this many characters the thread's round trip costs more than the validation. */
export const INLINE_BELOW = 64 * 1024;

type Reply = { id: number; problems: Problem[] } | { id: number; error: string };
interface Waiting { done(p: Problem[]): void; fail(e: Error): void }

let thread: Worker | undefined;
const waiting = new Map<number, Waiting>();
let nextId = 1;

function start(): Worker | undefined {
  if (thread) return thread;
  let w: Worker;
  try {
    w = startWorker(workerPath('validate-worker', process.env.LBDESK_VALIDATE_WORKER));
  } catch {
    return undefined; // no thread code: validated on this thread
  }
  w.unref();
  w.on('message', (r: Reply) => {
    const wait = waiting.get(r.id);
    waiting.delete(r.id);
    if (waiting.size === 0) w.unref();
    if (!wait) return;
    if ('error' in r) wait.fail(new Error(r.error));
    else wait.done(r.problems);
  });
  const lost = (why: string) => {
    if (thread === w) thread = undefined;
    for (const wait of waiting.values()) wait.fail(new Error(`the validation thread stopped: ${why}`));
    waiting.clear();
  };
  w.on('error', (e) => lost(e.message));
  w.on('exit', (code) => lost(`exit code ${code}`));
  thread = w;
  return w;
}

/** The problems of workspace text, as parseWorkspace gives them, validated off this thread when big. */
export function validateText(text: string, path: string): Promise<Problem[]> {
  const w = text.length < INLINE_BELOW ? undefined : start();
  if (!w) return Promise.resolve(parseWorkspace(text, path).problems);
  const id = nextId++;
  return new Promise((done, fail) => {
    waiting.set(id, { done, fail });
    // Held while it works: a command that waits for the answer does not exit before it.
    w.ref();
    w.postMessage({ id, text, path });
  });
}
