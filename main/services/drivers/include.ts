// Which services and target sets an appliance serves: its include list, or everything.
import type { Appliance, Service, TargetSet, Workspace } from '../../../shared/model/schema';
import { parseTargetSetIncludeName, targetSetIncludeName } from '../../../shared/model/ipfe';
import type { DriverProblem } from './types';

export interface Included {
  /** In workspace order, whatever the order of the include list. */
  services: Service[];
  targetSets: TargetSet[];
  /** Include names that match nothing, or match both a service and a target set. */
  errors: DriverProblem[];
}

export { parseTargetSetIncludeName, targetSetIncludeName };

export function selectIncluded(workspace: Workspace, appliance: Appliance): Included {
  if (appliance.include === undefined) return { services: [...workspace.services], targetSets: [...workspace.targetSets], errors: [] };
  const errors: DriverProblem[] = [];
  const serviceNames = new Set<string>();
  const setNumbers = new Set<number>();
  for (const name of appliance.include) {
    const service = workspace.services.find((s) => s.name === name);
    const num = parseTargetSetIncludeName(name);
    const set = num === undefined ? undefined : workspace.targetSets.find((t) => t.number === num);
    if (service && set) {
      errors.push({ subject: `include "${name}"`, message: `names both service ${name} and target set ${set.number}; rename the service` });
    } else if (service) {
      serviceNames.add(name);
    } else if (set) {
      setNumbers.add(set.number);
    } else {
      const known = [...workspace.services.map((s) => s.name), ...workspace.targetSets.map((t) => targetSetIncludeName(t.number))];
      errors.push({
        subject: `include "${name}"`,
        message: `no service or target set of that name (known: ${known.length ? known.join(', ') : 'none'})`,
      });
    }
  }
  return {
    services: workspace.services.filter((s) => serviceNames.has(s.name)),
    targetSets: workspace.targetSets.filter((t) => setNumbers.has(t.number)),
    errors,
  };
}
