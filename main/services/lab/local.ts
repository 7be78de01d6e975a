// The lab runs on the engineer's laptop: it binds loopback addresses only, so neither a typo nor a
// compromised page can open a relay into the customer's network. `lbdesk serve` binds anything.
import * as ipaddr from 'ipaddr.js';
import type { Workspace } from '../../../shared/model/schema';

export function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

/** The part of the workspace the lab may bind, and a note for each part left out. */
export function labScope(workspace: Workspace): { workspace: Workspace; notes: string[] } {
  const notes: string[] = [];
  const services = workspace.services.filter((s) => {
    if (isLoopback(s.address)) return true;
    notes.push(`service ${s.name} (${s.address}:${s.port}) is not on a loopback address: not started in the lab (use \`lbdesk serve\` on a machine that owns it)`);
    return false;
  });
  const targetSets = workspace.targetSets.filter((t) => {
    if (isLoopback(t.address)) return true;
    notes.push(`target set ${t.number} (${t.address}) is not on a loopback address: not started in the lab`);
    return false;
  });
  return { workspace: { ...workspace, services, targetSets }, notes };
}
