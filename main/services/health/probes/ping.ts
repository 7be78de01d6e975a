// ICMP echo through the system `ping` (iputils): the Px default when checks are on but unset.
// Raw ICMP sockets need privileges lbdesk should not ask for; `ping` already has them.
import { spawn } from 'node:child_process';
import type { ProbeContext, ProbeOutcome } from './types';
import { clip, fail, fmtMs, pass, stopwatch } from './util';

export function pingProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const [cmd, ...prefix] = ctx.pingCommand ?? ['ping'];
  const waitS = (Math.max(ctx.timeoutMs, 100) / 1000).toFixed(3);
  const args = [...prefix, '-n', '-c', '1', '-W', waitS, ctx.address];
  return new Promise((resolve) => {
    const elapsed = stopwatch();
    let out = '';
    let err = '';
    let settled = false;
    const finish = (o: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      resolve(o);
    };
    const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // ping enforces -W itself; this only catches a ping that hangs (e.g. on name lookups).
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      finish(fail(`ping did not finish within ${fmtMs(ctx.timeoutMs + 1000)}`, { command: clip(`${cmd} ${args.join(' ')}`) }));
    }, ctx.timeoutMs + 1000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e: NodeJS.ErrnoException) => {
      finish(fail(e.code === 'ENOENT' ? `${cmd} is not installed (install iputils-ping)` : `cannot run ${cmd}: ${e.message}`, { errno: e.code ?? 'error' }));
    });
    child.on('close', (code) => {
      const reply = /^\d+ bytes from .*$/m.exec(out)?.[0];
      const time = /time[=<]([\d.]+) ?ms/.exec(reply ?? '')?.[1];
      const summary = /^\d+ packets transmitted.*$/m.exec(out)?.[0];
      if (code === 0 && reply) {
        const rtt = time === undefined ? elapsed() : Number(time);
        finish(pass(`ICMP echo reply in ${fmtMs(rtt)}`, { reply: clip(reply) }, rtt));
      } else if (code === 1) {
        finish(fail(`no ICMP echo reply within ${fmtMs(ctx.timeoutMs)}`, { exitCode: 1, ...(summary ? { summary: clip(summary) } : {}) }));
      } else {
        const msg = clip(err.trim().split('\n').pop() || out.trim().split('\n').pop() || `exit status ${code}`);
        finish(fail(msg, { exitCode: code ?? -1 }));
      }
    });
  });
}
