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
}

/** Collects listeners and reports the second of any two that would take the same port. */
export class Bindings {
  private byPort = new Map<string, Binder[]>();
  readonly issues: Issue[] = [];

  add(address: string, port: number, proto: 'tcp' | 'udp', label: string, path: PathSegment[]): void {
    const slot = `${proto}/${port}`;
    const me: Binder = { address, key: normalAddress(address), wildcard: isWildcard(address), family: familyOf(address), label };
    const list = this.byPort.get(slot);
    if (!list) {
      this.byPort.set(slot, [me]);
      return;
    }
    const other = list.find((b) => b.key === me.key || ((b.wildcard || me.wildcard) && b.family === me.family));
    if (other) {
      const where = other.key === me.key ? `${address}:${port}/${proto}` : `port ${port}/${proto} (${other.wildcard ? other.address : address} takes it on every address)`;
      this.issues.push({ severity: 'error', path, message: `${where} is already used by ${other.label}` });
    }
    list.push(me);
  }
}
