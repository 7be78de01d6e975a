// Timer combinations that do not do what they look like: a member has one check in flight at a
// time, so a timeout longer than the interval (or the retry interval) stretches it.
import { formatDuration } from './duration';
import type { Issue } from './issues';
import type { PathSegment } from './problem';
import { resolveTimers, type ResolvedTimers } from './resolve';
import type { LooseWorkspace } from './crossref';

function stretch(t: ResolvedTimers, at: PathSegment[]): Issue | undefined {
  const timeout = formatDuration(t.timeout);
  if (t.timeout > t.interval) {
    return { severity: 'warning', path: [...at, 'timeout'], message: `timeout ${timeout} is longer than the interval ${formatDuration(t.interval)}: a server that stops answering is checked every ${timeout} at best, not every ${formatDuration(t.interval)}` };
  }
  if (t.timeout > t.retryInterval) {
    return { severity: 'warning', path: [...at, 'timeout'], message: `timeout ${timeout} is longer than the retryInterval ${formatDuration(t.retryInterval)}: retries of a silent server come every ${timeout} at best` };
  }
  return undefined;
}

/** One warning per healthTimers block that sets the timeout or an interval (over the global ones). */
export function timerIssues(workspace: LooseWorkspace): Issue[] {
  const out: Issue[] = [];
  const global = workspace.healthTimers;
  const add = (i: Issue | undefined) => i && out.push(i);
  if (global) add(stretch(resolveTimers({ global }), ['healthTimers']));
  const own = (t: { timeout?: number; interval?: number; retryInterval?: number } | undefined) => t && (t.timeout !== undefined || t.interval !== undefined || t.retryInterval !== undefined);
  workspace.servers.forEach((s, i) => {
    if (own(s?.healthTimers)) add(stretch(resolveTimers({ server: s!.healthTimers, global }), ['servers', i, 'healthTimers']));
  });
  workspace.groups.forEach((g, i) => {
    if (own(g?.healthTimers)) add(stretch(resolveTimers({ group: g!.healthTimers, global }), ['groups', i, 'healthTimers']));
  });
  workspace.targetSets.forEach((t, i) => {
    if (own(t?.healthTimers)) add(stretch(resolveTimers({ group: t!.healthTimers, global }), ['targetSets', i, 'healthTimers']));
  });
  return out;
}
