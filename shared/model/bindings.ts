// Address:port clashes between everything that listens: services and target sets.
import type { PathSegment } from './problem';
import type { Issue } from './issues';
import { familyOf, isWildcard, normalAddress } from './address';

interface Binder {
  address: string;
  key: string;
  wildcard: boolean;
  family?: string;
  label: string;
  path: PathSegment[];
}

/**
 * Collects listeners and reports any two that would take the same port, on both of them (each
 * naming the other), so the field being edited shows the clash whichever of the two it is.
 */
export class Bindings {
  private byPort = new Map<string, Binder[]>();
  /** Earlier listeners already told about a clash (once is enough). */
  private told = new Set<Binder>();
  readonly issues: Issue[] = [];

  add(address: string, port: number, proto: 'tcp' | 'udp', label: string, path: PathSegment[]): void {
    const slot = `${proto}/${port}`;
    const me: Binder = { address, key: normalAddress(address), wildcard: isWildcard(address), family: familyOf(address), label, path };
    const list = this.byPort.get(slot);
    if (!list) {
      this.byPort.set(slot, [me]);
      return;
    }
    const other = list.find((b) => b.key === me.key || ((b.wildcard || me.wildcard) && b.family === me.family));
    if (other) {
      const same = other.key === me.key;
      const every = `port ${port}/${proto} (${other.wildcard ? other.address : address} takes it on every address)`;
      this.issues.push({ severity: 'error', path, message: `${same ? `${hostPort(address, port)}/${proto}` : every} is already used by ${other.label}` });
      if (!this.told.has(other)) {
        this.told.add(other);
        this.issues.push({ severity: 'error', path: other.path, message: `${same ? `${hostPort(other.address, port)}/${proto}` : every} is also used by ${label}` });
      }
    }
    list.push(me);
  }
}

/** `address:port`, an IPv6 address in brackets (`[::1]:8080`, not the ambiguous `::1:8080`). */
function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

