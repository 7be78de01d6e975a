// ADX application port names (the CLI prints a well-known port by its name, seed 000).
const NAMES: Record<string, number> = {
  ftp: 21, telnet: 23, smtp: 25, dns: 53, http: 80, pop3: 110, nntp: 119, imap4: 143,
  ldap: 389, ssl: 443, rtsp: 554, mms: 1755, radius: 1812, pnm: 7070,
};
const BY_NUMBER = new Map(Object.entries(NAMES).map(([k, v]) => [v, k]));
/** UDP application ports: DNS and RADIUS (the rest are TCP). */
const UDP = new Set(['dns', 'radius']);

/** The port number of `http` or `8080`; undefined for a word that is neither. */
export function portNumber(word: string): number | undefined {
  if (word in NAMES) return NAMES[word];
  const n = Number(word);
  return /^\d+$/.test(word) && n >= 1 && n <= 65535 ? n : undefined;
}

/** How the ADX writes a port: its name when it has one. */
export function portWord(port: number): string {
  return BY_NUMBER.get(port) ?? String(port);
}

export function portProtocol(word: string): 'tcp' | 'udp' {
  return UDP.has(word) ? 'udp' : 'tcp';
}
