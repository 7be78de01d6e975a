// A10 ACOS at run time: `show slb server` (each server port's current connections and state)
// beside the running config (addresses, and what is disabled: the box's admin state is its
// running config), and the slb server commands that drain, stop or restore one, never saved:
//   drain  `port P PROTO` / `disable`: the port takes no new connections; those open go on as
//          the box's graceful-shutdown setting lets them
//   maint  the port disabled, then `disable` on the server: out of service on every port
//   ready  `port P PROTO` / `enable` (and `enable` on the server when it was disabled)
// The layout of `show slb server` is ACOS 4.1's, as a vThunder (4.1.4-GR1) prints it in a public
// A10 Ansible workshop (exercises 1.6 and 1.7, a server enabled and then disabled; read through
// the search tool's code corpus, file ids 15470687201 and 15210627066):
//   Service                   Current    Total      Fwd-pkt    Rev-pkt    Peak-conn  State
//   s1:80/tcp                 0          2          12         8          0          Up
//   s2:80/tcp                 0          2          12         8          0          Down
//   s2: Total                 0          2          12         8          0          Disabled
import type { BoxMember, LiveAdmin, LiveDialect } from '../live';
import { parseA10, quoteName } from './parse';

interface Row { server: string; port?: number; proto?: string; current: number; state: string }

// `s1:80/tcp   0  2  12  8  0  Up` and `s1: Total   0  2  12  8  0  Up`.
const ROW = /^(\S+?):(?:(\d+)\/(\w+)|\s+Total)\s+(\d+)\s+\d+\s+\d+\s+\d+\s+\d+\s+(\S.*?)\s*$/;

export function parseShowSlbServer(text: string): Row[] {
  return text.split('\n').flatMap((l) => {
    const m = ROW.exec(l.replace(/\r$/, ''));
    if (!m) return [];
    return [{ server: m[1]!, ...(m[2] ? { port: Number(m[2]), proto: m[3]! } : {}), current: Number(m[4]), state: m[5]! }];
  });
}

export function a10Members(show: string, running: string): BoxMember[] {
  const cfg = parseA10(running);
  const rows = parseShowSlbServer(show);
  return cfg.servers.flatMap((s) => {
    const total = rows.find((r) => r.server === s.name && r.port === undefined);
    return s.ports.map((p): BoxMember => {
      const row = rows.find((r) => r.server === s.name && r.port === p.port && r.proto === p.proto);
      const state = row?.state ?? 'not shown';
      const admin: LiveAdmin = s.disabled || /^disabled$/i.test(total?.state ?? '') ? 'maint' : p.disabled || /^disabled$/i.test(state) ? 'drain' : 'ready';
      const health = admin !== 'ready' ? 'no-check' : /^up$/i.test(state) ? 'up' : /^down$/i.test(state) ? 'down' : 'no-check';
      return {
        object: s.name, address: s.address, port: p.port, admin, health,
        ...(row ? { sessions: row.current } : {}),
        ...(s.weight === undefined ? {} : { weight: s.weight }),
        check: `port ${p.port}/${p.proto} ${state}, server ${total?.state ?? 'not shown'}`,
        on: `slb server ${s.name} port ${p.port} ${p.proto}`,
      };
    });
  });
}

export const a10Live: LiveDialect = {
  show: ['show slb server', 'show running-config'],
  parse: ([show, running]) => a10Members(show ?? '', running ?? ''),
  change(m, admin) {
    const proto = m.on.split(' ').pop()!;
    const port = `port ${m.port} ${proto}`;
    const body = admin === 'drain' ? [port, 'disable', 'exit']
      : admin === 'maint' ? [port, 'disable', 'exit', 'disable']
        : [port, 'enable', 'exit', ...(m.admin === 'maint' ? ['enable'] : [])];
    return ['configure terminal', `slb server ${quoteName(m.object)}`, ...body, 'end'];
  },
};
