// Which program holds an address the lab could not bind: the listening socket in /proc/net/tcp
// (or udp), then the process whose fd is that socket. Only processes this user may read are
// found (another user's, or any on a system without /proc, stay unknown: said so, not guessed).
import { readdir, readFile, readlink } from 'node:fs/promises';
import { isIPv6 } from 'node:net';

/** `/proc/net/tcp` writes an IPv4 address as one little-endian word in hex. */
function procAddress(address: string): string {
  if (!isIPv6(address)) return address.split('.').map((o) => Number(o).toString(16).padStart(2, '0')).reverse().join('').toUpperCase();
  const full = expand(address);
  // Four 32-bit words, each little-endian.
  const words = full.match(/.{8}/g)!;
  return words.map((w) => w.match(/../g)!.reverse().join('')).join('').toUpperCase();
}

function expand(v6: string): string {
  const [head, tail = ''] = v6.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = v6.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.map((g) => g.padStart(4, '0')).join('');
}

/** The socket inodes bound to address:port (listening for TCP, any for UDP). */
async function inodes(address: string, port: number, protocol: 'tcp' | 'udp'): Promise<Set<string>> {
  const want = `${procAddress(address)}:${port.toString(16).padStart(4, '0').toUpperCase()}`;
  const anyV4 = `00000000:${port.toString(16).padStart(4, '0').toUpperCase()}`;
  const found = new Set<string>();
  for (const file of [`/proc/net/${protocol}`, `/proc/net/${protocol}6`]) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if ((f[1] === want || f[1] === anyV4) && (protocol === 'udp' || f[3] === '0A')) found.add(f[9]!);
    }
  }
  return found;
}

export interface Holder { pid: number; command: string }

/** The process listening on address:port, when this user may see it. */
export async function addressHolder(address: string, port: number, protocol: 'tcp' | 'udp'): Promise<Holder | undefined> {
  const wanted = await inodes(address, port, protocol);
  wanted.delete('0');
  if (!wanted.size) return undefined;
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((p) => /^\d+$/.test(p));
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && wanted.has(inode)) {
        const command = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim();
        return { pid: Number(pid), command };
      }
    }
  }
  return undefined;
}
