// Ports the Brocade ADX knows by name (seed 000): a TCP port here gets its Layer 7 check.
import type { L7Protocol } from './schema';

export const WELL_KNOWN_TCP: Readonly<Record<number, L7Protocol>> = {
  21: 'ftp', 23: 'telnet', 25: 'smtp', 80: 'http', 110: 'pop3', 119: 'nntp', 143: 'imap4',
  389: 'ldap', 443: 'ssl', 554: 'rtsp', 1755: 'mms', 7070: 'pnm',
};
/** UDP ports with a Layer 7 check; every other UDP port gets the L4 UDP check. */
export const WELL_KNOWN_UDP: Readonly<Record<number, L7Protocol>> = { 53: 'dns', 1812: 'radius' };
/** Protocols whose check runs over UDP. */
export const UDP_PROTOCOLS: ReadonlySet<L7Protocol> = new Set(['dns', 'radius']);
