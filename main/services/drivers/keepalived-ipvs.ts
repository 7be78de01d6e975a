// keepalived's data plane at run time: the kernel's IPVS table as `ipvsadm -Ln` prints it (one
// block per virtual service, a `->` row per real server: forward method, weight, active and
// inactive connections), and the commands that drain and restore a real server in it.

export interface IpvsReal {
  /** `TCP 192.0.2.10:80` (`FWM 3` for a firewall mark). */
  service: string;
  protocol: 'tcp' | 'udp' | 'sctp' | 'fwm';
  vip: string;
  address: string;
  port: number;
  forward: string;
  weight: number;
  active: number;
  inactive: number;
}

/** `[2001:db8::1]:80` or `192.0.2.1:80` -> address and port. */
function hostPort(word: string): { address: string; port: number } | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(word);
  return m ? { address: m[1]!, port: Number(m[2]) } : undefined;
}

export function parseIpvsadm(text: string): IpvsReal[] {
  const out: IpvsReal[] = [];
  let service: { name: string; protocol: IpvsReal['protocol']; vip: string } | undefined;
  for (const line of text.split('\n')) {
    const v = /^(TCP|UDP|SCTP|FWM)\s+(\S+)/.exec(line);
    if (v) {
      service = { name: `${v[1]} ${v[2]}`, protocol: v[1]!.toLowerCase() as IpvsReal['protocol'], vip: v[2]! };
      continue;
    }
    const r = /^\s+->\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$/.exec(line);
    const at = r ? hostPort(r[1]!) : undefined;
    if (!service || !r || !at) continue;   // the header's `-> RemoteAddress:Port` row has no numbers
    out.push({ service: service.name, protocol: service.protocol, vip: service.vip, ...at, forward: r[2]!, weight: Number(r[3]), active: Number(r[4]), inactive: Number(r[5]) });
  }
  return out;
}

const flag: Record<IpvsReal['protocol'], string> = { tcp: '-t', udp: '-u', sctp: '--sctp-service', fwm: '-f' };
const FORWARD: Record<string, string> = { Route: '-g', Masq: '-m', Tunnel: '-i' };

/** `ipvsadm -e` arguments setting a real server's weight, keeping its forward method. */
export function ipvsWeightArgs(r: IpvsReal, weight: number): string[] {
  const real = r.address.includes(':') ? `[${r.address}]:${r.port}` : `${r.address}:${r.port}`;
  return ['-e', flag[r.protocol], r.vip, '-r', real, ...(FORWARD[r.forward] ? [FORWARD[r.forward]!] : []), '-w', String(weight)];
}

/** Why the box cannot show IPVS, from the probe's first line; undefined when it can. */
export function noIpvs(probe: string): string | undefined {
  const first = probe.split('\n')[0]!.trim();
  if (first === 'NO-IPVS') return 'the kernel on this box has no IPVS (/proc/net/ip_vs is missing: the ip_vs module is not loaded), so keepalived balances nothing here to show or drain';
  if (first === 'NO-IPVSADM') return 'the kernel has IPVS but ipvsadm is not installed on the box: lbdesk reads and changes the IPVS table with it';
  return undefined;
}

/** Prints NO-IPVS / NO-IPVSADM, else the table: `$@` is `-Ln` (read) or the `-e …` change. */
export const IPVS_SCRIPT = '[ -e /proc/net/ip_vs ] || { echo NO-IPVS; exit 0; }; command -v ipvsadm >/dev/null 2>&1 || { echo NO-IPVSADM; exit 0; }; exec ipvsadm "$@"';
