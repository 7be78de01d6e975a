// lbdesk on the appliance: the served part of the workspace as a workspace of its own, run there
// by `lbdesk serve` (reloaded with SIGHUP). No appliances section: hosts and keys stay home.
import { stringify } from 'yaml';
import { secretsNamed } from '../../../shared/model/checks';
import { formatDuration } from '../../../shared/model/duration';
import { targetSetSchema, type Appliance, type HealthCheck, type Service, type TargetSet, type Workspace } from '../../../shared/model/schema';
import { withHeader } from './header';
import { selectIncluded } from './include';
import type { Driver, DriverProblem, RenderResult } from './types';

/** Fields that hold durations (milliseconds once parsed); written back in the file's spelling. */
const DURATION_KEYS = new Set(['interval', 'retryInterval', 'timeout', 'degradedAbove', 'availableBelow', 'idleTimeout', 'ttl']);

/** The parsed workspace back in file form: durations as `30s`, `500ms`, nothing undefined. */
function toFileForm(value: unknown, key?: string): unknown {
  if (typeof value === 'number' && key !== undefined && DURATION_KEYS.has(key)) return formatDuration(value);
  if (Array.isArray(value)) return value.map((v) => toFileForm(v));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toFileForm(v, k);
    return out;
  }
  return value;
}

/**
 * A target set as written in a file: without the fields parsing derives (standbyIpfe, …), nor
 * the least-load settings a hash set ignores (the appliance's validate would warn of them).
 */
function targetSetFileForm(t: TargetSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(targetSetSchema.shape)) out[key] = (t as Record<string, unknown>)[key];
  if (t.algorithm === 'hash') {
    delete out.leastLoad;
    delete out.peerNodeAware;
  }
  return out;
}

/** A service as written in a file: no persistence timeout without persistence (it would warn). */
function serviceFileForm(s: Service): Service | Omit<Service, 'persistence'> {
  if (s.persistence.type !== 'none') return s;
  const { persistence: _none, ...rest } = s;
  return rest;
}

/** The part of the workspace an appliance serves, as a complete workspace. */
export function servedWorkspace(full: Workspace, appliance: Appliance): { workspace: Workspace; errors: DriverProblem[]; warnings: DriverProblem[] } {
  const included = selectIncluded(full, appliance);
  const errors = [...included.errors];
  const warnings: DriverProblem[] = [];
  const groupNames = new Set(included.services.map((s) => s.group));
  for (const s of included.services) {
    if (!full.groups.some((g) => g.name === s.group)) errors.push({ subject: `service ${s.name}`, message: `group "${s.group}" does not exist` });
  }
  const groups = full.groups.filter((g) => groupNames.has(g.name));
  const serverNames = new Set(groups.flatMap((g) => g.members.map((m) => m.server)));
  for (const g of groups) {
    for (const m of g.members) {
      if (!full.servers.some((s) => s.name === m.server)) errors.push({ subject: `group ${g.name}`, message: `member server "${m.server}" does not exist` });
    }
  }
  const checks: [string, HealthCheck | undefined][] = [
    ...groups.map((g): [string, HealthCheck] => [`group ${g.name}`, g.healthCheck]),
    ...included.targetSets.map((t): [string, HealthCheck | undefined] => [`target set ${t.number}`, t.healthCheck]),
  ];
  for (const [subject, hc] of checks) {
    for (const name of secretsNamed(hc)) {
      warnings.push({ subject, message: `the check needs secret "${name}" in the appliance's secret store (secrets are never pushed)` });
    }
  }
  const workspace: Workspace = {
    lbdesk: 1,
    name: full.name,
    description: full.description,
    healthTimers: full.healthTimers,
    servers: full.servers.filter((s) => serverNames.has(s.name)),
    groups,
    services: included.services,
    targetSets: included.targetSets,
    appliances: [],
    pairs: [],
  };
  return { workspace, errors, warnings };
}

export function renderLbdesk(full: Workspace, appliance: Appliance): RenderResult {
  const { workspace, errors, warnings } = servedWorkspace(full, appliance);
  if (errors.length) return { text: '', errors, warnings };
  const { appliances: _omit, pairs: _pairs, targetSets, services, ...rest } = workspace;
  const file = { ...rest, services: services.map(serviceFileForm), targetSets: targetSets.map(targetSetFileForm) };
  const yaml = stringify(toFileForm(file), { lineWidth: 0, aliasDuplicateObjects: false });
  const intro = `# Rendered by lbdesk for \`lbdesk serve\`; edits here are overwritten by the next push.\n`;
  return { text: withHeader({ workspace: full.name, appliance: appliance.name, driver: 'lbdesk' }, intro + yaml), errors, warnings };
}

export const lbdeskDriver: Driver = {
  name: 'lbdesk',
  defaults: {
    configPath: '/etc/lbdesk/workspace.yaml',
    validateCommand: 'lbdesk validate {file}',
    reloadCommand: 'systemctl reload lbdesk',
  },
  render: (workspace, appliance) => renderLbdesk(workspace, appliance),
  volatile: [],
  runsHere: () => 'the lbdesk driver runs lbdesk itself: the lab is the appliance, there is nothing to compare',
};
