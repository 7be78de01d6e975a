// The lab runs on the engineer's laptop: it binds loopback addresses only, so neither a typo nor a
// compromised page can open a relay into the customer's network. `lbdesk serve` binds anything.
import * as ipaddr from 'ipaddr.js';
import type { Workspace } from '../../../shared/model/schema';
import { bindings, buildConfig } from '../engine/config';

export function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

/**
 * The part of the workspace the lab may bind, and a note for each part left out. Services and
 * target sets off loopback are left out whole; then every socket the engine would open for the
 * rest (bindings: a target set's secondary address, its heartbeat, any listener) is checked too.
 */
export function labScope(workspace: Workspace): { workspace: Workspace; notes: string[] } {
  const notes: string[] = [];
  let services = workspace.services.filter((s) => {
    if (isLoopback(s.address)) return true;
    notes.push(`service ${s.name} (${s.address}:${s.port}) is not on a loopback address: not started in the lab (use \`lbdesk serve\` on a machine that owns it)`);
    return false;
  });
  let targetSets = workspace.targetSets.filter((t) => {
    if (isLoopback(t.address)) return true;
    notes.push(`target set ${t.number} (${t.address}) is not on a loopback address: not started in the lab`);
    return false;
  });
  const dropServices = new Set<string>();
  const dropSets = new Set<number>();
  const dropSecondaries = new Set<number>();
  for (const b of bindings(buildConfig({ ...workspace, services, targetSets }))) {
    if (isLoopback(b.address)) continue;
    if (b.targetSet !== undefined && b.secondary) dropSecondaries.add(b.targetSet);
    else if (b.targetSet !== undefined) dropSets.add(b.targetSet);
    else if (b.service !== undefined) dropServices.add(b.service);
  }
  services = services.filter((s) => {
    if (!dropServices.has(s.name)) return true;
    notes.push(`service ${s.name} binds an address that is not loopback: not started in the lab`);
    return false;
  });
  targetSets = targetSets.flatMap((t) => {
    if (dropSets.has(t.number)) {
      notes.push(`target set ${t.number} binds an address that is not loopback: not started in the lab`);
      return [];
    }
    if (!dropSecondaries.has(t.number)) return [t];
    notes.push(`target set ${t.number}: secondary address ${t.secondaryAddress} is not on a loopback address: not bound in the lab (its primary ${t.address} is)`);
    const { secondaryAddress: _left, ...rest } = t;
    return [rest];
  });
  const scoped = { ...workspace, services, targetSets };
  // Nothing off loopback may remain: a listener kind the lines above do not know is a bug, refused.
  const stray = bindings(buildConfig(scoped)).find((b) => !isLoopback(b.address));
  if (stray) throw new Error(`the lab would bind ${stray.address}:${stray.port}/${stray.protocol}, which is not loopback: refused`);
  return { workspace: scoped, notes };
}
