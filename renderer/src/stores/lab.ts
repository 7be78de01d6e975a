// The local lab: the health checker and the forwarding engine run on the open workspace, and
// what they report (member states, each check's result, state changes).
import { defineStore } from 'pinia';
import { computed, reactive, ref, shallowReactive, shallowRef, onScopeDispose } from 'vue';
import type { ArgsOf, LabSession, LabStatusEvent, MemberEvent, ResultOf } from '../../../shared/api/contract';
import type { ReplayReport } from '../../../shared/api/whatif';
import type { EngineEvent, FaultKind, PoolStats, ServerStats } from '../../../shared/api/engine';
import type { CheckResult, MemberStatus, StateChange } from '../../../shared/api/types';
import { useApi } from '../api/inject';
import { errorSentence, isUnsupported } from '../lib/errors';
import { useWorkspace, type Raw } from './workspace';
import { sameData } from './mirror';
import { labPart } from '../lib/labPart';
import { poolId } from '../lib/series';
import { useSeries } from './series';

/** Check results kept per member for the sparkline and the timeline. */
export const KEEP_RESULTS = 60;
export const KEEP_CHANGES = 500;
export const KEEP_EVENTS = 300;
/** Engine events the History does not list (shown elsewhere, or too many). */
const HIDDEN_EVENTS = new Set<string>(['stats', 'listening', 'closed', 'state', 'ui']);

export { poolId };

