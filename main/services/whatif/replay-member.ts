// Replay for one member of a workspace: its own timers are the recorded ones (server > group >
// global > default), its group's degraded thresholds apply to both runs, and HAProxy log lines
// are picked by the backends lbdesk renders for its group (the group's services, by name).
import type { ReplayReport, ReplayTimers } from '../../../shared/api/whatif';
import { resolveTimers } from '../../../shared/model/resolve';
import type { HealthCheck, HealthTimersInput, Workspace } from '../../../shared/model/schema';
import { resolveFailure, UnknownFailure } from './names';
import { replay } from './replay';
import { parseTrace } from './trace';

export interface ReplayAsk {
  member: string;
  /** The history: the lab's JSON or HAProxy log lines, and the name errors quote. */
  text: string;
  file: string;
  /** The timers to replay under; any left out stay the member's own. */
  timers: Partial<ReplayTimers>;
  /** Year of syslog time stamps (they carry none). */
  year: number;
}

interface Found { timers: HealthTimersInput | undefined; group: HealthTimersInput | undefined; check: HealthCheck | undefined; backends: string[]; server: string }

function find(workspace: Workspace, name: string): Found {
  const f = resolveFailure(workspace, name);
  const key = f.members[0];
  if (f.kind !== 'member' || f.members.length !== 1 || !key) throw new UnknownFailure(`--member takes one member, GROUP/SERVER[:PORT] or N/ADDRESS, not ${name}${f.members.length > 1 ? ` (${f.members.length} members)` : ''}`);
  if (key.startsWith('ts:')) {
    const t = workspace.targetSets.find((x) => key.startsWith(`ts:${x.number}/`))!;
    return { timers: undefined, group: t.healthTimers, check: t.healthCheck, backends: [`ts${t.number}`], server: key.slice(key.indexOf('/') + 1) };
  }
  const group = key.slice(2, key.indexOf('/'));
  const server = key.slice(key.indexOf('/') + 1, key.lastIndexOf(':'));
  const g = workspace.groups.find((x) => x.name === group)!;
  const s = workspace.servers.find((x) => x.name === server);
  return { timers: s?.healthTimers, group: g.healthTimers, check: g.healthCheck, backends: [group, ...workspace.services.filter((x) => x.group === group).map((x) => x.name)], server };
}

export function replayMember(workspace: Workspace, ask: ReplayAsk): ReplayReport {
  const found = find(workspace, ask.member);
  const own = resolveTimers({ server: found.timers, group: found.group, global: workspace.healthTimers });
  const recorded: ReplayTimers = { interval: own.interval, retryInterval: own.retryInterval, failAfter: own.failAfter, restoreAfter: own.restoreAfter, timeout: own.timeout };
  const trace = parseTrace(ask.text, ask.file, { backends: found.backends, server: found.server }, ask.year);
  const thresholds = {
    ...(found.check?.degradedAbove !== undefined ? { degradedAbove: found.check.degradedAbove } : {}),
    ...(found.check?.availableBelow !== undefined ? { availableBelow: found.check.availableBelow } : {}),
  };
  return replay({ member: ask.member, source: trace.source, samples: trace.samples, recorded, other: { ...recorded, ...ask.timers }, thresholds });
}
