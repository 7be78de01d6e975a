// `server` lines and `bind` addresses as lbdesk models them.
import { isIpAddress } from '../../../shared/model/address';
import { haproxyMs } from './haproxy-proxy';

/** Server keywords that take one argument (everything else is a flag). */
const ONE_ARG = new Set([
  'weight', 'inter', 'fastinter', 'downinter', 'rise', 'fall', 'port', 'addr', 'maxconn', 'minconn', 'maxqueue',
  'slowstart', 'cookie', 'id', 'verify', 'ca-file', 'crt', 'verifyhost', 'check-sni', 'sni', 'agent-port', 'agent-inter',
  'agent-addr', 'agent-send', 'on-error', 'on-marked-down', 'on-marked-up', 'error-limit', 'observe', 'resolvers',
  'resolve-prefer', 'resolve-net', 'resolve-opts', 'init-addr', 'proto', 'alpn', 'check-alpn', 'check-proto', 'ciphers',
  'ciphersuites', 'source', 'usesrc', 'namespace', 'track', 'redir', 'pool-max-conn', 'pool-purge-delay', 'pool-low-conn',
  'max-reuse', 'ws', 'log-proto', 'crl-file', 'curves', 'sigalgs', 'client-sigalgs', 'ssl-min-ver', 'ssl-max-ver',
  'tcp-ut', 'shard', 'guid', 'hash-key', 'socks4', 'set-proxy-v2-tlv-fmt', 'npn', 'check-reuse-pool', 'sni-auto',
]);

export interface ServerOptions {
  /** keyword -> value ('' for flags); the last one wins, as in HAProxy. */
  opts: Map<string, string>;
}

/** The options of `words[from…]`. */
export function serverOptions(words: string[], from = 0): Map<string, string> {
  const opts = new Map<string, string>();
  for (let i = from; i < words.length; i++) {
    const k = words[i]!;
    if (ONE_ARG.has(k)) {
      opts.set(k, words[i + 1] ?? '');
      i++;
    } else if (k.startsWith('no-') && opts.has(k.slice(3))) {
      opts.delete(k.slice(3));
    } else if (k === 'enabled') {
      opts.delete('disabled');
    } else opts.set(k, '');
  }
  return opts;
}

export interface Endpoint {
  address: string;
  port?: number;
}

/** `ADDR[:PORT]` of a server or bind, or the reason lbdesk cannot model it. */
export function parseEndpoint(text: string, wildcard: boolean): Endpoint | { why: string } {
  let t = text;
  let family: 'ipv4' | 'ipv6' | undefined;
  const prefix = /^([a-z0-9+-]+)@/.exec(t);
  if (prefix) {
    if (prefix[1] === 'ipv4' || prefix[1] === 'ipv6') family = prefix[1];
    else return { why: `${prefix[1]}@ addresses (sockets, file descriptors) are not modelled` };
    t = t.slice(prefix[0].length);
  }
  if (t.startsWith('/')) return { why: 'UNIX socket paths are not modelled' };
  let host: string;
  let port: string | undefined;
  const bracket = /^\[([^\]]*)\](?::(.*))?$/.exec(t);
  if (bracket) {
    host = bracket[1]!;
    port = bracket[2];
  } else {
    const colon = t.lastIndexOf(':');
    host = colon < 0 ? t : t.slice(0, colon);
    port = colon < 0 ? undefined : t.slice(colon + 1);
  }
  if (wildcard && (host === '' || host === '*')) host = family === 'ipv6' ? '::' : '0.0.0.0';
  if (wildcard && host === '::' && family === undefined) host = '::';
  if (!isIpAddress(host)) return { why: `"${host}" is not an IP address (host names are not modelled)` };
  if (port === undefined || port === '') return { address: host };
  if (/^[+-]/.test(port)) return { why: `port offset ${port} is not modelled` };
  if (/^\d+-\d+$/.test(port)) return { why: `port range ${port} is not modelled` };
  const n = Number(port);
  if (!/^\d+$/.test(port) || n < 1 || n > 65535) return { why: `port "${port}" is not a port number` };
  return { address: host, port: n };
}

export interface CheckTimers {
  inter: number;
  fastinter: number;
  downinter: number;
  rise: number;
  fall: number;
}

/** A server's check timers as HAProxy applies them (inter 2s, rise 2, fall 3 by default). */
export function checkTimers(opts: Map<string, string>): CheckTimers {
  const ms = (k: string): number | undefined => (opts.has(k) ? haproxyMs(opts.get(k)!) : undefined);
  const int = (k: string): number | undefined => (opts.has(k) && /^\d+$/.test(opts.get(k)!) ? Number(opts.get(k)) : undefined);
  const inter = ms('inter') ?? 2000;
  return { inter, fastinter: ms('fastinter') ?? inter, downinter: ms('downinter') ?? inter, rise: int('rise') ?? 2, fall: int('fall') ?? 3 };
}
