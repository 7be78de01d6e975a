// isIPv6 runs a long regular expression; the data path and the health checks ask it for the
// same few addresses thousands of times a second, so each answer is remembered.
import { isIPv6 } from 'node:net';

const families = new Map<string, boolean>();

export function isV6(address: string): boolean {
  let f = families.get(address);
  if (f === undefined) {
    f = isIPv6(address);
    if (families.size > 50_000) families.clear();
    families.set(address, f);
  }
  return f;
}
