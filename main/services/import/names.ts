// Workspace names from config names: legal (1-63 of [A-Za-z0-9._-], starting alphanumeric) and
// unique within their kind, never taking a name the workspace already has.
export function legalName(raw: string): string {
  let n = raw.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  if (!n) n = 'x';
  return n.slice(0, 63);
}

export class NameSpace {
  private readonly used = new Set<string>();
  constructor(taken: Iterable<string> = []) {
    for (const t of taken) this.used.add(t);
  }
  has(name: string): boolean {
    return this.used.has(name);
  }
  /** A legal, unused name close to `raw`; `-2`, `-3`… when it is taken. */
  take(raw: string): string {
    const base = legalName(raw);
    let name = base;
    for (let i = 2; this.used.has(name); i++) {
      const suffix = `-${i}`;
      name = base.slice(0, 63 - suffix.length) + suffix;
    }
    this.used.add(name);
    return name;
  }
}
