// Which servers may take a new connection (seed 002): available ones first, degraded ones only
// when none is available, never unavailable, unknown (not yet checked) or disabled ones.
// Weight 0 means "no new connections" for every algorithm (IPFE: a 0 share). The forwarding
// engine picks from this tier; the window shows each member's share of it.

export interface TierMember {
  readonly weight: number;
  readonly state: string;
}

export function isUsable(c: TierMember): boolean {
  return c.weight > 0 && (c.state === 'available' || c.state === 'degraded');
}

/** The available servers, else the degraded ones, in configuration order; empty when none can serve. */
export function usableTier<T extends TierMember>(members: readonly T[]): T[] {
  const available: T[] = [];
  const degraded: T[] = [];
  for (const m of members) {
    if (m.weight <= 0) continue;
    if (m.state === 'available') available.push(m);
    else if (m.state === 'degraded') degraded.push(m);
  }
  return available.length > 0 ? available : degraded;
}
