// ADX (ServerIron) at run time: `show server real` parsed into members (one per real server
// port), and the real-server commands that drain, stop or restore one, never saved.
//   drain  `port P disable`: the port takes no new connections, those open go on to their end
//   maint  `disable`: the whole real server out of service (every port: the ADX has no forced
//          per-port stop), `port P disable` too
//   ready  `no port P disable` (and `enable` when the server was disabled)
import type { BoxMember, LiveAdmin, LiveDialect } from '../live';
import { splitAdxWords } from './parse';
import { portNumber } from './ports';

/** Port state codes, as the legend at the top of `show server real` spells them. */
const PORT_STATES: Record<string, string> = {
  ACT: 'active', ENB: 'enabled', FAL: 'failed', TST: 'test', DIS: 'disabled', UNK: 'unknown',
  UNB: 'unbind', AWU: 'await-unbind', AWD: 'await-shutdown',
};

// `Name: rs2    IP:192.0.2.11     : 1 : St: Active    Wt: 1 : 0  Max-conn: 1000000`
const HEAD = /^Name:\s*(\S+)\s+IP:\s*(\S+)\s*:.*?St:\s*([A-Za-z-]+)\s+Wt:\s*(\d+)/;
// `       http    ACT 0  3       10      0        0        0         0         0`
const PORT = /^\s+(\S+)\s+([A-Z]{3})\s+\d+\s+(\d+)\s+\d+/;

export function parseShowServerReal(text: string): BoxMember[] {
  const out: BoxMember[] = [];
  let real: { name: string; address: string; state: string; weight: number } | undefined;
  for (const line of text.split('\n')) {
    const h = HEAD.exec(line);
    if (h) {
      real = { name: h[1]!, address: h[2]!, state: h[3]!, weight: Number(h[4]) };
      continue;
    }
    const p = PORT.exec(line);
    if (!real || !p || p[1] === 'Port' || p[1] === 'Server') continue;
    const code = p[2]!;
    const port = portNumber(p[1]!);
    if (port === undefined) continue;   // `default`: the template for ports not named
    const disabledServer = /^disabled$/i.test(real.state);
    const admin: LiveAdmin = disabledServer ? 'maint' : code === 'DIS' || code === 'AWD' ? 'drain' : 'ready';
    const health = code === 'ACT' ? 'up' : code === 'FAL' || code === 'TST' ? 'down' : 'no-check';
    out.push({
      object: real.name, address: real.address, port, admin, health, sessions: Number(p[3]), weight: real.weight,
      check: `port ${p[1]} ${code} (${PORT_STATES[code] ?? 'unknown code'}), server ${real.state}`, on: `real ${real.name} port ${p[1]}`,
    });
  }
  return out;
}

const realName = (name: string) => (/[\s"]/.test(name) ? `"${name.replace(/"/g, '')}"` : name);

export const adxLive: LiveDialect = {
  show: ['show server real'],
  parse: ([text]) => parseShowServerReal(text ?? ''),
  change(m, admin) {
    const port = splitAdxWords(m.on)[3]!;
    const body = admin === 'drain' ? [`port ${port} disable`]
      : admin === 'maint' ? [`port ${port} disable`, 'disable']
        : [`no port ${port} disable`, ...(m.admin === 'maint' ? ['enable'] : [])];
    return ['configure terminal', `server real ${realName(m.object)}`, ...body, 'end'];
  },
};
