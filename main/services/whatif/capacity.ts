// The change report's capacity lines: each service and target set the workspace leaves with one
// member or none able to take new connections (disabled servers and weight 0 count as none).
import type { Workspace } from '../../../shared/model/schema';
import { whatIf } from './whatif';

export function thinPools(workspace: Workspace): string[] {
  return whatIf(workspace, [], { shares: false }).pools.filter((p) => p.left <= 1).map((p) => {
    const left = p.members.filter((m) => m.state === 'left').map((m) => m.name);
    const out = p.members.filter((m) => m.state !== 'left').map((m) => `${m.name} ${m.state}`);
    const why = out.length ? ` (${out.join(', ')})` : '';
    return p.left === 0
      ? `this change leaves ${p.name} with no member${why}`
      : `this change leaves ${p.name} with one member, ${left[0] ?? ''}${why}`;
  });
}
