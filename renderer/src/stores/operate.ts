// Operate: each member as the live box sees it, beside the lab's verdict, refreshed while the
// view is open (main keeps one SSH connection for it), runtime changes, and rolling maintenance.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { AdminState, LiveMember, LiveState } from '../../../shared/api/operate';
import { memberKey, type MemberStatus } from '../../../shared/api/types';
import { useApi } from '../api/inject';
import { errorSentence, sentence } from '../lib/errors';
import { clockTime } from '../lib/format';
import { useLab } from './lab';
import { useWorkspace } from './workspace';
import { disagreement } from '../../../shared/api/disagree';

/** Between the end of one look and the next: the loop never overlaps itself. */
export const REFRESH_MS = 1000;
const WAIT_POLL_MS = 200;

export interface OperateRow extends LiveMember {
  lab?: MemberStatus;
  /** Why the box and the lab disagree, when they do. */
  disagree?: string;
  /** Sessions when lbdesk drained it from here (the count falls from it). */
  drainedFrom?: number;
}

export type RollingStep = 'drain' | 'wait-drained' | 'patch' | 'ready' | 'wait-up' | 'done' | 'stopped' | 'failed';
export interface Rolling { members: string[]; index: number; step: RollingStep; since: number }

/** The box and the lab disagree where one has it serving and the other not: the rule `lbdesk state --lab` uses too. */
export { disagreement };

export const useOperate = defineStore('operate', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  const lab = useLab();

  /** The appliance the view operates (undefined: the view is closed). */
  const appliance = ref<string>();
  const live = shallowRef<LiveState>();
  const error = ref('');
  const changing = ref(false);
  const note = ref('');
  const drainedFrom = shallowRef(new Map<string, number>());
  const rolling = shallowRef<Rolling>();
  /** Each open of the view: a late answer from before is dropped. */
  let generation = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const src = () => workspaceStore.source();
  const labSame = computed(() => lab.running && !lab.runsOther);
  const rows = computed<OperateRow[]>(() => (live.value?.members ?? []).map((m) => {
    const l = labSame.value ? lab.members.get(memberKey(m)) : undefined;
    const d = disagreement(m, l);
    const from = drainedFrom.value.get(m.label);
    return { ...m, ...(l ? { lab: l } : {}), ...(d ? { disagree: d } : {}), ...(from !== undefined && m.admin === 'drain' ? { drainedFrom: from } : {}) };
  }));
  const member = (label: string) => live.value?.members.find((m) => m.label === label);

  async function refresh(): Promise<boolean> {
    const a = appliance.value;
    const gen = generation;
    if (!a || !workspaceStore.path) return false;
    try {
      const s = await api.call('appliance.state', { ...(await src()), appliance: a });
      if (gen !== generation) return false;
      live.value = s;
      error.value = '';
      return true;
    } catch (err) {
      if (gen === generation) error.value = errorSentence(err, `ask ${a} for its members`);
      return false;
    }
  }

  /** One look after another while open; a failed look stops the loop (no login per second to a box that refuses). */
  function loop(gen: number): void {
    timer = setTimeout(() => {
      void refresh().then((ok) => {
        if (gen === generation && ok) loop(gen);
      });
    }, REFRESH_MS);
  }

  async function open(name: string): Promise<void> {
    if (appliance.value === name && timer !== undefined) return;
    close();
    appliance.value = name;
    const gen = ++generation;
    if (await refresh()) loop(gen);
  }

  /** Asks again after a failure (and starts the loop again). */
  async function retry(): Promise<void> {
    const a = appliance.value;
    if (!a) return;
    clearTimeout(timer);
    const gen = ++generation;
    if (await refresh()) loop(gen);
  }

  function close(): void {
    clearTimeout(timer);
    timer = undefined;
    generation++;
    const a = appliance.value;
    appliance.value = undefined;
    live.value = undefined;
    error.value = '';
    note.value = '';
    if (rolling.value && !['done', 'failed'].includes(rolling.value.step)) rolling.value = { ...rolling.value, step: 'stopped' };
    if (a) void api.call('appliance.operateEnd', { appliance: a }).catch(() => undefined);
  }

  const WORDS: Record<AdminState, string> = { drain: 'drained', maint: 'in maintenance', ready: 'ready' };
  async function set(labels: string[], admin: AdminState): Promise<boolean> {
    const a = appliance.value;
    if (!a || !labels.length) return false;
    changing.value = true;
    try {
      const r = await api.call('appliance.runtime', { ...(await src()), appliance: a, admin, members: labels });
      if (!r.ok) {
        error.value = sentence(`${a} refused: ${r.refused ?? 'no reason given'}; nothing was changed`);
        return false;
      }
      const from = new Map(drainedFrom.value);
      for (const l of r.members) {
        if (admin === 'drain') from.set(l, member(l)?.sessions ?? 0);
        else from.delete(l);
      }
      drainedFrom.value = from;
      note.value = `${r.members.join(', ')} ${r.members.length === 1 ? 'is' : 'are'} ${WORDS[admin]} on ${a} (${clockTime(Date.now())}).`;
      error.value = '';
      await refresh();
      return true;
    } catch (err) {
      error.value = errorSentence(err, `set ${labels.join(', ')} to ${admin} on ${a}`);
      return false;
    } finally {
      changing.value = false;
    }
  }

  const drained = (l: string) => (member(l)?.sessions ?? 1) === 0;
  const up = (l: string) => {
    const m = member(l);
    return m?.admin === 'ready' && (m.health === 'up' || m.health === 'no-check');
  };
  /** Waits on the refresh loop's looks until `ok`, or the helper is stopped (false). */
  async function waitUntil(r: Rolling, ok: () => boolean): Promise<boolean> {
    while (rolling.value === r && r.step !== 'stopped') {
      if (ok()) return true;
      await new Promise((res) => setTimeout(res, WAIT_POLL_MS));
    }
    return false;
  }
  function step(r: Rolling, s: RollingStep): Rolling {
    const next = { ...r, step: s, since: Date.now() };
    rolling.value = next;
    return next;
  }

  /** One member at a time: drain, wait for no sessions, hand over to the engineer (patch it, then Continue). */
  async function startRolling(labels: string[]): Promise<void> {
    if (!labels.length) return;
    await drainNext({ members: labels, index: 0, step: 'drain', since: Date.now() });
  }
  async function drainNext(r: Rolling): Promise<void> {
    const label = r.members[r.index]!;
    r = step(r, 'drain');
    if (!(await set([label], 'drain'))) return void step(r, 'failed');
    r = step(r, 'wait-drained');
    if (!(await waitUntil(r, () => drained(label)))) return;
    step(r, 'patch');
  }
  /** The engineer is done with the member: ready, wait for it up, then the next one. */
  async function continueRolling(): Promise<void> {
    let r = rolling.value;
    if (!r || r.step !== 'patch') return;
    const label = r.members[r.index]!;
    r = step(r, 'ready');
    if (!(await set([label], 'ready'))) return void step(r, 'failed');
    r = step(r, 'wait-up');
    if (!(await waitUntil(r, () => up(label)))) return;
    if (r.index + 1 >= r.members.length) return void step(r, 'done');
    await drainNext({ ...r, index: r.index + 1 });
  }
  function stopRolling(): void {
    if (rolling.value) rolling.value = { ...rolling.value, step: 'stopped', since: Date.now() };
  }
  function dismissRolling(): void {
    rolling.value = undefined;
  }

  return { appliance, live, rows, error, changing, note, rolling, labSame, open, close, retry, refresh, set, startRolling, continueRolling, stopRolling, dismissRolling };
});