export const useLab = defineStore('lab', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  // The charts' series follow the lab from its first status on.
  const series = useSeries();

  const status = shallowRef<LabStatusEvent>();
  const members = reactive(new Map<string, MemberStatus>());
  const results = shallowReactive(new Map<string, CheckResult[]>());
  const changes = shallowRef<StateChange[]>([]);
  /** Engine events worth a line: refused, redispatched, notices, errors, reloads. */
  const events = shallowRef<EngineEvent[]>([]);
  const busy = ref(false);
  /** The browser's connection to lbdesk dropped and is being made again: nothing here is live. */
  const reconnecting = ref(false);
  const message = ref('');
  const unsupported = ref(false);
  /**
   * The workspace data the lab runs, when this window started or applied it. A lab started
   * elsewhere (another window, `lbdesk serve --ui`, before a reload) read the file: then the file's
   * data as last read or saved here stands in (the contract does not report what the lab runs).
   */
  const applied = shallowRef<{ path: string; raw: Raw }>();
  /**
   * This window looked at a lab already running (or lost the connection for a while): a member's
   * checks from before are asked of the lab once, when its detail first needs them. A lab started
   * here was seen from its first check and is never asked.
   */
  let lookedLate = false;
  const backfilled = new Set<string>();

  const running = computed(() => status.value?.running === true);
  /** The lab runs another file than the open one. */
  const runsOther = computed(() => running.value && !!status.value?.path && status.value.path !== workspaceStore.path);
  /** The lab's part of the open workspace differs from what it runs (by content: undoing back to it clears this). */
  const outOfDate = computed(() => {
    if (!running.value || !workspaceStore.loaded) return false;
    if (runsOther.value) return true;
    const base = applied.value?.path === workspaceStore.path ? applied.value.raw : workspaceStore.savedRaw;
    return !sameData(labPart(workspaceStore.raw), labPart(base));
  });
  const pools = computed(() => {
    const m = new Map<string, PoolStats>();
    for (const p of status.value?.stats?.pools ?? []) m.set(poolId(p), p);
    return m;
  });
  /** Traffic of one member in one pool (a server can serve several services). */
  function traffic(pool: string, key: string): ServerStats | undefined {
    return pools.value.get(pool)?.servers.find((s) => s.key === key);
  }
  const counts = computed(() => {
    const c = { available: 0, degraded: 0, unavailable: 0, disabled: 0, unknown: 0 };
    for (const m of members.values()) c[m.state]++;
    return c;
  });

  /** The lab's status; its members replace ours only when it names them (the set changed). */
  function setStatus(s: LabStatusEvent): void {
    status.value = s;
    if (!s.running || s.path !== applied.value?.path) applied.value = undefined;
    if (!s.members) return;
    const seen = new Set<string>();
    for (const m of s.members) {
      seen.add(m.key);
      members.set(m.key, m);
    }
    for (const k of [...members.keys()]) if (!seen.has(k)) members.delete(k);
  }

  /** A member's news: its status exactly as the health checker holds it, and what made it. */
  function onMember(e: MemberEvent): void {
    members.set(e.member.key, e.member);
    if (e.result) {
      const list = results.get(e.member.key) ?? [];
      results.set(e.member.key, list.length >= KEEP_RESULTS ? [...list.slice(1 - KEEP_RESULTS), e.result] : [...list, e.result]);
    }
    if (e.change) {
      const next = [...changes.value, e.change];
      changes.value = next.length > KEEP_CHANGES ? next.slice(-KEEP_CHANGES) : next;
    }
  }

  /** Changes from the lab merged with those seen live: one of each, in time order. */
  function mergeChanges(older: readonly StateChange[]): void {
    const seen = new Set<string>();
    const merged = [...older, ...changes.value]
      .filter((c) => {
        const id = `${c.key}|${c.at}|${c.to}`;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      })
      .sort((a, b) => a.at - b.at);
    changes.value = merged.length > KEEP_CHANGES ? merged.slice(-KEEP_CHANGES) : merged;
  }

  const offs = [
    api.on('lab.status', setStatus),
    api.on('lab.member', onMember),
    // Back after a drop: what happened meanwhile comes from the lab itself (status, session).
    api.onConnection?.((state) => {
      reconnecting.value = state === 'reconnecting';
      if (state === 'connected') void refresh();
    }) ?? (() => undefined),
    api.on('lab.event', (e) => {
      if (HIDDEN_EVENTS.has(e.type)) return;
      const next = [...events.value, e];
      events.value = next.length > KEEP_EVENTS ? next.slice(-KEEP_EVENTS) : next;
    }),
  ];
  onScopeDispose(() => offs.forEach((f) => f()));

  async function call<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    busy.value = true;
    message.value = '';
    try {
      const out = await fn();
      unsupported.value = false;
      return out;
    } catch (e) {
      unsupported.value = isUnsupported(e);
      message.value = errorSentence(e, what);
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  /** What to run, and the data it is (taken with the text: later typing is not in it). */
  async function source(): Promise<{ src: { path: string; text?: string }; raw: Raw }> {
    return { src: await workspaceStore.source(), raw: workspaceStore.raw };
  }

  async function start(): Promise<boolean> {
    if (!workspaceStore.path) return false;
    const { src, raw } = await source();
    // Before the call: the new session's first checks come while it is answered.
    series.reset();
    const s = await call('start the lab', () => api.call('lab.start', src));
    if (!s) return false;
    applied.value = { path: src.path, raw };
    results.clear();
    changes.value = [];
    lookedLate = false;
    backfilled.clear();
    events.value = [];
    setStatus(s);
    return s.running;
  }

  async function apply(): Promise<boolean> {
    const { src, raw } = await source();
    const s = await call('apply the edits to the lab', () => api.call('lab.apply', src));
    if (!s) return false;
    applied.value = { path: src.path, raw };
    setStatus(s);
    return true;
  }

  async function stop(): Promise<boolean> {
    const s = await call('stop the lab', () => api.call('lab.stop', {}));
    if (!s) return false;
    setStatus(s);
    return true;
  }

  /** The HA fault: stop a box of a pair (its mate takes over) or start it again. */
  async function pairBox(pair: string, box: string, action: 'stop' | 'start'): Promise<boolean> {
    const s = await call(`${action} ${box}`, () => api.call('lab.pairBox', { pair, box, action }));
    if (!s) return false;
    setStatus(s);
    return true;
  }

  /** A fault on the lab's path to a member (`clear` takes it off); the status shows it on the member. */
  async function fault(member: string, kind: FaultKind | 'clear', value?: string): Promise<boolean> {
    const s = await call(kind === 'clear' ? 'clear the fault' : `apply the ${kind} fault`, () => api.call('lab.fault', { member, fault: kind, ...(value ? { value } : {}) }));
    if (!s) return false;
    setStatus(s);
    return true;
  }

  async function toggle(): Promise<boolean> {
    return running.value ? stop() : start();
  }

  /** Quietly asks whether a lab is already running (another window, or `lbdesk serve --ui`), and loads what it saw so far. */
  async function refresh(): Promise<void> {
    try {
      setStatus(await api.call('lab.status', {}));
    } catch (e) {
      unsupported.value = isUnsupported(e);
      return;
    }
    if (running.value) await loadHistory();
  }

  /**
   * The state changes, latest checks and engine events of a lab that ran before this window
   * looked, in one call (`lab.session`), merged with what arrived live meanwhile.
   */
  async function loadHistory(): Promise<void> {
    let session: LabSession;
    try {
      session = await api.call('lab.session', {});
    } catch {
      return; // a nicety: the live events still come
    }
    lookedLate = true;
    backfilled.clear();
    for (const { key, result } of session.latest) if (!results.has(key)) results.set(key, [result]);
    // Changes and events seen live meanwhile are in both: keep one of each.
    mergeChanges(session.changes);
    const shown = session.events.filter((e) => !HIDDEN_EVENTS.has(e.type));
    const ids = new Set(events.value.map((e) => JSON.stringify(e)));
    const all = [...shown.filter((e) => !ids.has(JSON.stringify(e))), ...events.value];
    events.value = all.length > KEEP_EVENTS ? all.slice(-KEEP_EVENTS) : all;
  }

  /**
   * A member's checks from before this window looked, into the one history (`results`,
   * `changes`) its detail reads; once per member, and only when this window looked late.
   * Returns why it could not, if it could not.
   */
  async function backfill(key: string): Promise<string | undefined> {
    if (!lookedLate || !running.value || backfilled.has(key)) return undefined;
    backfilled.add(key);
    try {
      const h = await api.call('lab.history', { key });
      const mine = results.get(key) ?? [];
      const seen = new Set(mine.map((r) => r.at));
      const all = [...h.results.filter((r) => !seen.has(r.at)), ...mine].sort((a, b) => a.at - b.at);
      results.set(key, all.slice(-KEEP_RESULTS));
      mergeChanges(h.changes);
      return undefined;
    } catch (e) {
      backfilled.delete(key);
      return errorSentence(e, 'load the member history');
    }
  }

  /** One check of a group's members now (or of every member), outside the running lab. */
  async function checkNow(group?: string): Promise<ResultOf<'check.run'>> {
    return api.call('check.run', { ...(await workspaceStore.source()), group });
  }

  /** A member's recorded checks replayed under other timers by main's state machine. */
  async function replay(member: string, timers: NonNullable<ArgsOf<'lab.replay'>['timers']>, recorded: { results: readonly CheckResult[]; changes: readonly StateChange[] }): Promise<ReplayReport> {
    return api.call('lab.replay', {
      ...(await workspaceStore.source()), member, historyName: 'the lab\'s history',
      history: JSON.stringify({ results: recorded.results, changes: recorded.changes }), timers,
    });
  }

  return { status, members, results, changes, events, pools, traffic, busy, reconnecting, message, unsupported, running, runsOther, outOfDate, counts, start, apply, stop, toggle, refresh, pairBox, fault, backfill, checkNow, replay, setStatus };
});
