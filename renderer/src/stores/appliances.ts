// Appliances: what a push would change, the push itself with its progress and commit-confirmed
// countdown, push history, and host keys waiting for the user's word.
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref, shallowRef, watch } from 'vue';
import type { DiffResult, HostKeyPrompt, PushHistoryEntry, PushProgress, PushResult, SshPrompt } from '../../../shared/api/contract';
import { useApi } from '../api/inject';
import { errorSentence } from '../lib/errors';
import { isoTime } from '../lib/format';
import { useWorkspace } from './workspace';

/** After a confirm window runs out, how long before the appliance is asked what it did. */
const ROLLBACK_CHECK_MS = 4000;

/** A commit-confirmed push still waiting for Confirm (applied, its timer armed). */
export function waitsForConfirm(r: PushResult | undefined): boolean {
  return r?.outcome === 'applied' && r.confirmBy !== undefined;
}

export const useAppliances = defineStore('appliances', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();

  /** Every appliance's name in file order, '' for one being typed (positions matter). */
  const allNames = computed(() => {
    const list = workspaceStore.raw.appliances;
    return Array.isArray(list) ? list.map((a) => String((a as { name?: unknown })?.name ?? '')) : [];
  });
  const names = computed(() => allNames.value.filter(Boolean));
  /** Which appliance is selected, by position: a name being typed may be empty, or for a moment another's. */
  const selectedIndex = ref<number>();
  /** Its name, read from the position; choosing a name (the header's list) moves the position. */
  const selected = computed<string | undefined>({
    get: () => (selectedIndex.value === undefined ? undefined : allNames.value[selectedIndex.value] || undefined),
    set: (name) => {
      const i = selectedIndex.value;
      if (!name || (i !== undefined && allNames.value[i] === name)) return;
      const at = allNames.value.indexOf(name);
      if (at >= 0) selectedIndex.value = at;
    },
  });
  // Renamed in place (same count): the position holds, whatever the name passes through. Added
  // or removed: the same appliance by its name, else the first.
  watch(allNames, (n, before) => {
    const i = selectedIndex.value;
    if (i !== undefined && before && before.length === n.length) return;
    const name = i !== undefined && before ? before[i] : undefined;
    const at = name ? n.indexOf(name) : -1;
    selectedIndex.value = at >= 0 ? at : n.length ? 0 : undefined;
  }, { immediate: true, flush: 'sync' });

  const diff = shallowRef<DiffResult>();
  /** The workspace revision the diff was made from: edited since, it is out of date. */
  const diffRev = ref(-1);
  const diffStale = computed(() => diff.value !== undefined && diffRev.value !== workspaceStore.rev);
  /** The revisions before and after pinning a host key (see pinHostKey). */
  let pinned: { from: number; to: number } | undefined;
  const diffBusy = ref(false);
  const diffError = ref('');
  /** The diff under way: the appliance, where it dials, and since when (the window counts the seconds). */
  const comparing = shallowRef<{ appliance: string; host: string; since: number }>();
  const comparingNow = ref(Date.now());

  const pushing = ref(false);
  const progress = shallowRef<PushProgress[]>([]);
  const result = shallowRef<PushResult>();
  /** When the last push (or restore) ended: its report says when. */
  const pushedAt = ref<number>();
  /** A history version another section asked to open (the Appliances section shows it). */
  const openVersion = shallowRef<PushHistoryEntry>();
  const pushError = ref('');
  const confirmBy = ref<number>();
  const confirming = ref(false);
  const confirmMessage = ref('');
  const now = ref(Date.now());
  const history = shallowRef<PushHistoryEntry[]>([]);
  const historyError = ref('');
  const hostKeys = ref<HostKeyPrompt[]>([]);
  /** keyboard-interactive rounds (OTP) waiting for the user, oldest first. */
  const sshPrompts = ref<SshPrompt[]>([]);

  // An error is about the appliance's settings when it was said: once they change (auth agent
  // → password), it no longer stands beside the next attempt's.
  const selectedSettings = computed(() => {
    const list = workspaceStore.raw.appliances;
    const i = selectedIndex.value;
    return Array.isArray(list) && i !== undefined ? JSON.stringify(list[i] ?? null) : '';
  });
  watch(selectedSettings, () => {
    diffError.value = '';
    pushError.value = '';
  });

  /** The commit-confirmed window the user chose: kept while they move around the window. */
  const useConfirm = ref(true);
  const confirmSeconds = ref<number | string>(120);
  /** Why the window cannot be used as typed (the contract takes 10 s to 24 h), else ''. */
  const windowError = computed(() => {
    if (!useConfirm.value) return '';
    const s = confirmSeconds.value;
    return typeof s === 'number' && Number.isInteger(s) && s >= 10 && s <= 86_400 ? '' : 'A whole number of seconds from 10 to 86400 (24 h).';
  });

  const secondsLeft = computed(() => (confirmBy.value === undefined ? undefined : Math.max(0, Math.ceil((confirmBy.value - now.value) / 1000))));

  /**
   * What the appliance says of commit-confirmed (read with every diff): a push still waiting
   * brings back its countdown and Confirm; a timer that fired means the push was not
   * confirmed, said in the past tense and in the report.
   */
  function followConfirm(d: DiffResult): void {
    if (d.confirmBy !== undefined) {
      confirmBy.value = d.confirmBy;
      return;
    }
    if (d.rolledBackAt === undefined) return;
    confirmBy.value = undefined;
    // An ISO instant: shown as local time with the ISO in its tooltip (TimeText).
    const when = d.rolledBackAt ? ` at ${isoTime(d.rolledBackAt)}` : '';
    const said = `Not confirmed in time: the appliance restored its previous configuration${when}.`;
    confirmMessage.value = said;
    if (result.value && waitsForConfirm(result.value)) result.value = { ...result.value, outcome: 'rolled-back', reason: said, confirmBy: undefined };
    if (selected.value) void loadHistory(selected.value);
  }

  let ticker: ReturnType<typeof setInterval> | undefined;
  watch(confirmBy, (at) => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
    if (at === undefined) return;
    now.value = Date.now();
    ticker = setInterval(() => {
      now.value = Date.now();
      if (now.value >= at) {
        clearInterval(ticker);
        ticker = undefined;
        confirmMessage.value = 'The confirm window ran out: the appliance is restoring its previous configuration; checking…';
        confirmBy.value = undefined;
        // Ask the appliance a moment later (its timer restores and reloads): the diff says.
        const which = selected.value;
        setTimeout(() => {
          if (which && which === selected.value) void loadDiff(which);
        }, ROLLBACK_CHECK_MS);
      }
    }, 250);
  });

  const offs = [
    api.on('push.progress', (p) => {
      if (pushing.value && p.appliance === currentPush) progress.value = [...progress.value, p];
    }),
    api.on('hostKey.prompt', (p) => {
      hostKeys.value = [...hostKeys.value, p];
    }),
    api.on('ssh.prompt', (p) => {
      sshPrompts.value = [...sshPrompts.value, p];
    }),
  ];
  onScopeDispose(() => {
    offs.forEach((f) => f());
    if (ticker) clearInterval(ticker);
  });

  const src = () => workspaceStore.source();

  /** `user@host:port` of an appliance as the workspace names it. */
  function hostOf(appliance: string): string {
    const list = Array.isArray(workspaceStore.raw.appliances) ? (workspaceStore.raw.appliances as Record<string, unknown>[]) : [];
    const a = list.find((x) => x?.name === appliance) ?? {};
    const user = typeof a.user === 'string' && a.user ? `${a.user}@` : '';
    const port = typeof a.port === 'number' && a.port !== 22 ? `:${a.port}` : '';
    return `${user}${typeof a.host === 'string' ? a.host : '?'}${port}`;
  }

  async function loadDiff(appliance = selected.value): Promise<DiffResult | undefined> {
    if (!appliance) return undefined;
    diffBusy.value = true;
    diffError.value = '';
    // A finished push to another appliance is not this one's story: its steps and report go.
    if (!pushing.value && currentPush && currentPush !== appliance && !waitsForConfirm(result.value)) {
      progress.value = [];
      result.value = undefined;
    }
    comparing.value = { appliance, host: hostOf(appliance), since: Date.now() };
    comparingNow.value = Date.now();
    const tick = setInterval(() => (comparingNow.value = Date.now()), 250);
    try {
      const rev = workspaceStore.rev;
      const d = await api.call('appliance.diff', { ...(await src()), appliance });
      showDiff(appliance, d, rev);
      return d;
    } catch (e) {
      diff.value = undefined;
      diffError.value = errorSentence(e, `compare with ${appliance}`);
      dropFinishedReport();
      return undefined;
    } finally {
      clearInterval(tick);
      comparing.value = undefined;
      diffBusy.value = false;
    }
  }

  /** A diff of `appliance` made from the workspace at revision `rev` goes on screen. */
  function showDiff(appliance: string, d: DiffResult, rev: number): void {
    diff.value = d;
    diffError.value = '';
    diffRev.value = pinned && pinned.from === rev ? pinned.to : rev;
    if (appliance === selected.value) followConfirm(d);
  }

  /** Gives up the diff still connecting (a silent appliance): it ends with "cancelled". */
  async function cancelDiff(): Promise<void> {
    const c = comparing.value;
    if (c) await api.call('appliance.cancel', { appliance: c.appliance }).catch(() => undefined);
  }

  /** A new error makes the last finished push's report old news: it goes (a pending one stays, with its countdown). */
  function dropFinishedReport(): void {
    if (result.value && !waitsForConfirm(result.value)) result.value = undefined;
  }

  let currentPush = '';
  /** Pushes the workspace, or with `restore` a stored version, through the same pipeline. */
  async function push(opts: { dryRun?: boolean; confirmWithinMs?: number; restore?: string } = {}, appliance = selected.value): Promise<PushResult | undefined> {
    if (!appliance || pushing.value) return undefined;
    currentPush = appliance;
    pushing.value = true;
    progress.value = [];
    result.value = undefined;
    pushError.value = '';
    confirmMessage.value = '';
    try {
      const rev = workspaceStore.rev;
      const args = { ...(await src()), appliance, dryRun: opts.dryRun, confirmWithinMs: opts.confirmWithinMs };
      const r = opts.restore ? await api.call('appliance.restore', { ...args, id: opts.restore }) : await api.call('appliance.push', args);
      pushedAt.value = Date.now();
      result.value = r;
      // Also for a push refused because one is still pending: its countdown and Confirm come back.
      confirmBy.value = r.confirmBy;
      void loadHistory(appliance);
      // The appliance changed (or may have): the diff on screen is the one before the push. The
      // push read the one after it over its own login (a one-time code is asked once); only
      // when it could not, a diff of its own.
      if (r.after) showDiff(appliance, r.after, rev);
      else if (!opts.dryRun && r.outcome !== 'refused') void loadDiff(appliance);
      return r;
    } catch (e) {
      pushError.value = errorSentence(e, opts.restore ? `restore version ${opts.restore} on ${appliance}` : opts.dryRun ? `try a dry run on ${appliance}` : `push to ${appliance}`);
      return undefined;
    } finally {
      pushing.value = false;
    }
  }

  async function confirm(appliance = selected.value): Promise<boolean> {
    if (!appliance) return false;
    confirming.value = true;
    try {
      const r = await api.call('appliance.confirm', { ...(await src()), appliance });
      confirmMessage.value = r.reason;
      if (r.confirmed) {
        confirmBy.value = undefined;
        if (result.value && waitsForConfirm(result.value)) result.value = { ...result.value, outcome: 'applied', reason: r.reason, confirmBy: undefined };
      }
      void loadHistory(appliance);
      return r.confirmed;
    } catch (e) {
      confirmMessage.value = errorSentence(e, `confirm the push to ${appliance}`);
      dropFinishedReport();
      return false;
    } finally {
      confirming.value = false;
    }
  }

  async function loadHistory(appliance = selected.value): Promise<void> {
    if (!appliance) return;
    try {
      history.value = await api.call('appliance.history', { appliance });
      historyError.value = '';
    } catch (e) {
      history.value = [];
      historyError.value = errorSentence(e, `load the push history of ${appliance}`);
    }
  }

  /** Sends the answers (null cancels the login); they are kept nowhere. */
  async function answerSshPrompt(id: string, answers: string[] | null): Promise<void> {
    sshPrompts.value = sshPrompts.value.filter((p) => p.id !== id);
    try {
      await api.call('ssh.answer', { id, answers });
    } catch (e) {
      pushError.value = errorSentence(e, 'answer the login question');
    }
  }

  async function answerHostKey(id: string, accept: boolean): Promise<void> {
    const prompt = hostKeys.value.find((p) => p.id === id);
    hostKeys.value = hostKeys.value.filter((p) => p.id !== id);
    try {
      await api.call('hostKey.answer', { id, accept });
      if (accept && prompt) pinHostKey(prompt);
    } catch (e) {
      pushError.value = errorSentence(e, 'answer the host key question');
    }
  }
  /**
   * The key the user accepted goes into the appliance's `hostKey` (the workspace example: "pinned
   * on first connection after the user confirms it"), so the file carries it to every laptop
   * and the CLI; a key already pinned is replaced only when the user answered the changed-key question.
   */
  function pinHostKey(p: HostKeyPrompt): void {
    const list = Array.isArray(workspaceStore.raw.appliances) ? (workspaceStore.raw.appliances as Record<string, unknown>[]) : [];
    let i = list.findIndex((a) => a?.host === p.host && (typeof a?.port === 'number' ? a.port : 22) === p.port);
    // An ssh_config alias resolves to another name: the appliance being worked on is the one.
    if (i < 0 && (diffBusy.value || pushing.value)) i = selectedIndex.value ?? -1;
    // A key already pinned is replaced only by the changed-key question, where the user saw both.
    if (i < 0 || (list[i]?.hostKey && p.reason !== 'changed')) return;
    // The pin changes nothing a push writes: the diff it comes with is not out of date for it.
    const from = workspaceStore.rev;
    workspaceStore.set(['appliances', i, 'hostKey'], p.fingerprint);
    void workspaceStore.settle().then(() => {
      pinned = { from, to: workspaceStore.rev };
      if (diffRev.value === from) diffRev.value = workspaceStore.rev;
    });
    workspaceStore.notice = p.reason === 'changed'
      ? `Replaced the host key of ${String(list[i]?.name ?? p.host)}: known_hosts and the workspace pin (hostKey) now hold ${p.fingerprint}; save to keep the pin.`
      : `Pinned the host key of ${String(list[i]?.name ?? p.host)} in the workspace (hostKey); save to keep it.`;
  }

  return {
    names, selected, selectedIndex, diff, diffStale, diffBusy, diffError, pushing, progress, result, pushError, confirmBy, confirming, confirmMessage,
    secondsLeft, pushedAt, openVersion, history, historyError, hostKeys, sshPrompts, useConfirm, confirmSeconds, windowError, loadDiff, cancelDiff, comparing, comparingNow, push, confirm, loadHistory, answerHostKey, answerSshPrompt,
  };
});
