// Every TCP address a haproxy.cfg listens on (its `bind` lines, kept sections included), so the
// push's verify tries the site's own TLS frontend and stats listener, not only lbdesk's VIPs.
import { parseHaproxy } from '../../import/haproxy-parse';

const LISTENING = new Set(['frontend', 'listen']);

/** One bind address (`1.2.3.4:80`, `:443`, `*:80`, `[::1]:80`, `ipv4@…`); undefined for sockets and files. */
function bindAddress(spec: string): { address: string; port: number } | undefined {
  const s = spec.replace(/^(ipv4|ipv6|tcp|tcp4|tcp6)@/, '');
  if (/^[a-z0-9]+@/.test(s) || s.startsWith('/')) return undefined;
  const m = /^\[([^\]]+)\]:(\d+)(?:-\d+)?$/.exec(s) ?? /^([^\s]*):(\d+)(?:-\d+)?$/.exec(s);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (!(port > 0 && port < 65536)) return undefined;
  // A wildcard bind is tried on loopback: that is where the appliance itself reaches it.
  const host = m[1]!;
  const address = host === '' || host === '*' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return { address, port };
}

export function haproxyListeners(text: string): { address: string; port: number }[] {
  let cfg;
  try {
    cfg = parseHaproxy(text, 'haproxy.cfg');
  } catch {
    return [];
  }
  const out = new Map<string, { address: string; port: number }>();
  for (const section of cfg.sections) {
    if (!LISTENING.has(section.kind)) continue;
    for (const line of section.body) {
      const words = line.words.map((w) => w.text);
      if (words[0] !== 'bind' || !words[1]) continue;
      for (const spec of words[1].split(',')) {
        const a = bindAddress(spec);
        if (a) out.set(`${a.address}\t${a.port}`, a);
      }
    }
  }
  return [...out.values()];
}
