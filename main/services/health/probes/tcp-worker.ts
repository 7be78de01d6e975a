// The probe thread: TCP Layer 4 handshakes for the health checker's thread, in batches. Most
// of a handshake's cost is the kernel's (socket, connect, the loopback SYN/SYN-ACK run in the
// caller, the RST on close): here it runs beside the health checker instead of on its loop.
// Messages: tcp-protocol.ts.
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { loadUv, NOT_PROBED, uvConnect } from './tcp-connect';
import { Numbers, REQ, type ProbeBatch } from './tcp-protocol';

const port = parentPort!;
const uv = loadUv();
const addresses: string[] = [];
const out = new Numbers((n) => new Float64Array(n));
let flushing = false;

// One message per loop turn, whatever number of handshakes ended in it.
function flush(): void {
  flushing = false;
  const batch = out.take();
  port.postMessage(batch, [batch.buffer]);
}

function report(id: number, status: number, ms: number, waitMs: number): void {
  out.push4(id, status, ms, waitMs);
  if (!flushing) {
    flushing = true;
    setImmediate(flush);
  }
}

port.on('message', ({ at, addresses: added, req }: ProbeBatch) => {
  for (const a of added) addresses.push(a);
  for (let i = 0; i + REQ <= req.length; i += REQ) {
    const id = req[i]!;
    if (!uv) {
      report(id, NOT_PROBED, 0, 0);
      continue;
    }
    const waitMs = Math.max(0, Math.round((performance.timeOrigin + performance.now() - at) * 100) / 100);
    uvConnect(uv, addresses[req[i + 1]!]!, req[i + 2]!, req[i + 3]!, (status, ms) => report(id, status, ms, waitMs));
  }
});
port.postMessage('ready');
